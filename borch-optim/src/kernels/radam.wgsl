// torch.optim.RAdam, _single_tensor_radam (capturable=False), for one parameter.
// s(0)-s(4) as `//#use adam_moments` reads them, s(5) = bias_correction1, s(6) = lr,
// s(7) = sqrt(bias_correction2), s(8) = eps, s(9) = the rectification term (RECTIFY: rho_t > 5).
@group(0) @binding(#) var<storage, read_write> param: array<f32>;
@group(0) @binding(#) var<storage, read> grad: array<f32>;
@group(0) @binding(#) var<storage, read_write> exp_avg: array<f32>;
@group(0) @binding(#) var<storage, read_write> exp_avg_sq: array<f32>;

//#use main
//#use adam_moments
    let corrected = m / s(5);
//#if RECTIFY
    let adaptive = s(7) / (sqrt(v) + s(8));
    param[at(B_param) + i] = x + (-1.0) * (corrected * s(6) * adaptive * s(9));
//#endif
//#if !RECTIFY
    param[at(B_param) + i] = x + (-1.0) * (corrected * s(6));
//#endif
}
