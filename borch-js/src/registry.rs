//! One registry type for the live JavaScript handles found by id (tensors, modules,
//! optimizers): each kind keeps its own thread-local `Registry` and reaches it through `Live`.
//! An id stays while any handle registered on it is live: a tensor id registered twice (two
//! handles on one tensor) stays until both drop; modules and optimizers take a fresh id each.

use std::cell::RefCell;
use std::collections::HashMap;
use std::thread::LocalKey;

use wasm_bindgen::JsValue;

/// Values by id, each with the number of live handles registered on it, and the next fresh id.
pub struct Registry<T> {
    live: HashMap<u64, (T, usize)>,
    next: u64,
}

impl<T> Default for Registry<T> {
    /// An empty registry whose first fresh id is 1.
    fn default() -> Registry<T> {
        Registry {
            live: HashMap::new(),
            next: 1,
        }
    }
}

/// A thread-local registry, as `thread_local!` declares it.
pub trait Live<T> {
    /// One more handle on `id`, which holds `value()` when it is the first.
    fn register(&'static self, id: u64, value: impl FnOnce() -> T);
    /// A fresh id, with one handle on it holding `value`.
    fn insert(&'static self, value: T) -> u64;
    /// One handle fewer on `id`, which leaves with its last. Does nothing once the thread-local
    /// is gone (a handle dropped at teardown).
    fn unregister(&'static self, id: u64);
    /// The value of the live id `property` (`__borchId`, …) of an object borch-ts made.
    fn branded(&'static self, v: &JsValue, property: &str) -> Option<T>;
}

impl<T: Clone + 'static> Live<T> for LocalKey<RefCell<Registry<T>>> {
    fn register(&'static self, id: u64, value: impl FnOnce() -> T) {
        self.with_borrow_mut(|r| r.live.entry(id).or_insert_with(|| (value(), 0)).1 += 1);
    }

    fn insert(&'static self, value: T) -> u64 {
        let id = self.with_borrow_mut(|r| {
            r.next += 1;
            r.next - 1
        });
        self.register(id, || value);
        id
    }

    fn unregister(&'static self, id: u64) {
        let _ = self.try_with(|r| {
            let live = &mut r.borrow_mut().live;
            if let Some(entry) = live.get_mut(&id) {
                entry.1 -= 1;
                if entry.1 == 0 {
                    live.remove(&id);
                }
            }
        });
    }

    fn branded(&'static self, v: &JsValue, property: &str) -> Option<T> {
        let id = crate::js::branded_id(v, property)? as u64;
        self.with_borrow(|r| r.live.get(&id).map(|(value, _)| value.clone()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    thread_local! {
        static LIVE: RefCell<Registry<&'static str>> = RefCell::default();
    }

    fn get(id: u64) -> Option<&'static str> {
        LIVE.with_borrow(|r| r.live.get(&id).map(|(v, _)| *v))
    }

    #[test]
    fn an_id_stays_until_its_last_handle_drops() {
        LIVE.register(7, || "a");
        LIVE.register(7, || "b");
        LIVE.unregister(7);
        assert_eq!(get(7), Some("a"));
        LIVE.unregister(7);
        assert_eq!(get(7), None);
        LIVE.unregister(7);
    }

    #[test]
    fn fresh_ids_count_from_one() {
        assert_eq!(LIVE.insert("x"), 1);
        assert_eq!(LIVE.insert("y"), 2);
        LIVE.unregister(1);
        assert_eq!((get(1), get(2)), (None, Some("y")));
    }
}
