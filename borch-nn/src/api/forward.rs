//! Forward signatures: the `forward(...)` of a module whose inputs are more than tensors (masks,
//! flags, initial states) or whose result is a tuple, written as the op catalog writes a
//! signature and parsed once. [`crate::module::Module::forward_values`] of such a module binds its
//! arguments with [`ForwardSignature::bind`], so bindings pass Python's positional and keyword
//! arguments through unchanged and get torch's TypeErrors.

use std::sync::OnceLock;

use borch_tensor::api::{self, Args, Call, Entry, Form, Returns, Value, parse_params};
use borch_tensor::{BorchError, Result};

use crate::module::Module;

/// A module's `forward` parameters (after `self`), e.g.
/// `"input: Tensor, hx: Tensors = None"`, parsed on first use.
pub struct ForwardSignature {
    name: &'static str,
    text: &'static str,
    entry: OnceLock<Entry>,
}

fn unused(_: &Args) -> Result<Value> {
    Ok(Value::None)
}

impl ForwardSignature {
    /// `name` is what torch's messages call the method (`"LSTM.forward"`).
    pub const fn new(name: &'static str, text: &'static str) -> ForwardSignature {
        ForwardSignature {
            name,
            text,
            entry: OnceLock::new(),
        }
    }

    /// The parameters as written.
    pub fn text(&self) -> &'static str {
        self.text
    }

    /// The parsed parameters, as an [`Entry`] the core's binder takes.
    pub fn entry(&'static self) -> &'static Entry {
        self.entry.get_or_init(|| Entry {
            name: self.name,
            form: Form::Function,
            params: parse_params(self.text),
            returns: Returns::Tensor,
            call: Call::Fn(unused),
        })
    }

    /// Bind `forward(*positional, **keywords)` to the parameters (torch's defaults and
    /// TypeErrors).
    pub fn bind(
        &'static self,
        positional: Vec<Value>,
        keywords: Vec<(String, Value)>,
    ) -> Result<Args<'static>> {
        api::bind(self.entry(), positional, keywords)
    }
}

/// The default [`Module::forward_values`]: tensors only, positionally, through
/// [`Module::forward_args`]; the result one tensor.
pub fn tensors_only(
    m: &dyn Module,
    positional: Vec<Value>,
    keywords: Vec<(String, Value)>,
) -> Result<Value> {
    if let Some((k, _)) = keywords.first() {
        return Err(BorchError::Type(format!(
            "{}.forward() got an unexpected keyword argument '{k}'",
            m.name()
        )));
    }
    let mut inputs = Vec::with_capacity(positional.len());
    for (i, v) in positional.into_iter().enumerate() {
        match v {
            Value::Tensor(t) => inputs.push(t),
            other => {
                return Err(BorchError::Type(format!(
                    "{}.forward(): argument {} must be Tensor, not {}",
                    m.name(),
                    i + 1,
                    other.type_name()
                )));
            }
        }
    }
    let refs: Vec<&borch_tensor::Tensor> = inputs.iter().collect();
    m.forward_args(&refs).map(Value::Tensor)
}
