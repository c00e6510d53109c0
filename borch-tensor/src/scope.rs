//! Memory scopes: every storage created inside `scope(|s| …)` on this thread goes back to the
//! pool when the scope ends, even while handles to its tensors remain (in JS and Python handles
//! outlive scopes until a garbage collector runs). A tensor is exempted with `s.keep(&t)` (handed
//! to the enclosing scope) or `keep_alive(&t)` (never released by any scope). Using a released
//! tensor is `BorchError::Released`.
//!
//! Scopes own storages, not tensor objects: a view made inside a scope of a tensor made outside
//! it is not released, and keeping a view keeps its whole storage. Autograd nodes hold their
//! inputs, so a graph recorded inside a scope dies with it; a leaf's `.grad` lives as long as the
//! leaf (see `keep_like`).

use std::cell::RefCell;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};

use borch_device::{Device, PooledBuffer, wgpu};

use crate::error::{BorchError, Result};
use crate::tensor::{Storage, Tensor};

/// `Storage::owner` of a storage made outside every scope: freed when its last handle goes.
const UNSCOPED: u64 = 0;
/// `Storage::owner` of a storage that no scope releases.
const KEPT_ALIVE: u64 = u64::MAX;

static NEXT_SCOPE: AtomicU64 = AtomicU64::new(1);

/// One open scope on this thread's stack and the storages it may release.
struct Frame {
    id: u64,
    storages: Vec<Weak<Storage>>,
    /// Length at which dead entries are dropped from `storages`, so a long scope stays small.
    prune_at: usize,
}

const MIN_PRUNE: usize = 1024;

thread_local! {
    static STACK: RefCell<Vec<Frame>> = const { RefCell::new(Vec::new()) };
}

impl Frame {
    fn push(&mut self, storage: Weak<Storage>) {
        if self.storages.len() >= self.prune_at {
            let id = self.id;
            self.storages
                .retain(|w| w.upgrade().is_some_and(|s| s.owner() == id));
            self.prune_at = (self.storages.len() * 2).max(MIN_PRUNE);
        }
        self.storages.push(storage);
    }
}

impl Storage {
    /// A storage for `buffer`, owned by this thread's innermost open scope if there is one.
    pub(crate) fn new(buffer: PooledBuffer, device: Device) -> Arc<Storage> {
        let storage = Arc::new(Storage {
            buffer: Mutex::new(Some(buffer)),
            device,
            owner: AtomicU64::new(UNSCOPED),
            version: AtomicU64::new(0),
        });
        let _ = STACK.try_with(|stack| {
            if let Some(frame) = stack.borrow_mut().last_mut() {
                storage.owner.store(frame.id, Ordering::Relaxed);
                frame.push(Arc::downgrade(&storage));
            }
        });
        storage
    }

    fn slot(&self) -> MutexGuard<'_, Option<PooledBuffer>> {
        self.buffer.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The GPU buffer, or `None` once a scope released it. A clone: commands recorded with it
    /// keep it valid even if the storage is released before they run.
    pub(crate) fn live_buffer(&self) -> Option<wgpu::Buffer> {
        self.slot().as_ref().map(|b| b.buffer().clone())
    }

    /// Return the buffer to the pool now; later uses of the storage are errors.
    fn release(&self) {
        let buffer = self.slot().take();
        drop(buffer);
    }

    fn owner(&self) -> u64 {
        self.owner.load(Ordering::Relaxed)
    }
}

/// Release what the frames own, outside the stack's borrow.
fn release_frames(frames: Vec<Frame>) {
    for frame in frames {
        for storage in frame.storages.iter().filter_map(Weak::upgrade) {
            if storage.owner() == frame.id {
                storage.release();
            }
        }
    }
}

/// An open memory scope of this thread. Ending it (`exit`, or dropping it) releases every
/// storage created inside it that was not kept. Not `Send`: scopes belong to their thread.
pub struct Scope {
    id: u64,
    _thread_bound: PhantomData<*const ()>,
}

impl Scope {
    /// Open a scope nested in this thread's current one. Prefer `scope(|s| …)`; this form is for
    /// bindings whose scopes open and close in separate calls (Python's `with`).
    pub fn enter() -> Scope {
        let id = NEXT_SCOPE.fetch_add(1, Ordering::Relaxed);
        STACK.with(|stack| {
            stack.borrow_mut().push(Frame {
                id,
                storages: Vec::new(),
                prune_at: MIN_PRUNE,
            })
        });
        Scope {
            id,
            _thread_bound: PhantomData,
        }
    }

    /// End the scope (also ending any scope still open inside it), releasing what it owns.
    pub fn exit(self) {}

