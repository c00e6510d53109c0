//! BatchNorm1d/2d/3d and InstanceNorm1d/2d/3d (torch's `_NormBase`: running statistics as
//! buffers, `momentum=None` as a cumulative average, `track_running_stats`, `affine`, eval mode),
//! GroupNorm and LocalResponseNorm.

use borch_autograd::no_grad;
use borch_tensor::{BorchError, DType, Result, Tensor, keep_alive, ones, zeros};

use super::normalization::reset_affine;
use super::{parameter, present};
use crate::functional as F;
use crate::module::Module;
use crate::repr::{py_bool, py_float};
use crate::{display_as_repr, training_flag};

fn value_err<T>(msg: impl Into<String>) -> Result<T> {
    Err(BorchError::Value(msg.into()))
}

/// The parameters and buffers `_NormBase` registers.
struct Stats {
    weight: Option<Tensor>,
    bias: Option<Tensor>,
    running_mean: Option<Tensor>,
    running_var: Option<Tensor>,
    num_batches_tracked: Option<Tensor>,
}

impl Stats {
    fn new(num_features: usize, affine: bool, bias: bool, track: bool) -> Result<Stats> {
        let param = |on: bool| -> Result<Option<Tensor>> {
            if on {
                parameter(&[num_features]).map(Some)
            } else {
                Ok(None)
            }
        };
        let buffer = |t: Result<Tensor>| -> Result<Option<Tensor>> {
            if track {
                t.map(|t| Some(keep_alive(&t)))
            } else {
                Ok(None)
            }
        };
        let stats = Stats {
            weight: param(affine)?,
            bias: param(affine && bias)?,
            running_mean: buffer(zeros(&[num_features], DType::Float32))?,
            running_var: buffer(ones(&[num_features], DType::Float32))?,
            num_batches_tracked: buffer(zeros(&[], DType::Int64))?,
        };
        stats.reset_parameters()?;
        Ok(stats)
    }

    /// torch's `reset_running_stats`.
    fn reset_running_stats(&self) -> Result<()> {
        no_grad(|| {
            if let Some(t) = &self.running_mean {
                t.zero_()?;
            }
            if let Some(t) = &self.running_var {
                t.fill_(1.0)?;
            }
            if let Some(t) = &self.num_batches_tracked {
                t.zero_()?;
            }
            Ok(())
        })
    }

    /// torch's `reset_parameters`: running stats reset, weight ones, bias zeros.
    fn reset_parameters(&self) -> Result<()> {
        self.reset_running_stats()?;
        reset_affine(self.weight.as_ref(), self.bias.as_ref())
    }

    fn parameters(&self) -> Vec<(String, Tensor)> {
        present(&[
            ("weight", self.weight.as_ref()),
            ("bias", self.bias.as_ref()),
        ])
    }

    fn buffers(&self) -> Vec<(String, Tensor)> {
        present(&[
            ("running_mean", self.running_mean.as_ref()),
            ("running_var", self.running_var.as_ref()),
            ("num_batches_tracked", self.num_batches_tracked.as_ref()),
        ])
    }
}

fn norm_repr(
    n: usize,
    eps: f64,
    momentum: Option<f64>,
    affine: bool,
    bias: bool,
    track: bool,
) -> String {
    format!(
        "{n}, eps={}, momentum={}, affine={}, bias={}, track_running_stats={}",
        py_float(eps),
        momentum.map_or("None".into(), py_float),
        py_bool(affine),
        py_bool(bias),
        py_bool(track)
    )
}

