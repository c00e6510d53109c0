//! nanoGPT's GPT at character level (borch_nn::models::Gpt, 2 blocks, width 32, context 32)
//! trained 20 steps with AdamW on data/sonnets, step for step against torch
//! (tests/trajectories/char_gpt.py → char_gpt.json): the model built after `manual_seed(0)`
//! (torch's init bit for bit: the first values of every parameter are compared exactly), the
//! batch offsets drawn by `randint` after `manual_seed(1)` (compared to torch's), then per step
//! the loss (within 1e-4 of torch's) and every parameter's gradient norm, and at the end every
//! parameter's norm.

use std::time::Instant;

use borch_autograd::Backward;
use borch_nn::Module;
use borch_nn::models::{CharCorpus, Gpt, GptConfig};
use borch_optim::{AdamW, AdamWOptions, Optimizer};
use borch_tensor::{Result, Tensor, default_device, manual_seed, stack};
use serde_json::Value as Json;

/// The tests draw from the one default generator: they take turns.
static GENERATOR: std::sync::Mutex<()> = std::sync::Mutex::new(());

const LOSS_ATOL: f64 = 1e-4;
/// Gradient and parameter norms, relative.
const NORM_RTOL: f64 = 1e-4;
/// A norm is held to at least this many times torch's own float32-vs-float64 spread of it. The
/// key part of `c_attn.bias` has an exactly zero gradient (a key bias adds the same `q·b` to a
/// whole row of scores), so AdamW turns its rounding noise into steps of `lr`: torch in float32
/// and float64 already end 6e-5 apart on that parameter's norm.
const SPREAD_FACTOR: f64 = 10.0;

fn root(p: &str) -> String {
    format!("{}/../{p}", env!("CARGO_MANIFEST_DIR"))
}

fn floats(j: &Json) -> Vec<f64> {
    j.as_array()
        .expect("array")
        .iter()
        .map(|x| x.as_f64().expect("number"))
        .collect()
}

fn norms(ts: &[Tensor]) -> Result<Vec<f64>> {
    let n: Vec<Tensor> = ts
        .iter()
        .map(|t| t.norm(2.0, None, false))
        .collect::<Result<_>>()?;
    Ok(stack(&n, 0)?
        .to_vec_blocking::<f32>()?
        .into_iter()
        .map(f64::from)
        .collect())
}

fn rel(got: f64, want: f64) -> f64 {
    (got - want).abs() / want.abs().max(1e-30)
}

