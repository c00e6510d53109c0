//! loralib's `lora.Linear` and `lora.Conv2d` (Microsoft's LoRA, `loralib` 0.1.2). The Linear's
//! frozen `weight` is adapted by a trainable low-rank product,
//! `y = x Wᵀ + b + (dropout(x) Aᵀ Bᵀ) · alpha / r`, with
//! `lora_A` `(r, in_features)` and `lora_B` `(out_features, r)` as the module's own parameters
//! (state_dict keys `weight`, `bias`, `lora_A`, `lora_B`, so the base layer's keys are
//! unchanged). As loralib's, `eval()` merges `B A · alpha / r` into `weight` and `train()`
//! takes it out again (when `merge_weights`); the forward then runs the plain Linear.

use borch_autograd::no_grad;
use borch_tensor::{BorchError, Result, Tensor};

use super::{Conv2d, ConvOptions, Dropout, Linear, parameter, present};
use crate::display_as_repr;
use crate::functional as F;
use crate::init;
use crate::module::Module;

/// loralib's `lora.Linear(in_features, out_features, r, lora_alpha, lora_dropout, merge_weights,
/// bias)` (`fan_in_fan_out` is not taken).
pub struct LoRALinear {
    /// Input features.
    pub in_features: usize,
    /// Output features.
    pub out_features: usize,
    /// The adapter's rank (0: a plain Linear, no adapter).
    pub r: usize,
    /// loralib's `lora_alpha`; the adapter is scaled by `lora_alpha / r`.
    pub lora_alpha: f64,
    /// The base weight `(out_features, in_features)`, frozen when `r > 0`.
    pub weight: Tensor,
    /// The base bias (trainable, as loralib leaves it).
    pub bias: Option<Tensor>,
    /// `lora_A`: `(r, in_features)`, kaiming-uniform initialised.
    pub lora_a: Option<Tensor>,
    /// `lora_B`: `(out_features, r)`, zero initialised.
    pub lora_b: Option<Tensor>,
    /// Dropout on the adapter's input (`None` for p = 0, as loralib's identity lambda).
    pub lora_dropout: Option<Dropout>,
    /// Whether `eval()` merges the adapter into `weight` (and `train()` unmerges it).
    pub merge_weights: bool,
    merged: bool,
    training: bool,
}

impl LoRALinear {
    /// `lora.Linear(in_features, out_features, r=r, lora_alpha=lora_alpha,
    /// lora_dropout=lora_dropout, merge_weights=merge_weights, bias=bias)`, initialised as
    /// loralib does: nn.Linear's init, then `reset_parameters` (nn.Linear's init again,
    /// `kaiming_uniform_(lora_A, a=sqrt(5))`, `zeros_(lora_B)`), so after `manual_seed(s)` the
    /// values are loralib's.
    pub fn new(
        in_features: usize,
        out_features: usize,
        r: usize,
        lora_alpha: f64,
        lora_dropout: f64,
        merge_weights: bool,
        bias: bool,
    ) -> Result<LoRALinear> {
        let base = Linear::with_bias(in_features, out_features, bias)?;
        let m = LoRALinear::adapt(base, r, lora_alpha, lora_dropout, merge_weights, false)?;
        m.reset_parameters()?;
        Ok(m)
    }

    /// An existing Linear adapted (what [`crate::utils::lora::apply_lora`] does): its weight and
    /// bias kept, `lora_A` drawn by kaiming-uniform, `lora_B` zeros, the weight frozen.
    pub fn from_linear(
        base: Linear,
        r: usize,
        lora_alpha: f64,
        lora_dropout: f64,
        merge_weights: bool,
    ) -> Result<LoRALinear> {
        LoRALinear::adapt(base, r, lora_alpha, lora_dropout, merge_weights, true)
    }

    fn adapt(
        base: Linear,
        r: usize,
        lora_alpha: f64,
        lora_dropout: f64,
        merge_weights: bool,
        init_adapter: bool,
    ) -> Result<LoRALinear> {
        let (lora_a, lora_b) = if r > 0 {
            base.weight.set_requires_grad(false)?;
            let a = parameter(&[r, base.in_features])?;
            let b = parameter(&[base.out_features, r])?;
            init::zeros_(&a)?;
            init::zeros_(&b)?;
            (Some(a), Some(b))
        } else {
            (None, None)
        };
        let m = LoRALinear {
            in_features: base.in_features,
            out_features: base.out_features,
            r,
            lora_alpha,
            weight: base.weight,
            bias: base.bias,
            lora_a,
            lora_b,
            lora_dropout: if lora_dropout > 0.0 {
                Some(Dropout::new(lora_dropout)?)
            } else {
                None
            },
            merge_weights,
            merged: false,
            training: true,
        };
        if init_adapter {
            m.init_adapter()?;
        }
        Ok(m)
    }

    /// loralib's `reset_parameters`: nn.Linear's, then the adapter's.
    pub fn reset_parameters(&self) -> Result<()> {
        let base = Linear::from_tensors(self.weight.clone(), self.bias.clone())?;
        base.reset_parameters()?;
        self.init_adapter()
    }

