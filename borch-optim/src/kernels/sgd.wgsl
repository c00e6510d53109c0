// torch.optim.SGD, _single_tensor_sgd, for one parameter.
// s(0) = lr, s(1) = weight_decay, s(2) = momentum, s(3) = 1 - dampening.
@group(0) @binding(#) var<storage, read_write> param: array<f32>;
@group(0) @binding(#) var<storage, read> grad: array<f32>;
//#if MOMENTUM
@group(0) @binding(#) var<storage, read_write> momentum_buffer: array<f32>;
//#endif

//#use main
//#if WEIGHT_DECAY
    g = g + s(1) * x;
//#endif
//#if MOMENTUM
    var buf = g;
    if (!fresh(B_momentum_buffer)) {
        buf = momentum_buffer[at(B_momentum_buffer) + i] * s(2);
        buf = buf + s(3) * g;
    }
    momentum_buffer[at(B_momentum_buffer) + i] = buf;
//#if NESTEROV
    g = g + s(2) * buf;
//#endif
//#if !NESTEROV
    g = buf;
//#endif
//#endif
    param[at(B_param) + i] = x + (-s(0)) * g;
}
