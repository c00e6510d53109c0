//! The generator state as the bytes of torch's `torch.get_rng_state()` (a uint8 tensor holding
//! ATen's `CPUGeneratorImplState`), so a checkpoint's RNG state moves between borch and torch.

use crate::{BorchError, Result};

use super::generator::GeneratorState;
use super::mt19937::{Mt19937, N};

// `CPUGeneratorImplStateLegacy`: u64 seed, i32 left, i32 seeded, u64 next, u64 state[624],
// f64 normal_x, normal_y, normal_rho, i32 normal_is_valid, padded to 8 bytes; then
// `CPUGeneratorImplState` adds f32 next_float_normal_sample and bool valid, padded to 8.
const STATE_AT: usize = 24;
const NORMAL_Y_AT: usize = STATE_AT + 8 * N + 8;
const NORMAL_VALID_AT: usize = NORMAL_Y_AT + 16;
const LEGACY_SIZE: usize = NORMAL_VALID_AT + 8;
const FLOAT_VALID_AT: usize = LEGACY_SIZE + 4;
/// `sizeof(CPUGeneratorImplState)`: the length of `torch.get_rng_state()`.
pub const TORCH_RNG_STATE_SIZE: usize = LEGACY_SIZE + 8;

fn size_error<T>(found: usize) -> Result<T> {
    Err(BorchError::Runtime(format!(
        "Expected either a CPUGeneratorImplStateLegacy of size {LEGACY_SIZE} or a \
         CPUGeneratorImplState of size {TORCH_RNG_STATE_SIZE} but found the input RNG state size \
         to be {found}"
    )))
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(w)
}

fn i32_at(b: &[u8], at: usize) -> i32 {
    let mut w = [0u8; 4];
    w.copy_from_slice(&b[at..at + 4]);
    i32::from_le_bytes(w)
}

impl GeneratorState {
    /// torch's `get_rng_state()` bytes (little-endian, as on every platform torch ships for).
    pub fn to_torch_bytes(&self) -> Vec<u8> {
        let (seed, left, next, state) = self.engine.parts();
        let mut b = vec![0u8; TORCH_RNG_STATE_SIZE];
        b[0..8].copy_from_slice(&seed.to_le_bytes());
        b[8..12].copy_from_slice(&(left as i32).to_le_bytes());
        b[12..16].copy_from_slice(&1i32.to_le_bytes());
        b[16..24].copy_from_slice(&(next as u64).to_le_bytes());
        for (i, w) in state.iter().enumerate() {
            let at = STATE_AT + 8 * i;
            b[at..at + 8].copy_from_slice(&u64::from(*w).to_le_bytes());
        }
        if let Some(y) = self.next_double_normal {
            b[NORMAL_Y_AT..NORMAL_Y_AT + 8].copy_from_slice(&y.to_le_bytes());
            b[NORMAL_VALID_AT..NORMAL_VALID_AT + 4].copy_from_slice(&1i32.to_le_bytes());
        }
        b
    }

    /// A state from torch's `get_rng_state()` bytes (torch's `set_rng_state` checks).
    pub fn from_torch_bytes(b: &[u8]) -> Result<GeneratorState> {
        if b.len() != TORCH_RNG_STATE_SIZE && b.len() != LEGACY_SIZE {
            return size_error(b.len());
        }
        let left = i32_at(b, 8);
        let next = u64_at(b, 16);
        // The engine indexes its state with `next` and refreshes when `left` reaches 0, so only
        // the values a running engine can hold are accepted.
        if !(1..=N as i32).contains(&left)
            || next > N as u64
            || next as usize + left as usize > N + 1
        {
            return Err(BorchError::Runtime(format!(
                "RNG state holds an impossible Mersenne Twister position (left={left}, \
                 next={next})"
            )));
        }
        let mut state = [0u32; N];
        for (i, w) in state.iter_mut().enumerate() {
            let v = u64_at(b, STATE_AT + 8 * i);
            *w = u32::try_from(v).map_err(|_| {
                BorchError::Runtime(format!("RNG state word {i} is {v}, past 32 bits"))
            })?;
        }
        if b.len() == TORCH_RNG_STATE_SIZE && b[FLOAT_VALID_AT] != 0 {
            return Err(BorchError::NotImplemented(
                "RNG state has a cached float32 normal sample; borch's generator has no float \
                 normal cache (not yet)"
                    .into(),
            ));
        }
        let next_double_normal =
            (i32_at(b, NORMAL_VALID_AT) != 0).then(|| f64::from_bits(u64_at(b, NORMAL_Y_AT)));
        Ok(GeneratorState {
            engine: Mt19937::from_parts(u64_at(b, 0), left as usize, next as usize, state),
            next_double_normal,
        })
    }
}
