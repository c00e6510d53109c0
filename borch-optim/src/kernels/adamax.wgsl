// torch.optim.Adamax, _single_tensor_adamax (capturable=False), for one parameter.
// s(0) = lr / (1 - beta1^step), s(1) = eps, s(2) = weight_decay, s(3) = 1 - beta1, s(4) = beta2.
@group(0) @binding(#) var<storage, read_write> param: array<f32>;
@group(0) @binding(#) var<storage, read> grad: array<f32>;
@group(0) @binding(#) var<storage, read_write> exp_avg: array<f32>;
@group(0) @binding(#) var<storage, read_write> exp_inf: array<f32>;

//#use main
//#if WEIGHT_DECAY
    g = g + s(2) * x;
//#endif
    var m = 0.0;
    if (!fresh(B_exp_avg)) { m = exp_avg[at(B_exp_avg) + i]; }
    var u = 0.0;
    if (!fresh(B_exp_inf)) { u = exp_inf[at(B_exp_inf) + i]; }
    m = lerp_(m, g, s(3));
    u = max_f(u * s(4), abs(g) + s(1));
    exp_avg[at(B_exp_avg) + i] = m;
    exp_inf[at(B_exp_inf) + i] = u;
    param[at(B_param) + i] = x + (-s(0)) * m / u;
}