    /// Hand `t`'s storage to the enclosing scope (at top level: free it from scoping, so only
    /// dropping its last handle frees it). A no-op for a tensor this scope does not own: made
    /// outside it, already kept, or kept alive. Returns `t` for chaining.
    pub fn keep(&self, t: &Tensor) -> Tensor {
        let storage = &t.inner.storage;
        let _ = STACK.try_with(|stack| {
            let mut stack = stack.borrow_mut();
            let Some(depth) = stack.iter().position(|f| f.id == self.id) else {
                return;
            };
            let owner = storage.owner();
            if !stack[depth..].iter().any(|f| f.id == owner) {
                return;
            }
            match depth.checked_sub(1) {
                Some(parent) => {
                    storage.owner.store(stack[parent].id, Ordering::Relaxed);
                    stack[parent].push(Arc::downgrade(storage));
                }
                None => storage.owner.store(UNSCOPED, Ordering::Relaxed),
            }
        });
        t.clone()
    }
}

impl Drop for Scope {
    fn drop(&mut self) {
        let frames = STACK
            .try_with(|stack| {
                let mut stack = stack.borrow_mut();
                match stack.iter().position(|f| f.id == self.id) {
                    Some(depth) => stack.split_off(depth),
                    None => Vec::new(),
                }
            })
            .unwrap_or_default();
        release_frames(frames);
    }
}

/// Run `f` in a new scope: every tensor storage created inside it on this thread is released
/// when it returns (also on an error), except those kept with `s.keep(&t)` or `keep_alive(&t)`.
/// Scopes nest. The result is `f`'s; tensors in it must be kept to stay usable.
///
/// ```no_run
/// # fn main() -> borch_tensor::Result<()> {
/// use borch_tensor::{Tensor, scope};
/// let x = Tensor::new([1.0f32, 2.0, 3.0])?;
/// let y = scope(|s| {
///     let t = x.exp()?.mul(2.0)?; // released when the scope ends
///     Ok(s.keep(&t.sum(None, false)?)) // handed to the caller
/// })?;
/// println!("{:?}", y.item_blocking()?);
/// # Ok(())
/// # }
/// ```
pub fn scope<T>(f: impl FnOnce(&Scope) -> Result<T>) -> Result<T> {
    let s = Scope::enter();
    let result = f(&s);
    s.exit();
    result
}

/// Exempt `t`'s storage from every scope, now and later (parameters, optimizer state, caches).
/// It is still freed when its last handle is dropped. Returns `t` for chaining.
pub fn keep_alive(t: &Tensor) -> Tensor {
    t.inner.storage.owner.store(KEPT_ALIVE, Ordering::Relaxed);
    t.clone()
}

/// Give `t`'s storage at least the lifetime of `like`'s: kept alive if `like` is, handed to
/// `like`'s scope if that one encloses `t`'s, out of every scope if `like` is in none. A leaf's
/// `.grad` is tied to the leaf this way, so gradients of parameters survive a training step's
/// scope.
pub fn keep_like(t: &Tensor, like: &Tensor) {
    let storage = &t.inner.storage;
    let target = like.inner.storage.owner();
    let own = storage.owner();
    if own == target || own == KEPT_ALIVE || own == UNSCOPED {
        return;
    }
    if target == KEPT_ALIVE || target == UNSCOPED {
        storage.owner.store(target, Ordering::Relaxed);
        return;
    }
    let _ = STACK.try_with(|stack| {
        let mut stack = stack.borrow_mut();
        let depth_of = |id: u64| stack.iter().position(|f| f.id == id);
        if let (Some(to), Some(from)) = (depth_of(target), depth_of(own))
            && to < from
        {
            storage.owner.store(target, Ordering::Relaxed);
            stack[to].push(Arc::downgrade(storage));
        }
    });
}

impl Tensor {
    /// Whether a scope released this tensor's storage; every use of it is then an error.
    pub fn is_released(&self) -> bool {
        self.inner.storage.slot().is_none()
    }

    /// The error for a released tensor (naming what to do), for calls that do not read it yet.
    pub fn check_live(&self) -> Result<()> {
        self.buffer().map(|_| ())
    }

    /// Whether this tensor's storage was exempted from scopes with `keep_alive`.
    pub fn is_kept_alive(&self) -> bool {
        self.inner.storage.owner() == KEPT_ALIVE
    }

    /// The storage's buffer for a kernel or a copy, or the error for a released tensor.
    pub(crate) fn buffer(&self) -> Result<wgpu::Buffer> {
        self.inner
            .storage
            .live_buffer()
            .ok_or_else(|| released_error(self))
    }
}

fn released_error(t: &Tensor) -> BorchError {
    BorchError::Released(format!(
        "a tensor of shape {} ({}) was used after it was released at the end of its scope: \
         tensors created inside scope(...) are freed when it ends. To use one afterwards, return \
         it through the scope's keep() (s.keep(&t) hands it to the enclosing scope), or mark it \
         with keep_alive(&t) to exempt it from every scope (parameters, optimizer state)",
        crate::layout::fmt_list(t.shape()),
        t.dtype().name()
    ))
}
