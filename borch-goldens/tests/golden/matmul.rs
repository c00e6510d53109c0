//! The matmul family: mm, bmm, matmul, addmm, mv, dot, outer.

use borch_tensor::{BorchError, Operand, Result, Tensor};

use crate::case::Args;

fn tensor(inputs: &[Operand], i: usize) -> Result<Tensor> {
    match inputs.get(i) {
        Some(Operand::Tensor(t)) => Ok(t.clone()),
        _ => Err(BorchError::Type(format!("input {i} must be a tensor"))),
    }
}

pub fn run(op: &str, inputs: &[Operand], a: &Args) -> Option<Result<Vec<Tensor>>> {
    let x = || tensor(inputs, 0);
    let y = || tensor(inputs, 1);
    let out = match op {
        "mm" => x().and_then(|t| t.mm(&y()?)),
        "bmm" => x().and_then(|t| t.bmm(&y()?)),
        "matmul" => x().and_then(|t| t.matmul(&y()?)),
        "mv" => x().and_then(|t| t.mv(&y()?)),
        "dot" => x().and_then(|t| t.dot(&y()?)),
        "outer" => x().and_then(|t| t.outer(&y()?)),
        "addmm" => {
            x().and_then(|t| t.addmm(&y()?, &tensor(inputs, 2)?, a.f64("beta"), a.f64("alpha")))
        }
        _ => return None,
    };
    Some(out.map(|t| vec![t]))
}
