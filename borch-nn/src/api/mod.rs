//! The catalogs that bindings forward to: `torch.nn.functional` by name ([`functional`]), the
//! `torch.nn` module classes by name ([`modules`]) and functions taking modules
//! ([`module_functions`], e.g. `torch.nn.utils.fusion`). A binding keeps no second list of them.

pub mod forward;
pub mod functional;
pub mod module_functions;
pub mod modules;

pub use functional::{MODULE, call, entries};
