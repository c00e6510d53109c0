//! torch's `reduction=` argument of the losses.

use std::fmt;
use std::str::FromStr;

use borch_tensor::{BorchError, Result, Tensor};

/// How a loss reduces its elementwise values: `"none"`, `"mean"`, `"sum"`, and for `kl_div`
/// also `"batchmean"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Reduction {
    /// `'none'`: one loss per element.
    None,
    /// `'mean'`.
    #[default]
    Mean,
    /// `'sum'`.
    Sum,
    /// kl_div only: the sum divided by the batch size.
    BatchMean,
}

impl Reduction {
    /// torch's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Reduction::None => "none",
            Reduction::Mean => "mean",
            Reduction::Sum => "sum",
            Reduction::BatchMean => "batchmean",
        }
    }

    /// torch's `_Reduction.get_enum`: every loss but kl_div refuses `batchmean`.
    pub(crate) fn plain(self) -> Result<Reduction> {
        match self {
            Reduction::BatchMean => invalid("batchmean"),
            r => Ok(r),
        }
    }

    /// `apply_loss_reduction`: the elementwise loss, its mean, or its sum.
    pub(crate) fn apply(self, loss: &Tensor) -> Result<Tensor> {
        match self.plain()? {
            Reduction::None => Ok(loss.clone()),
            Reduction::Sum => loss.sum(None, false),
            _ => loss.mean(None, false),
        }
    }
}

fn invalid<T>(name: &str) -> Result<T> {
    Err(BorchError::Value(format!(
        "{name} is not a valid value for reduction"
    )))
}

impl FromStr for Reduction {
    type Err = BorchError;
    fn from_str(s: &str) -> Result<Reduction> {
        match s {
            "none" => Ok(Reduction::None),
            "mean" => Ok(Reduction::Mean),
            "sum" => Ok(Reduction::Sum),
            "batchmean" => Ok(Reduction::BatchMean),
            other => invalid(other),
        }
    }
}

impl fmt::Display for Reduction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
