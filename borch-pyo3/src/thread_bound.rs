//! Objects bound to the thread that made them. Tensors and generators are `Send + Sync` in the
//! core and cross threads as torch's do; modules, optimizers, schedulers, datasets, loaders,
//! samplers, transforms, scopes and `compiled` functions hold `Rc`s (the core's handles to them
//! are not `Send`), so their pyclasses keep them in a [`ThreadBound`]: reached from another
//! thread they answer a `RuntimeError` naming the rule (pyo3's `unsendable` would raise its
//! `PanicException`, a `BaseException`), and the object stays usable on its own thread.
//!
//! A `ThreadBound` dropped on another thread (Python's last reference let go there, or a cycle
//! collected there) is handed to its own thread, which drops it at its next `ThreadBound` call
//! (pyo3's `unsendable` leaks it instead); one whose thread has ended is leaked.

use std::any::Any;
use std::mem::ManuallyDrop;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::{self, ThreadId};

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

/// A thread as the messages name it: Python's name for it and `threading.get_ident()`.
struct Owner {
    id: ThreadId,
    name: String,
}

thread_local! {
    static HERE: Arc<Owner> = Arc::new(Owner {
        id: thread::current().id(),
        name: Python::attach(|py| {
            let t = py.import("threading")?.call_method0("current_thread")?;
            Ok::<_, PyErr>(format!("{} (ident {})", t.getattr("name")?, t.getattr("ident")?))
        })
        .unwrap_or_else(|_| format!("{:?}", thread::current().id())),
    });
}

/// A value dropped on another thread than its own, waiting for its own thread to drop it.
struct Orphan {
    owner: ThreadId,
    #[expect(dead_code, reason = "only held, for its owner thread to drop")]
    value: Box<dyn Any>,
}

// SAFETY: an `Orphan`'s value is only moved (as a box) while it waits in `ORPHANS`, never read
// or dropped there; `drop_orphans` drops it on its owner thread only.
unsafe impl Send for Orphan {}

static ORPHANS: Mutex<Vec<Orphan>> = Mutex::new(Vec::new());
/// `ORPHANS.len()`, read without the lock on every call.
static WAITING: AtomicUsize = AtomicUsize::new(0);

/// A value usable only on the thread that made it (see the module's doc).
pub struct ThreadBound<T: 'static> {
    owner: Arc<Owner>,
    /// What the object is, for the message: `"module"`, `"optimizer"`, …
    what: &'static str,
    value: ManuallyDrop<T>,
}

// SAFETY: the value is reached only through `get` / `get_mut`, which check that the calling
// thread is the owner, and dropped only on the owner (`Drop` hands it there otherwise); so a
// `ThreadBound` may be moved and shared between threads while `T` never leaves its thread.
unsafe impl<T> Send for ThreadBound<T> {}
// SAFETY: as for `Send`.
unsafe impl<T> Sync for ThreadBound<T> {}

impl<T: 'static> ThreadBound<T> {
    /// `value`, bound to this thread; `what` names it in the error of another thread.
    pub fn new(what: &'static str, value: T) -> ThreadBound<T> {
        drop_orphans();
        ThreadBound {
            owner: HERE.with(Arc::clone),
            what,
            value: ManuallyDrop::new(value),
        }
    }

    fn check(&self) -> PyResult<()> {
        if HERE.with(|h| h.id) == self.owner.id {
            drop_orphans();
            return Ok(());
        }
        Err(PyRuntimeError::new_err(format!(
            "borch: this {} was made on thread {} and can only be used there (borch's native \
             objects other than tensors and generators are bound to the thread that made them); \
             this is thread {}",
            self.what,
            self.owner.name,
            HERE.with(|h| h.name.clone()),
        )))
    }

    /// The value, on its own thread; a `RuntimeError` on another.
    pub fn get(&self) -> PyResult<&T> {
        self.check()?;
        Ok(&self.value)
    }

    /// The value to change, on its own thread; a `RuntimeError` on another.
    pub fn get_mut(&mut self) -> PyResult<&mut T> {
        self.check()?;
        Ok(&mut self.value)
    }
}

impl<T: 'static> Drop for ThreadBound<T> {
    fn drop(&mut self) {
        // SAFETY: `value` is taken once, here, and never used after.
        let value = unsafe { ManuallyDrop::take(&mut self.value) };
        // `try_with`: during this thread's exit `HERE` may be gone; then it is not the owner.
        if HERE.try_with(|h| h.id) == Ok(self.owner.id) {
            drop(value);
            return;
        }
        let orphan = Orphan {
            owner: self.owner.id,
            value: Box::new(value),
        };
        if let Ok(mut orphans) = ORPHANS.lock() {
            orphans.push(orphan);
            WAITING.store(orphans.len(), Ordering::Relaxed);
        } else {
            std::mem::forget(orphan);
        }
    }
}

/// Drops the values handed to this thread by others (outside the lock: a drop may run Python
/// code that calls borch again).
fn drop_orphans() {
    if WAITING.load(Ordering::Relaxed) == 0 {
        return;
    }
    let here = HERE.with(|h| h.id);
    let mine: Vec<Orphan> = match ORPHANS.lock() {
        Ok(mut orphans) => {
            let (mine, others) = orphans.drain(..).partition(|o| o.owner == here);
            *orphans = others;
            WAITING.store(orphans.len(), Ordering::Relaxed);
            mine
        }
        Err(_) => return,
    };
    drop(mine);
}
