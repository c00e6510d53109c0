//! Gradients of shape and indexing ops against values frozen from real torch:
//! `tests/autograd/shape_grad_cases.py` writes `shape_grad_cases.json`, which holds, for each
//! case, the leaves (flat data, then views making some of them non-contiguous), the op, the
//! weights `w` and torch's gradient of `(op(...) * w).sum()` for every leaf requiring grad.

use borch_autograd::{Backward, backward};
use borch_tensor::{DType, Result, Tensor, cat, stack};
use serde_json::Value;

fn load() -> Vec<Value> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/autograd/shape_grad_cases.json"
    );
    let text = std::fs::read_to_string(path).expect("shape_grad_cases.json is committed");
    let root: Value = serde_json::from_str(&text).expect("shape_grad_cases.json parses");
    root["cases"].as_array().expect("cases").clone()
}

fn usizes(v: &Value) -> Vec<usize> {
    v.as_array()
        .map(|a| a.iter().map(|x| x.as_u64().unwrap() as usize).collect())
        .unwrap_or_default()
}

fn isizes(v: &Value) -> Vec<isize> {
    v.as_array()
        .map(|a| a.iter().map(|x| x.as_i64().unwrap() as isize).collect())
        .unwrap_or_default()
}

fn floats(v: &Value) -> Vec<f32> {
    v["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap() as f32)
        .collect()
}

fn leaf(v: &Value) -> Tensor {
    let shape = usizes(&v["shape"]);
    let t = if v["dtype"] == "int64" {
        let data: Vec<i64> = v["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap() as i64)
            .collect();
        Tensor::from_slice(&data, &shape).unwrap()
    } else {
        Tensor::from_slice(&floats(v), &shape).unwrap()
    };
    if v["grad"] == true {
        t.set_requires_grad(true).unwrap();
    }
    t
}

fn viewed(t: &Tensor, steps: &Value) -> Result<Tensor> {
    let mut t = t.clone();
    for step in steps.as_array().unwrap() {
        let a = step.as_array().unwrap();
        let int = |i: usize| a[i].as_i64().unwrap() as isize;
        t = match a[0].as_str().unwrap() {
            "t" => t.t()?,
            "transpose" => t.transpose(int(1), int(2))?,
            "slice" => {
                let end = a[3].as_i64().map(|e| e as isize);
                t.slice(int(1), Some(int(2)), end, int(4))?
            }
            "narrow" => t.narrow(int(1), int(2), int(3) as usize)?,
            other => panic!("unknown view step {other}"),
        };
    }
    Ok(t)
}

fn run(op: &str, xs: &[Tensor], index: Option<&Tensor>, args: &Value) -> Result<Tensor> {
    let dim = args["dim"].as_i64().unwrap_or(0) as isize;
    let ix = || index.expect("case has an index");
    let flag = |name: &str| args[name].as_bool().unwrap();
    let x = &xs[0];
    match op {
        "cat" => cat(xs, dim),
        "stack" => stack(xs, dim),
        "flip" => x.flip(&isizes(&args["dims"])),
        "roll" => x.roll(&isizes(&args["shifts"]), &isizes(&args["dims"])),
        "repeat" => x.repeat(&usizes(&args["sizes"])),
        "tile" => x.tile(&usizes(&args["sizes"])),
        "index_select" => x.index_select(dim, ix()),
        "gather" => x.gather(dim, ix()),
        "take" => x.take(ix()),
        // With `pad`, torch's case read a prefix of src; borch is given the whole src.
        "scatter" => x.scatter(dim, ix(), &xs[1]),
        "scatter_add" => x.scatter_add(dim, ix(), &xs[1]),
        "scatter_value" => x.scatter(dim, ix(), args["value"].as_f64().unwrap()),
        "index_add" => x.index_add(dim, ix(), &xs[1], args["alpha"].as_f64().unwrap()),
        "tril" => x.tril(args["diagonal"].as_i64().unwrap() as isize),
        "triu" => x.triu(args["diagonal"].as_i64().unwrap() as isize),
        "sort" => Ok(x.sort(dim, flag("descending"), true)?.0),
        "topk" => Ok(x
            .topk(
                args["k"].as_u64().unwrap() as usize,
                dim,
                flag("largest"),
                true,
            )?
            .0),
        "max_dim" => Ok(x.max_dim(dim, flag("keepdim"))?.0),
        "min_dim" => Ok(x.min_dim(dim, flag("keepdim"))?.0),
        other => panic!("unknown op {other}"),
    }
}

/// Runs one case; returns a description of each disagreement.
fn check(case: &Value) -> Result<Vec<String>> {
    let inputs = case["inputs"].as_array().unwrap();
    let leaves: Vec<Tensor> = inputs.iter().map(leaf).collect();
    let xs = leaves
        .iter()
        .zip(inputs)
        .map(|(t, i)| viewed(t, &i["view"]))
        .collect::<Result<Vec<_>>>()?;
    let index = match &case["index"] {
        Value::Null => None,
        ix => {
            let data: Vec<i64> = isizes(&ix["data"]).iter().map(|&v| v as i64).collect();
            Some(Tensor::from_slice(&data, &usizes(&ix["shape"]))?)
        }
    };
    let out = run(
        case["op"].as_str().unwrap(),
        &xs,
        index.as_ref(),
        &case["args"],
    )?;
    let w = Tensor::from_slice(&floats(&case["w"]), &usizes(&case["w"]["shape"]))?;
    let mut bad = Vec::new();
    if out.shape() != w.shape() {
        bad.push(format!(
            "output shape {:?}, torch {:?}",
            out.shape(),
            w.shape()
        ));
        return Ok(bad);
    }
    out.mul(&w)?.sum(None, false)?.backward()?;
    for (i, (t, want)) in leaves
        .iter()
        .zip(case["grads"].as_array().unwrap())
        .enumerate()
    {
        if want.is_null() {
            if t.dtype() == DType::Float32 && t.grad().is_some() {
                bad.push(format!("input {i}: a gradient where torch has none"));
            }
            continue;
        }
        let Some(g) = t.grad() else {
            bad.push(format!("input {i}: no gradient"));
            continue;
        };
        let (got, expect) = (g.to_vec_blocking::<f32>()?, floats(want));
        let close = got.len() == expect.len()
            && got
                .iter()
                .zip(&expect)
                .all(|(a, b)| (a - b).abs() <= 1e-5 + 1e-5 * b.abs());
        if g.shape() != usizes(&want["shape"]).as_slice() || !close {
            bad.push(format!(
                "input {i}: got {got:?} {:?}, torch {expect:?}",
                g.shape()
            ));
        }
    }
    Ok(bad)
}

#[test]
fn gradients_match_torch() {
    let cases = load();
    assert!(cases.len() >= 38);
    let mut failures = Vec::new();
    for case in &cases {
        let name = case["name"].as_str().unwrap();
        match check(case) {
            Ok(bad) => failures.extend(bad.into_iter().map(|b| format!("{name}: {b}"))),
            Err(e) => failures.push(format!("{name}: error {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn leaf_2x3() -> Tensor {
    let x = Tensor::new([[1.0f32, 2.0, 3.0], [4.0, 5.0, 6.0]]).unwrap();
    x.set_requires_grad(true).unwrap();
    x
}

#[test]
fn in_place_scatters_refuse_a_leaf_requiring_grad() {
    let x = leaf_2x3();
    let ix = Tensor::from_slice(&[0i64, 1, 0], &[1, 3]).unwrap();
    let src = Tensor::new([[1.0f32, 1.0, 1.0]]).unwrap();
    let msg = "a leaf Variable that requires grad is being used in an in-place operation.";
    let errs = [
        x.scatter_(0, &ix, &src).unwrap_err(),
        x.scatter_(0, &ix, 1.0).unwrap_err(),
        x.scatter_add_(0, &ix, &src).unwrap_err(),
        x.index_add_(
            1,
            &Tensor::from_slice(&[2i64], &[1]).unwrap(),
            &src.t().unwrap(),
            1.0,
        )
        .unwrap_err(),
    ];
    for e in errs {
        assert_eq!(e.to_string(), msg);
    }
    // The out-of-place versions record instead.
    let y = x.scatter_add(0, &ix, &src).unwrap();
    assert!(y.requires_grad() && !y.is_leaf());
    assert_eq!(y.grad_fn().unwrap().op.name(), "scatter_add");
}

#[test]
fn second_backward_fails_only_where_torch_saved_an_index() {
    // torch saves the index of gather (and of the other index ops) but nothing for flip.
    let x = leaf_2x3();
    let ix = Tensor::from_slice(&[2i64, 0], &[1, 2]).unwrap();
    let y = x.gather(1, &ix).unwrap().sum(None, false).unwrap();
    y.backward().unwrap();
    let err = y.backward().unwrap_err();
    assert!(
        err.to_string()
            .starts_with("Trying to backward through the graph a second time")
    );
    let y = x.flip(&[0]).unwrap().sum(None, false).unwrap();
    y.backward().unwrap();
    y.backward().unwrap();
}

#[test]
fn split_pieces_and_gradients_flow_through_recorded_views() {
    let x = leaf_2x3();
    let parts = x.chunk(3, 1).unwrap();
    let y = cat(&[parts[2].clone(), parts[0].mul(2.0).unwrap()], 1).unwrap();
    let g = Tensor::new([[1.0f32, 10.0], [100.0, 1000.0]]).unwrap();
    backward(&y, Some(&g), false).unwrap();
    assert_eq!(
        x.grad().unwrap().to_vec_blocking::<f32>().unwrap(),
        vec![20.0, 0.0, 1.0, 2000.0, 0.0, 100.0]
    );
}
