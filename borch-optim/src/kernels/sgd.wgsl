// torch.optim.SGD, _single_tensor_sgd, for one parameter.
// s(0) = lr, s(1) = weight_decay, s(2) = momentum, s(3) = 1 - dampening.
@group(0) @binding(#) var<storage, read_write> param: array<f32>;
@group(0) @binding(#) var<storage, read> grad: array<f32>;
//#if MOMENTUM
@group(0) @binding(#) var<storage, read_write> momentum_buffer: array<f32>;
//#endif

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if (i >= n()) { return; }
    let x = param[at(B_param) + i];
    var g = grad[at(B_grad) + i];
//#if MAXIMIZE
    g = -g;
//#endif
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
