//! BatchNorm folded into the convolution (or linear map) before it, for eval-mode forwards:
//! the folded weight and bias are `nn.utils.fusion`'s (`fuse_conv_bn_weights`), cached per
//! module and recomputed when any of the tensors they come from has been written (storage
//! version counters: an optimizer step, `load_state_dict`, a train-mode forward updating the
//! running statistics) or replaced.
//!
//! When autograd would record (grad mode on and a parameter requiring grad) the fold is computed
//! afresh on every call, recorded, so the gradients reach the conv's and BatchNorm's parameters
//! as torch's unfolded eval forward gives them; under `no_grad` (inference) the cached fold is
//! reused and the forward is the one fused convolution.

use std::cell::RefCell;

use borch_autograd::no_grad;
use borch_tensor::{Result, Tensor, conv2d_fused, is_grad_enabled, keep_alive};

use crate::module::Module;
use crate::utils::fusion::{fold_conv_bn, fold_linear_bn};
use crate::{BatchNorm2d, Conv2d};

/// The BatchNorm tensors a fold reads (a `_BatchNorm` with running statistics).
pub struct BnParts<'a> {
    /// torch's `running_mean` buffer.
    pub running_mean: &'a Tensor,
    /// torch's `running_var` buffer.
    pub running_var: &'a Tensor,
    /// The BatchNorm's `eps`.
    pub eps: f64,
    /// The BatchNorm's `weight` (`None` without `affine`).
    pub weight: Option<&'a Tensor>,
    /// The BatchNorm's `bias` (`None` without `affine`).
    pub bias: Option<&'a Tensor>,
}

/// Which weight layout is folded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FoldKind {
    /// A convolution's `(C_out, C_in / groups, *k)` weight.
    Conv,
    /// A transposed convolution's `(C_in, C_out / groups, *k)` weight.
    ConvTranspose,
    /// A linear map's `(out, in)` weight.
    Linear,
}

type Key = Vec<(u64, u64)>;

/// A module's folded weight and bias, kept until one of their sources changes.
#[derive(Default)]
pub struct FoldCache {
    cached: RefCell<Option<(Key, Tensor, Tensor)>>,
}

impl FoldCache {
    /// An empty cache.
    pub fn new() -> FoldCache {
        FoldCache::default()
    }

    /// Forget the cached fold.
    pub fn clear(&self) {
        self.cached.replace(None);
    }

    /// Whether a fold is cached (for tests).
    pub fn is_cached(&self) -> bool {
        self.cached.borrow().is_some()
    }

    /// The folded `(weight, bias)` of `weight`/`bias` followed by `bn`.
    pub fn folded(
        &self,
        kind: FoldKind,
        weight: &Tensor,
        bias: Option<&Tensor>,
        bn: &BnParts,
    ) -> Result<(Tensor, Tensor)> {
        let sources = [
            Some(weight),
            bias,
            Some(bn.running_mean),
            Some(bn.running_var),
            bn.weight,
            bn.bias,
        ];
        let fold = || match kind {
            FoldKind::Conv => fold_conv_bn(weight, bias, bn, false),
            FoldKind::ConvTranspose => fold_conv_bn(weight, bias, bn, true),
            FoldKind::Linear => fold_linear_bn(weight, bias, bn),
        };
        if is_grad_enabled() && sources.iter().flatten().any(|t| t.requires_grad()) {
            return fold();
        }
        let key: Key = sources
            .iter()
            .map(|t| t.map_or((0, 0), |t| (t.id(), t.version())))
            .collect();
        if let Some((k, w, b)) = &*self.cached.borrow()
            && *k == key
        {
            return Ok((w.clone(), b.clone()));
        }
        let (w, b) = no_grad(fold)?;
        let (w, b) = (keep_alive(&w), keep_alive(&b));
        self.cached.replace(Some((key, w.clone(), b.clone())));
        Ok((w, b))
    }
}

/// The BatchNorm's parts when it would use its running statistics (eval mode with them);
/// `None` when it uses the batch's (training mode, or no running statistics).
macro_rules! bn_parts {
    ($bn:expr) => {
        match ($bn.running_mean(), $bn.running_var()) {
            (Some(rm), Some(rv)) if !$crate::Module::is_training($bn) => {
                Some($crate::intrinsic::fold::BnParts {
                    running_mean: rm,
                    running_var: rv,
                    eps: $bn.eps,
                    weight: $bn.weight(),
                    bias: $bn.bias(),
                })
            }
            _ => None,
        }
    };
}
pub(crate) use bn_parts;

/// `relu(conv(input; weight, bias) + residual)` with `conv`'s geometry (stride, padding,
/// `padding_mode`, dilation, groups) and the given weight and bias: one `conv2d_fused`.
pub fn conv2d_epilogue(
    conv: &Conv2d,
    input: &Tensor,
    weight: &Tensor,
    bias: Option<&Tensor>,
    residual: Option<&Tensor>,
    relu: bool,
) -> Result<Tensor> {
    let (input, padding) = conv.padded_input(input)?;
    let signed = |v: &[usize]| v.iter().map(|&x| x as isize).collect::<Vec<_>>();
    conv2d_fused(
        &input,
        weight,
        bias,
        residual,
        relu,
        &signed(&conv.stride),
        &padding,
        &signed(&conv.dilation),
        conv.groups as isize,
    )
}

/// `relu(bn(conv(input)) + residual)` (residual and ReLU optional) as a ResNet block computes
/// it: in eval mode with running statistics, BatchNorm folded into the convolution (cached in
/// `fold`) and the whole expression one `conv2d_fused`; otherwise conv, BatchNorm (batch
/// statistics, running statistics updated, as torch), add and ReLU one after the other.
///
/// This is the hook for modules whose structure is known (torchvision's BasicBlock and
/// Bottleneck): keep a `FoldCache` per Conv-BN pair and call this from the eval forward after
/// `fuse_for_eval`.
pub fn conv_bn2d_forward(
    conv: &Conv2d,
    bn: &BatchNorm2d,
    fold: &FoldCache,
    input: &Tensor,
    residual: Option<&Tensor>,
    relu: bool,
) -> Result<Tensor> {
    let Some(parts) = bn_parts!(bn) else {
        let mut y = bn.forward(&conv.forward(input)?)?;
        if let Some(r) = residual {
            y = y.add(r)?;
        }
        return if relu { y.relu() } else { Ok(y) };
    };
    let (w, b) = fold.folded(FoldKind::Conv, &conv.weight, conv.bias.as_ref(), &parts)?;
    conv2d_epilogue(conv, input, &w, Some(&b), residual, relu)
}
