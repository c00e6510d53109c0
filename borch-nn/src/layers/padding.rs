//! The padding layers: ZeroPad, ConstantPad, ReflectionPad, ReplicationPad and CircularPad in
//! 1, 2 and 3 dims, each `F.pad` with its mode.

use borch_tensor::{BorchError, Result, Tensor};

use crate::functional as F;
use crate::module::Module;
use crate::repr::{py_float, py_tuple};
use crate::{display_as_repr, training_flag};

/// torch's `_ntuple(2 k)`: one int for every side, or `2 k` ints (left, right from the last dim).
fn sides(padding: &[isize], k: usize) -> Result<Vec<isize>> {
    match padding.len() {
        1 => Ok(vec![padding[0]; 2 * k]),
        n if n == 2 * k => Ok(padding.to_vec()),
        n => Err(BorchError::Value(format!(
            "padding must be an int or a tuple of {} ints, got {n}",
            2 * k
        ))),
    }
}

macro_rules! pad_layer {
    ($name:ident, $k:expr, $mode:literal, $doc:literal) => {
        #[doc = $doc]
        pub struct $name {
            /// `(left, right)` pairs from the last dim backwards.
            pub padding: Vec<isize>,
            training: bool,
        }

        impl $name {
            /// The layer padding each side by `padding` (one int or one per side).
            pub fn new(padding: &[isize]) -> Result<$name> {
                Ok($name {
                    padding: sides(padding, $k)?,
                    training: true,
                })
            }
        }

        impl Module for $name {
            fn forward(&self, input: &Tensor) -> Result<Tensor> {
                F::pad(input, &self.padding, $mode, None)
            }
            fn name(&self) -> String {
                stringify!($name).into()
            }
            fn extra_repr(&self) -> String {
                py_tuple(&self.padding)
            }
            training_flag!();
        }

        display_as_repr!($name);
    };
}

macro_rules! constant_pad_layer {
    ($name:ident, $k:expr, $doc:literal) => {
        #[doc = $doc]
        pub struct $name {
            /// `(left, right)` pairs from the last dim backwards.
            pub padding: Vec<isize>,
            /// torch's `value`: the fill value.
            pub value: f64,
            training: bool,
        }

        impl $name {
            /// The layer padding each side by `padding` (one int or one per side) with `value`.
            pub fn new(padding: &[isize], value: f64) -> Result<$name> {
                Ok($name {
                    padding: sides(padding, $k)?,
                    value,
                    training: true,
                })
            }
        }

        impl Module for $name {
            fn forward(&self, input: &Tensor) -> Result<Tensor> {
                F::pad(input, &self.padding, "constant", Some(self.value))
            }
            fn name(&self) -> String {
                stringify!($name).into()
            }
            fn extra_repr(&self) -> String {
                format!(
                    "padding={}, value={}",
                    py_tuple(&self.padding),
                    py_float(self.value)
                )
            }
            training_flag!();
        }

        display_as_repr!($name);
    };
}

pad_layer!(ZeroPad1d, 1, "constant", "torch's `nn.ZeroPad1d(padding)`.");
pad_layer!(ZeroPad2d, 2, "constant", "torch's `nn.ZeroPad2d(padding)`.");
pad_layer!(ZeroPad3d, 3, "constant", "torch's `nn.ZeroPad3d(padding)`.");
constant_pad_layer!(
    ConstantPad1d,
    1,
    "torch's `nn.ConstantPad1d(padding, value)`."
);
constant_pad_layer!(
    ConstantPad2d,
    2,
    "torch's `nn.ConstantPad2d(padding, value)`."
);
constant_pad_layer!(
    ConstantPad3d,
    3,
    "torch's `nn.ConstantPad3d(padding, value)`."
);
pad_layer!(
    ReflectionPad1d,
    1,
    "reflect",
    "torch's `nn.ReflectionPad1d(padding)`."
);
pad_layer!(
    ReflectionPad2d,
    2,
    "reflect",
    "torch's `nn.ReflectionPad2d(padding)`."
);
pad_layer!(
    ReflectionPad3d,
    3,
    "reflect",
    "torch's `nn.ReflectionPad3d(padding)`."
);
pad_layer!(
    ReplicationPad1d,
    1,
    "replicate",
    "torch's `nn.ReplicationPad1d(padding)`."
);
pad_layer!(
    ReplicationPad2d,
    2,
    "replicate",
    "torch's `nn.ReplicationPad2d(padding)`."
);
pad_layer!(
    ReplicationPad3d,
    3,
    "replicate",
    "torch's `nn.ReplicationPad3d(padding)`."
);
pad_layer!(
    CircularPad1d,
    1,
    "circular",
    "torch's `nn.CircularPad1d(padding)`."
);
pad_layer!(
    CircularPad2d,
    2,
    "circular",
    "torch's `nn.CircularPad2d(padding)`."
);
pad_layer!(
    CircularPad3d,
    3,
    "circular",
    "torch's `nn.CircularPad3d(padding)`."
);
