// torch.optim.Adadelta, _single_tensor_adadelta, for one parameter.
// s(0) = lr, s(1) = rho, s(2) = 1 - rho, s(3) = eps, s(4) = weight_decay.
@group(0) @binding(#) var<storage, read_write> param: array<f32>;
@group(0) @binding(#) var<storage, read> grad: array<f32>;
@group(0) @binding(#) var<storage, read_write> square_avg: array<f32>;
@group(0) @binding(#) var<storage, read_write> acc_delta: array<f32>;

//#use main
//#if WEIGHT_DECAY
    g = g + s(4) * x;
//#endif
    var sq = 0.0;
    if (!fresh(B_square_avg)) { sq = square_avg[at(B_square_avg) + i]; }
    var acc = 0.0;
    if (!fresh(B_acc_delta)) { acc = acc_delta[at(B_acc_delta) + i]; }
    sq = sq * s(1);
    sq = sq + s(2) * g * g;
    let stdv = sqrt(sq + s(3));
    var delta = sqrt(acc + s(3));
    delta = delta / stdv;
    delta = delta * g;
    acc = acc * s(1);
    acc = acc + s(2) * delta * delta;
    square_avg[at(B_square_avg) + i] = sq;
    acc_delta[at(B_acc_delta) + i] = acc;
    param[at(B_param) + i] = x + (-s(0)) * delta;
}
