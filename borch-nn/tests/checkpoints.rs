//! safetensors interop and resumable checkpoints: files torch wrote
//! (`tests/checkpoints/fixtures_torch.py make`) load into borch's modules and give torch's
//! logits; borch's files are left in `$CARGO_TARGET_TMPDIR/checkpoints` for the same script's
//! `check`; a resumed run's losses equal the uninterrupted run's bit for bit.

mod common;

use std::collections::BTreeMap;
use std::path::PathBuf;

use borch_nn::serialization::{self, load_checkpoint, save_checkpoint};
use borch_nn::{Dropout, Linear, Module, ReLU, Sequential, StateDict, sequential};
use borch_optim::lr_scheduler::{Scheduler, StepLR};
use borch_optim::{Adam, AdamOptions, Optimizer};
use borch_tensor::random::GeneratorState;
use borch_tensor::{Tensor, default_generator, manual_seed, rand, randn};

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/checkpoints/fixtures"
    ))
    .join(name)
}

fn out_dir() -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("checkpoints");
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn mlp() -> Sequential {
    sequential![
        Linear::new(8, 16).unwrap(),
        ReLU::new(),
        Linear::new(16, 4).unwrap(),
    ]
}

fn max_abs_diff(a: &Tensor, b: &Tensor) -> f32 {
    assert_eq!(a.shape(), b.shape());
    let (a, b) = (
        a.to_vec_blocking::<f32>().unwrap(),
        b.to_vec_blocking::<f32>().unwrap(),
    );
    a.iter()
        .zip(&b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
}

#[test]
fn torch_mlp_file_loads_and_gives_torchs_logits() {
    let _rng = common::rng_lock();
    let model = mlp();
    let sd = serialization::load_file(fixture("mlp.safetensors")).unwrap();
    assert_eq!(sd.len(), 4);
    let keys = model.load_state_dict(&sd, true).unwrap();
    assert!(keys.missing_keys.is_empty() && keys.unexpected_keys.is_empty());
    let io = serialization::load_file(fixture("mlp_io.safetensors")).unwrap();
    let logits = model.forward(io.get("input").unwrap()).unwrap();
    let err = max_abs_diff(&logits, io.get("logits").unwrap());
    eprintln!("MLP from torch: max |borch - torch| logits = {err:e}");
    assert!(err <= 1e-5, "max |borch - torch| = {err}");

    // Move the weights off torch's, then leave borch's file and logits for the torch check.
    manual_seed(3);
    for p in model.parameters() {
        borch_autograd::no_grad(|| p.add_(randn(p.shape(), None).unwrap(), 0.1)).unwrap();
    }
    let x = randn(&[5, 8], None).unwrap();
    let logits = model.forward(&x).unwrap();
    let d = out_dir();
    serialization::save_file(
        &model.state_dict(),
        d.join("borch_mlp.safetensors"),
        &BTreeMap::new(),
    )
    .unwrap();
    let io: StateDict = [
        ("input".to_string(), x),
        ("logits".to_string(), logits.detach()),
    ]
    .into_iter()
    .collect();
    serialization::save_file(&io, d.join("borch_mlp_io.safetensors"), &BTreeMap::new()).unwrap();
    // And borch reads its own file back to the same values.
    let back = serialization::load_file(d.join("borch_mlp.safetensors")).unwrap();
    for (k, t) in model.state_dict().iter() {
        assert_eq!(max_abs_diff(t, back.get(k).unwrap()), 0.0, "{k}");
    }
}

#[test]
fn int64_and_bool_keep_torchs_dtypes() {
    let _rng = common::rng_lock();
    let sd: StateDict = [
        (
            "n".to_string(),
            Tensor::from_slice(&[3i64, -7, i64::from(i32::MAX)], &[3]).unwrap(),
        ),
        (
            "b".to_string(),
            Tensor::from_slice(&[true, false], &[2]).unwrap(),
        ),
        ("s".to_string(), Tensor::from_slice(&[2.5f32], &[]).unwrap()),
    ]
    .into_iter()
    .collect();
    let bytes = pollster::block_on(serialization::save(&sd, &BTreeMap::new())).unwrap();
    let header = String::from_utf8_lossy(&bytes[8..]).to_string();
    assert!(
        header.contains(r#""n":{"dtype":"I64","shape":[3]"#),
        "{header}"
    );
    assert!(
        header.contains(r#""b":{"dtype":"BOOL","shape":[2]"#),
        "{header}"
    );
    assert!(
        header.contains(r#""s":{"dtype":"F32","shape":[]"#),
        "{header}"
    );
    let back = serialization::load(&bytes).unwrap();
    assert_eq!(
        back.get("n").unwrap().to_vec_blocking::<i64>().unwrap(),
        [3, -7, 2147483647]
    );
    assert_eq!(
        back.get("b").unwrap().to_vec_blocking::<bool>().unwrap(),
        [true, false]
    );
    assert_eq!(back.get("s").unwrap().shape(), &[] as &[usize]);
}

#[test]
fn rng_state_is_torchs_get_rng_state() {
    let _rng = common::rng_lock();
    let file =
        serialization::codec::decode(&std::fs::read(fixture("rng.safetensors")).unwrap()).unwrap();
    let serialization::codec::FileData::Bytes(torch_bytes) = &file.entries[0].data else {
        panic!("rng_state is uint8");
    };
    manual_seed(7);
    rand(&[5], None).unwrap();
    let state = default_generator().get_state();
    assert_eq!(&state.to_torch_bytes(), torch_bytes);
    let after: Vec<f32> = rand(&[4], None).unwrap().to_vec_blocking().unwrap();
    manual_seed(0);
    default_generator().set_state(&GeneratorState::from_torch_bytes(torch_bytes).unwrap());
    assert_eq!(
        rand(&[4], None).unwrap().to_vec_blocking::<f32>().unwrap(),
        after
    );
    let err = GeneratorState::from_torch_bytes(&torch_bytes[..100]).unwrap_err();
    assert!(
        err.to_string()
            .contains("found the input RNG state size to be 100"),
        "{err}"
    );
}

/// A model whose forward draws from the RNG (dropout), Adam and StepLR over fresh random data
/// each epoch: everything a resume must restore.
struct Run {
    model: Sequential,
    opt: Adam,
    sched: Scheduler,
}

fn new_run(seed: u64) -> Run {
    manual_seed(seed);
    let model = sequential![
        Linear::new(8, 16).unwrap(),
        ReLU::new(),
        Linear::new(16, 4).unwrap(),
        Dropout::new(0.25).unwrap(),
    ];
    let mut opt = Adam::new(model.parameters(), AdamOptions::new(1e-2)).unwrap();
    let sched = Scheduler::Epoch("StepLR", Box::new(StepLR::new(&mut opt, 2, 0.5).unwrap()));
    Run { model, opt, sched }
}

fn epoch(run: &mut Run) -> u32 {
    let x = randn(&[6, 8], None).unwrap();
    run.opt.zero_grad(true).unwrap();
    let loss = run
        .model
        .forward(&x)
        .unwrap()
        .square()
        .unwrap()
        .mean(None, false)
        .unwrap();
    borch_autograd::backward(&loss, None, false).unwrap();
    run.opt.step().unwrap();
    run.sched.step(&mut run.opt, None).unwrap();
    (loss.item_blocking().unwrap().to_f64() as f32).to_bits()
}

#[test]
fn resumed_training_matches_uninterrupted_bit_for_bit() {
    let _rng = common::rng_lock();
    let mut whole = new_run(11);
    let expected: Vec<u32> = (0..6).map(|_| epoch(&mut whole)).collect();

    let mut first = new_run(11);
    let mut losses: Vec<u32> = (0..3).map(|_| epoch(&mut first)).collect();
    let bytes = pollster::block_on(save_checkpoint(
        &first.model,
        &first.opt,
        Some(&first.sched),
        3,
    ))
    .unwrap();
    std::fs::write(out_dir().join("borch_checkpoint.safetensors"), &bytes).unwrap();
    drop(first);

    // A fresh process's view: other weights, fresh optimizer and scheduler, another RNG state.
    let mut resumed = new_run(12345);
    randn(&[17], None).unwrap();
    let got = load_checkpoint(
        &bytes,
        &resumed.model,
        &mut resumed.opt,
        Some(&mut resumed.sched),
    )
    .unwrap();
    assert_eq!(got.epoch, 3);
    assert_eq!(resumed.opt.lr(0), whole_lr_after(3));
    losses.extend((3..6).map(|_| epoch(&mut resumed)));
    assert_eq!(
        losses, expected,
        "resumed losses differ from the uninterrupted run's"
    );
}

/// StepLR(step_size=2, gamma=0.5) from lr 1e-2 after `n` steps.
fn whole_lr_after(n: i32) -> f64 {
    1e-2 * 0.5f64.powi(n / 2)
}

#[test]
fn checkpoint_for_another_optimizer_is_refused() {
    let _rng = common::rng_lock();
    let run = new_run(1);
    let bytes = pollster::block_on(save_checkpoint(&run.model, &run.opt, None, 0)).unwrap();
    let model = mlp();
    let mut sgd =
        borch_optim::SGD::new(model.parameters(), borch_optim::SgdOptions::new(0.1)).unwrap();
    let err = load_checkpoint(&bytes, &model, &mut sgd, None).unwrap_err();
    assert!(
        err.to_string()
            .contains("optimizer Some(\"Adam\"), not SGD"),
        "{err}"
    );
    let mut sched = Scheduler::Epoch("StepLR", Box::new(StepLR::new(&mut sgd, 2, 0.5).unwrap()));
    let mut adam = Adam::new(model.parameters(), AdamOptions::new(1e-2)).unwrap();
    let err = load_checkpoint(&bytes, &model, &mut adam, Some(&mut sched)).unwrap_err();
    assert!(
        err.to_string()
            .contains("scheduler None, not Some(\"StepLR\")"),
        "{err}"
    );
}
