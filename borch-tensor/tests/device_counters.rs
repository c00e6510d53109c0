//! The device's batching, pool and counters, seen through tensors. One #[test] runs the checks
//! in sequence, so no other thread's dispatches land in the counts.

use borch_tensor::{DType, Tensor, default_device, zeros};

fn dispatches_are_batched_until_readback() {
    let dev = default_device().unwrap();
    let x = Tensor::new([1.0f32, 2.0, 3.0]).unwrap();
    dev.synchronize().unwrap();
    let (d0, s0) = (dev.dispatches(), dev.submits());
    let y = x.exp().unwrap().mul(2.0).unwrap().add(1.0).unwrap();
    assert_eq!(
        dev.dispatches() - d0,
        3,
        "three elementwise ops record three dispatches"
    );
    y.to_vec_blocking::<f32>().unwrap();
    assert_eq!(dev.submits() - s0, 1, "a readback submits the batch once");
}

fn pool_reuses_freed_buffers_and_memory_tracks_live_tensors() {
    let dev = default_device().unwrap();
    // A size no other test uses, so the counts below are this test's own.
    let shape = [7, 1013];
    let before = dev.memory();
    let a = zeros(&shape, DType::Float32).unwrap();
    let bytes = dev.memory().bytes - before.bytes;
    assert!(bytes >= (7 * 1013 * 4) as u64);
    drop(a);
    let pooled = dev.pooled();
    assert!(pooled.buffers >= 1 && pooled.bytes >= bytes);
    let b = zeros(&shape, DType::Float32).unwrap();
    assert_eq!(
        dev.pooled().buffers,
        pooled.buffers - 1,
        "the freed buffer was reused"
    );
    b.to_vec_blocking::<f32>().unwrap();
}

fn pipelines_are_cached_by_kernel() {
    let dev = default_device().unwrap();
    let x = Tensor::new([0.25f32, 0.5]).unwrap();
    x.atanh().unwrap().to_vec_blocking::<f32>().unwrap();
    let cached = dev.pipelines_cached();
    x.atanh().unwrap().to_vec_blocking::<f32>().unwrap();
    assert_eq!(
        dev.pipelines_cached(),
        cached,
        "the second call compiles nothing"
    );
}

fn adapter_is_named_and_judged() {
    let info = default_device().unwrap().adapter_info().clone();
    assert!(!info.device.is_empty());
    println!("adapter: {info}");
    if info.device.contains("llvmpipe") {
        assert!(info.is_software);
        assert_eq!(info.vendor, "mesa");
    }
}

#[test]
fn device_counters() {
    adapter_is_named_and_judged();
    dispatches_are_batched_until_readback();
    pool_reuses_freed_buffers_and_memory_tracks_live_tensors();
    pipelines_are_cached_by_kernel();
}