#[test]
fn char_gpt_follows_torch() -> Result<()> {
    let _turn = GENERATOR.lock().unwrap_or_else(|p| p.into_inner());
    let r: Json = serde_json::from_str(
        &std::fs::read_to_string(root("tests/trajectories/char_gpt.json")).expect("recipe"),
    )
    .expect("json");
    let c = &r["config"];
    let u = |k: &str| c[k].as_u64().expect(k) as usize;
    let text = std::fs::read_to_string(root(c["text"].as_str().unwrap())).expect("text");
    let corpus = CharCorpus::new(&text);
    let vocab: String = corpus.vocab.iter().collect();
    assert_eq!(vocab, c["vocab"].as_str().unwrap(), "vocabulary");
    let (block, batch) = (u("block_size"), u("batch"));
    manual_seed(c["init_seed"].as_u64().unwrap());
    let model = Gpt::new(GptConfig {
        vocab_size: corpus.vocab.len(),
        block_size: block,
        n_layer: u("n_layer"),
        n_head: u("n_head"),
        n_embd: u("n_embd"),
    })?;
    let named = model.named_parameters();
    let names: Vec<&str> = named.iter().map(|(k, _)| k.as_str()).collect();
    let want_names: Vec<&str> = r["parameters"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect();
    assert_eq!(names, want_names, "parameter names");
    for (name, p) in &named {
        let got = p
            .reshape(&[-1])?
            .narrow(0, 0, 4)?
            .to_vec_blocking::<f32>()?;
        let want = floats(&r["init_first"][name]);
        assert!(
            got.iter().zip(&want).all(|(g, w)| *g == *w as f32),
            "{name} after manual_seed is not torch's init: {got:?} vs {want:?}"
        );
    }
    let o = &c["optimizer"];
    let betas = floats(&o["betas"]);
    let params = model.parameters();
    let mut opt = AdamW::new(
        params.clone(),
        AdamWOptions::new(o["lr"].as_f64().unwrap())
            .betas(betas[0], betas[1])
            .eps(o["eps"].as_f64().unwrap())
            .weight_decay(o["weight_decay"].as_f64().unwrap()),
    )?;
    manual_seed(c["data_seed"].as_u64().unwrap());
    let losses = floats(&r["loss"]);
    let r64 = &r["float64"];
    let (mut worst_loss, mut worst_grad, mut worst_grad64) = (0.0f64, 0.0f64, 0.0f64);
    let mut failures = Vec::new();
    let start = Instant::now();
    for (step, want) in losses.iter().enumerate() {
        let offsets = corpus.draw_offsets(batch, block)?;
        let want_offsets: Vec<i64> = r["offsets"][step]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_i64().unwrap())
            .collect();
        assert_eq!(
            offsets, want_offsets,
            "step {step}: randint's batch offsets"
        );
        let (x, y) = corpus.batch(&offsets, block)?;
        opt.zero_grad(true)?;
        let loss = model.loss(&x, &y)?;
        loss.backward()?;
        let got = loss.item_blocking()?.to_f64();
        let d = (got - want).abs();
        worst_loss = worst_loss.max(d);
        if d > LOSS_ATOL || d.is_nan() {
            failures.push(format!(
                "step {step}: loss {got}, torch {want} (diff {d:.2e})"
            ));
        }
        let grads: Vec<Tensor> = params.iter().map(|p| p.grad().expect("grad")).collect();
        let (want_g, want_g64) = (
            floats(&r["grad_norms"][step]),
            floats(&r64["grad_norms"][step]),
        );
        for (i, g) in norms(&grads)?.iter().enumerate() {
            let d = rel(*g, want_g[i]);
            worst_grad = worst_grad.max(d);
            worst_grad64 = worst_grad64.max(rel(want_g[i], want_g64[i]));
            if d > NORM_RTOL || d.is_nan() {
                failures.push(format!(
                    "step {step}: grad norm of {}: {g}, torch {} (rel {d:.2e})",
                    names[i], want_g[i]
                ));
            }
        }
        opt.step()?;
    }
    let per_step = start.elapsed().as_secs_f64() / losses.len() as f64;
    let (want_p, want_p64) = (floats(&r["param_norms"]), floats(&r64["param_norms"]));
    let (mut worst_param, mut worst_param64) = (0.0f64, 0.0f64);
    for (i, p) in norms(&params)?.iter().enumerate() {
        let d = rel(*p, want_p[i]);
        let d64 = rel(want_p[i], want_p64[i]);
        worst_param = worst_param.max(d);
        worst_param64 = worst_param64.max(d64);
        if d > NORM_RTOL.max(SPREAD_FACTOR * d64) || d.is_nan() {
            failures.push(format!(
                "final norm of {}: {p}, torch {}",
                names[i], want_p[i]
            ));
        }
    }
    let spread = losses
        .iter()
        .zip(floats(&r64["loss"]))
        .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
    let adapter = default_device()?.adapter_info().short();
    println!(
        "trajectory char_gpt: {} steps, loss {:.4} -> {:.4}; max loss diff {worst_loss:.2e} \
         (torch f32 vs f64 {spread:.2e}), gradient norms {worst_grad:.2e} rel (torch f32 vs f64 \
         {worst_grad64:.2e}), final parameter norms {worst_param:.2e} rel (torch f32 vs f64 \
         {worst_param64:.2e}); {:.0} ms/step [{adapter}]",
        losses.len(),
        losses[0],
        losses[losses.len() - 1],
        per_step * 1e3
    );
    assert!(
        failures.is_empty(),
        "{} values outside their bounds (first 10):\n{}",
        failures.len(),
        failures[..failures.len().min(10)].join("\n")
    );
    Ok(())
}

#[test]
fn gpt_refuses_bad_input() -> Result<()> {
    let _turn = GENERATOR.lock().unwrap_or_else(|p| p.into_inner());
    let config = GptConfig {
        vocab_size: 5,
        block_size: 4,
        n_layer: 1,
        n_head: 2,
        n_embd: 8,
    };
    let bad = Gpt::new(GptConfig {
        n_embd: 7,
        ..config.clone()
    });
    assert!(bad.is_err_and(|e| e.to_string().contains("not a multiple of n_head")));
    let model = Gpt::new(config)?;
    let long = Tensor::from_slice(&[0i64; 5], &[1, 5])?;
    let e = model.forward(&long).unwrap_err().to_string();
    assert!(e.contains("block size is only 4"), "{e}");
    let floats = Tensor::from_slice(&[0f32; 4], &[1, 4])?;
    assert!(model.forward(&floats).is_err());
    let corpus = CharCorpus::new("abcabc");
    let e = corpus.batch(&[3], 3).unwrap_err().to_string();
    assert!(e.contains("offset 3 is out of range"), "{e}");
    assert!(corpus.draw_offsets(2, 6).is_err());
    Ok(())
}
