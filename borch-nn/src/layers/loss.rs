//! Loss modules. Each holds its options (set by builder methods) and calls its functional loss;
//! class weights are buffers, as in torch (`weight`, `pos_weight` in the state dict).

use borch_tensor::{BorchError, Result, Tensor};

use super::present;
use crate::functional as F;
use crate::module::Module;
use crate::reduction::Reduction;
use crate::{display_as_repr, training_flag};

/// The Module side of a loss: `forward(input, target)` through `forward_args`, its buffers.
macro_rules! loss_module {
    ($name:ident, buffers: |$s:ident| $buffers:expr) => {
        impl Module for $name {
            fn forward(&self, _input: &Tensor) -> Result<Tensor> {
                Err(BorchError::Type(format!(
                    "{}.forward() missing 1 required positional argument: 'target'",
                    stringify!($name)
                )))
            }
            fn forward_args(&self, inputs: &[&Tensor]) -> Result<Tensor> {
                match inputs {
                    [input, target] => $name::forward(self, input, target),
                    [input] => Module::forward(self, input),
                    _ => Err(BorchError::Type(format!(
                        "{}.forward() takes 3 positional arguments but {} were given",
                        stringify!($name),
                        inputs.len() + 1
                    ))),
                }
            }
            fn name(&self) -> String {
                stringify!($name).into()
            }
            fn own_buffers(&self) -> Vec<(String, Tensor)> {
                let $s = self;
                $buffers
            }
            training_flag!();
        }
        display_as_repr!($name);
    };
}

