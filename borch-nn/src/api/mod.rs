//! The catalogs that bindings forward to: `torch.nn.functional` by name ([`functional`]) and the
//! `torch.nn` module classes by name ([`modules`]). A binding keeps no second list of either.

pub mod forward;
pub mod functional;
pub mod modules;

pub use functional::{MODULE, call, entries};
