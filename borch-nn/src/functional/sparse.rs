//! torch's `F.embedding`: rows of a weight picked by index, with torch's embedding backward
//! (gradients summed per row, none for `padding_idx`).

use borch_autograd::{Ctx, Function, apply};
use borch_tensor::{BorchError, DType, Result, Tensor, zeros};

/// The embedding lookup as an autograd function over (weight, indices).
struct EmbeddingFn {
    padding_idx: Option<usize>,
}

impl Function for EmbeddingFn {
    fn name(&self) -> &str {
        "EmbeddingBackward"
    }

    fn forward(&self, ctx: &mut Ctx, inputs: &[Tensor]) -> Result<Tensor> {
        let (weight, indices) = (&inputs[0], &inputs[1]);
        ctx.save_for_backward(&[indices, weight]);
        let flat = indices.reshape(&[-1])?;
        let mut shape: Vec<isize> = indices.shape().iter().map(|&d| d as isize).collect();
        shape.push(weight.shape()[1] as isize);
        weight.index_select(0, &flat)?.reshape(&shape)
    }

    fn backward(&self, ctx: &Ctx, grad_output: &Tensor) -> Result<Vec<Option<Tensor>>> {
        let (indices, weight) = (&ctx.saved_tensors()[0], &ctx.saved_tensors()[1]);
        let dim = weight.shape()[1] as isize;
        let flat = indices.reshape(&[-1])?;
        let mut g = grad_output.reshape(&[-1, dim])?;
        if let Some(p) = self.padding_idx {
            g = g.masked_fill(&flat.eq(p as i64)?.unsqueeze(1)?, 0.0)?;
        }
        Ok(vec![Some(summed_rows(&flat, &g, weight.shape()[0])?), None])
    }
}

/// Most adds one row of a table copy takes on average (see [`summed_rows`]).
const ADDS_PER_ROW: usize = 4;
/// Most table copies, and most bytes they take together.
const MAX_COPIES: usize = 64;
const MAX_COPIES_BYTES: usize = 64 << 20;

/// `g`'s rows summed into `rows` rows by `index` (torch's embedding_dense_backward). The adds are
/// atomic, so many positions on few rows (a 58-letter vocabulary over 16,384 positions)
/// serialise on each row: the positions are cut into groups that add into copies of the table,
/// so that a row of a copy takes about `ADDS_PER_ROW` adds, and the copies are summed.
fn summed_rows(index: &Tensor, g: &Tensor, rows: usize) -> Result<Tensor> {
    let (n, width) = (index.numel(), g.shape()[1]);
    let table_bytes = rows * width * 4;
    let cap = MAX_COPIES.min(MAX_COPIES_BYTES / table_bytes.max(1));
    let wanted = n.div_ceil(rows.max(1) * ADDS_PER_ROW).min(cap);
    // Groups of equal size, so the group of a position is a reshape.
    let copies = (1..=wanted).rev().find(|c| n % c == 0).unwrap_or(1);
    if copies <= 1 {
        return zeros(&[rows, width], DType::Float32)?.index_add(0, index, g, 1.0);
    }
    let first_rows = borch_tensor::arange(0, (copies * rows) as i64, rows as i64)?;
    let spread = index
        .reshape(&[copies as isize, -1])?
        .add(&first_rows.unsqueeze(1)?)?
        .reshape(&[-1])?;
    zeros(&[copies * rows, width], DType::Float32)?
        .index_add(0, &spread, g, 1.0)?
        .view(&[copies as isize, rows as isize, width as isize])?
        .sum(Some(&[0]), false)
}

/// torch's `F.embedding(input, weight, padding_idx)`: `weight[input]`, of shape
/// `input.shape + [embedding_dim]`. A negative `padding_idx` counts from the end.
pub fn embedding(input: &Tensor, weight: &Tensor, padding_idx: Option<i64>) -> Result<Tensor> {
    if input.dtype() != DType::Int64 {
        let name = match input.dtype() {
            DType::Float32 => "torch.FloatTensor",
            DType::Bool => "torch.BoolTensor",
            DType::Int64 => "torch.LongTensor",
        };
        return Err(BorchError::Runtime(format!(
            "Expected tensor for argument #1 'indices' to have one of the following scalar \
             types: Long, Int; but got {name} instead (while checking arguments for embedding)"
        )));
    }
    if weight.dim() != 2 {
        return Err(BorchError::Runtime("'weight' must be 2-D".into()));
    }
    let padding_idx = padding_index(padding_idx, weight.shape()[0])?;
    apply(
        EmbeddingFn { padding_idx },
        &[weight.clone(), input.clone()],
    )
}

/// torch's checks and wrapping of `padding_idx` against `num_embeddings`.
pub(crate) fn padding_index(
    padding_idx: Option<i64>,
    num_embeddings: usize,
) -> Result<Option<usize>> {
    let Some(p) = padding_idx else {
        return Ok(None);
    };
    let n = num_embeddings as i64;
    if p >= n || p < -n {
        return Err(BorchError::Runtime(
            "Padding_idx must be within num_embeddings".into(),
        ));
    }
    Ok(Some(if p < 0 { (p + n) as usize } else { p as usize }))
}
