//! torch's grad modes, scoped to a closure (the Rust shape of a `with` block).

pub use borch_tensor::is_grad_enabled;

struct Restore(bool);

impl Drop for Restore {
    fn drop(&mut self) {
        borch_tensor::set_grad_enabled(self.0);
    }
}

/// Run `f` with recording set to `enabled`, restoring the previous mode afterwards (also when
/// `f` returns early with an error).
pub fn set_grad_enabled<T>(enabled: bool, f: impl FnOnce() -> T) -> T {
    let _restore = Restore(borch_tensor::set_grad_enabled(enabled));
    f()
}

/// torch's `no_grad()`: ops inside record nothing.
pub fn no_grad<T>(f: impl FnOnce() -> T) -> T {
    set_grad_enabled(false, f)
}

/// torch's `enable_grad()`, e.g. inside a `no_grad` block.
pub fn enable_grad<T>(f: impl FnOnce() -> T) -> T {
    set_grad_enabled(true, f)
}

/// torch's `inference_mode()`; in borch the same as `no_grad`.
pub fn inference_mode<T>(f: impl FnOnce() -> T) -> T {
    set_grad_enabled(false, f)
}
