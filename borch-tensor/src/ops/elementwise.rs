//! Elementwise methods: dtype resolution from the op table, then the one map kernel.

use crate::autograd::{Op, record};
use crate::dtype::DType;
use crate::error::{BorchError, Result, not_impl, runtime, type_err};
use crate::kernels::map::{Dest, MapSpec, map};
use crate::layout::broadcast_shapes;
use crate::ops::table::{self, MapOp, OnBool, OnInt};
use crate::scalar::{Operand, Scalar};
use crate::tensor::Tensor;

/// (compute dtype, WGSL expression, result dtype) for `op` over inputs promoted to `promoted`.
pub(crate) fn resolve(op: &MapOp, promoted: DType) -> Result<(DType, &'static str, DType)> {
    let out = |d: DType| if op.predicate { DType::Bool } else { d };
    let int_expr = match op.on_int {
        OnInt::Compute(e) => Some(e),
        _ => None,
    };
    Ok(match promoted {
        // torch names its CPU kernel: "bitwise_and_cpu" not implemented for 'Float'.
        DType::Float32 if op.integral => {
            return not_impl(format!("\"{}_cpu\" not implemented for 'Float'", op.name));
        }
        DType::Float32 => (DType::Float32, op.float, out(DType::Float32)),
        DType::Int64 => match op.on_int {
            OnInt::Compute(e) => (DType::Int64, e, out(DType::Int64)),
            OnInt::Float => (DType::Float32, op.float, out(DType::Float32)),
            OnInt::Error => {
                return not_impl(format!("\"{}\" not implemented for 'Long'", op.name));
            }
        },
        DType::Bool => match (op.on_bool, int_expr) {
            (OnBool::Keep, Some(e)) => (DType::Int64, e, DType::Bool),
            (OnBool::Keep, None) => (DType::Float32, op.float, DType::Bool),
            (OnBool::Int, Some(e)) => (DType::Int64, e, out(DType::Int64)),
            (OnBool::Compute(e), _) => (DType::Int64, e, DType::Bool),
            (OnBool::Int | OnBool::Float, _) => (DType::Float32, op.float, out(DType::Float32)),
            (OnBool::Error(message), _) => return not_impl(message),
        },
    })
}

/// torch's result_type over tensors and wrapped numbers: the highest category present.
pub(crate) fn promote(operands: &[Operand]) -> DType {
    operands
        .iter()
        .map(Operand::dtype)
        .fold(DType::Bool, DType::promote)
}

pub(crate) fn out_shape(operands: &[Operand]) -> Result<Vec<usize>> {
    operands
        .iter()
        .try_fold(Vec::new(), |acc, o| broadcast_shapes(&acc, o.shape()))
}

fn params_of(op: &MapOp, given: &[f64]) -> Vec<Scalar> {
    op.params
        .iter()
        .enumerate()
        .map(|(i, &(_, default))| Scalar::Float(given.get(i).copied().unwrap_or(default)))
        .collect()
}

/// Apply `op` to `operands` (which broadcast), with its scalar parameters (defaults if missing).
pub fn apply(op: &'static MapOp, operands: &[Operand], params: &[f64]) -> Result<Tensor> {
    if operands.len() != op.arity {
        return type_err(format!(
            "{}() takes {} tensor arguments but {} were given",
            op.name,
            op.arity,
            operands.len()
        ));
    }
    if let Some(check) = op.check {
        check(operands, params)?;
    }
    let shape = out_shape(operands)?;
    let (compute, expr, out_dtype) = resolve(op, promote(&operands[op.promote_from..]))?;
    let extras = params_of(op, params);
    let spec = MapSpec {
        expr,
        compute,
        result_bool: op.predicate,
        out_dtype,
        extras: &extras,
    };
    let out = map(&spec, operands, Dest::New(&shape))?;
    let params = extras.iter().map(|s| s.to_f64()).collect();
    Ok(record(Op::Map { op, params }, operands, out))
}

