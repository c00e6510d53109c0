//! torch's argument checks for elementwise ops, beyond the dtype rules of the table.

use crate::dtype::DType;
use crate::error::{Result, not_impl, runtime};
use crate::ops::elementwise::promote;
use crate::ops::table::{SUB_BOOL, SUB_ONE_BOOL};
use crate::scalar::Operand;

/// add/sub: an integral result refuses a fractional alpha.
pub fn alpha(operands: &[Operand], params: &[f64]) -> Result<()> {
    let alpha = params.first().copied().unwrap_or(1.0);
    if promote(operands) != DType::Float32 && alpha.fract() != 0.0 {
        return runtime(
            "For integral input tensors, argument alpha must not be a floating point number.",
        );
    }
    Ok(())
}

/// sub: torch refuses bool operands, with one message for two bools and another for one.
pub fn sub(operands: &[Operand], params: &[f64]) -> Result<()> {
    match operands.iter().filter(|o| o.dtype() == DType::Bool).count() {
        0 => alpha(operands, params),
        n if n == operands.len() => not_impl(SUB_BOOL),
        _ => not_impl(SUB_ONE_BOOL),
    }
}

/// lerp: start and end must share a dtype.
pub fn lerp(operands: &[Operand], _: &[f64]) -> Result<()> {
    let (start, end) = (operands[0].dtype(), operands[1].dtype());
    if start != end {
        return runtime(format!(
            "expected dtype {} for `end` but got dtype {}",
            start.name(),
            end.name()
        ));
    }
    Ok(())
}

/// addcdiv: integer division was removed from torch.
pub fn addcdiv(operands: &[Operand], _: &[f64]) -> Result<()> {
    if operands[1].dtype() != DType::Float32 && operands[2].dtype() != DType::Float32 {
        return runtime(
            "Integer division with addcdiv is no longer supported, and in a future  release \
             addcdiv will perform a true division of tensor1 and tensor2. The historic addcdiv \
             behavior can be implemented as (input + value * torch.trunc(tensor1 / tensor2)).\
             to(input.dtype) for integer inputs and as (input + value * tensor1 / tensor2) for \
             float inputs. The future addcdiv behavior is just the latter implementation: \
             (input + value * tensor1 / tensor2), for all dtypes.",
        );
    }
    Ok(())
}

/// where: the condition must be bool.
pub fn where_condition(operands: &[Operand], _: &[f64]) -> Result<()> {
    let dtype = operands[0].dtype();
    if dtype != DType::Bool {
        return runtime(format!(
            "where expected condition to be a boolean tensor, but got a tensor with dtype {}",
            dtype.scalar_type_name()
        ));
    }
    Ok(())
}
