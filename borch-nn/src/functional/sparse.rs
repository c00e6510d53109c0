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
        let grad = zeros(weight.shape(), DType::Float32)?.index_add(0, &flat, &g, 1.0)?;
        Ok(vec![Some(grad), None])
    }
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