/// Apply `op` writing into `target` in place (torch's `op_`); `target` is the first operand.
pub fn apply_into(
    target: &Tensor,
    op: &'static MapOp,
    operands: &[Operand],
    params: &[f64],
) -> Result<Tensor> {
    if let Some(check) = op.check {
        check(operands, params)?;
    }
    let shape = out_shape(operands)?;
    let (compute, expr, out_dtype) = resolve(op, promote(&operands[op.promote_from..]))?;
    if shape != target.shape() {
        return runtime(format!(
            "output with shape {} doesn't match the broadcast shape {}",
            crate::layout::fmt_list(target.shape()),
            crate::layout::fmt_list(&shape)
        ));
    }
    if out_dtype > target.dtype() {
        return runtime(format!(
            "result type {} can't be cast to the desired output type {}",
            out_dtype.scalar_type_name(),
            target.dtype().scalar_type_name()
        ));
    }
    let extras = params_of(op, params);
    let spec = MapSpec {
        expr,
        compute,
        result_bool: op.predicate,
        out_dtype: target.dtype(),
        extras: &extras,
    };
    map(&spec, operands, Dest::Into(target))
}

fn t(x: &Tensor) -> Operand {
    Operand::Tensor(x.clone())
}

macro_rules! unary_methods {
    ($($method:ident => $op:ident),* $(,)?) => {
        impl Tensor {
            $(
                #[doc = concat!("torch's `", stringify!($method), "`.")]
                pub fn $method(&self) -> Result<Tensor> {
                    apply(&table::$op, &[t(self)], &[])
                }
            )*
        }
    };
}

macro_rules! binary_methods {
    ($($method:ident => $op:ident),* $(,)?) => {
        impl Tensor {
            $(
                #[doc = concat!("torch's `", stringify!($method), "`, with broadcasting and type promotion.")]
                pub fn $method(&self, other: impl Into<Operand>) -> Result<Tensor> {
                    apply(&table::$op, &[t(self), other.into()], &[])
                }
            )*
        }
    };
}

unary_methods! {
    abs => ABS, neg => NEG, exp => EXP, exp2 => EXP2, expm1 => EXPM1, log => LOG, log2 => LOG2,
    log10 => LOG10, log1p => LOG1P, sqrt => SQRT, rsqrt => RSQRT, sin => SIN, cos => COS,
    tan => TAN, asin => ASIN, acos => ACOS, atan => ATAN, sinh => SINH, cosh => COSH,
    tanh => TANH, asinh => ASINH, acosh => ACOSH, atanh => ATANH, sigmoid => SIGMOID,
    relu => RELU, silu => SILU, erf => ERF, erfc => ERFC, floor => FLOOR, ceil => CEIL,
    round => ROUND, trunc => TRUNC, frac => FRAC, sign => SIGN, reciprocal => RECIPROCAL,
    square => SQUARE, isnan => ISNAN, isinf => ISINF, isfinite => ISFINITE,
    logical_not => LOGICAL_NOT,
}

binary_methods! {
    mul => MUL, remainder => REMAINDER, fmod => FMOD, pow => POW, atan2 => ATAN2,
    maximum => MAXIMUM, minimum => MINIMUM, eq => EQ, ne => NE, lt => LT, le => LE, gt => GT,
    ge => GE, logical_and => LOGICAL_AND, logical_or => LOGICAL_OR, logical_xor => LOGICAL_XOR,
}

impl Tensor {
    /// torch's `add(other)`.
    pub fn add(&self, other: impl Into<Operand>) -> Result<Tensor> {
        self.add_scaled(other, 1.0)
    }

    /// torch's `add(other, alpha=alpha)`: `self + alpha * other`.
    pub fn add_scaled(&self, other: impl Into<Operand>, alpha: f64) -> Result<Tensor> {
        apply(&table::ADD, &[t(self), other.into()], &[alpha])
    }

    /// torch's `sub(other)`.
    pub fn sub(&self, other: impl Into<Operand>) -> Result<Tensor> {
        self.sub_scaled(other, 1.0)
    }

    /// torch's `sub(other, alpha=alpha)`: `self - alpha * other`.
    pub fn sub_scaled(&self, other: impl Into<Operand>, alpha: f64) -> Result<Tensor> {
        apply(&table::SUB, &[t(self), other.into()], &[alpha])
    }

    /// torch's `rsub(other)`: `other - self`.
    pub fn rsub(&self, other: impl Into<Operand>) -> Result<Tensor> {
        apply(&table::SUB, &[other.into(), t(self)], &[1.0])
    }

