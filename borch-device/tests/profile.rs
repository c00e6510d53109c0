//! Kernel profiling: every dispatch while it is on is timed on its own, counted under its key
//! and grid, and (where the adapter has timestamp queries, as lavapipe and the H200's Vulkan
//! driver do) given the GPU time of its own pass; the results of profiled dispatches equal the
//! unprofiled ones.

mod common;

use borch_device::{Device, PooledBuffer, default_device};

/// `out[i] = x[i] * k`, `k` the bits of `p[1]`.
const SCALE: &str = "x[i] * bitcast<f32>(p[1])";

const N: usize = 256;

fn scale(device: &Device, x: &PooledBuffer, k: f32) -> PooledBuffer {
    let params = [N as u32, k.to_bits()];
    let groups = (N as u32).div_ceil(64);
    common::dispatch_unary(
        device,
        ("test|profile-scale", &common::map_wgsl(SCALE)),
        x,
        &params,
        N,
        groups,
    )
}

fn read(device: &Device, b: &PooledBuffer) -> Vec<f32> {
    common::read_f32(device, b, N)
}

#[test]
fn profiled_dispatches_are_timed_and_unchanged() {
    let device = default_device().unwrap();
    let data: Vec<u8> = (0..N).flat_map(|i| (i as f32).to_le_bytes()).collect();
    let x = device.upload(&data).unwrap();
    let plain = read(&device, &scale(&device, &scale(&device, &x, 2.0), 3.0));

    device.set_profiling(true).unwrap();
    let profiled = scale(&device, &scale(&device, &x, 2.0), 3.0);
    device.set_profiling(false).unwrap();
    assert_eq!(read(&device, &profiled), plain);
    assert_eq!(plain[5], 30.0);

    let times = device.take_profile();
    assert_eq!(times.len(), 1, "{times:?}");
    assert_eq!(times[0].key, "test|profile-scale grid 4x1x1");
    assert_eq!(times[0].count, 2);
    let timestamps = device
        .wgpu_device()
        .features()
        .contains(borch_device::wgpu::Features::TIMESTAMP_QUERY);
    match times[0].gpu {
        Some(gpu) => {
            assert!(timestamps);
            assert!(
                gpu <= times[0].total,
                "GPU {gpu:?} > wall {:?}",
                times[0].total
            );
        }
        None => {
            assert!(!timestamps);
            println!("profile: this adapter has no timestamp queries; wall times only");
        }
    }
    assert!(device.take_profile().is_empty());
}
