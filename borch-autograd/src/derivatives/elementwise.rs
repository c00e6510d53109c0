//! Derivatives of the elementwise op table (borch-tensor's `ops::table`), by torch name.
//! `has_map_derivative` (whether `rule` knows the op) lets a test prove every float-valued op of
//! the table has one.

use std::f64::consts::{LN_2, LN_10, PI};

use borch_tensor::{Node, Operand, Result, Tensor};

use super::sum_to_shape;

/// Whether the table op `name` has a derivative here (predicates and bitwise ops record none).
pub fn has_map_derivative(name: &str) -> bool {
    rule(name).is_some()
}

/// The saved inputs and output of one node, as plain tensors.
struct Saved<'a> {
    node: &'a Node,
}

impl Saved<'_> {
    fn input(&self, i: usize) -> Result<Tensor> {
        self.node.saved_input(i)
    }
    fn scalar(&self, i: usize) -> Option<f64> {
        match &self.node.inputs[i] {
            Operand::Scalar(s) => Some(s.to_f64()),
            Operand::Tensor(_) => None,
        }
    }
    /// Input `i` as a tensor or a scalar operand, whichever it was.
    fn operand(&self, i: usize) -> Result<Operand> {
        Ok(match self.scalar(i) {
            Some(v) => Operand::from(v),
            None => Operand::Tensor(self.input(i)?),
        })
    }
    /// Whether input `i` is a tensor that requires grad.
    fn needs(&self, i: usize) -> bool {
        matches!(&self.node.inputs[i], Operand::Tensor(t) if t.requires_grad())
    }
    fn out(&self) -> Result<Tensor> {
        self.node.output().cloned()
    }
}

/// d/dx of `op(a)` = g * factor.
fn unary(g: &Tensor, factor: Tensor) -> Result<Vec<Option<Tensor>>> {
    Ok(vec![Some(g.mul(&factor)?)])
}

/// Whether the one-kernel derivatives apply (float32, no broadcasting to undo inside).
fn same_float_shape(saved: &Tensor, g: &Tensor) -> bool {
    saved.shape() == g.shape()
        && saved.dtype() == borch_tensor::DType::Float32
        && g.dtype() == borch_tensor::DType::Float32
}

