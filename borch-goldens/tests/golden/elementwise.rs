//! Table ops run generically: the op's torch name and parameter names come from borch's table.

use borch_tensor::{Operand, Result, Tensor, ops::table};

use crate::case::Args;

pub fn run(op: &str, inputs: &[Operand], args: &Args) -> Option<Result<Vec<Tensor>>> {
    let entry = table::find(op)?;
    let params: Vec<f64> = entry
        .params
        .iter()
        .map(|&(name, default)| args.opt_f64(name).unwrap_or(default))
        .collect();
    Some(Tensor::elementwise(op, inputs, &params).map(|t| vec![t]))
}
