//! torch's CPU generator: a Mersenne Twister plus the cached second Box–Muller sample, shared by
//! handle, with one process-wide default.

use std::sync::{Arc, LazyLock, Mutex, MutexGuard};

use super::mt19937::Mt19937;

/// The seed a new `torch.Generator()` starts from (torch's `default_rng_seed_val`).
pub const DEFAULT_SEED: u64 = 67_280_421_310_721;

/// Everything a generator remembers: `get_state`/`set_state` move this around.
#[derive(Debug, Clone, PartialEq)]
pub struct GeneratorState {
    pub(crate) engine: Mt19937,
    /// The `r * sin(theta)` half of the last scalar Box–Muller pair, not yet handed out.
    pub(crate) next_double_normal: Option<f64>,
}

impl GeneratorState {
    fn new(seed: u64) -> GeneratorState {
        GeneratorState {
            engine: Mt19937::new(seed),
            next_double_normal: None,
        }
    }

    /// torch's `random()`: one 32-bit draw.
    pub(crate) fn random(&mut self) -> u32 {
        self.engine.next_u32()
    }

    /// torch's `random64()`: two draws, the first one the high word.
    pub(crate) fn random64(&mut self) -> u64 {
        let hi = u64::from(self.random());
        let lo = u64::from(self.random());
        (hi << 32) | lo
    }
}

/// A random number generator (torch's `torch.Generator` on the CPU). Clones share one state, as
/// Python references to one generator do.
#[derive(Debug, Clone)]
pub struct Generator {
    state: Arc<Mutex<GeneratorState>>,
}

impl Default for Generator {
    fn default() -> Generator {
        Generator::new()
    }
}

impl Generator {
    /// `torch.Generator()`: seeded with torch's default seed 67280421310721.
    pub fn new() -> Generator {
        Generator::with_seed(DEFAULT_SEED)
    }

    /// A generator seeded with `seed`.
    pub fn with_seed(seed: u64) -> Generator {
        Generator {
            state: Arc::new(Mutex::new(GeneratorState::new(seed))),
        }
    }

    /// torch's `Generator.manual_seed(seed)`: restart the sequence (also drops the cached normal).
    pub fn manual_seed(&self, seed: u64) -> &Generator {
        *self.lock() = GeneratorState::new(seed);
        self
    }

    /// torch's `Generator.initial_seed()`: the seed of the last `manual_seed`.
    pub fn initial_seed(&self) -> u64 {
        self.lock().engine.seed()
    }

    /// torch's `Generator.get_state()`, as a value rather than a byte tensor.
    pub fn get_state(&self) -> GeneratorState {
        self.lock().clone()
    }

    /// torch's `Generator.set_state(state)`.
    pub fn set_state(&self, state: &GeneratorState) {
        *self.lock() = state.clone();
    }

    /// Whether two handles are the same generator.
    pub fn same(&self, other: &Generator) -> bool {
        Arc::ptr_eq(&self.state, &other.state)
    }

    /// Exclusive use of the state while one op draws from it, as torch holds the generator's
    /// mutex. A panic in another holder cannot leave the state torn, so poisoning is ignored.
    pub(crate) fn lock(&self) -> MutexGuard<'_, GeneratorState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

static DEFAULT: LazyLock<Generator> = LazyLock::new(Generator::new);

/// The default generator (torch's `torch.default_generator`), used when an op gets `None`.
///
/// torch seeds it from the OS at start-up; borch starts it at [`DEFAULT_SEED`], because a browser
/// build has no entropy source without extra dependencies and a fixed start is reproducible.
pub fn default_generator() -> Generator {
    DEFAULT.clone()
}

/// torch's `torch.manual_seed(seed)`: reseed the default generator and return it.
pub fn manual_seed(seed: u64) -> Generator {
    DEFAULT.manual_seed(seed);
    DEFAULT.clone()
}

/// torch's `torch.initial_seed()`: the default generator's seed.
pub fn initial_seed() -> u64 {
    DEFAULT.initial_seed()
}

/// The generator an op uses: the caller's, or the default one.
pub(crate) fn resolve(generator: Option<&Generator>) -> Generator {
    generator.cloned().unwrap_or_else(default_generator)
}
