//! A whole training checkpoint in one safetensors file: the model's `state_dict()` under
//! `model.`, the optimizer's per-parameter state under `optimizer.state.{index}.` (scalars such as
//! `step` as 0-dim float32 tensors, as torch keeps them), torch's CPU RNG state as the uint8
//! tensor `rng_state` (the bytes of `torch.get_rng_state()`), and in `__metadata__` the optimizer's
//! `param_groups`, the scheduler's `state_dict()` and the epoch as JSON. docs/checkpoints.md.

use std::collections::BTreeMap;

use borch_optim::lr_scheduler::Scheduler;
use borch_optim::{Optimizer, SCALAR_STATE_KEYS, StateDict as OptimStateDict, StateValue};
use borch_tensor::random::GeneratorState;
use borch_tensor::{BorchError, HostData, Result};

use super::codec::{self, FileContents, FileData, FileEntry};
use super::tensors::{entry_of, tensor_of};
use crate::module::Module;
use crate::state_dict::StateDict;

/// `__metadata__["format"]` of a borch training checkpoint.
pub const CHECKPOINT_FORMAT: &str = "borch.checkpoint.v1";

const MODEL: &str = "model.";
const OPTIMIZER: &str = "optimizer.";
const RNG: &str = "rng_state";

/// What a checkpoint restores besides the tensors it copies into the model and optimizer.
#[derive(Debug, Clone, PartialEq)]
pub struct Resumed {
    /// The epoch saved with the checkpoint.
    pub epoch: i64,
}

/// The bytes of a checkpoint of `model`, `optimizer`, `scheduler` (if any), `epoch` and the
/// default generator's state (waits for the GPU's copies).
pub async fn save_checkpoint(
    model: &dyn Module,
    optimizer: &dyn Optimizer,
    scheduler: Option<&Scheduler>,
    epoch: i64,
) -> Result<Vec<u8>> {
    let mut entries = Vec::new();
    for (name, t) in model.state_dict().iter() {
        entries.push(entry_of(&format!("{MODEL}{name}"), t).await?);
    }
    let (state, groups) = optimizer.state_dict().to_flat();
    for (name, value) in state {
        let name = format!("{OPTIMIZER}{name}");
        entries.push(match value {
            StateValue::Tensor(t) => entry_of(&name, &t).await?,
            StateValue::Step(s) => FileEntry {
                name,
                shape: vec![],
                data: FileData::Tensor(HostData::F32(vec![s as f32])),
            },
        });
    }
    let rng = borch_tensor::default_generator()
        .get_state()
        .to_torch_bytes();
    entries.push(FileEntry {
        name: RNG.into(),
        shape: vec![rng.len()],
        data: FileData::Bytes(rng),
    });
    let mut metadata = BTreeMap::new();
    metadata.insert("format".into(), CHECKPOINT_FORMAT.into());
    metadata.insert("epoch".into(), epoch.to_string());
    metadata.insert("optimizer.name".into(), optimizer.name().into());
    metadata.insert("optimizer.param_groups".into(), groups.to_string());
    if let Some(s) = scheduler {
        metadata.insert("scheduler.name".into(), s.name().into());
        let state = borch_optim::dict_to_json(&s.state_dict()?);
        metadata.insert("scheduler".into(), state.to_string());
    }
    codec::encode(&FileContents { entries, metadata })
}

fn bad(msg: impl std::fmt::Display) -> BorchError {
    BorchError::Value(format!("not a borch training checkpoint: {msg}"))
}

fn json(metadata: &BTreeMap<String, String>, key: &str) -> Result<serde_json::Value> {
    let text = metadata
        .get(key)
        .ok_or_else(|| bad(format!("no '{key}' in its metadata")))?;
    serde_json::from_str(text).map_err(|e| bad(format!("'{key}' is not JSON: {e}")))
}