macro_rules! norm_layer {
    ($name:ident, $doc:literal, $affine:expr, $track:expr, $check:expr, $forward:expr) => {
        #[doc = $doc]
        pub struct $name {
            /// torch's `num_features`: the channels `C` of the input.
            pub num_features: usize,
            /// torch's `eps`.
            pub eps: f64,
            /// `None`: the cumulative average (`1 / num_batches_tracked`).
            pub momentum: Option<f64>,
            /// torch's `affine`: whether there are learnable `weight` and `bias`.
            pub affine: bool,
            /// torch's `track_running_stats`: whether running mean and variance are kept.
            pub track_running_stats: bool,
            stats: Stats,
            training: bool,
        }

        impl $name {
            /// The layer with torch's defaults.
            pub fn new(num_features: usize) -> Result<$name> {
                $name::with_options(num_features, 1e-5, Some(0.1), $affine, $track, true)
            }

            /// `(num_features, eps, momentum, affine, track_running_stats, *, bias)`.
            pub fn with_options(
                num_features: usize,
                eps: f64,
                momentum: Option<f64>,
                affine: bool,
                track_running_stats: bool,
                bias: bool,
            ) -> Result<$name> {
                Ok($name {
                    num_features,
                    eps,
                    momentum,
                    affine,
                    track_running_stats,
                    stats: Stats::new(num_features, affine, bias, track_running_stats)?,
                    training: true,
                })
            }

            /// torch's `weight` (`None` without `affine`).
            pub fn weight(&self) -> Option<&Tensor> {
                self.stats.weight.as_ref()
            }
            /// torch's `bias` (`None` without `affine`).
            pub fn bias(&self) -> Option<&Tensor> {
                self.stats.bias.as_ref()
            }
            /// torch's `running_mean` (`None` without `track_running_stats`).
            pub fn running_mean(&self) -> Option<&Tensor> {
                self.stats.running_mean.as_ref()
            }
            /// torch's `running_var` (`None` without `track_running_stats`).
            pub fn running_var(&self) -> Option<&Tensor> {
                self.stats.running_var.as_ref()
            }
            /// torch's `num_batches_tracked` (`None` without `track_running_stats`).
            pub fn num_batches_tracked(&self) -> Option<&Tensor> {
                self.stats.num_batches_tracked.as_ref()
            }

            /// torch's `reset_running_stats`.
            pub fn reset_running_stats(&self) -> Result<()> {
                self.stats.reset_running_stats()
            }

            /// torch's `reset_parameters`.
            pub fn reset_parameters(&self) -> Result<()> {
                self.stats.reset_parameters()
            }
        }

        impl Module for $name {
            fn forward(&self, input: &Tensor) -> Result<Tensor> {
                let check: fn(usize) -> Result<()> = $check;
                check(input.dim())?;
                let forward: fn(&$name, &Tensor) -> Result<Tensor> = $forward;
                forward(self, input)
            }
            fn name(&self) -> String {
                stringify!($name).into()
            }
            fn extra_repr(&self) -> String {
                norm_repr(
                    self.num_features,
                    self.eps,
                    self.momentum,
                    self.affine,
                    self.stats.bias.is_some(),
                    self.track_running_stats,
                )
            }
            fn own_parameters(&self) -> Vec<(String, Tensor)> {
                self.stats.parameters()
            }
            fn own_buffers(&self) -> Vec<(String, Tensor)> {
                self.stats.buffers()
            }
            training_flag!();
        }

        display_as_repr!($name);
    };
}

/// The fields `forward` reads, shared by the BatchNorm and InstanceNorm types.
struct View<'a> {
    num_features: usize,
    eps: f64,
    momentum: Option<f64>,
    affine: bool,
    track: bool,
    stats: &'a Stats,
    training: bool,
}

macro_rules! view {
    ($s:expr) => {
        View {
            num_features: $s.num_features,
            eps: $s.eps,
            momentum: $s.momentum,
            affine: $s.affine,
            track: $s.track_running_stats,
            stats: &$s.stats,
            training: $s.training,
        }
    };
}

/// torch's `_BatchNorm.forward`.
fn batch_forward(v: View, input: &Tensor) -> Result<Tensor> {
    let s = v.stats;
    let nbt = s.num_batches_tracked.as_ref();
    // num_batches_tracked += 1, inside the fused kernels where they run.
    let count = nbt.filter(|_| v.training && v.track);
    let momentum = match (v.momentum, nbt) {
        (Some(m), _) => F::Momentum::Value(m),
        (None, Some(n)) if v.training && v.track => F::Momentum::Cumulative(n),
        (None, _) => F::Momentum::Value(0.0),
    };
    let bn_training = v.training || (s.running_mean.is_none() && s.running_var.is_none());
    let use_stats = !v.training || v.track;
    let pick = |t: &Option<Tensor>| if use_stats { t.clone() } else { None };
    let (rm, rv) = (pick(&s.running_mean), pick(&s.running_var));
    F::batch_norm_counting(
        input,
        rm.as_ref(),
        rv.as_ref(),
        s.weight.as_ref(),
        s.bias.as_ref(),
        bn_training,
        momentum,
        v.eps,
        count,
    )
}

