//! The golden runner: every case of tests/golden/golden.json (frozen from real torch by
//! tests/golden/cases.py) called by name through the catalogs as tests/golden/bindings.json
//! says (the JavaScript and Python runners apply the same file), on the default adapter, with
//! one tolerance. Prints `golden: N agreeing / M cases, K not implemented, D disagreeing
//! (forward …, backward …) [adapter]` and fails on any disagreement. `GOLDEN_FILTER=substring`
//! runs a subset; `GOLDEN_VERBOSE=1` lists every case with its outcome.

mod bindings;
mod case;
mod compare;

use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};

use borch_tensor::{Tensor, default_device};

use bindings::{Bindings, Failure};
use case::Case;

enum Outcome {
    Agree,
    /// What this surface cannot run, with the reason.
    NotImplemented(String),
    Disagree(String),
}

fn run_case(b: &Bindings, c: &Case) -> Outcome {
    if let Some((grad_output, grads)) = &c.backward {
        return run_backward(b, c, grad_output, grads);
    }
    let values = match case::inputs(&c.inputs, false) {
        Ok((values, _)) => values,
        Err(e) => return Outcome::Disagree(format!("building inputs failed: {e}")),
    };
    // Index errors found on the GPU arrive at the next readback (as on CUDA): read every output
    // as part of the call.
    let result = match b.call_op(c, values) {
        Err(Failure::NotExpressible(why)) => return Outcome::NotImplemented(why),
        Err(Failure::Borch(e)) => Err(e),
        Ok(got) => compare::read(&got).map(|data| (got, data)),
    };
    let verdict = match (&result, &c.expect, &c.error) {
        (Ok((got, data)), Some(expect), _) => compare::outputs(got, data, expect),
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
            Outcome::NotImplemented(why)
        }
        Err(why) => Outcome::Disagree(why),
    }
}

/// Run the op on inputs whose float bases require grad, backpropagate torch's grad_output from
/// the first output, and compare each base's gradient with torch's.
fn run_backward(
    b: &Bindings,
    c: &Case,
    grad_output: &serde_json::Value,
    grads: &[serde_json::Value],
) -> Outcome {
    let (values, bases) = match case::inputs(&c.inputs, true) {
        Ok(x) => x,
        Err(e) => return Outcome::Disagree(format!("building inputs failed: {e}")),
    };
    let outputs = match b.call_op(c, values) {
        Err(Failure::NotExpressible(why)) => return Outcome::NotImplemented(why),
        Err(Failure::Borch(e)) => return outcome(Err(format!("forward failed: {e}"))),
        Ok(outputs) => outputs,
    };
    let verdict = (|| -> std::result::Result<(), String> {
        let out = outputs.first().ok_or("no output")?;
        if !out.requires_grad() {
            return Err("not implemented yet: the op records no autograd node".into());
        }
        let go = case::tensor(grad_output).map_err(|e| e.to_string())?;
        borch_autograd::backward(out, Some(&go), false).map_err(|e| format!("backward: {e}"))?;
        for (i, (base, want)) in bases.iter().zip(grads).enumerate() {
            let got = base.as_ref().and_then(Tensor::grad);
            match (got, want.is_null()) {
                (None, true) => {}
                (Some(_), true) => return Err(format!("input {i} got a gradient, torch none")),
                (None, false) => return Err(format!("input {i} got no gradient")),
                (Some(g), false) => {
                    let g = [g];
                    let data = compare::read(&g)
                        .map_err(|e| format!("grad of input {i}: readback failed: {e}"))?;
                    compare::outputs(&g, &data, std::slice::from_ref(want))
                        .map_err(|m| format!("grad of input {i}: {m}"))?
                }
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
    let bindings = Bindings::load(&path.with_file_name("bindings.json"));
    let filter = std::env::var("GOLDEN_FILTER").unwrap_or_default();
    let verbose = std::env::var("GOLDEN_VERBOSE").is_ok_and(|v| v == "1");
    // Every 3 x 3 stride-1 convolution by Winograd's F(2 x 2, 3 x 3), borch's pick for big
    // batches on GPUs, which the small cases here would not reach.
    let winograd = std::env::var("GOLDEN_CONV_WINOGRAD").is_ok_and(|v| v == "1");
    if winograd {
        borch_tensor::ops::conv_gemm::set_conv_winograd(Some(true), None);
    }
    let adapter = default_device()
        .expect("a WebGPU adapter")
        .adapter_info()
        .short();
    let (mut agree, mut missing, mut total) = (0, 0, 0);
    let (mut backward_agree, mut backward_total) = (0, 0);
    let mut disagreements = Vec::new();
    let mut missing_ops: BTreeMap<String, usize> = BTreeMap::new();
    for c in cases.iter().filter(|c| c.name.contains(&filter)) {
        total += 1;
        let outcome = catch_unwind(AssertUnwindSafe(|| run_case(&bindings, c)))
            .unwrap_or_else(|_| Outcome::Disagree("panicked".into()));
        let is_backward = c.backward.is_some();
        backward_total += usize::from(is_backward);
        if verbose {
            let said = match &outcome {
                Outcome::Agree => "agrees".to_string(),
                Outcome::NotImplemented(why) => format!("not implemented ({why})"),
                Outcome::Disagree(why) => why.clone(),
            };
            println!("case {}: {said}", c.name);
        }
        match outcome {
            Outcome::Agree => {
                agree += 1;
                backward_agree += usize::from(is_backward);
            }
            Outcome::NotImplemented(why) => {
                missing += 1;
                *missing_ops
                    .entry(format!("{}:{}: {why}", c.family, c.op))
                    .or_default() += 1;
            }
            Outcome::Disagree(why) => disagreements.push(format!("{}: {why}", c.name)),
        }
    }
    for d in &disagreements {
        println!("DISAGREE {d}");
    }
    for (key, count) in &missing_ops {
        println!("not implemented ({count}): {key}");
    }
    println!(
        "golden: {agree} agreeing / {total} cases, {missing} not implemented, {} disagreeing \
         (forward {} / {}, backward {backward_agree} / {backward_total}){} [{adapter}]",
        disagreements.len(),
        agree - backward_agree,
        total - backward_total,
        if winograd {
            ", every 3x3 stride-1 conv by Winograd"
        } else {
            ""
        },
    );
    assert!(
        disagreements.is_empty(),
        "{} golden cases disagree with torch",
        disagreements.len()
    );
}
