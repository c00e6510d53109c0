//! More loss modules: PoissonNLLLoss, GaussianNLLLoss, MarginRankingLoss, HingeEmbeddingLoss,
//! MultiLabelMarginLoss, SoftMarginLoss, MultiLabelSoftMarginLoss, CosineEmbeddingLoss,
//! MultiMarginLoss, TripletMarginLoss, TripletMarginWithDistanceLoss and CTCLoss. Each holds
//! torch's options (public fields with torch's defaults from `new()`) and calls its functional
//! loss; class weights are buffers, as in torch.

use borch_tensor::{BorchError, Result, Tensor};

use crate::PairwiseDistance;
use crate::functional::{self as F, Lengths};
use crate::module::Module;
use crate::reduction::Reduction;
use crate::{display_as_repr, training_flag};

/// A loss struct with its options, `new()` with torch's defaults, `Default`, and the `Module`
/// side: `forward_args` takes exactly `$n` tensors, named in torch's `forward` for errors.
macro_rules! loss {
    ($(#[$doc:meta])* $name:ident { $($field:ident: $t:ty = $default:expr),* $(,)? }
     forward($($arg:ident),+) => |$s:ident| $body:expr;
     buffers: |$b:ident| $buffers:expr) => {
        $(#[$doc])*
        pub struct $name {
            $(#[doc = concat!("torch's `", stringify!($field), "` (default `", stringify!($default), "`).")] pub $field: $t,)*
            training: bool,
        }
        impl $name {
            /// The loss with torch's defaults.
            pub fn new() -> $name {
                $name { $($field: $default,)* training: true }
            }
            /// torch's `forward`.
            pub fn forward(&self, $($arg: &Tensor),+) -> Result<Tensor> {
                let $s = self;
                $body
            }
        }
        impl Default for $name {
            fn default() -> Self {
                $name::new()
            }
        }
        impl Module for $name {
            fn forward(&self, input: &Tensor) -> Result<Tensor> {
                self.forward_args(&[input])
            }
            fn forward_args(&self, inputs: &[&Tensor]) -> Result<Tensor> {
                match inputs {
                    [$($arg),+] => $name::forward(self, $($arg),+),
                    _ => arity(stringify!($name), &[$(stringify!($arg)),+], inputs.len()),
                }
            }
            fn name(&self) -> String {
                stringify!($name).into()
            }
            fn own_buffers(&self) -> Vec<(String, Tensor)> {
                let $b = self;
                $buffers
            }
            training_flag!();
        }
        display_as_repr!($name);
    };
}

/// torch's TypeError for a `forward` given the wrong number of tensors.
fn arity(class: &str, names: &[&str], given: usize) -> Result<Tensor> {
    if given >= names.len() {
        return Err(BorchError::Type(format!(
            "{class}.forward() takes {} positional arguments but {} were given",
            names.len() + 1,
            given + 1
        )));
    }
    let missing: Vec<String> = names[given..].iter().map(|m| format!("'{m}'")).collect();
    let list = match missing.as_slice() {
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
        [] => String::new(),
    };
    Err(BorchError::Type(format!(
        "{class}.forward() missing {} required positional argument{}: {list}",
        missing.len(),
        if missing.len() == 1 { "" } else { "s" }
    )))
}

fn weight_buffer(w: &Option<Tensor>) -> Vec<(String, Tensor)> {
    w.iter()
        .map(|w| ("weight".to_string(), w.clone()))
        .collect()
}

loss! {
    /// torch's `nn.PoissonNLLLoss(log_input=True, full=False, eps=1e-08, reduction='mean')`.
    PoissonNLLLoss { log_input: bool = true, full: bool = false, eps: f64 = 1e-8,
                     reduction: Reduction = Reduction::Mean }
    forward(log_input, target) => |s| F::poisson_nll_loss(log_input, target, s.log_input, s.full, s.eps, s.reduction);
    buffers: |_b| Vec::new()
}

loss! {
    /// torch's `nn.GaussianNLLLoss(*, full=False, eps=1e-06, reduction='mean')`.
    GaussianNLLLoss { full: bool = false, eps: f64 = 1e-6, reduction: Reduction = Reduction::Mean }
    forward(input, target, var) => |s| F::gaussian_nll_loss(input, target, var.into(), s.full, s.eps, s.reduction);
    buffers: |_b| Vec::new()
}

loss! {
    /// torch's `nn.MarginRankingLoss(margin=0.0, reduction='mean')`.
    MarginRankingLoss { margin: f64 = 0.0, reduction: Reduction = Reduction::Mean }
    forward(input1, input2, target) => |s| F::margin_ranking_loss(input1, input2, target, s.margin, s.reduction);
    buffers: |_b| Vec::new()
}

loss! {
    /// torch's `nn.HingeEmbeddingLoss(margin=1.0, reduction='mean')`.
    HingeEmbeddingLoss { margin: f64 = 1.0, reduction: Reduction = Reduction::Mean }
    forward(input, target) => |s| F::hinge_embedding_loss(input, target, s.margin, s.reduction);
    buffers: |_b| Vec::new()
}

loss! {
    /// torch's `nn.MultiLabelMarginLoss(reduction='mean')`.
    MultiLabelMarginLoss { reduction: Reduction = Reduction::Mean }
    forward(input, target) => |s| F::multilabel_margin_loss(input, target, s.reduction);
    buffers: |_b| Vec::new()
}

loss! {
    /// torch's `nn.SoftMarginLoss(reduction='mean')`.
    SoftMarginLoss { reduction: Reduction = Reduction::Mean }
    forward(input, target) => |s| F::soft_margin_loss(input, target, s.reduction);
    buffers: |_b| Vec::new()
}

loss! {
    /// torch's `nn.MultiLabelSoftMarginLoss(weight=None, reduction='mean')`; `weight` is a
    /// buffer.
    MultiLabelSoftMarginLoss { weight: Option<Tensor> = None, reduction: Reduction = Reduction::Mean }
    forward(input, target) => |s| F::multilabel_soft_margin_loss(input, target, s.weight.as_ref(), s.reduction);
    buffers: |b| weight_buffer(&b.weight)
}

loss! {
    /// torch's `nn.CosineEmbeddingLoss(margin=0.0, reduction='mean')`.
    CosineEmbeddingLoss { margin: f64 = 0.0, reduction: Reduction = Reduction::Mean }
    forward(input1, input2, target) => |s| F::cosine_embedding_loss(input1, input2, target, s.margin, s.reduction);
    buffers: |_b| Vec::new()
}

loss! {
    /// torch's `nn.MultiMarginLoss(p=1, margin=1.0, weight=None, reduction='mean')`; `weight` is
    /// a buffer.
    MultiMarginLoss { p: i64 = 1, margin: f64 = 1.0, weight: Option<Tensor> = None,
                      reduction: Reduction = Reduction::Mean }
    forward(input, target) => |s| F::multi_margin_loss(input, target, s.p, s.margin, s.weight.as_ref(), s.reduction);
    buffers: |b| weight_buffer(&b.weight)
}

loss! {
    /// torch's `nn.TripletMarginLoss(margin=1.0, p=2.0, eps=1e-06, swap=False,
    /// reduction='mean')`.
    TripletMarginLoss { margin: f64 = 1.0, p: f64 = 2.0, eps: f64 = 1e-6, swap: bool = false,
                        reduction: Reduction = Reduction::Mean }
    forward(anchor, positive, negative) => |s| F::triplet_margin_loss(anchor, positive, negative, s.margin, s.p, s.eps, s.swap, s.reduction);
    buffers: |_b| Vec::new()
}

/// torch's `nn.TripletMarginWithDistanceLoss(*, distance_function=None, margin=1.0,
/// swap=False, reduction='mean')` with torch's default distance, which torch registers as the
/// child `distance_function` (a `PairwiseDistance()`); a custom distance function is a Rust
/// closure through `F::triplet_margin_with_distance_loss`.
pub struct TripletMarginWithDistanceLoss {
    /// torch's `distance_function` (`PairwiseDistance` by default).
    pub distance_function: PairwiseDistance,
    /// torch's `margin`.
    pub margin: f64,
    /// torch's `swap`: use the distance swap.
    pub swap: bool,
    /// torch's `reduction`: `'none'`, `'mean'` or `'sum'`.
    pub reduction: Reduction,
    training: bool,
}

impl TripletMarginWithDistanceLoss {
    /// torch's `TripletMarginWithDistanceLoss()` with its defaults.
    pub fn new() -> TripletMarginWithDistanceLoss {
        TripletMarginWithDistanceLoss {
            distance_function: PairwiseDistance::default(),
            margin: 1.0,
            swap: false,
            reduction: Reduction::Mean,
            training: true,
        }
    }

    /// torch's `forward(anchor, positive, negative)`.
    pub fn forward(&self, anchor: &Tensor, positive: &Tensor, negative: &Tensor) -> Result<Tensor> {
        let d = &self.distance_function;
        let distance = |x: &Tensor, y: &Tensor| d.forward_args(&[x, y]);
        F::triplet_margin_with_distance_loss(
            anchor,
            positive,
            negative,
            Some(&distance),
            self.margin,
            self.swap,
            self.reduction,
        )
    }
}

impl Default for TripletMarginWithDistanceLoss {
    fn default() -> Self {
        TripletMarginWithDistanceLoss::new()
    }
}

impl Module for TripletMarginWithDistanceLoss {
    fn forward(&self, input: &Tensor) -> Result<Tensor> {
        self.forward_args(&[input])
    }
    fn forward_args(&self, inputs: &[&Tensor]) -> Result<Tensor> {
        match inputs {
            [a, p, n] => TripletMarginWithDistanceLoss::forward(self, a, p, n),
            _ => arity(
                "TripletMarginWithDistanceLoss",
                &["anchor", "positive", "negative"],
                inputs.len(),
            ),
        }
    }
    fn name(&self) -> String {
        "TripletMarginWithDistanceLoss".into()
    }
    fn named_children(&self) -> Vec<(String, &dyn Module)> {
        vec![("distance_function".into(), &self.distance_function)]
    }
    fn named_children_mut(&mut self) -> Vec<(String, &mut dyn Module)> {
        vec![("distance_function".into(), &mut self.distance_function)]
    }
    training_flag!();
}

display_as_repr!(TripletMarginWithDistanceLoss);

loss! {
    /// torch's `nn.CTCLoss(blank=0, reduction='mean', zero_infinity=False)`; the lengths are
    /// int64 tensors.
    CTCLoss { blank: i64 = 0, reduction: Reduction = Reduction::Mean, zero_infinity: bool = false }
    forward(log_probs, targets, input_lengths, target_lengths) => |s| F::ctc_loss(
        log_probs, targets, &Lengths::Tensor(input_lengths.clone()),
        &Lengths::Tensor(target_lengths.clone()), s.blank, s.reduction, s.zero_infinity);
    buffers: |_b| Vec::new()
}