    /// torch's true division `div(other)`; the result is always float.
    pub fn div(&self, other: impl Into<Operand>) -> Result<Tensor> {
        apply(&table::DIV, &[t(self), other.into()], &[])
    }

    /// torch's `div(other, rounding_mode=…)` with `None`, `"trunc"` or `"floor"`.
    pub fn div_mode(
        &self,
        other: impl Into<Operand>,
        rounding_mode: Option<&str>,
    ) -> Result<Tensor> {
        let op = match rounding_mode {
            None => &table::DIV,
            Some("trunc") => &table::DIV_TRUNC,
            Some("floor") => &table::DIV_FLOOR,
            Some(other) => {
                return Err(BorchError::Value(format!(
                    "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{other}'"
                )));
            }
        };
        apply(op, &[t(self), other.into()], &[])
    }

    /// torch's `floor_divide`.
    pub fn floor_divide(&self, other: impl Into<Operand>) -> Result<Tensor> {
        self.div_mode(other, Some("floor"))
    }

    /// torch's `true_divide`.
    pub fn true_divide(&self, other: impl Into<Operand>) -> Result<Tensor> {
        self.div(other)
    }

    /// torch's `gelu(approximate=…)`, `"none"` or `"tanh"`.
    pub fn gelu(&self, approximate: &str) -> Result<Tensor> {
        let op = match approximate {
            "none" => &table::GELU,
            "tanh" => &table::GELU_TANH,
            other => {
                return runtime(format!(
                    "approximate argument must be either none or tanh, but got {other}"
                ));
            }
        };
        apply(op, &[t(self)], &[])
    }

    /// torch's `nn.functional.softplus(beta, threshold)`.
    pub fn softplus(&self, beta: f64, threshold: f64) -> Result<Tensor> {
        apply(&table::SOFTPLUS, &[t(self)], &[beta, threshold])
    }

    /// torch's `nan_to_num(nan, posinf, neginf)`; `None` takes torch's defaults.
    pub fn nan_to_num(
        &self,
        nan: Option<f64>,
        posinf: Option<f64>,
        neginf: Option<f64>,
    ) -> Result<Tensor> {
        if self.dtype() != DType::Float32 {
            return self.clone_contiguous();
        }
        let max = f64::from(f32::MAX);
        apply(
            &table::NAN_TO_NUM,
            &[t(self)],
            &[
                nan.unwrap_or(0.0),
                posinf.unwrap_or(max),
                neginf.unwrap_or(-max),
            ],
        )
    }

    /// torch's `clamp(min, max)`; at least one bound must be given.
    pub fn clamp(&self, min: Option<Operand>, max: Option<Operand>) -> Result<Tensor> {
        match (min, max) {
            (Some(lo), Some(hi)) => apply(&table::CLAMP, &[t(self), lo, hi], &[]),
            (Some(lo), None) => apply(&table::CLAMP_MIN, &[t(self), lo], &[]),
            (None, Some(hi)) => apply(&table::CLAMP_MAX, &[t(self), hi], &[]),
            (None, None) => runtime("torch.clamp: At least one of 'min' or 'max' must not be None"),
        }
    }

    /// torch's `clamp_min`.
    pub fn clamp_min(&self, min: impl Into<Operand>) -> Result<Tensor> {
        apply(&table::CLAMP_MIN, &[t(self), min.into()], &[])
    }

    /// torch's `clamp_max`.
    pub fn clamp_max(&self, max: impl Into<Operand>) -> Result<Tensor> {
        apply(&table::CLAMP_MAX, &[t(self), max.into()], &[])
    }

    /// torch's `lerp(end, weight)`.
    pub fn lerp(&self, end: &Tensor, weight: impl Into<Operand>) -> Result<Tensor> {
        let w = weight.into();
        apply(&table::LERP, &[t(self), t(end), w], &[])
    }

    /// torch's `addcmul(tensor1, tensor2, value=value)`.
    pub fn addcmul(&self, tensor1: &Tensor, tensor2: &Tensor, value: f64) -> Result<Tensor> {
        apply(
            &table::ADDCMUL,
            &[t(self), t(tensor1), t(tensor2)],
            &[value],
        )
    }

    /// torch's `addcdiv(tensor1, tensor2, value=value)`.
    pub fn addcdiv(&self, tensor1: &Tensor, tensor2: &Tensor, value: f64) -> Result<Tensor> {
        let ops = [t(self), t(tensor1), t(tensor2)];
        apply(&table::ADDCDIV, &ops, &[value])
    }

