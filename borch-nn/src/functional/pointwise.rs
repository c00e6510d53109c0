//! Activations with kinks, as autograd functions carrying torch's own backward formulas: the
//! forward is torch's formula (NaN and infinities behave as in torch) and the gradient follows
//! torch's branches exactly, at the kinks and for NaN inputs, where composing differentiable ops
//! would disagree (clamp's derivative stops at NaN; a masked branch times NaN is NaN).

use borch_autograd::{Ctx, Function, apply};
use borch_tensor::{Result, Tensor, where_cond};

/// Which activation, with its constants.
enum Kind {
    Hardtanh {
        min: f64,
        max: f64,
    },
    Hardswish,
    /// torch's `elu(x, alpha, scale)` (SELU is `scale != 1`).
    Elu {
        alpha: f64,
        scale: f64,
    },
}

struct Pointwise(Kind);

impl Function for Pointwise {
    fn name(&self) -> &str {
        match self.0 {
            Kind::Hardtanh { .. } => "HardtanhBackward",
            Kind::Hardswish => "HardswishBackward",
            Kind::Elu { .. } => "EluBackward",
        }
    }

    fn forward(&self, ctx: &mut Ctx, inputs: &[Tensor]) -> Result<Tensor> {
        let x = &inputs[0];
        ctx.save_for_backward(&[x]);
        match self.0 {
            Kind::Hardtanh { min, max } => x.clamp(Some(min.into()), Some(max.into())),
            Kind::Hardswish => x
                .mul(&x.add(3.0)?.clamp(Some(0.0.into()), Some(6.0.into()))?)?
                .div(6.0),
            Kind::Elu { alpha, scale } => {
                let negative = x.expm1()?.mul(alpha * scale)?;
                where_cond(&x.le(0.0)?, negative.into(), x.mul(scale)?.into())
            }
        }
    }

    fn backward(&self, ctx: &Ctx, g: &Tensor) -> Result<Vec<Option<Tensor>>> {
        let x = &ctx.saved_tensors()[0];
        let grad = match self.0 {
            // hardtanh_backward: zero at or beyond the bounds (NaN passes).
            Kind::Hardtanh { min, max } => {
                g.masked_fill(&x.le(min)?.logical_or(&x.ge(max)?)?, 0.0)?
            }
            // hardswish_backward: 0 for x <= -3, (x / 3 + 0.5) for x < 3, else 1 (NaN too).
            Kind::Hardswish => {
                let middle = g.mul(&x.div(3.0)?.add(0.5)?)?;
                let upper = where_cond(&x.lt(3.0)?, middle.into(), g.into())?;
                where_cond(&x.le(-3.0)?, 0.0.into(), upper.into())?
            }
            // elu_backward: alpha * scale * exp(x) for x <= 0, else scale (NaN too).
            Kind::Elu { alpha, scale } => {
                let negative = g.mul(&x.exp()?)?.mul(alpha * scale)?;
                where_cond(&x.le(0.0)?, negative.into(), g.mul(scale)?.into())?
            }
        };
        Ok(vec![Some(grad)])
    }
}

fn run(kind: Kind, input: &Tensor) -> Result<Tensor> {
    apply(Pointwise(kind), std::slice::from_ref(input))
}

/// torch's `hardtanh`.
pub(crate) fn hardtanh(input: &Tensor, min: f64, max: f64) -> Result<Tensor> {
    run(Kind::Hardtanh { min, max }, input)
}

/// torch's `hardswish`.
pub(crate) fn hardswish(input: &Tensor) -> Result<Tensor> {
    run(Kind::Hardswish, input)
}

/// torch's `elu(x, alpha, scale)`.
pub(crate) fn elu(input: &Tensor, alpha: f64, scale: f64) -> Result<Tensor> {
    run(Kind::Elu { alpha, scale }, input)
}
