//! The golden runner: every case of tests/golden/golden.json (frozen from real torch by
//! tests/golden/cases.py) executed by name on the default adapter, with one tolerance.
//! Prints `golden: N agreeing / M cases, K not implemented, D disagreeing (forward …, backward …)
//! [adapter]` and fails on any disagreement. `GOLDEN_FILTER=substring` runs a subset; `GOLDEN_VERBOSE=1` lists every case.

mod case;
mod compare;
mod conv;
mod creation;
mod elementwise;
mod matmul;
mod nn;
mod random;
mod reduce;
mod shape;
mod views;

use std::panic::{AssertUnwindSafe, catch_unwind};

use borch_tensor::{Operand, Result, Tensor, default_device};

use case::{Args, Case};

type Family = fn(&str, &[Operand], &Args) -> Option<Result<Vec<Tensor>>>;

/// Each family's runner; the first that knows the op runs it.
const FAMILIES: &[Family] = &[
    elementwise::run,
    views::run,
    creation::run,
    shape::run,
    random::run,
    reduce::run,
    matmul::run,
    conv::run,
    nn::run,
];

enum Outcome {
    Agree,
    NotImplemented,
    Disagree(String),
}

fn run_case(c: &Case) -> Outcome {
    if let Some((grad_output, grads)) = &c.backward {
        return run_backward(c, grad_output, grads);
    }
    let operands = match case::operands(&c.inputs) {
        Ok(o) => o,
        Err(e) => return Outcome::Disagree(format!("building inputs failed: {e}")),
    };
    let args = Args(&c.args);
    let Some(result) = FAMILIES.iter().find_map(|f| f(&c.op, &operands, &args)) else {
        return Outcome::NotImplemented;
    };
    let verdict = match (&result, &c.expect, &c.error) {
        (Ok(got), Some(expect), _) => compare::outputs(got, expect),
        (Err(e), _, Some(expect)) => compare::error(e, expect),
        (Ok(_), _, Some(expect)) => Err(format!("succeeded but torch raised {}", expect["type"])),
        (Err(e), Some(_), _) => Err(format!("failed: {e}")),
        _ => Err("case has neither expect nor error".into()),
    };
    outcome(verdict)
}

fn outcome(verdict: std::result::Result<(), String>) -> Outcome {
    match verdict {
        Ok(()) => Outcome::Agree,
        Err(why) if why.contains("borch has no") || why.contains("not implemented yet") => {
            Outcome::NotImplemented
        }
        Err(why) => Outcome::Disagree(why),
    }
}

/// Run the op on inputs whose float bases require grad, backpropagate torch's grad_output from
/// the first output, and compare each base's gradient with torch's.
fn run_backward(c: &Case, grad_output: &serde_json::Value, grads: &[serde_json::Value]) -> Outcome {
    let (operands, bases) = match case::leaves(&c.inputs, true) {
        Ok(x) => x,
        Err(e) => return Outcome::Disagree(format!("building inputs failed: {e}")),
    };
    let args = Args(&c.args);
    let Some(result) = FAMILIES.iter().find_map(|f| f(&c.op, &operands, &args)) else {
        return Outcome::NotImplemented;
    };
    let verdict = (|| -> std::result::Result<(), String> {
        let outputs = result.map_err(|e| format!("forward failed: {e}"))?;
        let out = outputs.first().ok_or("no output")?;
        if !out.requires_grad() {
            return Err("not implemented yet: the op records no autograd node".into());
        }
        let (data, shape) = case::host(grad_output);
        let go = Tensor::from_host(&data, &shape).map_err(|e| e.to_string())?;
        borch_autograd::backward(out, Some(&go), false).map_err(|e| format!("backward: {e}"))?;
        for (i, (base, want)) in bases.iter().zip(grads).enumerate() {
            let got = base.as_ref().and_then(Tensor::grad);
            match (got, want.is_null()) {
                (None, true) => {}
                (Some(_), true) => return Err(format!("input {i} got a gradient, torch none")),
                (None, false) => return Err(format!("input {i} got no gradient")),
                (Some(g), false) => compare::outputs(&[g], std::slice::from_ref(want))
                    .map_err(|m| format!("grad of input {i}: {m}"))?,
            }
        }
        Ok(())
    })();
    outcome(verdict)
}

#[test]
fn golden() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/golden/golden.json");
    let cases = case::load(&path);
    let filter = std::env::var("GOLDEN_FILTER").unwrap_or_default();
    let verbose = std::env::var("GOLDEN_VERBOSE").is_ok_and(|v| v == "1");
    let adapter = default_device()
        .expect("a WebGPU adapter")
        .adapter_info()
        .short();
    let (mut agree, mut missing, mut total) = (0, 0, 0);
    let (mut backward_agree, mut backward_total) = (0, 0);
    let mut disagreements = Vec::new();
    let mut missing_ops = std::collections::BTreeSet::new();
    for c in cases.iter().filter(|c| c.name.contains(&filter)) {
        total += 1;
        let outcome = catch_unwind(AssertUnwindSafe(|| run_case(c)))
            .unwrap_or_else(|_| Outcome::Disagree("panicked".into()));
        let is_backward = c.backward.is_some();
        backward_total += usize::from(is_backward);
        match outcome {
            Outcome::Agree => {
                agree += 1;
                backward_agree += usize::from(is_backward);
            }
            Outcome::NotImplemented => {
                missing += 1;
                missing_ops.insert(format!("{}:{}", c.family, c.op));
            }
            Outcome::Disagree(why) => disagreements.push(format!("{}: {why}", c.name)),
        }
        if verbose {
            println!("case {}", c.name);
        }
    }
    for d in &disagreements {
        println!("DISAGREE {d}");
    }
    if !missing_ops.is_empty() {
        println!(
            "not implemented: {}",
            missing_ops.into_iter().collect::<Vec<_>>().join(", ")
        );
    }
    println!(
        "golden: {agree} agreeing / {total} cases, {missing} not implemented, {} disagreeing \
         (forward {} / {}, backward {backward_agree} / {backward_total}) [{adapter}]",
        disagreements.len(),
        agree - backward_agree,
        total - backward_total,
    );
    assert!(
        disagreements.is_empty(),
        "{} golden cases disagree with torch",
        disagreements.len()
    );
}
