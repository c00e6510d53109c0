//! Reductions, softmax and scans.

use borch_tensor::{BorchError, Operand, Result, Tensor};
use serde_json::Value;

use crate::case::Args;

/// `dim` as torch takes it: null (every dim), one int, or a list.
fn dims(a: &Args) -> Option<Vec<isize>> {
    match a.get("dim") {
        Value::Null => None,
        Value::Array(_) => Some(a.dims("dim")),
        _ => Some(vec![a.int("dim")]),
    }
}

pub fn run(op: &str, inputs: &[Operand], a: &Args) -> Option<Result<Vec<Tensor>>> {
    let Some(Operand::Tensor(x)) = inputs.first() else {
        return Some(Err(BorchError::Type("input 0 must be a tensor".into())));
    };
    let d = dims(a);
    let d = d.as_deref();
    let keepdim = a.bool("keepdim");
    let p = a.opt_f64("p").unwrap_or(2.0);
    let correction = a.opt_f64("correction").unwrap_or(1.0);
    let one = |r: Result<Tensor>| r.map(|t| vec![t]);
    let pair = |r: Result<(Tensor, Tensor)>| r.map(|(v, i)| vec![v, i]);
    let out = match op {
        "sum" => one(x.sum(d, keepdim)),
        "mean" => one(x.mean(d, keepdim)),
        "amax" => one(x.amax(d, keepdim)),
        "amin" => one(x.amin(d, keepdim)),
        "all" => one(x.all(d, keepdim)),
        "any" => one(x.any(d, keepdim)),
        "logsumexp" => one(x.logsumexp(d.unwrap_or_default(), keepdim)),
        "norm" => one(x.norm(p, d, keepdim)),
        "var" => one(x.var(d, correction, keepdim)),
        "std" => one(x.std(d, correction, keepdim)),
        "prod" => one(x.prod(a.opt_int("dim"), keepdim)),
        "max" if a.has("dim") => pair(x.max_dim(a.int("dim"), keepdim)),
        "max" => one(x.max()),
        "min" if a.has("dim") => pair(x.min_dim(a.int("dim"), keepdim)),
        "min" => one(x.min()),
        "argmax" => one(x.argmax(a.opt_int("dim"), keepdim)),
        "argmin" => one(x.argmin(a.opt_int("dim"), keepdim)),
        "softmax" => one(x.softmax(a.int("dim"))),
        "log_softmax" => one(x.log_softmax(a.int("dim"))),
        "cumsum" => one(x.cumsum(a.int("dim"))),
        "cumprod" => one(x.cumprod(a.int("dim"))),
        _ => return None,
    };
    Some(out)
}
