//! The in-place forms torch offers (`add_`, `exp_`, `clamp_`, `masked_fill_`, `index_add_`,
//! `scatter_`, …): each returns `self`, written in place and recorded by autograd as torch does.

use crate::error::Result;
use crate::ops::table::{self, MapOp};
use crate::scalar::Operand;

use super::args::Args;
use super::signature::{Call, Entry, Form, Returns, parse_params};
use super::value::Value;

fn leak(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

/// `Tensor.<name>_` for every table op whose row says torch offers it with the op's own
/// signature (torch 2.15: `hasattr(torch.Tensor, name + "_")`).
fn from_table() -> Vec<Entry> {
    table::ALL
        .iter()
        .copied()
        .filter(|op| op.inplace)
        .map(|op| Entry {
            name: leak(format!("{}_", op.name)),
            form: Form::Method,
            params: super::catalog::table_params(op),
            returns: Returns::SelfInPlace,
            call: Call::MapInPlace(op),
        })
        .collect()
}

/// Run table op `op` in place on bound arguments: `self`, its other operands, its parameters.
pub(super) fn run_map_inplace(op: &'static MapOp, a: &Args) -> Result<Value> {
    let others = (1..op.arity)
        .map(|i| a.operand(i))
        .collect::<Result<Vec<Operand>>>()?;
    let params = (op.arity..op.arity + op.params.len())
        .map(|i| a.f64(i))
        .collect::<Result<Vec<f64>>>()?;
    let me = a.tensor(0)?;
    me.map_(op, &others, &params)?;
    Ok(Value::Tensor(me))
}

type Body = fn(&Args) -> Result<Value>;

fn method(name: &'static str, params: &str, body: Body) -> Entry {
    Entry {
        name,
        form: Form::Method,
        params: parse_params(params),
        returns: Returns::SelfInPlace,
        call: Call::Fn(body),
    }
}

fn this(a: &Args, r: Result<()>) -> Result<Value> {
    r?;
    a.tensor(0).map(Value::Tensor)
}

#[rustfmt::skip]
pub(super) fn listed() -> Vec<Entry> {
    let mut all = from_table();
    all.extend([
        method("div_", "other: Operand, rounding_mode: Str = None",
            |a| this(a, a.tensor(0)?.div_(a.operand(1)?, a.opt_str(2)?))),
        method("true_divide_", "other: Operand", |a| this(a, a.tensor(0)?.div_(a.operand(1)?, None))),
        method("floor_divide_", "other: Operand", |a| this(a, a.tensor(0)?.div_(a.operand(1)?, Some("floor")))),
        method("clamp_", "min: Operand = None, max: Operand = None",
            |a| this(a, a.tensor(0)?.clamp_(a.opt_operand(1)?, a.opt_operand(2)?))),
        method("lerp_", "end: Tensor, weight: Operand",
            |a| this(a, a.tensor(0)?.lerp_(&a.tensor(1)?, a.operand(2)?))),
        method("addcmul_", "tensor1: Tensor, tensor2: Tensor, value: Float = 1",
            |a| this(a, a.tensor(0)?.addcmul_(&a.tensor(1)?, &a.tensor(2)?, a.f64(3)?))),
        method("addcdiv_", "tensor1: Tensor, tensor2: Tensor, value: Float = 1",
            |a| this(a, a.tensor(0)?.addcdiv_(&a.tensor(1)?, &a.tensor(2)?, a.f64(3)?))),
        method("nan_to_num_", "nan: Float = 0.0, posinf: Float = None, neginf: Float = None",
            |a| this(a, a.tensor(0)?.nan_to_num_(a.opt_f64(1)?, a.opt_f64(2)?, a.opt_f64(3)?))),
        method("masked_fill_", "mask: Tensor, value: Operand",
            |a| this(a, a.tensor(0)?.masked_fill_(&a.tensor(1)?, a.operand(2)?))),
        method("masked_scatter_", "mask: Tensor, source: Tensor",
            |a| this(a, a.tensor(0)?.masked_scatter_(&a.tensor(1)?, &a.tensor(2)?))),
        method("index_add_", "dim: Int, index: Tensor, source: Tensor, alpha: Float = 1",
            |a| this(a, a.tensor(0)?.index_add_(a.int(1)?, &a.tensor(2)?, &a.tensor(3)?, a.f64(4)?))),
        method("index_fill_", "dim: Int, index: Tensor, value: Operand",
            |a| this(a, a.tensor(0)?.index_fill_(a.int(1)?, &a.tensor(2)?, a.operand(3)?))),
        method("scatter_", "dim: Int, index: Tensor, src: Operand",
            |a| this(a, a.tensor(0)?.scatter_(a.int(1)?, &a.tensor(2)?, a.operand(3)?))),
        method("scatter_add_", "dim: Int, index: Tensor, src: Tensor",
            |a| this(a, a.tensor(0)?.scatter_add_(a.int(1)?, &a.tensor(2)?, &a.tensor(3)?))),
        method("index_put_", "indices: Tensors, values: Operand, accumulate: Bool = False",
            |a| this(a, a.tensor(0)?.index_put_(&a.tensors(1)?, a.operand(2)?, a.bool(3)?))),
        method("__setitem__", "indices: Indices, value: Operand",
            |a| this(a, crate::ops::index_put::setitem(&a.tensor(0)?, &super::catalog::indices(a, 1)?, a.operand(2)?))),
    ]);
    all.extend([
        Entry { form: Form::Both, returns: Returns::Tensor, ..method("index_fill", "dim: Int, index: Tensor, value: Operand",
            |a| Ok(a.tensor(0)?.index_fill(a.int(1)?, &a.tensor(2)?, a.operand(3)?)?.into())) },
        Entry { form: Form::Both, returns: Returns::Tensor, ..method("masked_scatter", "mask: Tensor, source: Tensor",
            |a| Ok(a.tensor(0)?.masked_scatter(&a.tensor(1)?, &a.tensor(2)?)?.into())) },
        Entry { form: Form::Both, returns: Returns::Tensor, ..method("index_put", "indices: Tensors, values: Operand, accumulate: Bool = False",
            |a| Ok(a.tensor(0)?.index_put(&a.tensors(1)?, a.operand(2)?, a.bool(3)?)?.into())) },
    ]);
    all
}