/// A derivative: the gradients of a node's inputs from its saved values, its scalar parameters
/// and the gradient of its output (before broadcasting is undone).
type Rule = fn(&Saved<'_>, &[f64], &Tensor) -> Result<Vec<Option<Tensor>>>;

pub fn derivative(
    name: &str,
    node: &Node,
    params: &[f64],
    g: &Tensor,
) -> Result<Vec<Option<Tensor>>> {
    let Some(rule) = rule(name) else {
        return Err(borch_tensor::BorchError::NotImplemented(format!(
            "the derivative for '{name}' is not implemented"
        )));
    };
    let grads = rule(&Saved { node }, params, g)?;
    // Undo broadcasting: each gradient takes its input's shape; scalars get none.
    grads
        .into_iter()
        .zip(&node.inputs)
        .map(|(gi, input)| match (gi, input) {
            (Some(gi), Operand::Tensor(t)) => sum_to_shape(&gi, t.shape()).map(Some),
            _ => Ok(None),
        })
        .collect()
}

/// The derivative of the table op `name`, by torch name.
fn rule(name: &str) -> Option<Rule> {
    let rule: Rule = match name {
        "abs" => |s, _, g| unary(g, s.input(0)?.sign()?),
        "neg" => |_, _, g| Ok(vec![Some(g.neg()?)]),
        "exp" => |s, _, g| unary(g, s.out()?),
        "exp2" => |s, _, g| unary(g, s.out()?.mul(LN_2)?),
        "expm1" => |s, _, g| unary(g, s.out()?.add(1.0)?),
        "log" => |s, _, g| Ok(vec![Some(g.div(&s.input(0)?)?)]),
        "log2" => |s, _, g| Ok(vec![Some(g.div(&s.input(0)?.mul(LN_2)?)?)]),
        "log10" => |s, _, g| Ok(vec![Some(g.div(&s.input(0)?.mul(LN_10)?)?)]),
        "log1p" => |s, _, g| Ok(vec![Some(g.div(&s.input(0)?.add(1.0)?)?)]),
        "sqrt" => |s, _, g| Ok(vec![Some(g.div(&s.out()?.mul(2.0)?)?)]),
        "rsqrt" => |s, _, g| unary(g, s.out()?.pow(3.0)?.mul(-0.5)?),
        "sin" => |s, _, g| unary(g, s.input(0)?.cos()?),
        "cos" => |s, _, g| unary(g, s.input(0)?.sin()?.neg()?),
        "tan" => |s, _, g| unary(g, s.out()?.square()?.add(1.0)?),
        "asin" => |s, _, g| unary(g, s.input(0)?.square()?.rsub(1.0)?.rsqrt()?),
        "acos" => |s, _, g| unary(g, s.input(0)?.square()?.rsub(1.0)?.rsqrt()?.neg()?),
        "atan" => |s, _, g| unary(g, s.input(0)?.square()?.add(1.0)?.reciprocal()?),
        "sinh" => |s, _, g| unary(g, s.input(0)?.cosh()?),
        "cosh" => |s, _, g| unary(g, s.input(0)?.sinh()?),
        "tanh" => |s, _, g| unary(g, s.out()?.square()?.rsub(1.0)?),
        "asinh" => |s, _, g| unary(g, s.input(0)?.square()?.add(1.0)?.rsqrt()?),
        "acosh" => |s, _, g| unary(g, s.input(0)?.square()?.sub(1.0)?.rsqrt()?),
        "atanh" => |s, _, g| unary(g, s.input(0)?.square()?.rsub(1.0)?.reciprocal()?),
        "sigmoid" => |s, _, g| {
            let y = s.out()?;
            unary(g, y.mul(&y.rsub(1.0)?)?)
        },
        "relu" => |s, _, g| {
            let out = s.out()?;
            if !crate::is_grad_enabled() && same_float_shape(&out, g) {
                return Ok(vec![Some(borch_tensor::relu_backward(g, &out)?)]);
            }
            Ok(vec![Some(g.masked_fill(&out.le(0.0)?, 0.0)?)])
        },
        "gelu" => |s, _, g| {
            let x = s.input(0)?;
            if !crate::is_grad_enabled() && same_float_shape(&x, g) {
                return Ok(vec![Some(borch_tensor::gelu_backward(g, &x)?)]);
            }
            let cdf = x
                .mul(std::f64::consts::FRAC_1_SQRT_2)?
                .erf()?
                .add(1.0)?
                .mul(0.5)?;
            let pdf = x.square()?.mul(-0.5)?.exp()?.mul(1.0 / (2.0 * PI).sqrt())?;
            unary(g, cdf.add(&x.mul(&pdf)?)?)
        },
        "gelu_tanh" => |s, _, g| {
            let x = s.input(0)?;
            let k = (2.0 / PI).sqrt();
            let x2 = x.square()?;
            let inner = x.mul(&x2.mul(0.044715)?.add(1.0)?)?.mul(k)?;
            let t = inner.tanh()?;
            let left = t.add(1.0)?.mul(0.5)?;
            let dinner = x2.mul(3.0 * 0.044715)?.add(1.0)?.mul(k)?;
            let right = x.mul(0.5)?.mul(&t.square()?.rsub(1.0)?)?.mul(&dinner)?;
            unary(g, left.add(&right)?)
        },
        "silu" => |s, _, g| {
            let x = s.input(0)?;
            let sg = x.sigmoid()?;
            unary(g, sg.mul(&x.mul(&sg.rsub(1.0)?)?.add(1.0)?)?)
        },
        "softplus" => |s, p, g| {
            let (beta, threshold) = (p[0], p[1]);
            let xb = s.input(0)?.mul(beta)?;
            let factor = xb.sigmoid()?.masked_fill(&xb.gt(threshold)?, 1.0)?;
            unary(g, factor)
        },
        "erf" => |s, _, g| unary(g, s.input(0)?.square()?.neg()?.exp()?.mul(2.0 / PI.sqrt())?),
        "erfc" => |s, _, g| {
            unary(
                g,
                s.input(0)?.square()?.neg()?.exp()?.mul(-2.0 / PI.sqrt())?,
            )
        },
        "floor" | "ceil" | "round" | "trunc" | "sign" => |_, _, g| Ok(vec![Some(g.zeros_like()?)]),
        "frac" => |_, _, g| Ok(vec![Some(g.clone())]),
        "reciprocal" => |s, _, g| unary(g, s.out()?.square()?.neg()?),
        "square" => |s, _, g| unary(g, s.input(0)?.mul(2.0)?),
        "nan_to_num" => |s, _, g| {
            Ok(vec![Some(g.masked_fill(
                &s.input(0)?.isfinite()?.logical_not()?,
                0.0,
            )?)])
        },
        "add" => |_, p, g| Ok(vec![Some(g.clone()), Some(g.mul(p[0])?)]),
        "sub" => |_, p, g| Ok(vec![Some(g.clone()), Some(g.mul(-p[0])?)]),
        // Each side reads the other only when it needs a gradient (torch saves no more), so
        // an in-place write to an operand that needs none is no error.
        "mul" => |s, _, g| {
            Ok(vec![
                s.needs(0).then(|| g.mul(s.operand(1)?)).transpose()?,
                s.needs(1).then(|| g.mul(s.operand(0)?)).transpose()?,
            ])
        },
        "div" => |s, _, g| {
            let b = s.operand(1)?;
            let ga = g.div(b.clone())?;
            let gb = match s.scalar(1) {
                Some(_) => None,
                None => Some(ga.mul(&s.out()?)?.neg()?),
            };
            Ok(vec![Some(ga), gb])
        },
        "div_floor" | "div_trunc" => {
            |_, _, g| Ok(vec![Some(g.zeros_like()?), Some(g.zeros_like()?)])
        }
        "remainder" => |s, _, g| {
            let q = s
                .operand(0)
                .and_then(|a| into_tensor(a)?.div_mode(s.operand(1)?, Some("floor")));
            Ok(vec![
                Some(g.clone()),
                q.ok().map(|q| g.mul(&q)?.neg()).transpose()?,
            ])
        },
        "fmod" => |s, _, g| {
            let q = s
                .operand(0)
                .and_then(|a| into_tensor(a)?.div_mode(s.operand(1)?, Some("trunc")));
            Ok(vec![
                Some(g.clone()),
                q.ok().map(|q| g.mul(&q)?.neg()).transpose()?,
            ])
        },
        "pow" => |s, _, g| pow(s, g),
        "atan2" => |s, _, g| {
            let (a, b) = (s.input(0)?, s.input(1)?);
            let denom = a.square()?.add(&b.square()?)?;
            Ok(vec![
                Some(g.mul(&b)?.div(&denom)?),
                Some(g.mul(&a)?.neg()?.div(&denom)?),
            ])
        },
        "maximum" => |s, _, g| maximum_minimum(s, g, true),
        "minimum" => |s, _, g| maximum_minimum(s, g, false),
        "clamp" => |s, _, g| clamp(s, g, true, true),
        "clamp_min" => |s, _, g| clamp(s, g, true, false),
        "clamp_max" => |s, _, g| clamp(s, g, false, true),
        "lerp" => |s, _, g| {
            let w = s.operand(2)?;
            let ga = g.mul(into_tensor(w.clone())?.rsub(1.0)?)?;
            let gb = g.mul(w)?;
            let gw = match s.scalar(2) {
                Some(_) => None,
                None => Some(g.mul(&s.input(1)?.sub(&s.input(0)?)?)?),
            };
            Ok(vec![Some(ga), Some(gb), gw])
        },
        "addcmul" => |s, p, g| {
            let v = p[0];
            Ok(vec![
                Some(g.clone()),
                Some(g.mul(&s.input(2)?)?.mul(v)?),
                Some(g.mul(&s.input(1)?)?.mul(v)?),
            ])
        },
        "addcdiv" => |s, p, g| {
            let (t1, t2) = (s.input(1)?, s.input(2)?);
            let v = p[0];
            Ok(vec![
                Some(g.clone()),
                Some(g.div(&t2)?.mul(v)?),
                Some(g.mul(&t1)?.div(&t2.square()?)?.mul(-v)?),
            ])
        },
        "where" => |s, _, g| {
            let cond = s.input(0)?;
            Ok(vec![
                None,
                Some(g.masked_fill(&cond.logical_not()?, 0.0)?),
                Some(g.masked_fill(&cond, 0.0)?),
            ])
        },
        _ => return None,
    };
    Some(rule)
}

/// torch: ties share the gradient, NaN sends it to both inputs.
fn maximum_minimum(s: &Saved<'_>, g: &Tensor, maximum: bool) -> Result<Vec<Option<Tensor>>> {
    let (a, b) = (s.input(0)?, s.input(1)?);
    let (a_loses, b_loses) = if maximum {
        (a.lt(&b)?, a.gt(&b)?)
    } else {
        (a.gt(&b)?, a.lt(&b)?)
    };
    let shared = g.where_(&a.ne(&b)?, g.mul(0.5)?)?;
    Ok(vec![
        Some(shared.masked_fill(&a_loses, 0.0)?),
        Some(shared.masked_fill(&b_loses, 0.0)?),
    ])
}

fn into_tensor(o: Operand) -> Result<Tensor> {
    match o {
        Operand::Tensor(t) => Ok(t),
        Operand::Scalar(s) => borch_tensor::full(&[], s, Some(borch_tensor::DType::Float32)),
    }
}

/// torch's pow_backward: d/da = b * a^(b-1); d/db = out * ln(a), zero where a == 0 and b >= 0.
fn pow(s: &Saved<'_>, g: &Tensor) -> Result<Vec<Option<Tensor>>> {
    let b = s.operand(1)?;
    let a = into_tensor(s.operand(0)?)?;
    let ga = match &b {
        Operand::Scalar(e) if e.to_f64() == 0.0 => g.zeros_like()?,
        _ => {
            let bm1 = into_tensor(b.clone())?.sub(1.0)?;
            g.mul(b.clone())?.mul(&a.pow(&bm1)?)?
        }
    };
    let gb = match s.scalar(1) {
        Some(_) => None,
        None => {
            let bt = s.input(1)?;
            let mask = a.eq(0.0)?.logical_and(&bt.ge(0.0)?)?;
            Some(g.mul(&s.out()?.mul(&a.log()?)?.masked_fill(&mask, 0.0)?)?)
        }
    };
    let ga = if s.scalar(0).is_some() {
        None
    } else {
        Some(ga)
    };
    Ok(vec![ga, gb])
}

/// torch's clamp backward: with a scalar bound the input's gradient passes strictly inside it
/// (not at the bound, not for NaN); with a tensor bound a tie shares the gradient and the bound
/// takes it where it was the value chosen.
fn clamp(s: &Saved<'_>, g: &Tensor, has_min: bool, has_max: bool) -> Result<Vec<Option<Tensor>>> {
    let x = s.input(0)?;
    let mut factor = g.ones_like()?;
    let mut grads = vec![None];
    let mut index = 1;
    for (present, is_min) in [(has_min, true), (has_max, false)] {
        if !present {
            continue;
        }
        let bound = s.operand(index)?;
        let outside = if is_min {
            x.lt(bound.clone())?
        } else {
            x.gt(bound.clone())?
        };
        match s.scalar(index) {
            Some(_) => {
                let inside = if is_min { x.gt(bound)? } else { x.lt(bound)? };
                factor = factor.masked_fill(&inside.logical_not()?, 0.0)?;
                grads.push(None);
            }
            None => {
                let tie = x.eq(bound.clone())?;
                factor = factor.masked_fill(&outside, 0.0)?.masked_fill(&tie, 0.5)?;
                let taken = if has_min && has_max {
                    g.zeros_like()?.masked_fill(&outside, 1.0)?
                } else {
                    // torch's clamp_min / clamp_max with a tensor bound differentiate as
                    // maximum / minimum: the bound's gradient is zero only where the input
                    // wins, so a NaN on either side gives both the gradient.
                    let wins = if is_min { x.gt(bound)? } else { x.lt(bound)? };
                    g.ones_like()?.masked_fill(&wins, 0.0)?
                }
                .masked_fill(&tie, 0.5)?;
                grads.push(Some(g.mul(&taken)?));
            }
        }
        index += 1;
    }
    grads[0] = Some(g.mul(&factor)?);
    Ok(grads)
}
