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

/// One training-like step: an upload, a few kernels, a readback, all inside a scope.
fn step(i: usize) -> f32 {
    borch_tensor::scope(|_| {
        let x = Tensor::from_slice(&[i as f32, 1.0, 2.0, 3.0], &[2, 2])?;
        let y = x.matmul(&x)?.relu()?.sum(None, false)?;
        Ok(y.item_blocking()?.to_f64() as f32)
    })
    .unwrap()
}

fn pool_stays_flat_over_a_repeated_step() {
    let dev = default_device().unwrap();
    // Warm-up outlasts the trim age, so buffers of earlier checks are gone by the end of it.
    for i in 0..100 {
        step(i);
    }
    let warm = dev.pooled();
    let live = dev.memory();
    for i in 0..300 {
        step(i);
    }
    assert_eq!(dev.pooled(), warm, "the pool is flat after warm-up");
    assert_eq!(dev.memory(), live, "nothing leaks");
}

fn pool_is_capped_and_trimmed() {
    let dev = default_device().unwrap();
    dev.synchronize().unwrap();
    // Past the cap the oldest buffers go.
    dev.set_pool_limit(64 * 1024);
    let held: Vec<Tensor> = (0..8)
        .map(|_| zeros(&[8192], DType::Float32).unwrap())
        .collect();
    drop(held);
    assert!(dev.pooled().bytes <= 64 * 1024, "{:?}", dev.pooled());
    dev.set_pool_limit(borch_device::DEFAULT_POOL_BYTES);
    // A buffer unused for TRIM_AFTER_SUBMITS submits is destroyed.
    drop(zeros(&[3, 331], DType::Float32).unwrap());
    let with = dev.pooled();
    let x = Tensor::new([1.0f32]).unwrap();
    for _ in 0..borch_device::TRIM_AFTER_SUBMITS + 16 {
        x.to_vec_blocking::<f32>().unwrap();
    }
    assert!(
        dev.pooled().buffers < with.buffers,
        "{:?} then {:?}",
        with,
        dev.pooled()
    );
}

fn a_loop_without_readback_is_submitted_in_bounded_batches() {
    let dev = default_device().unwrap();
    dev.synchronize().unwrap();
    let s0 = dev.submits();
    let x = Tensor::new([1.0f32, 2.0]).unwrap();
    let n = borch_device::MAX_DISPATCHES_PER_SUBMIT;
    for _ in 0..2 * n {
        drop(x.add(1.0).unwrap());
    }
    assert_eq!(dev.submits() - s0, 2, "one submit per {n} dispatches");
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
    pool_stays_flat_over_a_repeated_step();
    pool_is_capped_and_trimmed();
    a_loop_without_readback_is_submitted_in_bounded_batches();
}
