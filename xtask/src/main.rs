//! borch's developer tasks: `cargo xtask <task> ...` (the alias is in .cargo/config.toml).

mod audit;
mod bench_browser;
mod bench_calls;
mod bench_conv;
mod bench_dispatch;
mod bench_export;
mod bench_gpt;
mod bench_lstm;
mod bench_matmul;
mod bench_matmul_call;
mod bench_profile;
mod bench_resnet18;
mod bench_sdpa;
mod bench_train_mlp;
mod bench_vit;
mod build_js;
mod build_py;
mod demo;
mod js_api;
mod playground;
mod train_catalogue;

use std::process::ExitCode;

const USAGE: &str = "usage:
  cargo xtask audit
  cargo xtask demo [--model cnn|mlp] [--epochs N] [--lr LR] [--batch-size B] [--seed S] \
[--no-augment] [--catalogue-out DIR]
  cargo xtask bench matmul [--sizes 256,512,1024] [--batched 32x256x256x256] \
[--tiles] [--tile TXxTYxRxCxK,...] [--seconds S] [--reps R] [--no-naive]
  cargo xtask bench matmul-call [--sizes 1024,4096] [--warmup W] [--reps R] [--loop L]
  cargo xtask bench conv [--batches 1,16,64] [--passes forward,input_grad,weight_grad] \
[--tile TXxTYxRxCxK,...] [--filter SUBSTR] [--seconds S] [--reps R] [--no-im2col]
  cargo xtask bench train-mlp [--warmup W] [--steps N] [--sizes 784,1024,1024,10] [--batch B]
  cargo xtask bench resnet18 [--batches 16,32,64] [--eval-batches 1,16] [--modes eager] \
[--warmup W] [--steps N] [--width 64] [--export-weights PATH] [--profile TOP]
  cargo xtask bench sdpa [--small | --full] [--passes forward,forward_backward] [--warmup W] \
[--reps R] [--no-math] [--profile TOP]
  cargo xtask bench lstm [--mode lstm|gru|rnn] [--seq 64] [--batch 32] [--input 256] \
[--hidden 256] [--layers 1] [--bidirectional] [--warmup W] [--steps N]
  cargo xtask bench gpt [--preset baby|tiny] [--n-layer L] [--n-head H] [--n-embd D] \
[--block-size T] [--batch B] [--sdpa fused|math] [--warmup W] [--reps R] [--profile TOP]
  cargo xtask bench vit [--batches 1,16] [--modes eager,compiled] [--warmup W] [--reps R] [--profile TOP] \
[--export-weights PATH]
  cargo xtask bench dispatch [--ops 1000] [--numel 1024] [--warmup W] [--reps R] [--compare]
  cargo xtask bench browser [--sizes 1,128,256,512] [--batches 64,1024] [--warmup W] [--reps R] \
[--steps N] [--cases matmul,mlp,resnet18,vit] [--width 64] [--resnet-steps 3] [--resnet-parts eval,train] \
[--vit-steps 2] [--vit-warmup 1] [--vit-batches 1,16] [--vit-eps webgpu,wasm]
  cargo xtask build-js [--no-pack]
  cargo xtask build-py
  cargo xtask build-wheel [--release] [maturin build options]
  cargo xtask playground [--port N] [--no-serve] [--bundle-only]
  cargo xtask train-catalogue [--out catalogue/] [--seed S]";

/// `BORCH_SUBMIT_EVERY=N` (benchmarks only): submit the open batch every N dispatches.
pub(crate) fn submit_every_from_env(device: &borch_tensor::Device) {
    if let Some(n) = std::env::var("BORCH_SUBMIT_EVERY")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
    {
        eprintln!("submitting every {n} dispatches (BORCH_SUBMIT_EVERY)");
        device.set_max_dispatches_per_submit(n);
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["audit", rest @ ..] => audit::run(rest),
        ["demo", rest @ ..] => demo::run(rest),
        ["bench", "matmul", rest @ ..] => bench_matmul::run(rest),
        ["bench", "matmul-call", rest @ ..] => bench_matmul_call::run(rest),
        ["bench", "conv", rest @ ..] => bench_conv::run(rest),
        ["bench", "train-mlp", rest @ ..] => bench_train_mlp::run(rest),
        ["bench", "resnet18", rest @ ..] => bench_resnet18::run(rest),
        ["bench", "browser", rest @ ..] => bench_browser::run(rest),
        ["bench", "dispatch", rest @ ..] => bench_dispatch::run(rest),
        ["bench", "sdpa", rest @ ..] => bench_sdpa::run(rest),
        ["bench", "lstm", rest @ ..] => bench_lstm::run(rest),
        ["bench", "vit", rest @ ..] => bench_vit::run(rest),
        ["bench", "gpt", rest @ ..] => bench_gpt::run(rest),
        ["build-js", rest @ ..] => build_js::run(rest),
        ["build-py", rest @ ..] => build_py::run(rest),
        ["build-wheel", rest @ ..] => build_py::native::run(rest),
        ["playground", rest @ ..] => playground::run(rest),
        ["train-catalogue", rest @ ..] => train_catalogue::run(rest),
        _ => Err(USAGE.to_string()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}
