use crate::dtype::DType;
use crate::error::{Result, runtime};

/// A Python-number-like scalar. In type promotion it counts as a "wrapped number": it can raise
/// the result's category (int tensor + 2.5 is float) but never its width.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scalar {
    /// A Python float.
    Float(f64),
    /// A Python int.
    Int(i64),
    /// A Python bool.
    Bool(bool),
}

impl Scalar {
    /// The dtype of its category: float32, int64 or bool.
    pub fn dtype(self) -> DType {
        match self {
            Scalar::Float(_) => DType::Float32,
            Scalar::Int(_) => DType::Int64,
            Scalar::Bool(_) => DType::Bool,
        }
    }

    /// The value as f64 (true is 1.0).
    pub fn to_f64(self) -> f64 {
        match self {
            Scalar::Float(v) => v,
            Scalar::Int(v) => v as f64,
            Scalar::Bool(v) => f64::from(u8::from(v)),
        }
    }

    /// The 32-bit pattern of this value as `dtype`, integers saturated to i32 (for kernel
    /// parameters whose extreme defaults, like nan_to_num's, an integer kernel never uses).
    pub fn bits_saturating(self, dtype: DType) -> u32 {
        match dtype {
            DType::Int64 => {
                (self
                    .to_f64()
                    .clamp(f64::from(i32::MIN), f64::from(i32::MAX)) as i32) as u32
            }
            _ => self.bits_as(dtype).unwrap_or(0),
        }
    }

    /// The 32-bit pattern of this value stored as `dtype`.
    pub fn bits_as(self, dtype: DType) -> Result<u32> {
        Ok(match dtype {
            DType::Float32 => (self.to_f64() as f32).to_bits(),
            DType::Int64 => {
                let v = match self {
                    Scalar::Float(v) => v.trunc() as i64,
                    Scalar::Int(v) => v,
                    Scalar::Bool(b) => i64::from(b),
                };
                i32_of(v)? as u32
            }
            DType::Bool => u32::from(self.to_f64() != 0.0),
        })
    }
}

/// int64 values live in i32 storage; anything outside is refused rather than wrapped.
pub(crate) fn i32_of(v: i64) -> Result<i32> {
    i32::try_from(v).or_else(|_| {
        runtime(format!(
            "value {v} is out of range for borch's int64, which is stored in 32 bits on the GPU \
             (range [-2147483648, 2147483647])"
        ))
    })
}

macro_rules! scalar_from {
    ($($t:ty => $v:ident as $c:ty),*) => {$(
        impl From<$t> for Scalar {
            fn from(x: $t) -> Scalar { Scalar::$v(x as $c) }
        }
    )*};
}
scalar_from!(f64 => Float as f64, f32 => Float as f64, i64 => Int as i64, i32 => Int as i64,
    u32 => Int as i64, usize => Int as i64);

impl From<bool> for Scalar {
    fn from(b: bool) -> Scalar {
        Scalar::Bool(b)
    }
}

/// The right-hand side of a binary op: a tensor or a Python-like number.
#[derive(Debug, Clone)]
pub enum Operand {
    /// A tensor.
    Tensor(crate::Tensor),
    /// A number.
    Scalar(Scalar),
}

impl From<&crate::Tensor> for Operand {
    fn from(t: &crate::Tensor) -> Operand {
        Operand::Tensor(t.clone())
    }
}
impl From<crate::Tensor> for Operand {
    fn from(t: crate::Tensor) -> Operand {
        Operand::Tensor(t)
    }
}
impl From<Scalar> for Operand {
    fn from(s: Scalar) -> Operand {
        Operand::Scalar(s)
    }
}
macro_rules! operand_from {
    ($($t:ty),*) => {$(
        impl From<$t> for Operand {
            fn from(x: $t) -> Operand { Operand::Scalar(Scalar::from(x)) }
        }
    )*};
}
operand_from!(f64, f32, i64, i32, u32, usize, bool);