    /// torch's `Tensor.where(condition, other)`: `self` where `condition`, else `other`.
    pub fn where_(&self, condition: &Tensor, other: impl Into<Operand>) -> Result<Tensor> {
        where_cond(condition, t(self), other.into())
    }

    /// torch's `masked_fill(mask, value)`; the result keeps `self`'s dtype.
    pub fn masked_fill(&self, mask: &Tensor, value: impl Into<Operand>) -> Result<Tensor> {
        if mask.dtype() != DType::Bool {
            return runtime(format!(
                "masked_fill_ only supports boolean masks, but got mask with dtype {}",
                mask.dtype().cpp_name()
            ));
        }
        let value = match value.into() {
            Operand::Scalar(s) => Operand::Scalar(s),
            Operand::Tensor(v) if v.dim() == 0 => Operand::Tensor(v.to_dtype(self.dtype())?),
            Operand::Tensor(v) => {
                return runtime(format!(
                    "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with {} dimension(s).",
                    v.dim()
                ));
            }
        };
        // torch's out-of-place masked_fill broadcasts self and mask together.
        let shape = out_shape(&[t(self), t(mask)])?;
        let compute = if self.dtype() == DType::Float32 {
            DType::Float32
        } else {
            DType::Int64
        };
        let (_, expr, _) = resolve(&table::WHERE, compute)?;
        let spec = MapSpec {
            expr,
            compute,
            result_bool: false,
            out_dtype: self.dtype(),
            extras: &[],
        };
        let operands = [t(mask), value, t(self)];
        let out = map(&spec, &operands, Dest::New(&shape))?;
        let op = Op::Map {
            op: &table::WHERE,
            params: vec![],
        };
        Ok(record(op, &operands, out))
    }

    /// Convert to `dtype` (torch's `to(dtype)`); float to int truncates toward zero.
    pub fn to_dtype(&self, dtype: DType) -> Result<Tensor> {
        if dtype == self.dtype() {
            return Ok(self.clone());
        }
        self.cast_copy(dtype)
    }

    fn cast_copy(&self, dtype: DType) -> Result<Tensor> {
        let compute = if dtype == DType::Float32 || self.dtype() == DType::Float32 {
            DType::Float32
        } else {
            DType::Int64
        };
        let spec = MapSpec {
            expr: "a",
            compute,
            result_bool: false,
            out_dtype: dtype,
            extras: &[],
        };
        let out = map(&spec, &[t(self)], Dest::New(self.shape()))?;
        Ok(record(Op::Identity, &[t(self)], out))
    }

    /// A contiguous copy with new storage (torch's `clone()` of a contiguous result).
    pub fn clone_contiguous(&self) -> Result<Tensor> {
        self.cast_copy(self.dtype())
    }

    /// torch's `clone()`.
    pub fn deep_clone(&self) -> Result<Tensor> {
        self.clone_contiguous()
    }

    /// torch's `contiguous()`: `self` when already contiguous, else a contiguous copy.
    pub fn contiguous(&self) -> Result<Tensor> {
        if self.is_contiguous() {
            Ok(self.clone())
        } else {
            self.clone_contiguous()
        }
    }

    /// Apply an elementwise op of the table by torch's name (for bindings).
    pub fn elementwise(name: &str, operands: &[Operand], params: &[f64]) -> Result<Tensor> {
        let op = table::find(name).ok_or_else(|| {
            BorchError::NotImplemented(format!("borch has no elementwise op '{name}'"))
        })?;
        apply(op, operands, params)
    }

    /// In-place `op_` on this tensor: `self = op(self, others…)`.
    pub fn elementwise_(&self, name: &str, others: &[Operand], params: &[f64]) -> Result<()> {
        let op = table::find(name).ok_or_else(|| {
            BorchError::NotImplemented(format!("borch has no elementwise op '{name}_'"))
        })?;
        self.map_(op, others, params)
    }
}

/// torch's `where(condition, input, other)`.
pub fn where_cond(condition: &Tensor, input: Operand, other: Operand) -> Result<Tensor> {
    apply(&table::WHERE, &[t(condition), input, other], &[])
}
