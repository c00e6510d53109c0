// torch.optim.Rprop, _single_tensor_rprop (capturable=False), for one parameter.
// s(0) = lr (the first step size), s(1) = etaminus, s(2) = etaplus, s(3) = step_size_min,
// s(4) = step_size_max.
@group(0) @binding(#) var<storage, read_write> param: array<f32>;
@group(0) @binding(#) var<storage, read> grad: array<f32>;
@group(0) @binding(#) var<storage, read_write> prev: array<f32>;
@group(0) @binding(#) var<storage, read_write> step_size: array<f32>;

//#use main
    var p = 0.0;
    if (!fresh(B_prev)) { p = prev[at(B_prev) + i]; }
    var size = s(0);
    if (!fresh(B_step_size)) { size = step_size[at(B_step_size) + i]; }
    let product = g * p;
    var factor = 1.0;
    if (product > 0.0) { factor = s(2); }
    if (product < 0.0) { factor = s(1); }
    size = clamp_f(size * factor, s(3), s(4));
    if (factor == s(1)) { g = 0.0; }
    step_size[at(B_step_size) + i] = size;
    prev[at(B_prev) + i] = g;
    param[at(B_param) + i] = x + (-1.0) * sign_f(g) * size;
}
