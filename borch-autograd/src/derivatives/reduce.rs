//! Derivatives of reductions and of softmax, log_softmax, cumsum and cumprod.

use borch_tensor::{AlongOp, Node, Operand, ReduceOp, Result, Tensor};

fn input(node: &Node) -> Result<Tensor> {
    node.saved_input(0)
}

fn input_shape(node: &Node) -> Vec<usize> {
    match &node.inputs[0] {
        Operand::Tensor(t) => t.shape().to_vec(),
        Operand::Scalar(_) => vec![],
    }
}

/// A reduced tensor seen with the reduced dims kept (size 1), ready to broadcast to the input.
fn kept(t: &Tensor, dims: &[usize], keepdim: bool) -> Result<Tensor> {
    if keepdim {
        return Ok(t.clone());
    }
    let mut out = t.clone();
    for &d in dims {
        out = out.unsqueeze(d as isize)?;
    }
    Ok(out)
}

fn signed(dims: &[usize]) -> Vec<isize> {
    dims.iter().map(|&d| d as isize).collect()
}

pub fn derivative(
    op: &ReduceOp,
    dims: &[usize],
    keepdim: bool,
    node: &Node,
    g: &Tensor,
) -> Result<Vec<Option<Tensor>>> {
    let shape = input_shape(node);
    let n: usize = dims.iter().map(|&d| shape[d]).product();
    let gk = kept(g, dims, keepdim)?;
    let out = || -> Result<Tensor> { kept(node.output()?, dims, keepdim) };
    let sd = signed(dims);
    let grad = match op {
        ReduceOp::Sum => gk.expand_as_shape(&shape)?,
        ReduceOp::Mean => gk.div(n as f64)?.expand_as_shape(&shape)?,
        ReduceOp::Prod => {
            let x = input(node)?;
            let zero = x.eq(0.0)?;
            let zeros = zero.sum(Some(&sd), true)?;
            let y = out()?;
            let nonzero_prod = x.masked_fill(&zero, 1.0)?.prod_dims(&sd)?;
            let regular = gk.mul(&y)?.div(&x)?;
            let lone_zero = gk.mul(&nonzero_prod)?.masked_fill(&zeros.ne(1)?, 0.0)?;
            lone_zero.where_(&zero, &regular.masked_fill(&zeros.gt(0)?, 0.0)?)?
        }
        ReduceOp::Max | ReduceOp::Min => {
            // torch's max()/min() backward: shared evenly among the elements equal to the
            // result, or among the NaNs when the result is NaN.
            let x = input(node)?;
            let y = out()?;
            let mask = x
                .eq(&y)?
                .logical_or(&x.isnan()?.logical_and(&y.isnan()?)?)?;
            let count = mask.sum(Some(&sd), true)?;
            gk.div(&count)?.mul(&mask)?
        }
        ReduceOp::Amax | ReduceOp::Amin => {
            let x = input(node)?;
            // torch's amax backward: g / count * mask, so a NaN row gives NaN (0 * inf).
            let mask = x.eq(&out()?)?;
            let count = mask.sum(Some(&sd), true)?;
            gk.div(&count)?.mul(&mask)?
        }
        ReduceOp::LogSumExp => gk.mul(&input(node)?.sub(&out()?)?.exp()?)?,
        ReduceOp::Norm(p) if *p == 0.0 => return Ok(vec![None]),
        ReduceOp::Norm(p) => norm(*p, &input(node)?, &out()?, &gk, &sd)?,
        ReduceOp::Var { correction } => {
            let x = input(node)?;
            let centred = x.sub(&x.mean(Some(&sd), true)?)?;
            gk.mul(&centred)?.mul(2.0 / (n as f64 - correction))?
        }
        ReduceOp::Std { correction } => {
            let x = input(node)?;
            let centred = x.sub(&x.mean(Some(&sd), true)?)?;
            let y = out()?;
            let scale = gk
                .div(&y.mul(n as f64 - correction)?)?
                .masked_fill(&y.eq(0.0)?, 0.0)?;
            scale.mul(&centred)?
        }
    };
    Ok(vec![Some(grad)])
}

fn norm(p: f64, x: &Tensor, y: &Tensor, g: &Tensor, dims: &[isize]) -> Result<Tensor> {
    if p == 1.0 {
        return g.mul(&x.sign()?);
    }
    if p.is_infinite() {
        let mask = x.abs()?.eq(y)?;
        let count = mask.sum(Some(dims), true)?;
        return g
            .mul(&x.sign()?)?
            .div(&count)?
            .masked_fill(&mask.logical_not()?, 0.0);
    }
    let scaled = if p == 2.0 {
        x.div(y)?
    } else {
        x.sign()?
            .mul(&x.abs()?.pow(p - 1.0)?)?
            .div(&y.pow(p - 1.0)?)?
    };
    // torch zeroes the gradient where the norm or the element is zero (0 * inf there).
    let scaled = scaled.masked_fill(&y.eq(0.0)?.broadcast_to(x.shape())?, 0.0)?;
    g.mul(&scaled.masked_fill(&x.eq(0.0)?, 0.0)?)
}

pub fn along(op: &AlongOp, dim: usize, node: &Node, g: &Tensor) -> Result<Vec<Option<Tensor>>> {
    let d = dim as isize;
    let grad = match op {
        AlongOp::Softmax => {
            let y = node.output()?.clone();
            let dot = g.mul(&y)?.sum(Some(&[d]), true)?;
            y.mul(&g.sub(&dot)?)?
        }
        AlongOp::LogSoftmax => {
            let y = node.output()?.clone();
            g.sub(&y.exp()?.mul(&g.sum(Some(&[d]), true)?)?)?
        }
        AlongOp::Cumsum => g.flip(&[d])?.cumsum(d)?.flip(&[d])?,
        AlongOp::Cumprod => {
            // Exact where the input has no zeros (the common case); see docs/autograd.md.
            let x = input(node)?;
            let y = node.output()?.clone();
            g.mul(&y)?.flip(&[d])?.cumsum(d)?.flip(&[d])?.div(&x)?
        }
    };
    Ok(vec![Some(grad)])
}

trait ExpandShape {
    fn expand_as_shape(&self, shape: &[usize]) -> Result<Tensor>;
    fn prod_dims(&self, dims: &[isize]) -> Result<Tensor>;
}

impl ExpandShape for Tensor {
    fn expand_as_shape(&self, shape: &[usize]) -> Result<Tensor> {
        self.broadcast_to(shape)
    }
    fn prod_dims(&self, dims: &[isize]) -> Result<Tensor> {
        let mut out = self.clone();
        for &d in dims {
            out = out.prod(Some(d), true)?;
        }
        Ok(out)
    }
}
