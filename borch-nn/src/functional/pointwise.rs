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
    /// torch's `elu(x, alpha, scale, input_scale)` (SELU is `scale != 1`, CELU is
    /// `input_scale = 1 / alpha`).
    Elu {
        alpha: f64,
        scale: f64,
        input_scale: f64,
    },
    /// torch's `hardsigmoid`: `relu6(x + 3) / 6`.
    Hardsigmoid,
}

struct Pointwise(Kind);

impl Function for Pointwise {
    fn name(&self) -> &str {
        match self.0 {
            Kind::Hardtanh { .. } => "HardtanhBackward",
            Kind::Hardswish => "HardswishBackward",
            Kind::Elu { .. } => "EluBackward",
            Kind::Hardsigmoid => "HardsigmoidBackward",
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
            Kind::Elu {
                alpha,
                scale,
                input_scale,
            } => {
                let scaled = if input_scale == 1.0 {
                    x.clone()
                } else {
                    x.mul(input_scale)?
                };
                let negative = scaled.expm1()?.mul(alpha * scale)?;
                where_cond(&x.le(0.0)?, negative.into(), x.mul(scale)?.into())
            }
            Kind::Hardsigmoid => x
                .add(3.0)?
                .clamp(Some(0.0.into()), Some(6.0.into()))?
                .div(6.0),
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
            // elu_backward: alpha * scale * input_scale * exp(x * input_scale) for x <= 0, else
            // scale (NaN too).
            Kind::Elu {
                alpha,
                scale,
                input_scale,
            } => {
                let scaled = if input_scale == 1.0 {
                    x.clone()
                } else {
                    x.mul(input_scale)?
                };
                let negative = g.mul(&scaled.exp()?)?.mul(alpha * scale * input_scale)?;
                where_cond(&x.le(0.0)?, negative.into(), g.mul(scale)?.into())?
            }
            // hardsigmoid_backward: 1/6 strictly inside (-3, 3), else 0 (NaN too).
            Kind::Hardsigmoid => {
                let inside = x.gt(-3.0)?.logical_and(&x.lt(3.0)?)?;
                where_cond(&inside, g.div(6.0)?.into(), 0.0.into())?
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
    run(
        Kind::Elu {
            alpha,
            scale,
            input_scale: 1.0,
        },
        input,
    )
}

/// torch's `celu(x, alpha)`: `elu(x, alpha, 1, 1 / alpha)`.
pub(crate) fn celu(input: &Tensor, alpha: f64) -> Result<Tensor> {
    run(
        Kind::Elu {
            alpha,
            scale: 1.0,
            input_scale: 1.0 / alpha,
        },
        input,
    )
}

/// torch's `hardsigmoid`.
pub(crate) fn hardsigmoid(input: &Tensor) -> Result<Tensor> {
    run(Kind::Hardsigmoid, input)
}
