//! A character-level GPT (nanoGPT's shape, `borch_nn::models::Gpt`) trained on the bundled
//! sonnets (data/sonnets): the loss of every step, then text sampled from the trained model.
//!
//!     cargo run --release -p borch-nn --example char_gpt -- [--steps 300] [--n-layer 2]
//!         [--n-head 4] [--n-embd 64] [--block-size 32] [--batch 16] [--lr 3e-3] [--sample 300]
//!
//! The same model and step as tests/trajectories/char_gpt.py at the defaults of its options
//! (`--n-embd 32 --batch 8 --steps 20` is that trajectory, which borch-nn/tests/gpt_trajectory.rs
//! holds to torch's losses).

use std::time::Instant;

use borch_autograd::Backward;
use borch_nn::Module;
use borch_nn::models::{CharCorpus, Gpt, GptConfig};
use borch_optim::{AdamW, AdamWOptions, Optimizer};
use borch_tensor::random::draws::multinomial;
use borch_tensor::{Result, Tensor, default_device, manual_seed};

struct Options {
    steps: usize,
    config: GptConfig,
    batch: usize,
    lr: f64,
    sample: usize,
}

fn parse() -> std::result::Result<Options, String> {
    let mut o = Options {
        steps: 300,
        config: GptConfig {
            vocab_size: 0,
            block_size: 32,
            n_layer: 2,
            n_head: 4,
            n_embd: 64,
        },
        batch: 16,
        lr: 3e-3,
        sample: 300,
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let value = it.next().ok_or(format!("{arg} needs a value"))?;
        let n = || {
            value
                .parse::<usize>()
                .map_err(|_| format!("bad {arg} {value}"))
        };
        match arg.as_str() {
            "--steps" => o.steps = n()?,
            "--n-layer" => o.config.n_layer = n()?,
            "--n-head" => o.config.n_head = n()?,
            "--n-embd" => o.config.n_embd = n()?,
            "--block-size" => o.config.block_size = n()?,
            "--batch" => o.batch = n()?,
            "--sample" => o.sample = n()?,
            "--lr" => o.lr = value.parse().map_err(|_| format!("bad --lr {value}"))?,
            other => return Err(format!("unknown option {other}")),
        }
    }
    Ok(o)
}

/// `sample` characters after a newline, each drawn by `torch.multinomial` from the softmax of
/// the last position's logits (the context cropped to `block_size`, as nanoGPT's `generate`).
fn generate(model: &Gpt, corpus: &CharCorpus, sample: usize) -> Result<String> {
    let block = model.config().block_size;
    let mut ids = vec![corpus.vocab.binary_search(&'\n').unwrap_or(0) as i64];
    borch_autograd::no_grad(|| {
        for _ in 0..sample {
            let ctx = &ids[ids.len().saturating_sub(block)..];
            let idx = Tensor::from_slice(ctx, &[1, ctx.len()])?;
            let logits = model.forward(&idx)?;
            let last = logits.narrow(1, -1, 1)?.reshape(&[-1])?;
            let p: Vec<f64> = last
                .softmax(-1)?
                .to_vec_blocking::<f32>()?
                .into_iter()
                .map(f64::from)
                .collect();
            ids.push(multinomial(&p, 1, true, None)?[0]);
        }
        Ok(corpus.decode(&ids[1..]))
    })
}

fn main() -> Result<()> {
    let mut o = parse().map_err(borch_tensor::BorchError::Value)?;
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../data/sonnets/sonnets.txt");
    let text = std::fs::read_to_string(path).expect("data/sonnets/sonnets.txt");
    let corpus = CharCorpus::new(&text);
    o.config.vocab_size = corpus.vocab.len();
    manual_seed(0);
    let model = Gpt::new(o.config.clone())?;
    let n_params: usize = model.parameters().iter().map(|p| p.numel()).sum();
    let adapter = default_device()?.adapter_info().short();
    println!(
        "char_gpt: {:?}, {n_params} parameters, {} characters of text, batch {}, AdamW lr {} \
         [{adapter}]",
        o.config,
        text.chars().count(),
        o.batch,
        o.lr
    );
    let mut opt = AdamW::new(
        model.parameters(),
        AdamWOptions::new(o.lr).betas(0.9, 0.99).weight_decay(0.1),
    )?;
    manual_seed(1);
    let start = Instant::now();
    for step in 0..o.steps {
        let offsets = corpus.draw_offsets(o.batch, o.config.block_size)?;
        let (x, y) = corpus.batch(&offsets, o.config.block_size)?;
        opt.zero_grad(true)?;
        let loss = model.loss(&x, &y)?;
        loss.backward()?;
        opt.step()?;
        println!("step {step}: loss {:.4}", loss.item_blocking()?.to_f64());
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "trained {} steps in {secs:.1} s ({:.0} ms/step); sample:\n{}",
        o.steps,
        secs * 1e3 / o.steps.max(1) as f64,
        generate(&model, &corpus, o.sample)?
    );
    Ok(())
}
