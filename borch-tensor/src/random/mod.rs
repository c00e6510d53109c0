//! torch's CPU random number generation, reproduced on the host: the Mersenne Twister, the
//! generator with its cached normal sample, and the sampling algorithms of torch's CPU kernels.
//! Values are drawn here and uploaded, so a seed gives the numbers torch gives on the CPU.

mod cephes;
pub mod draws;
mod generator;
mod mt19937;
mod order;
pub(crate) mod sample;
mod torch_state;
pub(crate) mod trunc_normal;

pub(crate) use generator::resolve;
pub use generator::{
    DEFAULT_SEED, Generator, GeneratorState, default_generator, initial_seed, manual_seed,
};
pub(crate) use order::iteration_order;
pub use torch_state::TORCH_RNG_STATE_SIZE;
