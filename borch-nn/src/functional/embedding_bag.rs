//! torch's `F.embedding_bag`: sums, means or maxima of bags of embedding rows, the bags given
//! by `offsets` (or the rows of a 2-D input). The bag of each position is computed on the
//! device (a membership mask), so no offset is read back; torch's checks on the offset values
//! (`offsets[0] == 0`, increasing) read the data and are not made.

use borch_tensor::{BorchError, DType, Result, Tensor, arange, cat, full, where_cond};

fn value_err<T>(msg: String) -> Result<T> {
    Err(BorchError::Value(msg))
}

fn indices_of(t: &Tensor) -> Result<()> {
    if t.dtype() == DType::Int64 {
        return Ok(());
    }
    let name = match t.dtype() {
        DType::Float32 => "torch.FloatTensor",
        DType::Bool => "torch.BoolTensor",
        DType::Int64 => "torch.LongTensor",
    };
    Err(BorchError::Runtime(format!(
        "Expected tensor for argument #1 'indices' to have one of the following scalar types: \
         Long, Int; but got {name} instead (while checking arguments for embedding_bag)"
    )))
}

/// How a bag reduces its rows (torch's `mode=`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BagMode {
    /// `'sum'`.
    Sum,
    /// `'mean'` (torch's default).
    Mean,
    /// `'max'`.
    Max,
}

impl BagMode {
    /// torch's `mode` string.
    pub fn parse(mode: &str) -> Result<BagMode> {
        match mode {
            "sum" => Ok(BagMode::Sum),
            "mean" => Ok(BagMode::Mean),
            "max" => Ok(BagMode::Max),
            _ => value_err("mode has to be one of sum, mean or max".into()),
        }
    }

    /// torch's name of the mode.
    pub fn as_str(self) -> &'static str {
        match self {
            BagMode::Sum => "sum",
            BagMode::Mean => "mean",
            BagMode::Max => "max",
        }
    }
}

/// torch's `F.embedding_bag(input, weight, offsets, mode=, per_sample_weights=,
/// include_last_offset=, padding_idx=)` (max_norm, scale_grad_by_freq and sparse are refused
/// by the catalog).
pub fn embedding_bag(
    input: &Tensor,
    weight: &Tensor,
    offsets: Option<&Tensor>,
    mode: BagMode,
    per_sample_weights: Option<&Tensor>,
    include_last_offset: bool,
    padding_idx: Option<i64>,
) -> Result<Tensor> {
    if let Some(w) = per_sample_weights
        && w.shape() != input.shape()
    {
        return value_err(format!(
            "embedding_bag: If per_sample_weights ({}) is not None, then it must have the same \
             shape as the input ({})",
            borch_tensor::fmt_size(w.shape()),
            borch_tensor::fmt_size(input.shape())
        ));
    }
    if weight.dim() != 2 {
        return value_err(format!(
            "weight has to be a 2D Tensor, but got Tensor of dimension {}",
            weight.dim()
        ));
    }
    let (flat, offsets, include_last_offset) = match (input.dim(), offsets) {
        (2, Some(_)) => {
            return value_err(
                "if input is 2D, then offsets has to be None, as input is treated is a \
                 mini-batch of fixed length sequences. However, found offsets of type <class \
                 'torch.Tensor'>"
                    .into(),
            );
        }
        (2, None) => {
            let step = input.shape()[1].max(1);
            let o = arange(0, input.numel() as i64, step as i64)?;
            (input.reshape(&[-1])?, o, false)
        }
        (1, None) => return value_err("offsets has to be a 1D Tensor but got None".into()),
        (1, Some(o)) if o.dim() != 1 => return value_err("offsets has to be a 1D Tensor".into()),
        (1, Some(o)) => (input.clone(), o.clone(), include_last_offset),
        (d, _) => {
            return value_err(format!(
                "input has to be 1D or 2D Tensor, but got Tensor of dimension {d}"
            ));
        }
    };
    if mode != BagMode::Sum && per_sample_weights.is_some() {
        return Err(BorchError::NotImplemented(format!(
            "embedding_bag: per_sample_weights was not None. per_sample_weights is only \
             supported for mode='sum' (got mode='{}'). Please open a feature request on GitHub.",
            mode.as_str()
        )));
    }
    indices_of(&flat)?;
    indices_of(&offsets)?;
    let rows_n = weight.shape()[0] as i64;
    if let Some(p) = padding_idx
        && (p >= rows_n || p < -rows_n)
    {
        return Err(BorchError::Runtime(format!(
            "padding_idx must be within the number of embeddings, -{rows_n} through {}, but got \
             {p}",
            rows_n - 1
        )));
    }
    let n = flat.numel();
    let bags = if include_last_offset {
        offsets.numel().saturating_sub(1)
    } else {
        offsets.numel()
    };
    let starts = offsets.narrow(0, 0, bags)?;
    let ends = if include_last_offset {
        offsets.narrow(0, 1, bags)?
    } else {
        let end = full(&[1], n as i64, Some(DType::Int64))?;
        cat(&[offsets.narrow(0, 1, bags.saturating_sub(1))?, end], 0)?
    };
    // member[b, i]: position i lies in bag b (and is not padding).
    let positions = arange(0, n as i64, 1)?.unsqueeze(0)?;
    let mut member = positions
        .ge(&starts.unsqueeze(1)?)?
        .logical_and(&positions.lt(&ends.unsqueeze(1)?)?)?;
    if let Some(p) = padding_idx {
        let p = if p < 0 { p + rows_n } else { p };
        member = member.logical_and(&flat.ne(p)?.unsqueeze(0)?)?;
    }
    let rows = weight.index_select(0, &flat)?;
    let count = member.to_dtype(DType::Float32)?.sum(Some(&[1]), true)?;
    match mode {
        BagMode::Sum | BagMode::Mean => {
            let rows = match per_sample_weights {
                Some(w) => rows.mul(&w.reshape(&[-1, 1])?)?,
                None => rows,
            };
            let sum = member.to_dtype(DType::Float32)?.matmul(&rows)?;
            match mode {
                BagMode::Sum => Ok(sum),
                _ => sum.div(&count.clamp_min(1.0)?),
            }
        }
        BagMode::Max => {
            let candidates = where_cond(
                &member.unsqueeze(2)?,
                rows.unsqueeze(0)?.into(),
                f64::NEG_INFINITY.into(),
            )?;
            let (max, _) = candidates.max_dim(1, false)?;
            where_cond(&count.gt(0.0)?, max.into(), 0.0.into())
        }
    }
}
