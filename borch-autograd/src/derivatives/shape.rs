//! Derivatives of shape and indexing ops: each routes the gradient back with the op's own
//! indices, so none needs the inputs' values.

use borch_tensor::{Node, Operand, Result, ShapeOp, Tensor, cat, zeros};

fn shape_of(node: &Node, i: usize) -> Vec<usize> {
    match &node.inputs[i] {
        Operand::Tensor(t) => t.shape().to_vec(),
        Operand::Scalar(_) => vec![],
    }
}

/// `t` padded with zeros at the end of each dim up to `shape` (where an index tensor smaller
/// than the source read only part of it); `cat` keeps this differentiable.
fn pad_to(t: Tensor, shape: &[usize]) -> Result<Tensor> {
    let mut out = t;
    for (d, &n) in shape.iter().enumerate() {
        let have = out.shape()[d];
        if have < n {
            let mut rest = out.shape().to_vec();
            rest[d] = n - have;
            let z = zeros(&rest, out.dtype())?;
            out = cat(&[out, z], d as isize)?;
        }
    }
    Ok(out)
}

pub fn derivative(op: &ShapeOp, node: &Node, g: &Tensor) -> Result<Vec<Option<Tensor>>> {
    if saves_indices(op) {
        node.check_saved()?;
    }
    let input = || shape_of(node, 0);
    let zeros_in = || zeros(&input(), g.dtype());
    Ok(match op {
        ShapeOp::Cat { dim } => {
            let mut start = 0;
            let mut grads = Vec::with_capacity(node.inputs.len());
            for i in 0..node.inputs.len() {
                let shape = shape_of(node, i);
                // torch's cat skips 1-D empty tensors; their gradient is empty too.
                if shape.len() == 1 && shape[0] == 0 {
                    grads.push(Some(zeros(&[0], g.dtype())?));
                    continue;
                }
                let len = shape[*dim];
                grads.push(Some(g.narrow(*dim as isize, start as isize, len)?));
                start += len;
            }
            grads
        }
        ShapeOp::Stack { dim } => (0..node.inputs.len())
            .map(|i| Ok(Some(g.select(*dim as isize, i as isize)?)))
            .collect::<Result<_>>()?,
        ShapeOp::Flip { dims } => vec![Some(g.flip(&signed(dims))?)],
        ShapeOp::Roll { shifts, dims } => {
            let back: Vec<isize> = shifts.iter().map(|s| -s).collect();
            vec![Some(g.roll(&back, &signed(dims))?)]
        }
        ShapeOp::Repeat { sizes } => vec![Some(unrepeat(g, sizes, &input())?)],
        ShapeOp::IndexSelect { dim, index } => {
            vec![Some(zeros_in()?.index_add(*dim as isize, index, g, 1.0)?)]
        }
        ShapeOp::Gather { dim, index } => {
            vec![Some(zeros_in()?.scatter_add(*dim as isize, index, g)?)]
        }
        ShapeOp::Take { index } => vec![Some(untake(g, index, &input())?)],
        ShapeOp::Scatter { dim, index } => {
            let d = *dim as isize;
            let mut grads = vec![Some(g.scatter(d, index, 0.0)?)];
            if node.inputs.len() > 1 {
                grads.push(Some(pad_to(g.gather(d, index)?, &shape_of(node, 1))?));
            }
            grads
        }
        ShapeOp::ScatterAdd { dim, index } => {
            let src = g.gather(*dim as isize, index)?;
            vec![Some(g.clone()), Some(pad_to(src, &shape_of(node, 1))?)]
        }
        ShapeOp::IndexAdd { dim, index, alpha } => {
            let mut source = g.index_select(*dim as isize, index)?;
            if *alpha != 1.0 {
                source = source.mul(*alpha)?;
            }
            vec![Some(g.clone()), Some(source)]
        }
        ShapeOp::Tril { diagonal } => vec![Some(g.tril(*diagonal)?)],
        ShapeOp::Triu { diagonal } => vec![Some(g.triu(*diagonal)?)],
        ShapeOp::Im2col { window } => vec![Some(g.col2im(window)?)],
        ShapeOp::Col2im { window } => vec![Some(g.im2col(window, 0.0)?)],
        ShapeOp::Im2col3d { window } => vec![Some(g.col2im(window)?)],
        ShapeOp::Col2im3d { window } => vec![Some(g.im2col(window, 0.0)?)],
        ShapeOp::TakeAlong {
            dim,
            indices,
            keepdim,
        } => {
            let d = *dim as isize;
            let gk = if *keepdim { g.clone() } else { g.unsqueeze(d)? };
            let ik = if indices.dim() == gk.dim() {
                indices.clone()
            } else {
                indices.unsqueeze(d)?
            };
            vec![Some(zeros_in()?.scatter_add(d, &ik, &gk)?)]
        }
    })
}

/// Ops whose index tensor torch saves, so that a second backward through a freed graph fails
/// as it does in torch; the others save nothing and may be run again.
fn saves_indices(op: &ShapeOp) -> bool {
    !matches!(
        op,
        ShapeOp::Cat { .. }
            | ShapeOp::Stack { .. }
            | ShapeOp::Flip { .. }
            | ShapeOp::Roll { .. }
            | ShapeOp::Repeat { .. }
            | ShapeOp::Tril { .. }
            | ShapeOp::Triu { .. }
            | ShapeOp::Im2col { .. }
            | ShapeOp::Col2im { .. }
    )
}

fn signed(dims: &[usize]) -> Vec<isize> {
    dims.iter().map(|&d| d as isize).collect()
}

/// The gradient of `repeat(sizes)`: each output dim seen as (repeat, size) and the repeats
/// summed away.
fn unrepeat(g: &Tensor, sizes: &[usize], input: &[usize]) -> Result<Tensor> {
    let extra = sizes.len() - input.len();
    let mut paired = Vec::with_capacity(2 * sizes.len());
    for (i, &r) in sizes.iter().enumerate() {
        let s = if i < extra { 1 } else { input[i - extra] };
        paired.extend([r as isize, s as isize]);
    }
    let repeats: Vec<isize> = (0..sizes.len() as isize).map(|i| 2 * i).collect();
    let summed = g.reshape(&paired)?.sum(Some(&repeats), false)?;
    summed.reshape(&signed(input))
}

/// The gradient of `take(index)`: `g` added into a flattened zero tensor at the (wrapped)
/// indices.
fn untake(g: &Tensor, index: &Tensor, input: &[usize]) -> Result<Tensor> {
    let n: usize = input.iter().product();
    let flat = zeros(&[n], g.dtype())?;
    if index.numel() == 0 {
        return flat.reshape(&signed(input));
    }
    let wrapped = index.reshape(&[-1])?.remainder(n as i64)?;
    flat.index_add(0, &wrapped, &g.reshape(&[-1])?, 1.0)?
        .reshape(&signed(input))
}
