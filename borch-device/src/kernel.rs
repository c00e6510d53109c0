/// Threads per workgroup for one-dimensional kernels; WGSL sources use the same number.
pub const WORKGROUP_SIZE: u32 = 256;

/// A compute kernel: a cache key naming the kernel and its specialisation, and its WGSL.
///
/// Binding 0 of group 0 is always the kernel's parameters (`var<storage, read> p: array<u32>`);
/// the buffers passed to a dispatch take bindings 1, 2, … in order.
pub struct Kernel<'a> {
    /// The pipeline cache's key: the kernel and its specialisation.
    pub key: &'a str,
    /// Makes the WGSL source (called once per key, on a cache miss).
    pub source: &'a dyn Fn() -> String,
    /// `false` only where a test proves every index in range: then native targets skip wgpu's
    /// inserted bounds checks. Browsers apply their own robustness regardless.
    pub bounds_checked: bool,
}

/// One buffer bound to a dispatch, with the byte range a tensor occupies in it.
pub struct Binding<'a> {
    /// The storage buffer.
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

/// Most buffers a dispatch binds without a heap allocation for the bind group entries.
const INLINE_BINDINGS: usize = 8;

/// A bind group for `layout`: binding 0 the parameter slot `(buffer, offset, size)`, then
/// `buffers` in order.
pub(crate) fn bind_group(
    device: &wgpu::Device,
    layout: &wgpu::BindGroupLayout,
    (params, offset, size): (&wgpu::Buffer, u64, u64),
    buffers: &[Binding<'_>],
) -> wgpu::BindGroup {
    let params = wgpu::BindingResource::Buffer(wgpu::BufferBinding {
        buffer: params,
        offset,
        size: wgpu::BufferSize::new(size),
    });
    let entry = |i: usize| wgpu::BindGroupEntry {
        binding: i as u32,
        resource: match i {
            0 => params.clone(),
            _ => buffers[i - 1].buffer.as_entire_binding(),
        },
    };
    let n = buffers.len() + 1;
    let descriptor = |entries| wgpu::BindGroupDescriptor {
        label: None,
        layout,
        entries,
    };
    if n <= INLINE_BINDINGS {
        // Entries past `n` repeat binding 0 and are never passed.
        let entries: [wgpu::BindGroupEntry<'_>; INLINE_BINDINGS] =
            std::array::from_fn(|i| entry(if i < n { i } else { 0 }));
        device.create_bind_group(&descriptor(&entries[..n]))
    } else {
        let entries: Vec<_> = (0..n).map(entry).collect();
        device.create_bind_group(&descriptor(&entries))
    }
}
