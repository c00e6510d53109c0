// torch.optim.ASGD, _single_tensor_asgd (capturable=False), for one parameter.
// s(0) = 1 - lambd * eta, s(1) = eta, s(2) = mu, s(3) = weight_decay; AX_COPY when mu == 1.
@group(0) @binding(#) var<storage, read_write> param: array<f32>;
@group(0) @binding(#) var<storage, read> grad: array<f32>;
@group(0) @binding(#) var<storage, read_write> ax: array<f32>;

//#use main
//#if WEIGHT_DECAY
    g = g + s(3) * x;
//#endif
    x = x * s(0);
    x = x + (-s(1)) * g;
    param[at(B_param) + i] = x;
//#if AX_COPY
    ax[at(B_ax) + i] = x;
//#endif
//#if !AX_COPY
    var a = 0.0;
    if (!fresh(B_ax)) { a = ax[at(B_ax) + i]; }
    ax[at(B_ax) + i] = a + (x - a) * s(2);
//#endif
}
