// torch.optim.Adam / AdamW, _single_tensor_adam (capturable=False), for one parameter.
// s(0) = lr / bias_correction1, s(1) = sqrt(bias_correction2), s(2) = eps,
// s(3) = weight_decay, s(4) = 1 - lr * weight_decay, s(5) = 1 - beta1, s(6) = beta2,
// s(7) = 1 - beta2.
@group(0) @binding(#) var<storage, read_write> param: array<f32>;
@group(0) @binding(#) var<storage, read> grad: array<f32>;
@group(0) @binding(#) var<storage, read_write> exp_avg: array<f32>;
@group(0) @binding(#) var<storage, read_write> exp_avg_sq: array<f32>;
//#if AMSGRAD
@group(0) @binding(#) var<storage, read_write> max_exp_avg_sq: array<f32>;
//#endif

//#main
//#if WEIGHT_DECAY
//#if DECOUPLED
    x = x * s(4);
//#endif
//#if !DECOUPLED
    g = g + s(3) * x;
//#endif
//#endif
    var m = 0.0;
    if (!fresh(B_exp_avg)) { m = exp_avg[at(B_exp_avg) + i]; }
    var v = 0.0;
    if (!fresh(B_exp_avg_sq)) { v = exp_avg_sq[at(B_exp_avg_sq) + i]; }
    m = lerp_(m, g, s(5));
    v = v * s(6);
    v = v + s(7) * g * g;
    exp_avg[at(B_exp_avg) + i] = m;
    exp_avg_sq[at(B_exp_avg_sq) + i] = v;
//#if AMSGRAD
    var vmax = 0.0;
    if (!fresh(B_max_exp_avg_sq)) { vmax = max_exp_avg_sq[at(B_max_exp_avg_sq) + i]; }
    vmax = max_f(vmax, v);
    max_exp_avg_sq[at(B_max_exp_avg_sq) + i] = vmax;
    let denom = sqrt(vmax) / s(1) + s(2);
//#endif
//#if !AMSGRAD
    let denom = sqrt(v) / s(1) + s(2);
//#endif
    param[at(B_param) + i] = x + (-s(0)) * m / denom;
}