/// torch's `_InstanceNorm.forward` for inputs of `k` spatial dims.
fn instance_forward(v: View, input: &Tensor, k: usize) -> Result<Tensor> {
    let no_batch = k + 1;
    let feature_dim = input.dim() - no_batch;
    let c = input.shape()[feature_dim];
    if c != v.num_features && v.affine {
        return value_err(format!(
            "expected input's size at dim={feature_dim} to match num_features ({}), but got: {c}.",
            v.num_features
        ));
    }
    if input.dim() == no_batch {
        let out = instance_forward(v, &input.unsqueeze(0)?, k)?;
        return out.squeeze_dims(&[0]);
    }
    let s = v.stats;
    F::instance_norm(
        input,
        s.running_mean.as_ref(),
        s.running_var.as_ref(),
        s.weight.as_ref(),
        s.bias.as_ref(),
        v.training || !v.track,
        v.momentum.unwrap_or(0.0),
        v.eps,
    )
}

fn dims_err(want: &str, got: usize) -> Result<()> {
    value_err(format!("expected {want} input (got {got}D input)"))
}

macro_rules! batch_norm {
    ($name:ident, $doc:literal, $check:expr) => {
        norm_layer!($name, $doc, true, true, $check, |s: &$name, x: &Tensor| {
            batch_forward(view!(s), x)
        });
    };
}

macro_rules! instance_norm {
    ($name:ident, $doc:literal, $k:expr, $want:literal) => {
        norm_layer!(
            $name,
            $doc,
            false,
            false,
            |d| if d == $k + 1 || d == $k + 2 {
                Ok(())
            } else {
                dims_err($want, d)
            },
            |s: &$name, x: &Tensor| instance_forward(view!(s), x, $k)
        );
    };
}

batch_norm!(
    BatchNorm1d,
    "torch's `nn.BatchNorm1d(num_features, eps=1e-05, momentum=0.1, affine=True, \
     track_running_stats=True)` over `(N, C)` or `(N, C, L)`.",
    |d| if d == 2 || d == 3 {
        Ok(())
    } else {
        dims_err("2D or 3D", d)
    }
);
batch_norm!(
    BatchNorm2d,
    "torch's `nn.BatchNorm2d(num_features, eps=1e-05, momentum=0.1, affine=True, \
     track_running_stats=True)` over `(N, C, H, W)`.",
    |d| if d == 4 { Ok(()) } else { dims_err("4D", d) }
);
batch_norm!(
    BatchNorm3d,
    "torch's `nn.BatchNorm3d(num_features, eps=1e-05, momentum=0.1, affine=True, \
     track_running_stats=True)` over `(N, C, D, H, W)`.",
    |d| if d == 5 { Ok(()) } else { dims_err("5D", d) }
);
batch_norm!(
    SyncBatchNorm,
    "torch's `nn.SyncBatchNorm(num_features, eps=1e-05, momentum=0.1, affine=True, \
     track_running_stats=True, process_group=None)` over `(N, C, ...)`: borch is one process, so \
     it is torch's SyncBatchNorm without an initialised process group, which computes BatchNorm.",
    |d| if d >= 2 {
        Ok(())
    } else {
        dims_err("at least 2D", d)
    }
);
instance_norm!(
    InstanceNorm1d,
    "torch's `nn.InstanceNorm1d(num_features, eps=1e-05, momentum=0.1, affine=False, \
     track_running_stats=False)` over `(N, C, L)` or `(C, L)`.",
    1,
    "2D or 3D"
);
instance_norm!(
    InstanceNorm2d,
    "torch's `nn.InstanceNorm2d(num_features, eps=1e-05, momentum=0.1, affine=False, \
     track_running_stats=False)` over `(N, C, H, W)` or `(C, H, W)`.",
    2,
    "3D or 4D"
);
instance_norm!(
    InstanceNorm3d,
    "torch's `nn.InstanceNorm3d(num_features, eps=1e-05, momentum=0.1, affine=False, \
     track_running_stats=False)` over `(N, C, D, H, W)` or `(C, D, H, W)`.",
    3,
    "4D or 5D"
);

