//! Forward signatures: the `forward(...)` of a module whose inputs are more than tensors (masks,
//! flags, initial states) or whose result is a tuple, written as the op catalog writes a
//! signature and parsed once. [`crate::module::Module::forward_values`] of such a module binds its
//! arguments with [`ForwardSignature::bind`], so bindings pass Python's positional and keyword
//! arguments through unchanged and get torch's TypeErrors.

use std::sync::OnceLock;

use borch_tensor::api::{self, Args, Call, Entry, Form, Param, Returns, Value, parse_params};
use borch_tensor::{BorchError, Result};

use crate::module::Module;

/// A module's `forward` parameters (after `self`), e.g.
/// `"input: Tensor, hx: Tensors = None"`, parsed on first use.
pub struct ForwardSignature {
    name: &'static str,
    text: &'static str,
    returns: &'static str,
    entry: OnceLock<Entry>,
}

fn unused(_: &Args) -> Result<Value> {
    Ok(Value::None)
}

impl ForwardSignature {
    /// `name` is what torch's messages call the method (`"LSTM.forward"`).
    pub const fn new(name: &'static str, text: &'static str) -> ForwardSignature {
        ForwardSignature::returning(name, text, "Tensor")
    }

    /// A signature with its result type written out: `Tensor`, `T?` (or None), a tuple `(T, …)`,
    /// nested as torch nests it: LSTM's `"(Tensor, (Tensor, Tensor))"` ([`ForwardSignature::new`]:
    /// `Tensor`). Generators (the `.d.ts` of borch-ts) read it; the values themselves come back
    /// as [`Value`]s (a tuple as `Value::List`, None as `Value::None`).
    pub const fn returning(
        name: &'static str,
        text: &'static str,
        returns: &'static str,
    ) -> ForwardSignature {
        ForwardSignature {
            name,
            text,
            returns,
            entry: OnceLock::new(),
        }
    }

    /// What torch's messages call the method (`"LSTM.forward"`).
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The result type as written (see [`ForwardSignature::returning`]).
    pub fn returns(&self) -> &'static str {
        self.returns
    }

    /// The parsed result type.
    pub fn result_type(&self) -> Result<ForwardType> {
        ForwardType::parse(self.returns)
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

    /// The parameters, in torch's order.
    pub fn params(&'static self) -> &'static [Param] {
        &self.entry().params
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

/// A forward's result type, parsed from [`ForwardSignature::returns`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ForwardType {
    /// `Tensor`: a tensor.
    Tensor,
    /// `T?`: the value or None.
    Optional(Box<ForwardType>),
    /// `(T, …)`: a tuple (`Value::List`).
    Tuple(Vec<ForwardType>),
}

impl ForwardType {
    /// Parse `"(Tensor, (Tensor, Tensor)?)"`.
    pub fn parse(text: &str) -> Result<ForwardType> {
        let bad = || BorchError::Value(format!("not a forward result type: {text:?}"));
        let mut rest = text.trim();
        let t = ForwardType::parse_one(&mut rest).ok_or_else(bad)?;
        if rest.trim().is_empty() {
            Ok(t)
        } else {
            Err(bad())
        }
    }

    fn parse_one(rest: &mut &str) -> Option<ForwardType> {
        *rest = rest.trim_start();
        let mut t = if let Some(r) = rest.strip_prefix('(') {
            *rest = r;
            let mut items = Vec::new();
            loop {
                items.push(ForwardType::parse_one(rest)?);
                *rest = rest.trim_start();
                if let Some(r) = rest.strip_prefix(',') {
                    *rest = r;
                } else if let Some(r) = rest.strip_prefix(')') {
                    *rest = r;
                    break;
                } else {
                    return None;
                }
            }
            ForwardType::Tuple(items)
        } else if let Some(r) = rest.strip_prefix("Tensor") {
            *rest = r;
            ForwardType::Tensor
        } else {
            return None;
        };
        *rest = rest.trim_start();
        while let Some(r) = rest.strip_prefix('?') {
            *rest = r;
            t = ForwardType::Optional(Box::new(t));
        }
        Some(t)
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

#[cfg(test)]
mod tests {
    use super::*;

    static LSTM: ForwardSignature = ForwardSignature::returning(
        "LSTM.forward",
        "input: Tensor, hx: Tensors = None",
        "(Tensor, (Tensor, Tensor))",
    );

    #[test]
    fn result_types_parse() {
        use ForwardType::*;
        assert_eq!(
            LSTM.result_type().unwrap(),
            Tuple(vec![Tensor, Tuple(vec![Tensor, Tensor])])
        );
        assert_eq!(
            ForwardType::parse("(Tensor, Tensor?)").unwrap(),
            Tuple(vec![Tensor, Optional(Box::new(Tensor))])
        );
        assert!(ForwardType::parse("(Tensor").is_err());
        assert!(ForwardType::parse("Tensor Tensor").is_err());
        assert_eq!(LSTM.params().len(), 2);
    }
}
