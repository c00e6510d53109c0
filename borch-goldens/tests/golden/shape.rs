//! Shape and indexing ops. Out-of-range indices are reported at the next readback in borch, so
//! every result is followed by `check_index_errors`, as a readback would.

use borch_tensor::{
    BorchError, Operand, Result, Tensor, cat, check_index_errors, default_device, stack,
};

use crate::case::Args;

fn tensor(inputs: &[Operand], i: usize) -> Result<Tensor> {
    match inputs.get(i) {
        Some(Operand::Tensor(t)) => Ok(t.clone()),
        _ => Err(BorchError::Type(format!("input {i} must be a tensor"))),
    }
}

fn all(inputs: &[Operand]) -> Result<Vec<Tensor>> {
    (0..inputs.len()).map(|i| tensor(inputs, i)).collect()
}

fn pair((a, b): (Tensor, Tensor)) -> Vec<Tensor> {
    vec![a, b]
}

pub fn run(op: &str, inputs: &[Operand], a: &Args) -> Option<Result<Vec<Tensor>>> {
    let x = || tensor(inputs, 0);
    let ix = || tensor(inputs, 1);
    let src = || tensor(inputs, 2);
    let one = |r: Result<Tensor>| r.map(|t| vec![t]);
    let out = match op {
        "cat" => one(all(inputs).and_then(|ts| cat(&ts, a.int("dim")))),
        "stack" => one(all(inputs).and_then(|ts| stack(&ts, a.int("dim")))),
        "split" => x().and_then(|t| t.split(a.usize("split_size"), a.int("dim"))),
        "split_with_sizes" => {
            x().and_then(|t| t.split_with_sizes(&a.shape("split_sizes"), a.int("dim")))
        }
        "chunk" => x().and_then(|t| t.chunk(a.usize("chunks"), a.int("dim"))),
        "unbind" => x().and_then(|t| t.unbind(a.int("dim"))),
        "flip" => one(x().and_then(|t| t.flip(&a.dims("dims")))),
        "roll" => one(x().and_then(|t| t.roll(&a.dims("shifts"), &a.dims("dims")))),
        "repeat" => one(x().and_then(|t| t.repeat(&a.shape("sizes")))),
        "tile" => one(x().and_then(|t| t.tile(&a.shape("dims")))),
        "index_select" => one(x().and_then(|t| t.index_select(a.int("dim"), &ix()?))),
        "gather" => one(x().and_then(|t| t.gather(a.int("dim"), &ix()?))),
        "take" => one(x().and_then(|t| t.take(&ix()?))),
        "scatter" => one(x().and_then(|t| t.scatter(a.int("dim"), &ix()?, src()?))),
        "scatter_value" => {
            one(x().and_then(|t| t.scatter(a.int("dim"), &ix()?, a.scalar("value"))))
        }
        "scatter_add" => one(x().and_then(|t| t.scatter_add(a.int("dim"), &ix()?, &src()?))),
        "index_add" => {
            one(x().and_then(|t| t.index_add(a.int("dim"), &ix()?, &src()?, a.f64("alpha"))))
        }
        "tril" => one(x().and_then(|t| t.tril(a.int("diagonal")))),
        "triu" => one(x().and_then(|t| t.triu(a.int("diagonal")))),
        "one_hot" => one(x().and_then(|t| match a.int("num_classes") {
            -1 => t.one_hot_infer_blocking(),
            n => t.one_hot(n as usize),
        })),
        "sort" => x()
            .and_then(|t| t.sort(a.int("dim"), a.bool("descending"), a.bool("stable")))
            .map(pair),
        "argsort" => {
            one(x().and_then(|t| t.argsort(a.int("dim"), a.bool("descending"), a.bool("stable"))))
        }
        "topk" => x()
            .and_then(|t| {
                t.topk(
                    a.usize("k"),
                    a.int("dim"),
                    a.bool("largest"),
                    a.bool("sorted"),
                )
            })
            .map(pair),
        _ => return None,
    };
    Some(out.and_then(|ts| {
        pollster::block_on(check_index_errors(&default_device()?))?;
        Ok(ts)
    }))
}