/// torch's `nn.GroupNorm(num_groups, num_channels, eps=1e-05, affine=True)`.
pub struct GroupNorm {
    /// torch's `num_groups`: the groups the channels are split into.
    pub num_groups: usize,
    /// torch's `num_channels`.
    pub num_channels: usize,
    /// torch's `eps`.
    pub eps: f64,
    /// torch's `affine`: whether there are learnable `weight` and `bias`.
    pub affine: bool,
    /// torch's `weight` parameter.
    pub weight: Option<Tensor>,
    /// torch's `bias` parameter (`None` when made with `bias=False`).
    pub bias: Option<Tensor>,
    training: bool,
}

impl GroupNorm {
    /// `GroupNorm(num_groups, num_channels)`: eps 1e-5, weight ones, bias zeros.
    pub fn new(num_groups: usize, num_channels: usize) -> Result<GroupNorm> {
        GroupNorm::with_options(num_groups, num_channels, 1e-5, true, true)
    }

    /// `GroupNorm(num_groups, num_channels, eps, affine, *, bias)`.
    pub fn with_options(
        num_groups: usize,
        num_channels: usize,
        eps: f64,
        affine: bool,
        bias: bool,
    ) -> Result<GroupNorm> {
        if num_groups == 0 || !num_channels.is_multiple_of(num_groups) {
            return value_err("num_channels must be divisible by num_groups");
        }
        let param = |on: bool| -> Result<Option<Tensor>> {
            if on {
                parameter(&[num_channels]).map(Some)
            } else {
                Ok(None)
            }
        };
        let layer = GroupNorm {
            num_groups,
            num_channels,
            eps,
            affine,
            weight: param(affine)?,
            bias: param(affine && bias)?,
            training: true,
        };
        layer.reset_parameters()?;
        Ok(layer)
    }

    /// torch's `reset_parameters`: weight ones, bias zeros.
    pub fn reset_parameters(&self) -> Result<()> {
        reset_affine(self.weight.as_ref(), self.bias.as_ref())
    }
}

impl Module for GroupNorm {
    fn forward(&self, input: &Tensor) -> Result<Tensor> {
        F::group_norm(
            input,
            self.num_groups,
            self.weight.as_ref(),
            self.bias.as_ref(),
            self.eps,
        )
    }
    fn name(&self) -> String {
        "GroupNorm".into()
    }
    fn extra_repr(&self) -> String {
        format!(
            "{}, {}, eps={}, affine={}, bias={}",
            self.num_groups,
            self.num_channels,
            py_float(self.eps),
            py_bool(self.affine),
            py_bool(self.bias.is_some())
        )
    }
    fn own_parameters(&self) -> Vec<(String, Tensor)> {
        present(&[
            ("weight", self.weight.as_ref()),
            ("bias", self.bias.as_ref()),
        ])
    }
    training_flag!();
}

/// torch's `nn.LocalResponseNorm(size, alpha=0.0001, beta=0.75, k=1.0)`.
pub struct LocalResponseNorm {
    /// torch's `size`: the neighbouring channels normalized over.
    pub size: usize,
    /// torch's `alpha`.
    pub alpha: f64,
    /// torch's `beta`.
    pub beta: f64,
    /// torch's `k`: the additive factor.
    pub k: f64,
    training: bool,
}

impl LocalResponseNorm {
    /// `LocalResponseNorm(size, alpha, beta, k)`.
    pub fn new(size: usize, alpha: f64, beta: f64, k: f64) -> LocalResponseNorm {
        LocalResponseNorm {
            size,
            alpha,
            beta,
            k,
            training: true,
        }
    }
}

impl Module for LocalResponseNorm {
    fn forward(&self, input: &Tensor) -> Result<Tensor> {
        F::local_response_norm(input, self.size, self.alpha, self.beta, self.k)
    }
    fn name(&self) -> String {
        "LocalResponseNorm".into()
    }
    fn extra_repr(&self) -> String {
        format!(
            "{}, alpha={}, beta={}, k={}",
            self.size,
            py_float(self.alpha),
            py_float(self.beta),
            py_float(self.k)
        )
    }
    training_flag!();
}

display_as_repr!(GroupNorm, LocalResponseNorm);
