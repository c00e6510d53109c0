//! Views, layout ops and conversions.

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
    let out = match op {
        "view" => x().and_then(|t| t.view(&a.dims("shape"))),
        "reshape" => x().and_then(|t| t.reshape(&a.dims("shape"))),
        "permute" => x().and_then(|t| t.permute(&a.dims("dims"))),
        "transpose" => x().and_then(|t| t.transpose(a.int("dim0"), a.int("dim1"))),
        "t" => x().and_then(|t| t.t()),
        "mT" => x().and_then(|t| t.mt()),
        "unsqueeze" => x().and_then(|t| t.unsqueeze(a.int("dim"))),
        "squeeze" if a.has("dims") => x().and_then(|t| t.squeeze_dims(&a.dims("dims"))),
        "squeeze" => x().and_then(|t| t.squeeze()),
        "expand" => x().and_then(|t| t.expand(&a.dims("sizes"))),
        "narrow" => x().and_then(|t| t.narrow(a.int("dim"), a.int("start"), a.usize("length"))),
        "select" => x().and_then(|t| t.select(a.int("dim"), a.int("index"))),
        "slice" => x().and_then(|t| {
            t.slice(
                a.int("dim"),
                a.opt_int("start"),
                a.opt_int("end"),
                a.int("step"),
            )
        }),
        "flatten" => x().and_then(|t| t.flatten(a.int("start_dim"), a.int("end_dim"))),
        "unflatten" => x().and_then(|t| t.unflatten(a.int("dim"), &a.dims("sizes"))),
        "contiguous" => x().and_then(|t| t.contiguous()),
        "to" => x().and_then(|t| t.to_dtype(a.dtype("dtype").expect("dtype arg"))),
        "masked_fill" => x().and_then(|t| t.masked_fill(&tensor(inputs, 1)?, a.scalar("value"))),
        _ => return None,
    };
    Some(out.map(|t| vec![t]))
}
