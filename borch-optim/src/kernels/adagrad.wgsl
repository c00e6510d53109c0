// torch.optim.Adagrad, _single_tensor_adagrad (dense gradients), for one parameter.
// s(0) = lr / (1 + (step - 1) * lr_decay), s(1) = eps, s(2) = weight_decay,
// s(3) = initial_accumulator_value.
@group(0) @binding(#) var<storage, read_write> param: array<f32>;
@group(0) @binding(#) var<storage, read> grad: array<f32>;
@group(0) @binding(#) var<storage, read_write> state_sum: array<f32>;

//#use main
//#if WEIGHT_DECAY
    g = g + s(2) * x;
//#endif
    var acc = s(3);
    if (!fresh(B_state_sum)) { acc = state_sum[at(B_state_sum) + i]; }
    acc = acc + 1.0 * g * g;
    state_sum[at(B_state_sum) + i] = acc;
    let stdv = sqrt(acc) + s(1);
    param[at(B_param) + i] = x + (-s(0)) * g / stdv;
}
