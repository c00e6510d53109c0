//! Record and replay at the device level, with one raw kernel (`out[i] = in[i] + p[1]`): a
//! replay writes each dispatch's new parameters into its recorded slot and reuses the recorded
//! bind groups; a dispatch that differs (workgroups) diverges, is recorded, and the next call
//! replays it; the results always equal the eager ones. Two calls of one trace without a submit
//! between them: the second submits the first's commands before rewriting their parameters.

mod common;

use borch_device::{Device, PooledBuffer, Trace, TraceOutcome, default_device};

/// `out[i] = x[i] + k`, `k` the bits of `p[1]`.
const ADD: &str = "x[i] + bitcast<f32>(p[1])";

const N: usize = 64;

fn add(device: &Device, x: &PooledBuffer, k: f32, groups: u32) -> PooledBuffer {
    let params = [N as u32, k.to_bits()];
    common::dispatch_unary(
        device,
        ("test|trace-add", &common::map_wgsl(ADD)),
        x,
        &params,
        N,
        groups,
    )
}

fn read(device: &Device, b: &PooledBuffer) -> Vec<f32> {
    common::read_f32(device, b, N)
}

/// Three chained adds of `k`, `2k`, `3k` (the last with `groups` workgroups).
fn chain(device: &Device, x: &PooledBuffer, k: f32, groups: u32) -> PooledBuffer {
    let a = add(device, x, k, 1);
    let b = add(device, &a, 2.0 * k, 1);
    drop(a);
    add(device, &b, 3.0 * k, groups)
}

#[test]
fn replays_rewrite_parameters_reuse_bind_groups_and_diverge_safely() {
    let device = default_device().unwrap();
    let input: Vec<u8> = (0..N).flat_map(|i| (i as f32).to_le_bytes()).collect();
    let x = device.upload(&input).unwrap();
    let want = |k: f32| (0..N).map(|i| i as f32 + 6.0 * k).collect::<Vec<f32>>();
    let mut trace = Trace::new();
    // (k, workgroups of the last add, expected outcome)
    let calls = [
        (1.0, 1, TraceOutcome::Recorded),
        (2.0, 1, TraceOutcome::Replayed),
        (3.0, 1, TraceOutcome::Replayed),
        (4.0, 2, TraceOutcome::Diverged { at: 5 }),
        (5.0, 2, TraceOutcome::Replayed),
    ];
    for (k, groups, expected) in calls {
        let b0 = device.bind_groups_created();
        let s0 = device.submits();
        device.begin_trace(trace).unwrap();
        assert!(
            device.begin_trace(Trace::new()).is_err(),
            "traces do not nest"
        );
        let out = chain(&device, &x, k, groups);
        let (back, outcome) = device.end_trace().unwrap().unwrap();
        trace = back;
        let made = device.bind_groups_created() - b0;
        assert_eq!(outcome, expected, "k = {k}");
        assert_eq!(read(&device, &out), want(k), "k = {k}");
        assert_eq!(device.submits() - s0, 1, "k = {k}: one submit, the read's");
        match outcome {
            TraceOutcome::Recorded => assert_eq!(made, 3),
            TraceOutcome::Replayed => assert_eq!(made, 0, "k = {k}"),
            // Two adds replayed, the third recorded anew.
            TraceOutcome::Diverged { .. } => assert_eq!(made, 1),
        }
        assert!(trace.is_recorded());
        assert_eq!(trace.len(), 6, "three allocs, three dispatches");
    }
    // Two replays back to back, no read between: the first's parameters must not be rewritten
    // under its pending commands.
    let mut outs = Vec::new();
    for k in [8.0, 9.0] {
        device.begin_trace(trace).unwrap();
        outs.push(chain(&device, &x, k, 2));
        let (back, outcome) = device.end_trace().unwrap().unwrap();
        assert_eq!(outcome, TraceOutcome::Replayed);
        trace = back;
    }
    assert_eq!(read(&device, &outs[0]), want(8.0));
    assert_eq!(read(&device, &outs[1]), want(9.0));
    // Eager after the trace: untouched.
    let out = chain(&device, &x, 7.0, 1);
    assert_eq!(read(&device, &out), want(7.0));
    assert!(device.end_trace().unwrap().is_none());
}
