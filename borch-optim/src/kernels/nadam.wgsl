// torch.optim.NAdam, _single_tensor_nadam (capturable=False), for one parameter.
// s(0)-s(4) as `//#use adam_moments` reads them, s(5) = bias_correction2, s(6) = eps,
// s(7) = -lr * (1 - mu) / (1 - mu_product), s(8) = -lr * mu_next / (1 - mu_product * mu_next).
@group(0) @binding(#) var<storage, read_write> param: array<f32>;
@group(0) @binding(#) var<storage, read> grad: array<f32>;
@group(0) @binding(#) var<storage, read_write> exp_avg: array<f32>;
@group(0) @binding(#) var<storage, read_write> exp_avg_sq: array<f32>;

//#use main
//#use adam_moments
    let denom = sqrt(v / s(5)) + s(6);
    x = x + s(7) * g / denom;
    param[at(B_param) + i] = x + s(8) * m / denom;
}