/// Restore a checkpoint `save_checkpoint` wrote (strictly: every key of the model, the
/// optimizer's and scheduler's names must match) and return its epoch. Everything is decoded and
/// checked before anything is copied, so a refused file leaves the training untouched up to the
/// model's own strict load.
pub fn load_checkpoint(
    bytes: &[u8],
    model: &dyn Module,
    optimizer: &mut dyn Optimizer,
    scheduler: Option<&mut Scheduler>,
) -> Result<Resumed> {
    let contents = codec::decode(bytes)?;
    let meta = &contents.metadata;
    if meta.get("format").map(String::as_str) != Some(CHECKPOINT_FORMAT) {
        return Err(bad(format!(
            "its metadata 'format' is not '{CHECKPOINT_FORMAT}'"
        )));
    }
    let epoch: i64 = meta
        .get("epoch")
        .and_then(|e| e.parse().ok())
        .ok_or_else(|| bad("no integer 'epoch' in its metadata"))?;
    let saved_optim = meta.get("optimizer.name").map(String::as_str);
    if saved_optim != Some(optimizer.name()) {
        return Err(bad(format!(
            "it holds the state of optimizer {saved_optim:?}, not {}",
            optimizer.name()
        )));
    }
    let mut model_sd = StateDict::new();
    let mut optim_entries = Vec::new();
    let mut rng = None;
    for e in &contents.entries {
        if let Some(key) = e.name.strip_prefix(MODEL) {
            model_sd.insert(key, tensor_of(e)?);
        } else if let Some(key) = e.name.strip_prefix(OPTIMIZER) {
            optim_entries.push((key.to_string(), optim_value(key, e)?));
        } else if e.name == RNG {
            let FileData::Bytes(b) = &e.data else {
                return Err(bad("'rng_state' is not a uint8 tensor"));
            };
            rng = Some(GeneratorState::from_torch_bytes(b)?);
        } else {
            return Err(bad(format!("unexpected key '{}'", e.name)));
        }
    }
    let optim_sd =
        OptimStateDict::from_flat(optim_entries, &json(meta, "optimizer.param_groups")?)?;
    let sched_state = match (&scheduler, meta.get("scheduler.name")) {
        (Some(s), Some(name)) if name == s.name() => {
            Some(borch_optim::dict_from_json(&json(meta, "scheduler")?)?)
        }
        (None, None) => None,
        (s, saved) => {
            return Err(bad(format!(
                "it holds the state of scheduler {saved:?}, not {:?}",
                s.as_ref().map(|s| s.name())
            )));
        }
    };
    model.load_state_dict(&model_sd, true)?;
    optimizer.load_state_dict(&optim_sd)?;
    if let (Some(s), Some(state)) = (scheduler, sched_state) {
        s.load_state_dict(&state)?;
    }
    if let Some(state) = rng {
        borch_tensor::default_generator().set_state(&state);
    }
    Ok(Resumed { epoch })
}

/// An optimizer entry: a host scalar for torch's scalar-tensor keys, else a tensor.
fn optim_value(key: &str, e: &FileEntry) -> Result<StateValue> {
    let name = key.rsplit('.').next().unwrap_or(key);
    if SCALAR_STATE_KEYS.contains(&name) {
        return match &e.data {
            FileData::Tensor(HostData::F32(v)) if v.len() == 1 && e.shape.is_empty() => {
                Ok(StateValue::Step(f64::from(v[0])))
            }
            _ => Err(bad(format!(
                "optimizer state '{key}' is not a float32 scalar"
            ))),
        };
    }
    Ok(StateValue::Tensor(tensor_of(e)?))
}

/// `save_checkpoint` written to `path` (native only).
#[cfg(not(target_arch = "wasm32"))]
pub fn save_checkpoint_file(
    path: impl AsRef<std::path::Path>,
    model: &dyn Module,
    optimizer: &dyn Optimizer,
    scheduler: Option<&Scheduler>,
    epoch: i64,
) -> Result<()> {
    let bytes = pollster::block_on(save_checkpoint(model, optimizer, scheduler, epoch))?;
    std::fs::write(path.as_ref(), bytes)
        .map_err(|e| super::tensors::io_error("write", path.as_ref(), e))
}
