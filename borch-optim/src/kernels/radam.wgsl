// torch.optim.RAdam, _single_tensor_radam (capturable=False), for one parameter.
// s(0) = 1 - lr * weight_decay, s(1) = weight_decay, s(2) = 1 - beta1, s(3) = beta2,
// s(4) = 1 - beta2, s(5) = bias_correction1, s(6) = lr, s(7) = sqrt(bias_correction2),
// s(8) = eps, s(9) = the rectification term (RECTIFY: rho_t > 5).
@group(0) @binding(#) var<storage, read_write> param: array<f32>;
@group(0) @binding(#) var<storage, read> grad: array<f32>;
@group(0) @binding(#) var<storage, read_write> exp_avg: array<f32>;
@group(0) @binding(#) var<storage, read_write> exp_avg_sq: array<f32>;

//#main
//#if WEIGHT_DECAY
//#if DECOUPLED
    x = x * s(0);
//#endif
//#if !DECOUPLED
    g = g + s(1) * x;
//#endif
//#endif
    var m = 0.0;
    if (!fresh(B_exp_avg)) { m = exp_avg[at(B_exp_avg) + i]; }
    var v = 0.0;
    if (!fresh(B_exp_avg_sq)) { v = exp_avg_sq[at(B_exp_avg_sq) + i]; }
    m = lerp_(m, g, s(2));
    v = v * s(3);
    v = v + s(4) * g * g;
    exp_avg[at(B_exp_avg) + i] = m;
    exp_avg_sq[at(B_exp_avg_sq) + i] = v;
    let corrected = m / s(5);
//#if RECTIFY
    let adaptive = s(7) / (sqrt(v) + s(8));
    param[at(B_param) + i] = x + (-1.0) * (corrected * s(6) * adaptive * s(9));
//#endif
//#if !RECTIFY
    param[at(B_param) + i] = x + (-1.0) * (corrected * s(6));
//#endif
}
