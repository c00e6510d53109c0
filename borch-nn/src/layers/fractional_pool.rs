//! torch's `nn.FractionalMaxPool2d` and `nn.FractionalMaxPool3d` over
//! `F::fractional_max_pool2d/3d`. `_random_samples`, when given, is a buffer (in the state dict,
//! as torch registers it); without it each forward draws torch's samples from the default
//! generator. With `return_indices=True` the result is torch's `(output, indices)` tuple, through
//! [`Module::forward_values`].

use borch_tensor::api::Value;
use borch_tensor::{BorchError, Result, Tensor};

use crate::functional as F;
use crate::module::Module;
use crate::repr::py_float;
use crate::{display_as_repr, training_flag};

/// torch's `output_ratio`: a number or one per spatial dim, each strictly between 0 and 1.
fn check_ratio(ratio: &[f64], n: usize) -> Result<()> {
    let full: Vec<f64> = if ratio.len() == 1 {
        vec![ratio[0]; n]
    } else {
        ratio.to_vec()
    };
    if full.len() >= n && full[..n].iter().all(|&r| 0.0 < r && r < 1.0) {
        return Ok(());
    }
    if full.len() < n {
        return Err(BorchError::Index("tuple index out of range".into()));
    }
    let shown = match ratio {
        [r] => py_float(*r),
        rs => {
            let parts: Vec<String> = rs.iter().map(|r| py_float(*r)).collect();
            format!("({})", parts.join(", "))
        }
    };
    Err(BorchError::Value(format!(
        "output_ratio must be between 0 and 1 (got {shown})"
    )))
}

type Pool = fn(
    &Tensor,
    &[usize],
    Option<&[usize]>,
    Option<&[f64]>,
    Option<&Tensor>,
) -> Result<(Tensor, Tensor)>;

macro_rules! fractional_pool {
    ($name:ident, $n:expr, $pool:path, $doc:literal) => {
        #[doc = $doc]
        pub struct $name {
            /// torch's `kernel_size`, one per spatial dim.
            pub kernel_size: Vec<usize>,
            /// torch's `output_size`.
            pub output_size: Option<Vec<usize>>,
            /// torch's `output_ratio`: the output size as a ratio of the input size.
            pub output_ratio: Option<Vec<f64>>,
            /// torch's `return_indices`: also return the indices of the max values.
            pub return_indices: bool,
            /// torch's `_random_samples` buffer (`[N, C, n]`), or None to draw per forward.
            pub random_samples: Option<Tensor>,
            training: bool,
        }

        impl $name {
            /// torch's constructor checks, in its order.
            pub fn new(
                kernel_size: &[usize],
                output_size: Option<&[usize]>,
                output_ratio: Option<&[f64]>,
                return_indices: bool,
                random_samples: Option<Tensor>,
            ) -> Result<$name> {
                let name = stringify!($name);
                if $n == 3 && kernel_size.contains(&0) {
                    let shown = match kernel_size {
                        [k] => k.to_string(),
                        ks => {
                            let parts: Vec<String> = ks.iter().map(usize::to_string).collect();
                            format!("({})", parts.join(", "))
                        }
                    };
                    return Err(BorchError::Value(format!(
                        "kernel_size must be greater than 0, but got {shown}"
                    )));
                }
                match (output_size, output_ratio) {
                    (None, None) => {
                        return Err(BorchError::Value(format!(
                            "{name} requires specifying either an output size, or a pooling ratio"
                        )));
                    }
                    (Some(_), Some(_)) => {
                        return Err(BorchError::Value(
                            "only one of output_size and output_ratio may be specified".into(),
                        ));
                    }
                    (None, Some(r)) => check_ratio(r, $n)?,
                    _ => {}
                }
                let random_samples = random_samples.map(|t| borch_tensor::keep_alive(&t));
                Ok($name {
                    kernel_size: kernel_size.to_vec(),
                    output_size: output_size.map(<[usize]>::to_vec),
                    // torch's `_pair` / `_triple` of a number.
                    output_ratio: output_ratio.map(|r| match r {
                        [r] => vec![*r; $n],
                        rs => rs.to_vec(),
                    }),
                    return_indices,
                    random_samples,
                    training: true,
                })
            }

            /// The pooled values and their indices.
            pub fn forward_with_indices(&self, input: &Tensor) -> Result<(Tensor, Tensor)> {
                let pool: Pool = $pool;
                pool(
                    input,
                    &self.kernel_size,
                    self.output_size.as_deref(),
                    self.output_ratio.as_deref(),
                    self.random_samples.as_ref(),
                )
            }
        }

        impl Module for $name {
            fn forward(&self, input: &Tensor) -> Result<Tensor> {
                if self.return_indices {
                    return Err(BorchError::NotImplemented(format!(
                        "{}(return_indices=True) returns a tuple (output, indices): call it \
                         through forward_values",
                        stringify!($name)
                    )));
                }
                Ok(self.forward_with_indices(input)?.0)
            }
            fn forward_values(
                &self,
                positional: Vec<Value>,
                keywords: Vec<(String, Value)>,
            ) -> Result<Value> {
                if !self.return_indices {
                    return crate::api::forward::tensors_only(self, positional, keywords);
                }
                let input = match (positional.as_slice(), keywords.is_empty()) {
                    ([Value::Tensor(t)], true) => t.clone(),
                    _ => {
                        return Err(BorchError::Type(format!(
                            "{}.forward() takes exactly one Tensor argument",
                            stringify!($name)
                        )));
                    }
                };
                let (values, indices) = self.forward_with_indices(&input)?;
                Ok(Value::List(vec![
                    Value::Tensor(values),
                    Value::Tensor(indices),
                ]))
            }
            fn name(&self) -> String {
                stringify!($name).into()
            }
            fn own_buffers(&self) -> Vec<(String, Tensor)> {
                self.random_samples
                    .iter()
                    .map(|t| ("_random_samples".to_string(), t.clone()))
                    .collect()
            }
            training_flag!();
        }

        display_as_repr!($name);
    };
}

fractional_pool!(
    FractionalMaxPool2d,
    2,
    F::fractional_max_pool2d,
    "torch's `nn.FractionalMaxPool2d(kernel_size, output_size=None, output_ratio=None, \
     return_indices=False, _random_samples=None)` over `(N, C, H, W)` or `(C, H, W)`."
);
fractional_pool!(
    FractionalMaxPool3d,
    3,
    F::fractional_max_pool3d,
    "torch's `nn.FractionalMaxPool3d(kernel_size, output_size=None, output_ratio=None, \
     return_indices=False, _random_samples=None)` over `(N, C, T, H, W)` or `(C, T, H, W)`."
);
