// torch.optim.RMSprop, _single_tensor_rmsprop, for one parameter.
// s(0) = lr, s(1) = alpha, s(2) = 1 - alpha, s(3) = eps, s(4) = weight_decay, s(5) = momentum.
@group(0) @binding(#) var<storage, read_write> param: array<f32>;
@group(0) @binding(#) var<storage, read> grad: array<f32>;
@group(0) @binding(#) var<storage, read_write> square_avg: array<f32>;
//#if CENTERED
@group(0) @binding(#) var<storage, read_write> grad_avg: array<f32>;
//#endif
//#if MOMENTUM
@group(0) @binding(#) var<storage, read_write> momentum_buffer: array<f32>;
//#endif

//#use main
//#if WEIGHT_DECAY
    g = g + s(4) * x;
//#endif
    var sq = 0.0;
    if (!fresh(B_square_avg)) { sq = square_avg[at(B_square_avg) + i]; }
    sq = sq * s(1);
    sq = sq + s(2) * g * g;
    square_avg[at(B_square_avg) + i] = sq;
//#if CENTERED
    var ga = 0.0;
    if (!fresh(B_grad_avg)) { ga = grad_avg[at(B_grad_avg) + i]; }
    ga = lerp_(ga, g, s(2));
    grad_avg[at(B_grad_avg) + i] = ga;
    var avg = sqrt(sq + (-1.0) * ga * ga);
//#endif
//#if !CENTERED
    var avg = sqrt(sq);
//#endif
    avg = avg + s(3);
//#if MOMENTUM
    var buf = 0.0;
    if (!fresh(B_momentum_buffer)) { buf = momentum_buffer[at(B_momentum_buffer) + i]; }
    buf = buf * s(5);
    buf = buf + g / avg;
    momentum_buffer[at(B_momentum_buffer) + i] = buf;
    param[at(B_param) + i] = x + (-s(0)) * buf;
//#endif
//#if !MOMENTUM
    param[at(B_param) + i] = x + (-s(0)) * g / avg;
//#endif
}
