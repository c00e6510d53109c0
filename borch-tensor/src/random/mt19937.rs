//! The 32-bit Mersenne Twister exactly as torch's CPU generator runs it (seeded from the low 32
//! bits of a 64-bit seed, state refreshed lazily on the first draw after seeding).

pub(crate) const N: usize = 624;
const M: usize = 397;
const MATRIX_A: u32 = 0x9908_b0df;
const UPPER: u32 = 0x8000_0000;
const LOWER: u32 = 0x7fff_ffff;

/// The engine's whole state; `Clone` snapshots it.
#[derive(Clone, PartialEq, Eq)]
pub struct Mt19937 {
    seed: u64,
    state: [u32; N],
    /// Draws left before the state must be refreshed, plus one (torch's `left_`).
    left: usize,
    next: usize,
}

impl Mt19937 {
    /// torch's `mt19937(seed)`: the state seeded from the low 32 bits.
    pub fn new(seed: u64) -> Mt19937 {
        let mut state = [0u32; N];
        state[0] = seed as u32;
        for j in 1..N {
            let prev = state[j - 1];
            state[j] = 1_812_433_253u32
                .wrapping_mul(prev ^ (prev >> 30))
                .wrapping_add(j as u32);
        }
        Mt19937 {
            seed,
            state,
            left: 1,
            next: 0,
        }
    }

    /// The fields torch's `get_rng_state` writes: seed, `left_`, `next_` and the state words.
    pub(crate) fn parts(&self) -> (u64, usize, usize, &[u32; N]) {
        (self.seed, self.left, self.next, &self.state)
    }

    /// An engine from the fields of a torch RNG state (checked by the caller).
    pub(crate) fn from_parts(seed: u64, left: usize, next: usize, state: [u32; N]) -> Mt19937 {
        Mt19937 {
            seed,
            state,
            left,
            next,
        }
    }

    /// The 64-bit seed this engine was created with.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The next 32-bit output.
    pub fn next_u32(&mut self) -> u32 {
        self.left -= 1;
        if self.left == 0 {
            self.refresh();
        }
        let mut y = self.state[self.next];
        self.next += 1;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c_5680;
        y ^= (y << 15) & 0xefc6_0000;
        y ^ (y >> 18)
    }

    fn refresh(&mut self) {
        let twist = |u: u32, v: u32| {
            (((u & UPPER) | (v & LOWER)) >> 1) ^ if v & 1 == 1 { MATRIX_A } else { 0 }
        };
        for i in 0..N {
            let following = self.state[(i + 1) % N];
            self.state[i] = self.state[(i + M) % N] ^ twist(self.state[i], following);
        }
        self.left = N;
        self.next = 0;
    }
}

impl std::fmt::Debug for Mt19937 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Mt19937(seed={}, next={})", self.seed, self.next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_outputs() {
        // The 10000th output of std::mt19937 seeded with 5489 (C++11 [rand.predef]).
        let mut e = Mt19937::new(5489);
        let mut last = 0;
        for _ in 0..10000 {
            last = e.next_u32();
        }
        assert_eq!(last, 4_123_659_995);
    }
}