/// A builder method setting one option.
macro_rules! setter {
    ($field:ident: Option<$t:ty>) => {
        /// Set this option (torch's keyword argument of the same name).
        pub fn $field(mut self, $field: $t) -> Self {
            self.$field = Some($field);
            self
        }
    };
    ($(#[$doc:meta])* $field:ident: $t:ty) => {
        $(#[$doc])*
        /// Set this option (torch's keyword argument of the same name).
        pub fn $field(mut self, $field: $t) -> Self {
            self.$field = $field;
            self
        }
    };
}

/// torch's `nn.MSELoss(reduction='mean')`.
pub struct MSELoss {
    /// torch's `reduction`: `'none'`, `'mean'` or `'sum'`.
    pub reduction: Reduction,
    training: bool,
}

/// torch's `nn.L1Loss(reduction='mean')`.
pub struct L1Loss {
    /// torch's `reduction`: `'none'`, `'mean'` or `'sum'`.
    pub reduction: Reduction,
    training: bool,
}

macro_rules! reduction_only {
    ($($name:ident => $f:path),*) => {$(
        impl $name {
            /// The loss with torch's default `reduction='mean'`.
            pub fn new() -> $name {
                $name { reduction: Reduction::Mean, training: true }
            }
            setter!(reduction: Reduction);
            /// torch's `forward(input, target)`.
            pub fn forward(&self, input: &Tensor, target: &Tensor) -> Result<Tensor> {
                $f(input, target, self.reduction)
            }
        }
        impl Default for $name {
            fn default() -> Self {
                $name::new()
            }
        }
        loss_module!($name, buffers: |_s| Vec::new());
    )*};
}

reduction_only!(MSELoss => F::mse_loss, L1Loss => F::l1_loss);

/// torch's `nn.SmoothL1Loss(reduction='mean', beta=1.0)`.
pub struct SmoothL1Loss {
    /// torch's `reduction`: `'none'`, `'mean'` or `'sum'`.
    pub reduction: Reduction,
    /// torch's `beta`.
    pub beta: f64,
    training: bool,
}

impl SmoothL1Loss {
    /// torch's `SmoothL1Loss()` with its defaults.
    pub fn new() -> SmoothL1Loss {
        SmoothL1Loss {
            reduction: Reduction::Mean,
            beta: 1.0,
            training: true,
        }
    }
    setter!(reduction: Reduction);
    setter!(beta: f64);
    /// torch's `forward(input, target)`.
    pub fn forward(&self, input: &Tensor, target: &Tensor) -> Result<Tensor> {
        F::smooth_l1_loss(input, target, self.reduction, self.beta)
    }
}

/// torch's `nn.HuberLoss(reduction='mean', delta=1.0)`.
pub struct HuberLoss {
    /// torch's `reduction`: `'none'`, `'mean'` or `'sum'`.
    pub reduction: Reduction,
    /// torch's `delta`: where the loss changes from quadratic to linear.
    pub delta: f64,
    training: bool,
}

impl HuberLoss {
    /// torch's `HuberLoss()` with its defaults.
    pub fn new() -> HuberLoss {
        HuberLoss {
            reduction: Reduction::Mean,
            delta: 1.0,
            training: true,
        }
    }
    setter!(reduction: Reduction);
    setter!(delta: f64);
    /// torch's `forward(input, target)`.
    pub fn forward(&self, input: &Tensor, target: &Tensor) -> Result<Tensor> {
        F::huber_loss(input, target, self.reduction, self.delta)
    }
}

/// torch's `nn.BCELoss(weight=None, reduction='mean')`.
pub struct BCELoss {
    /// torch's `weight`: a manual rescaling weight (per class for the classification losses).
    pub weight: Option<Tensor>,
    /// torch's `reduction`: `'none'`, `'mean'` or `'sum'`.
    pub reduction: Reduction,
    training: bool,
}

impl BCELoss {
    /// torch's `BCELoss()` with its defaults.
    pub fn new() -> BCELoss {
        BCELoss {
            weight: None,
            reduction: Reduction::Mean,
            training: true,
        }
    }
    setter!(weight: Option<Tensor>);
    setter!(reduction: Reduction);
    /// torch's `forward(input, target)`.
    pub fn forward(&self, input: &Tensor, target: &Tensor) -> Result<Tensor> {
        F::binary_cross_entropy(input, target, self.weight.as_ref(), self.reduction)
    }
}

/// torch's `nn.BCEWithLogitsLoss(weight=None, reduction='mean', pos_weight=None)`.
pub struct BCEWithLogitsLoss {
    /// torch's `weight`: a manual rescaling weight (per class for the classification losses).
    pub weight: Option<Tensor>,
    /// torch's `reduction`: `'none'`, `'mean'` or `'sum'`.
    pub reduction: Reduction,
    /// torch's `pos_weight`: the weight of positive examples, per class.
    pub pos_weight: Option<Tensor>,
    training: bool,
}

impl BCEWithLogitsLoss {
    /// torch's `BCEWithLogitsLoss()` with its defaults.
    pub fn new() -> BCEWithLogitsLoss {
        BCEWithLogitsLoss {
            weight: None,
            reduction: Reduction::Mean,
            pos_weight: None,
            training: true,
        }
    }
    setter!(weight: Option<Tensor>);
    setter!(reduction: Reduction);
    setter!(pos_weight: Option<Tensor>);
    /// torch's `forward(input, target)`.
    pub fn forward(&self, input: &Tensor, target: &Tensor) -> Result<Tensor> {
        F::binary_cross_entropy_with_logits(
            input,
            target,
            self.weight.as_ref(),
            self.reduction,
            self.pos_weight.as_ref(),
        )
    }
}

/// torch's `nn.CrossEntropyLoss(weight=None, ignore_index=-100, reduction='mean',
/// label_smoothing=0.0)`.
pub struct CrossEntropyLoss {
    /// torch's `weight`: a manual rescaling weight (per class for the classification losses).
    pub weight: Option<Tensor>,
    /// torch's `ignore_index`: a target value that contributes nothing.
    pub ignore_index: i64,
    /// torch's `reduction`: `'none'`, `'mean'` or `'sum'`.
    pub reduction: Reduction,
    /// torch's `label_smoothing`.
    pub label_smoothing: f64,
    training: bool,
}

impl CrossEntropyLoss {
    /// torch's `CrossEntropyLoss()` with its defaults.
    pub fn new() -> CrossEntropyLoss {
        CrossEntropyLoss {
            weight: None,
            ignore_index: -100,
            reduction: Reduction::Mean,
            label_smoothing: 0.0,
            training: true,
        }
    }
    setter!(weight: Option<Tensor>);
    setter!(ignore_index: i64);
    setter!(reduction: Reduction);
    setter!(label_smoothing: f64);
    /// torch's `forward(input, target)`: class indices or class probabilities.
    pub fn forward(&self, input: &Tensor, target: &Tensor) -> Result<Tensor> {
        F::cross_entropy(
            input,
            target,
            self.weight.as_ref(),
            self.ignore_index,
            self.reduction,
            self.label_smoothing,
        )
    }
}

/// torch's `nn.NLLLoss(weight=None, ignore_index=-100, reduction='mean')`.
pub struct NLLLoss {
    /// torch's `weight`: a manual rescaling weight (per class for the classification losses).
    pub weight: Option<Tensor>,
    /// torch's `ignore_index`: a target value that contributes nothing.
    pub ignore_index: i64,
    /// torch's `reduction`: `'none'`, `'mean'` or `'sum'`.
    pub reduction: Reduction,
    training: bool,
}

impl NLLLoss {
    /// torch's `NLLLoss()` with its defaults.
    pub fn new() -> NLLLoss {
        NLLLoss {
            weight: None,
            ignore_index: -100,
            reduction: Reduction::Mean,
            training: true,
        }
    }
    setter!(weight: Option<Tensor>);
    setter!(ignore_index: i64);
    setter!(reduction: Reduction);
    /// torch's `forward(input, target)`.
    pub fn forward(&self, input: &Tensor, target: &Tensor) -> Result<Tensor> {
        F::nll_loss(
            input,
            target,
            self.weight.as_ref(),
            self.ignore_index,
            self.reduction,
        )
    }
}

/// torch's `nn.KLDivLoss(reduction='mean', log_target=False)`.
pub struct KLDivLoss {
    /// torch's `reduction`: `'none'`, `'mean'` or `'sum'`.
    pub reduction: Reduction,
    /// torch's `log_target`: the target is given as log-probabilities.
    pub log_target: bool,
    training: bool,
}

impl KLDivLoss {
    /// torch's `KLDivLoss()` with its defaults.
    pub fn new() -> KLDivLoss {
        KLDivLoss {
            reduction: Reduction::Mean,
            log_target: false,
            training: true,
        }
    }
    setter!(reduction: Reduction);
    setter!(log_target: bool);
    /// torch's `forward(input, target)`.
    pub fn forward(&self, input: &Tensor, target: &Tensor) -> Result<Tensor> {
        F::kl_div(input, target, self.reduction, self.log_target)
    }
}

macro_rules! default_new {
    ($($name:ident),*) => {$(
        impl Default for $name {
            fn default() -> Self {
                $name::new()
            }
        }
    )*};
}

default_new!(
    SmoothL1Loss,
    HuberLoss,
    BCELoss,
    BCEWithLogitsLoss,
    CrossEntropyLoss,
    NLLLoss,
    KLDivLoss
);

loss_module!(SmoothL1Loss, buffers: |_s| Vec::new());
loss_module!(HuberLoss, buffers: |_s| Vec::new());
loss_module!(KLDivLoss, buffers: |_s| Vec::new());
loss_module!(BCELoss, buffers: |s| present(&[("weight", s.weight.as_ref())]));
loss_module!(BCEWithLogitsLoss, buffers: |s| present(&[
    ("weight", s.weight.as_ref()),
    ("pos_weight", s.pos_weight.as_ref())
]));
loss_module!(CrossEntropyLoss, buffers: |s| present(&[("weight", s.weight.as_ref())]));
loss_module!(NLLLoss, buffers: |s| present(&[("weight", s.weight.as_ref())]));
