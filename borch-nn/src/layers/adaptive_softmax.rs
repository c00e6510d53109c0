//! torch's `nn.AdaptiveLogSoftmaxWithLoss(in_features, n_classes, cutoffs, div_value=4.0,
//! head_bias=False)`: a head `Linear` over the shortlist and one entry per cluster, and a tail
//! `ModuleList` of `Sequential(Linear(in, hsz), Linear(hsz, osz))` per cluster (torch's child
//! names `head`, `tail.0.0`, … and its initialisation order). `forward(input, target)` returns
//! torch's `_ASMoutput(output, loss)` as a tuple (`Value::List`).
//!
//! torch picks each cluster's rows with `nonzero` (a data-dependent shape); borch runs every
//! cluster on every row and keeps the rows of the cluster with a mask, which gives the same
//! values and the same gradients (rows outside a cluster contribute zeros). torch's error for a
//! target outside `[0, n_classes - 1]` reads the targets back: natively borch does the same; in
//! a browser that read cannot be synchronous, so such a target makes the head's `gather` report
//! an out-of-range index at the next readback instead.

use borch_tensor::api::Value;
use borch_tensor::{BorchError, Result, Tensor};

use super::{Linear, ModuleList, Sequential};
use crate::api::forward::ForwardSignature;
use crate::functional as F;
use crate::module::Module;
use crate::training_flag;

/// torch's `AdaptiveLogSoftmaxWithLoss.forward(input_, target_) -> _ASMoutput(output, loss)`.
pub static ADAPTIVE_LOG_SOFTMAX_FORWARD: ForwardSignature = ForwardSignature::returning(
    "AdaptiveLogSoftmaxWithLoss.forward",
    "input_: Tensor, target_: Tensor",
    "(Tensor, Tensor)",
);

/// torch's `nn.AdaptiveLogSoftmaxWithLoss`.
pub struct AdaptiveLogSoftmaxWithLoss {
    /// torch's `in_features`: the size of each input sample.
    pub in_features: usize,
    /// torch's `n_classes`.
    pub n_classes: usize,
    /// The cutoffs with `n_classes` appended, as torch keeps them.
    pub cutoffs: Vec<usize>,
    /// torch's `div_value`: how much smaller each tail cluster's projection is.
    pub div_value: f64,
    /// torch's `head_bias`.
    pub head_bias: bool,
    /// torch's `head`: the shortlist and one logit per cluster.
    pub head: Linear,
    /// torch's `tail`: one projection per cluster.
    pub tail: ModuleList,
    training: bool,
}

fn cutoff_error<T>() -> Result<T> {
    Err(BorchError::Value(
        "cutoffs should be a sequence of unique, positive integers sorted in an increasing \
         order, where each value is between 1 and n_classes-1"
            .into(),
    ))
}

fn torch_size(shape: &[usize]) -> String {
    let dims: Vec<String> = shape.iter().map(usize::to_string).collect();
    format!("torch.Size([{}])", dims.join(", "))
}

impl AdaptiveLogSoftmaxWithLoss {
    /// torch's constructor: its checks, then the head and the tail built (and initialised) in
    /// torch's order.
    pub fn new(
        in_features: usize,
        n_classes: usize,
        cutoffs: &[i64],
        div_value: f64,
        head_bias: bool,
    ) -> Result<AdaptiveLogSoftmaxWithLoss> {
        if cutoffs.is_empty() {
            return Err(BorchError::Value(
                "cutoffs should be a sequence of length larger than 0".into(),
            ));
        }
        let increasing = cutoffs.windows(2).all(|w| w[0] < w[1]);
        if !increasing || cutoffs[0] <= 0 || *cutoffs.last().unwrap() > n_classes as i64 - 1 {
            return cutoff_error();
        }
        let mut cuts: Vec<usize> = cutoffs.iter().map(|&c| c as usize).collect();
        cuts.push(n_classes);
        let shortlist = cuts[0];
        let n_clusters = cuts.len() - 1;
        let head = Linear::with_bias(in_features, shortlist + n_clusters, head_bias)?;
        let mut tail = Vec::with_capacity(n_clusters);
        for i in 0..n_clusters {
            // Python's `int(in_features // (div_value ** (i + 1)))`.
            let hsz = (in_features as f64 / div_value.powi(i as i32 + 1)).floor();
            if !hsz.is_finite() || hsz < 0.0 {
                return Err(BorchError::Value(format!(
                    "AdaptiveLogSoftmaxWithLoss(): a cluster's hidden size \
                     {in_features} // {div_value}**{} is not a size",
                    i + 1
                )));
            }
            let hsz = hsz as usize;
            let osz = cuts[i + 1] - cuts[i];
            let projection: Vec<Box<dyn Module>> = vec![
                Box::new(Linear::with_bias(in_features, hsz, false)?),
                Box::new(Linear::with_bias(hsz, osz, false)?),
            ];
            tail.push(Box::new(Sequential::new(projection)) as Box<dyn Module>);
        }
        Ok(AdaptiveLogSoftmaxWithLoss {
            in_features,
            n_classes,
            cutoffs: cuts,
            div_value,
            head_bias,
            head,
            tail: ModuleList::new(tail),
            training: true,
        })
    }

    fn shortlist_size(&self) -> usize {
        self.cutoffs[0]
    }

    fn cluster(&self, i: usize) -> Result<&dyn Module> {
        self.tail.get(i).ok_or_else(|| {
            BorchError::Runtime(format!("AdaptiveLogSoftmaxWithLoss: no cluster {i}"))
        })
    }

