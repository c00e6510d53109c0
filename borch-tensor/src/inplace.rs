//! In-place writes under autograd, as torch records them: the tensor written keeps its identity
//! and takes a new `grad_fn` (the op applied to its previous value), its storage's version counter
//! goes up, and a derivative that reads a saved value changed since fails with torch's message.
//!
//! The recorded path computes the op out of place from a copy of the previous value (so the
//! derivative never reads the overwritten storage), writes the result into the tensor and hands
//! the result's node to it; unrecorded in-place ops write directly (one dispatch).

use std::sync::atomic::Ordering;

use crate::autograd::is_grad_enabled;
use crate::dtype::DType;
use crate::error::{Result, runtime};
use crate::kernels::map::{Dest, MapSpec, map};
use crate::layout::fmt_list;
use crate::scalar::Operand;
use crate::tensor::Tensor;

/// torch's name of a node's function in messages: `add` is `Add`, `clamp_min` is `ClampMin`.
pub(crate) fn torch_node_name(op: &str) -> String {
    op.split('_')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_uppercase().chain(c).collect::<String>())
                .unwrap_or_default()
        })
        .collect()
}

/// Fail with torch's message when `t`'s storage changed since a node saved it at `expected`.
pub(crate) fn check_version(
    t: &Tensor,
    expected: u64,
    describe: impl FnOnce() -> String,
) -> Result<()> {
    let now = t.version();
    if now == expected {
        return Ok(());
    }
    let kind = match t.dtype() {
        DType::Float32 => "FloatTensor",
        DType::Int64 => "LongTensor",
        DType::Bool => "BoolTensor",
    };
    runtime(format!(
        "one of the variables needed for gradient computation has been modified by an inplace \
         operation: [torch.{kind} {}]{} is at version {now}; expected version {expected} instead. \
         Hint: enable anomaly detection to find the operation that failed to compute its \
         gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).",
        fmt_list(t.shape()),
        describe()
    ))
}

impl Tensor {
    /// torch's `_version`: how many in-place writes this tensor's storage has had.
    pub fn version(&self) -> u64 {
        self.inner.storage.version.load(Ordering::Relaxed)
    }

    pub(crate) fn bump_version(&self) {
        self.inner.storage.version.fetch_add(1, Ordering::Relaxed);
    }

    /// Whether an in-place write into `self` reading `others` is recorded by autograd.
    pub(crate) fn inplace_records(&self, others: &[&Tensor]) -> bool {
        is_grad_enabled()
            && self.dtype() == DType::Float32
            && (self.requires_grad() || others.iter().any(|t| t.requires_grad()))
    }

    /// Write `self = f(self)` in place. `direct` writes into `self` itself (the path without
    /// autograd); `out_of_place` computes the new value from the previous one, recorded, when
    /// autograd records the write. `others` are the tensors the op reads besides `self`.
    pub(crate) fn inplace_with(
        &self,
        others: &[&Tensor],
        direct: impl FnOnce() -> Result<()>,
        out_of_place: impl FnOnce(&Tensor) -> Result<Tensor>,
    ) -> Result<()> {
        self.check_live()?;
        if !self.inplace_records(others) {
            direct()?;
            self.bump_version();
            return Ok(());
        }
        self.check_inplace()?;
        let previous = self.take_history();
        let result = previous
            .clone_contiguous()
            .and_then(|saved| out_of_place(&saved));
        let result = match result.and_then(|r| self.check_result(r)) {
            Ok(r) => r,
            Err(e) => {
                self.restore_history(&previous);
                return Err(e);
            }
        };
        if let Err(e) = self.write_values(&result) {
            self.restore_history(&previous);
            return Err(e);
        }
        self.bump_version();
        let mut meta = self.autograd();
        let node = result.grad_fn();
        meta.requires_grad = node.is_some();
        meta.node = node;
        Ok(())
    }

    /// `self = f(self)` in place where the op has no direct in-place kernel: `f` computes the
    /// new value out of place (from the previous value, recorded, when autograd records), and
    /// the result is written into `self`.
    pub(crate) fn inplace_from(
        &self,
        others: &[&Tensor],
        f: impl Fn(&Tensor) -> Result<Tensor>,
    ) -> Result<()> {
        self.inplace_with(
            others,
            || {
                let r = self.check_result(f(&self.detach())?)?;
                self.write_values(&r)
            },
            &f,
        )
    }

    /// The in-place op's result must keep `self`'s shape and fit its dtype (torch's messages).
    fn check_result(&self, r: Tensor) -> Result<Tensor> {
        if r.shape() != self.shape() {
            return runtime(format!(
                "output with shape {} doesn't match the broadcast shape {}",
                fmt_list(self.shape()),
                fmt_list(r.shape())
            ));
        }
        if r.dtype() > self.dtype() {
            return runtime(format!(
                "result type {} can't be cast to the desired output type {}",
                r.dtype().scalar_type_name(),
                self.dtype().scalar_type_name()
            ));
        }
        Ok(r)
    }

    /// Move this tensor's recorded history to a new alias of its storage (the "previous value"
    /// the in-place op's node reads), leaving this tensor without a node.
    pub(crate) fn take_history(&self) -> Tensor {
        let previous = self.detach();
        let mut mine = self.autograd();
        let mut theirs = previous.autograd();
        theirs.requires_grad = mine.requires_grad;
        theirs.node = mine.node.take();
        drop(theirs);
        previous
    }

    pub(crate) fn restore_history(&self, previous: &Tensor) {
        let node = previous.autograd().node.take();
        self.autograd().node = node;
    }

    /// Copy `src`'s values into this tensor's elements, unrecorded.
    pub(crate) fn write_values(&self, src: &Tensor) -> Result<()> {
        let compute = if self.dtype() == DType::Float32 || src.dtype() == DType::Float32 {
            DType::Float32
        } else {
            DType::Int64
        };
        let spec = MapSpec {
            expr: "a",
            compute,
            result_bool: false,
            out_dtype: self.dtype(),
            extras: &[],
        };
        map(&spec, &[Operand::Tensor(src.detach())], Dest::Into(self))?;
        Ok(())
    }
}

/// The tensors among `operands`.
pub(crate) fn tensors_of(operands: &[Operand]) -> Vec<&Tensor> {
    operands
        .iter()
        .filter_map(|o| match o {
            Operand::Tensor(t) => Some(t),
            Operand::Scalar(_) => None,
        })
        .collect()
}
