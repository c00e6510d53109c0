//! `torch.nn.utils.rnn.pad_sequence`, composed of recorded ops (`full`, `cat`, `stack`), so
//! autograd gives each sequence its gradient.

use borch_tensor::{BorchError, Result, Tensor, cat, full, stack};

/// torch's `pad_sequence(sequences, batch_first=False, padding_value=0.0,
/// padding_side='right')`: sequences `[L_i, *]` padded to the longest, stacked along a new
/// batch dim (`[L, B, *]`, or `[B, L, *]` with `batch_first`), in the first sequence's dtype.
pub fn pad_sequence(
    sequences: &[Tensor],
    batch_first: bool,
    padding_value: f64,
    padding_side: &str,
) -> Result<Tensor> {
    let left = match padding_side {
        "left" => true,
        "right" => false,
        other => {
            return Err(BorchError::Runtime(format!(
                "Expected padding_side to be one of left or right, but got {other}."
            )));
        }
    };
    let Some(first) = sequences.first() else {
        return Err(BorchError::Runtime(
            "received an empty list of sequences".into(),
        ));
    };
    if first.dim() == 0 {
        return Err(BorchError::Runtime(
            "ArrayRef: invalid slice, N = 1; size = 0".into(),
        ));
    }
    let trailing = &first.shape()[1..];
    for s in sequences {
        if s.dim() != first.dim() {
            return Err(BorchError::NotImplemented(
                "pad_sequence with sequences of different ranks (torch broadcasts each into the \
                 first one's trailing shape)"
                    .into(),
            ));
        }
        if let Some(d) = (1..s.dim()).find(|&d| s.shape()[d] != first.shape()[d]) {
            return Err(BorchError::Runtime(format!(
                "The size of tensor a ({}) must match the size of tensor b ({}) at non-singleton \
                 dimension {d}",
                first.shape()[d],
                s.shape()[d]
            )));
        }
    }
    let longest = sequences.iter().map(|s| s.shape()[0]).max().unwrap_or(0);
    let dtype = first.dtype();
    let padded = sequences
        .iter()
        .map(|s| {
            let s = if s.dtype() == dtype {
                s.clone()
            } else {
                s.to_dtype(dtype)?
            };
            let pad = longest - s.shape()[0];
            if pad == 0 {
                return Ok(s);
            }
            let mut shape = vec![pad];
            shape.extend_from_slice(trailing);
            let fill = full(&shape, padding_value, Some(dtype))?;
            if left {
                cat(&[fill, s], 0)
            } else {
                cat(&[s, fill], 0)
            }
        })
        .collect::<Result<Vec<_>>>()?;
    stack(&padded, if batch_first { 0 } else { 1 })
}