    fn init_adapter(&self) -> Result<()> {
        if let (Some(a), Some(b)) = (&self.lora_a, &self.lora_b) {
            init::kaiming_uniform_(a, 5.0f64.sqrt(), "fan_in", "leaky_relu")?;
            init::zeros_(b)?;
        }
        Ok(())
    }

    /// `lora_alpha / r`.
    pub fn scaling(&self) -> f64 {
        self.lora_alpha / self.r as f64
    }

    /// Whether `weight` holds the merged adapter.
    pub fn is_merged(&self) -> bool {
        self.merged
    }

    /// `B A · scaling`, shaped as `weight`.
    fn delta(&self) -> Result<Option<Tensor>> {
        match (&self.lora_a, &self.lora_b) {
            (Some(a), Some(b)) => Ok(Some(b.matmul(a)?.mul(self.scaling())?)),
            _ => Ok(None),
        }
    }

    /// Add the adapter into `weight` (loralib's eval-mode merge); nothing when merged already.
    pub fn merge(&mut self) -> Result<()> {
        if !self.merged {
            no_grad(|| match self.delta()? {
                Some(d) => self.weight.add_(&d, 1.0),
                None => Ok(()),
            })?;
            self.merged = true;
        }
        Ok(())
    }

    /// Take the adapter out of `weight` again; nothing when not merged.
    pub fn unmerge(&mut self) -> Result<()> {
        if self.merged {
            no_grad(|| match self.delta()? {
                Some(d) => self.weight.sub_(&d, 1.0),
                None => Ok(()),
            })?;
            self.merged = false;
        }
        Ok(())
    }
}

impl Module for LoRALinear {
    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        let y = F::linear(x, &self.weight, self.bias.as_ref())?;
        match (&self.lora_a, &self.lora_b) {
            (Some(a), Some(b)) if !self.merged => {
                let h = match &self.lora_dropout {
                    Some(d) => d.forward(x)?,
                    None => x.clone(),
                };
                let adapter = h.matmul(&a.transpose(0, 1)?)?.matmul(&b.transpose(0, 1)?)?;
                y.add(&adapter.mul(self.scaling())?)
            }
            _ => Ok(y),
        }
    }
    /// loralib's class is `lora.Linear`: it prints as nn.Linear.
    fn name(&self) -> String {
        "Linear".into()
    }
    fn extra_repr(&self) -> String {
        super::linear::linear_extra_repr(self.in_features, self.out_features, self.bias.is_some())
    }
    fn own_parameters(&self) -> Vec<(String, Tensor)> {
        present(&[
            ("weight", Some(&self.weight)),
            ("bias", self.bias.as_ref()),
            ("lora_A", self.lora_a.as_ref()),
            ("lora_B", self.lora_b.as_ref()),
        ])
    }
    fn named_children(&self) -> Vec<(String, &dyn Module)> {
        match &self.lora_dropout {
            Some(d) => vec![("lora_dropout".into(), d as &dyn Module)],
            None => Vec::new(),
        }
    }
    fn named_children_mut(&mut self) -> Vec<(String, &mut dyn Module)> {
        match &mut self.lora_dropout {
            Some(d) => vec![("lora_dropout".into(), d as &mut dyn Module)],
            None => Vec::new(),
        }
    }
    fn is_training(&self) -> bool {
        self.training
    }
    /// loralib's `train(mode)`: with `merge_weights`, eval merges and train unmerges. A merge
    /// that fails (no device) leaves the weights as they were.
    fn set_training(&mut self, mode: bool) {
        self.training = mode;
        if self.merge_weights && self.r > 0 {
            let _ = if mode { self.unmerge() } else { self.merge() };
        }
    }
}

display_as_repr!(LoRALinear, LoRAConv2d);

/// loralib's `lora.Conv2d(in_channels, out_channels, kernel_size, r, lora_alpha, merge_weights,
/// **conv options)`: the convolution is a child `conv` (keys `lora_A`, `lora_B`, `conv.weight`,
/// `conv.bias`), adapted by `(lora_B @ lora_A).view(conv.weight.shape) · alpha / r` with
/// `lora_A` `(r·k, in·k)` and `lora_B` `(out/groups·k, r·k)`; with `r = 0` (loralib's default)
/// there is no adapter and the weight stays trainable (keys `conv.weight`, `conv.bias`).
/// loralib's forward applies no dropout to a Conv2d adapter, so none is taken.
pub struct LoRAConv2d {
    /// The adapted convolution (its weight frozen).
    pub conv: Conv2d,
    /// The adapter's rank.
    pub r: usize,
    /// loralib's `lora_alpha`.
    pub lora_alpha: f64,
    /// `lora_A`: `(r·k, in_channels·k)` (none for `r = 0`).
    pub lora_a: Option<Tensor>,
    /// `lora_B`: `(out_channels / groups · k, r·k)` (none for `r = 0`).
    pub lora_b: Option<Tensor>,
    /// Whether `eval()` merges the adapter into `conv.weight` (and `train()` unmerges it).
    pub merge_weights: bool,
    merged: bool,
    training: bool,
}

