//! Static methods of module classes as a function catalog (torch's
//! `nn.Transformer.generate_square_subsequent_mask(sz, device=None, dtype=None)`), which the
//! bindings attach to their class.

use std::sync::OnceLock;

use borch_tensor::Result;
use borch_tensor::api::{Args, Call, Entry, Form, Returns, Value, parse_params};

use super::factory;

/// The class named in errors.
pub const TRANSFORMER: &str = "torch.nn.Transformer";

fn square_mask(a: &Args) -> Result<Value> {
    factory(a, 1)?;
    crate::generate_square_subsequent_mask(a.usize(0)?).map(Value::Tensor)
}

/// `nn.Transformer`'s static methods, built once.
pub fn transformer() -> &'static [Entry] {
    static ENTRIES: OnceLock<Vec<Entry>> = OnceLock::new();
    ENTRIES.get_or_init(|| {
        vec![Entry {
            name: "generate_square_subsequent_mask",
            form: Form::Function,
            params: parse_params("sz: Int, device: Str = None, dtype: DType = None"),
            returns: Returns::Tensor,
            call: Call::Fn(square_mask),
        }]
    })
}
