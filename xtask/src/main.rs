//! borch's developer tasks: `cargo xtask <task> ...` (the alias is in .cargo/config.toml).

mod bench_matmul;

use std::process::ExitCode;

const USAGE: &str = "usage: cargo xtask bench matmul [--sizes 256,512,1024] [--batched 32x256x256x256] \
[--tiles] [--tile TXxTYxRxCxK,...] [--seconds S] [--reps R] [--no-naive]";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["bench", "matmul", rest @ ..] => bench_matmul::run(rest),
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
