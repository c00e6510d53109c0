//! Textbook models written with borch-nn's modules, for examples, trajectory tests and
//! benchmarks (not part of `torch.nn`).

pub mod chars;
pub mod gpt;

pub use chars::CharCorpus;
pub use gpt::{Gpt, GptConfig};
