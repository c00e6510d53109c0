// torch.optim.NAdam, _single_tensor_nadam (capturable=False), for one parameter.
// s(0) = 1 - lr * weight_decay, s(1) = weight_decay, s(2) = 1 - beta1, s(3) = beta2,
// s(4) = 1 - beta2, s(5) = bias_correction2, s(6) = eps,
// s(7) = -lr * (1 - mu) / (1 - mu_product), s(8) = -lr * mu_next / (1 - mu_product * mu_next).
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
    let denom = sqrt(v / s(5)) + s(6);
    x = x + s(7) * g / denom;
    param[at(B_param) + i] = x + s(8) * m / denom;
}