impl LoRAConv2d {
    /// `lora.Conv2d(in_channels, out_channels, kernel_size, r=r, lora_alpha=lora_alpha,
    /// merge_weights=merge_weights, **options)` with loralib's init (the convolution's init,
    /// then `reset_parameters`: the convolution's again, `kaiming_uniform_(lora_A, a=sqrt(5))`,
    /// `zeros_(lora_B)`).
    pub fn new(
        in_channels: usize,
        out_channels: usize,
        kernel_size: usize,
        r: usize,
        lora_alpha: f64,
        merge_weights: bool,
        options: ConvOptions,
    ) -> Result<LoRAConv2d> {
        let conv = Conv2d::with_options(in_channels, out_channels, &[kernel_size], options)?;
        let k = kernel_size;
        let (lora_a, lora_b) = if r > 0 {
            conv.weight.set_requires_grad(false)?;
            let a = parameter(&[r * k, in_channels * k])?;
            (
                Some(a),
                Some(parameter(&[out_channels / conv.groups * k, r * k])?),
            )
        } else {
            (None, None)
        };
        let m = LoRAConv2d {
            conv,
            r,
            lora_alpha,
            lora_a,
            lora_b,
            merge_weights,
            merged: false,
            training: true,
        };
        m.conv.reset_parameters()?;
        if let (Some(a), Some(b)) = (&m.lora_a, &m.lora_b) {
            init::kaiming_uniform_(a, 5.0f64.sqrt(), "fan_in", "leaky_relu")?;
            init::zeros_(b)?;
        }
        if m.delta_len().is_some_and(|n| n != m.conv.weight.numel()) {
            return Err(BorchError::Value(format!(
                "lora.Conv2d: lora_B @ lora_A has {} elements, the weight {} (loralib's layout \
                 needs groups=1)",
                m.delta_len().unwrap_or(0),
                m.conv.weight.numel()
            )));
        }
        Ok(m)
    }

    fn delta_len(&self) -> Option<usize> {
        match (&self.lora_a, &self.lora_b) {
            (Some(a), Some(b)) => Some(b.shape()[0] * a.shape()[1]),
            _ => None,
        }
    }

    /// `(B A).view(weight.shape) · scaling` (none without an adapter).
    fn delta(&self) -> Result<Option<Tensor>> {
        let (Some(a), Some(b)) = (&self.lora_a, &self.lora_b) else {
            return Ok(None);
        };
        let shape: Vec<isize> = self
            .conv
            .weight
            .shape()
            .iter()
            .map(|&d| d as isize)
            .collect();
        b.matmul(a)?
            .reshape(&shape)?
            .mul(self.lora_alpha / self.r as f64)
            .map(Some)
    }

    /// Whether `conv.weight` holds the merged adapter.
    pub fn is_merged(&self) -> bool {
        self.merged
    }

    /// Add the adapter into `conv.weight`; nothing when merged already.
    pub fn merge(&mut self) -> Result<()> {
        if !self.merged {
            no_grad(|| match self.delta()? {
                Some(d) => self.conv.weight.add_(&d, 1.0),
                None => Ok(()),
            })?;
            self.merged = true;
        }
        Ok(())
    }

    /// Take the adapter out of `conv.weight`; nothing when not merged.
    pub fn unmerge(&mut self) -> Result<()> {
        if self.merged {
            no_grad(|| match self.delta()? {
                Some(d) => self.conv.weight.sub_(&d, 1.0),
                None => Ok(()),
            })?;
            self.merged = false;
        }
        Ok(())
    }
}

impl Module for LoRAConv2d {
    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        let delta = match self.delta()? {
            Some(d) if !self.merged => d,
            _ => return self.conv.forward(x),
        };
        let weight = self.conv.weight.add(&delta)?;
        self.conv
            .with_parameters(weight, self.conv.bias.clone())
            .forward(x)
    }
    /// loralib's class is `lora.Conv2d`.
    fn name(&self) -> String {
        "Conv2d".into()
    }
    fn own_parameters(&self) -> Vec<(String, Tensor)> {
        present(&[
            ("lora_A", self.lora_a.as_ref()),
            ("lora_B", self.lora_b.as_ref()),
        ])
    }
    fn named_children(&self) -> Vec<(String, &dyn Module)> {
        vec![("conv".into(), &self.conv as &dyn Module)]
    }
    fn named_children_mut(&mut self) -> Vec<(String, &mut dyn Module)> {
        vec![("conv".into(), &mut self.conv as &mut dyn Module)]
    }
    fn is_training(&self) -> bool {
        self.training
    }
    /// loralib's `train(mode)`: with `merge_weights`, eval merges and train unmerges.
    fn set_training(&mut self, mode: bool) {
        self.training = mode;
        if self.merge_weights {
            let _ = if mode { self.unmerge() } else { self.merge() };
        }
    }
}

/// `r` must be positive where an adapter is asked for.
pub(crate) fn check_rank(r: usize, what: &str) -> Result<()> {
    if r == 0 {
        return Err(BorchError::Value(format!(
            "{what}: r must be a positive int, got 0"
        )));
    }
    Ok(())
}
