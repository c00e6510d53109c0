//! What the device tests share: one raw kernel dispatched over `out` and `x`, and a readback.

use borch_device::{Binding, Device, Kernel, PooledBuffer};

/// A kernel setting `out[i]` to `expr` of `x[i]` and the params `p` for `i < p[0]`.
pub fn map_wgsl(expr: &str) -> String {
    format!(
        "@group(0) @binding(0) var<storage, read> p: array<u32>;\n\
         @group(0) @binding(1) var<storage, read_write> out: array<f32>;\n\
         @group(0) @binding(2) var<storage, read> x: array<f32>;\n\
         @compute @workgroup_size(64)\n\
         fn main(@builtin(global_invocation_id) gid: vec3<u32>) {{\n\
         \x20   let i = gid.x;\n\
         \x20   if (i >= p[0]) {{ return; }}\n\
         \x20   out[i] = {expr};\n\
         }}\n"
    )
}

/// `out = wgsl(x, params)` of `n` floats: `key`'s kernel over `groups` workgroups.
pub fn dispatch_unary(
    device: &Device,
    (key, wgsl): (&str, &str),
    x: &PooledBuffer,
    params: &[u32],
    n: usize,
    groups: u32,
) -> PooledBuffer {
    let out = device.alloc((n * 4) as u64).unwrap();
    let source = || wgsl.to_string();
    let kernel = Kernel {
        key,
        source: &source,
        bounds_checked: true,
    };
    let bindings = [out.buffer(), x.buffer()].map(|buffer| Binding { buffer });
    device
        .dispatch(&kernel, &bindings, params, [groups, 1, 1])
        .unwrap();
    out
}

/// The first `n` floats of `b`.
pub fn read_f32(device: &Device, b: &PooledBuffer, n: usize) -> Vec<f32> {
    let bytes = pollster::block_on(device.read(b.buffer(), 0, (n * 4) as u64)).unwrap();
    bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}
