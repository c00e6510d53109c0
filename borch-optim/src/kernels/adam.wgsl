// torch.optim.Adam / AdamW, _single_tensor_adam (capturable=False), for one parameter.
// s(0)-s(4) as `//#use adam_moments` reads them, s(5) = lr / bias_correction1,
// s(6) = sqrt(bias_correction2), s(7) = eps.
@group(0) @binding(#) var<storage, read_write> param: array<f32>;
@group(0) @binding(#) var<storage, read> grad: array<f32>;
@group(0) @binding(#) var<storage, read_write> exp_avg: array<f32>;
@group(0) @binding(#) var<storage, read_write> exp_avg_sq: array<f32>;
//#if AMSGRAD
@group(0) @binding(#) var<storage, read_write> max_exp_avg_sq: array<f32>;
//#endif

//#use main
//#use adam_moments
//#if AMSGRAD
    var vmax = 0.0;
    if (!fresh(B_max_exp_avg_sq)) { vmax = max_exp_avg_sq[at(B_max_exp_avg_sq) + i]; }
    vmax = max_f(vmax, v);
    max_exp_avg_sq[at(B_max_exp_avg_sq) + i] = vmax;
    let denom = sqrt(vmax) / s(6) + s(7);
//#endif
//#if !AMSGRAD
    let denom = sqrt(v) / s(6) + s(7);
//#endif
    param[at(B_param) + i] = x + (-s(5)) * m / denom;
}