    /// torch's `forward(input, target)`: `(output, loss)`, the target's log-probabilities and
    /// their negated mean.
    pub fn forward_pair(&self, input: &Tensor, target: &Tensor) -> Result<(Tensor, Tensor)> {
        let runtime = |m: String| Err(BorchError::Runtime(m));
        match target.dim() {
            1 => {
                if input.dim() == 0 || input.shape()[0] != target.shape()[0] {
                    return runtime(
                        "Input and target should have the same size in the batch dimension.".into(),
                    );
                }
                if input.dim() != 2 {
                    return runtime(format!(
                        "1D target tensor expects 2D input tensors, but found inputs with size {}",
                        torch_size(input.shape())
                    ));
                }
            }
            0 => {
                if input.dim() != 1 {
                    return runtime(format!(
                        "0D target tensor expects 1D input tensors, but found inputs with size {}",
                        torch_size(input.shape())
                    ));
                }
            }
            _ => {
                return runtime(
                    "0D or 1D target tensor expected, multi-target not supported".into(),
                );
            }
        }
        let batched = target.dim() > 0;
        let (input, target) = match batched {
            true => (input.clone(), target.clone()),
            false => (input.unsqueeze(0)?, target.unsqueeze(0)?),
        };
        self.check_targets(&target)?;
        let shortlist = self.shortlist_size();
        let mut gather = target.clone();
        let mut output: Option<Tensor> = None;
        for i in 1..self.cutoffs.len() {
            let (low, high) = (self.cutoffs[i - 1] as i64, self.cutoffs[i] as i64);
            let mask = target.ge(low)?.logical_and(&target.lt(high)?)?;
            gather = gather.masked_fill(&mask, (shortlist + i - 1) as i64)?;
            let logprob = F::log_softmax(&self.cluster(i - 1)?.forward(&input)?, Some(1))?;
            let relative = target
                .sub(low)?
                .clamp(Some(0i64.into()), Some((high - low - 1).into()))?;
            let local = logprob
                .gather(1, &relative.unsqueeze(1)?)?
                .squeeze_dims(&[1])?
                .masked_fill(&mask.logical_not()?, 0.0)?;
            output = Some(match output {
                None => local,
                Some(o) => o.add(&local)?,
            });
        }
        // A target outside [0, n_classes) gathers past the head (reported at the next read).
        let outside = target
            .lt(0i64)?
            .logical_or(&target.ge(self.n_classes as i64)?)?;
        let gather = gather.masked_fill(&outside, (shortlist + self.cutoffs.len()) as i64)?;
        let head = F::log_softmax(&self.head.forward(&input)?, Some(1))?;
        let picked = head.gather(1, &gather.unsqueeze(1)?)?.squeeze_dims(&[1])?;
        let output = match output {
            None => picked,
            Some(o) => o.add(&picked)?,
        };
        let loss = output.neg()?.mean(None, false)?;
        let output = if batched {
            output
        } else {
            output.squeeze_dims(&[0])?
        };
        Ok((output, loss))
    }

    /// torch's `log_prob(input)`: the log-probabilities of all `n_classes` classes.
    pub fn log_prob(&self, input: &Tensor) -> Result<Tensor> {
        let head = F::log_softmax(&self.head.forward(input)?, Some(1))?;
        let shortlist = self.shortlist_size();
        let mut parts = vec![head.narrow(1, 0, shortlist)?];
        for i in 0..self.cutoffs.len() - 1 {
            let logprob = F::log_softmax(&self.cluster(i)?.forward(input)?, Some(1))?;
            let at = head.narrow(1, (shortlist + i) as isize, 1)?;
            parts.push(logprob.add(&at)?);
        }
        borch_tensor::cat(&parts, 1)
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn check_targets(&self, target: &Tensor) -> Result<()> {
        if target.numel() == 0 {
            return Ok(());
        }
        let (lo, hi) = (
            target.min()?.item_blocking()?.to_f64() as i64,
            target.max()?.item_blocking()?.to_f64() as i64,
        );
        if lo >= 0 && hi < self.n_classes as i64 {
            return Ok(());
        }
        Err(BorchError::Runtime(format!(
            "Target values should be in [0, {}], but values in range [{lo}, {hi}] were found. ",
            self.n_classes - 1
        )))
    }

    #[cfg(target_arch = "wasm32")]
    fn check_targets(&self, _target: &Tensor) -> Result<()> {
        Ok(())
    }
}

impl Module for AdaptiveLogSoftmaxWithLoss {
    fn forward(&self, _input: &Tensor) -> Result<Tensor> {
        Err(BorchError::Type(
            "AdaptiveLogSoftmaxWithLoss.forward() missing 1 required positional argument: \
             'target_'"
                .into(),
        ))
    }
    fn forward_args(&self, inputs: &[&Tensor]) -> Result<Tensor> {
        match inputs {
            [input] => Module::forward(self, input),
            _ => Err(BorchError::NotImplemented(
                "AdaptiveLogSoftmaxWithLoss.forward() returns a tuple (output, loss): call it \
                 through forward_values"
                    .into(),
            )),
        }
    }
    fn forward_values(
        &self,
        positional: Vec<Value>,
        keywords: Vec<(String, Value)>,
    ) -> Result<Value> {
        let a = ADAPTIVE_LOG_SOFTMAX_FORWARD.bind(positional, keywords)?;
        let (output, loss) = self.forward_pair(&a.tensor(0)?, &a.tensor(1)?)?;
        Ok(Value::List(vec![
            Value::Tensor(output),
            Value::Tensor(loss),
        ]))
    }
    fn name(&self) -> String {
        "AdaptiveLogSoftmaxWithLoss".into()
    }
    crate::child_fields!(head, tail);
    training_flag!();
}

crate::display_as_repr!(AdaptiveLogSoftmaxWithLoss);
