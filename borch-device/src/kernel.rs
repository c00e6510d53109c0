/// Threads per workgroup for one-dimensional kernels; WGSL sources use the same number.
pub const WORKGROUP_SIZE: u32 = 256;

/// A compute kernel: a cache key naming the kernel and its specialisation, and its WGSL.
///
/// Binding 0 of group 0 is always the kernel's parameters (`var<storage, read> p: array<u32>`);
/// the buffers passed to a dispatch take bindings 1, 2, … in order.
pub struct Kernel<'a> {
    pub key: &'a str,
    pub source: &'a dyn Fn() -> String,
    /// `false` only where a test proves every index in range: then native targets skip wgpu's
    /// inserted bounds checks. Browsers apply their own robustness regardless.
    pub bounds_checked: bool,
}

/// One buffer bound to a dispatch, with the byte range a tensor occupies in it.
pub struct Binding<'a> {
    pub buffer: &'a wgpu::Buffer,
}

/// Workgroup counts for `groups` one-dimensional workgroups, folded into y above `max_x`.
/// Kernels recover the flat index as `(wid.y * nwg.x + wid.x) * WORKGROUP_SIZE + lid.x`.
pub fn grid_for(groups: u32, max_x: u32) -> [u32; 3] {
    if groups <= max_x {
        [groups.max(1), 1, 1]
    } else {
        [max_x, groups.div_ceil(max_x), 1]
    }
}
