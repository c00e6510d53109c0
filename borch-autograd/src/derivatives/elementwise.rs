//! Derivatives of the elementwise op table (borch-tensor's `ops::table`), by torch name.
//! `has_map_derivative` lets a test prove every float-valued op of the table has one.

use std::f64::consts::{LN_2, LN_10, PI};

use borch_tensor::{Node, Operand, Result, Tensor};

use super::sum_to_shape;

/// Every table op with a derivative here (predicates yield bool and record nothing).
const NAMES: &[&str] = &[
    "abs",
    "neg",
    "exp",
    "exp2",
    "expm1",
    "log",
    "log2",
    "log10",
    "log1p",
    "sqrt",
    "rsqrt",
    "sin",
    "cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "sinh",
    "cosh",
    "tanh",
    "asinh",
    "acosh",
    "atanh",
    "sigmoid",
    "relu",
    "gelu",
    "gelu_tanh",
    "silu",
    "softplus",
    "erf",
    "erfc",
    "floor",
    "ceil",
    "round",
    "trunc",
    "frac",
    "sign",
    "reciprocal",
    "square",
    "nan_to_num",
    "add",
    "sub",
    "mul",
    "div",
    "div_floor",
    "div_trunc",
    "remainder",
    "fmod",
    "pow",
    "atan2",
    "maximum",
    "minimum",
    "clamp",
    "clamp_min",
    "clamp_max",
    "lerp",
    "addcmul",
    "addcdiv",
    "where",
];

pub fn has_map_derivative(name: &str) -> bool {
    NAMES.contains(&name)
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

pub fn derivative(
    name: &str,
    node: &Node,
    params: &[f64],
    g: &Tensor,
) -> Result<Vec<Option<Tensor>>> {
    let s = Saved { node };
    let grads = match name {
        "abs" => unary(g, s.input(0)?.sign()?)?,
        "neg" => vec![Some(g.neg()?)],
        "exp" => unary(g, s.out()?)?,
        "exp2" => unary(g, s.out()?.mul(LN_2)?)?,
        "expm1" => unary(g, s.out()?.add(1.0)?)?,
        "log" => vec![Some(g.div(&s.input(0)?)?)],
        "log2" => vec![Some(g.div(&s.input(0)?.mul(LN_2)?)?)],
        "log10" => vec![Some(g.div(&s.input(0)?.mul(LN_10)?)?)],
        "log1p" => vec![Some(g.div(&s.input(0)?.add(1.0)?)?)],
        "sqrt" => vec![Some(g.div(&s.out()?.mul(2.0)?)?)],
        "rsqrt" => unary(g, s.out()?.pow(3.0)?.mul(-0.5)?)?,
        "sin" => unary(g, s.input(0)?.cos()?)?,
        "cos" => unary(g, s.input(0)?.sin()?.neg()?)?,
        "tan" => unary(g, s.out()?.square()?.add(1.0)?)?,
        "asin" => unary(g, s.input(0)?.square()?.rsub(1.0)?.rsqrt()?)?,
        "acos" => unary(g, s.input(0)?.square()?.rsub(1.0)?.rsqrt()?.neg()?)?,
        "atan" => unary(g, s.input(0)?.square()?.add(1.0)?.reciprocal()?)?,
        "sinh" => unary(g, s.input(0)?.cosh()?)?,
        "cosh" => unary(g, s.input(0)?.sinh()?)?,
        "tanh" => unary(g, s.out()?.square()?.rsub(1.0)?)?,
        "asinh" => unary(g, s.input(0)?.square()?.add(1.0)?.rsqrt()?)?,
        "acosh" => unary(g, s.input(0)?.square()?.sub(1.0)?.rsqrt()?)?,
        "atanh" => unary(g, s.input(0)?.square()?.rsub(1.0)?.reciprocal()?)?,
        "sigmoid" => {
            let y = s.out()?;
            unary(g, y.mul(&y.rsub(1.0)?)?)?
        }
        "relu" => vec![Some(g.masked_fill(&s.out()?.le(0.0)?, 0.0)?)],
        "gelu" => {
            let x = s.input(0)?;
            let cdf = x
                .mul(std::f64::consts::FRAC_1_SQRT_2)?
                .erf()?
                .add(1.0)?
                .mul(0.5)?;
            let pdf = x.square()?.mul(-0.5)?.exp()?.mul(1.0 / (2.0 * PI).sqrt())?;
            unary(g, cdf.add(&x.mul(&pdf)?)?)?
        }
        "gelu_tanh" => {
            let x = s.input(0)?;
            let k = (2.0 / PI).sqrt();
            let x2 = x.square()?;
            let inner = x.mul(&x2.mul(0.044715)?.add(1.0)?)?.mul(k)?;
            let t = inner.tanh()?;
            let left = t.add(1.0)?.mul(0.5)?;
            let dinner = x2.mul(3.0 * 0.044715)?.add(1.0)?.mul(k)?;
            let right = x.mul(0.5)?.mul(&t.square()?.rsub(1.0)?)?.mul(&dinner)?;
            unary(g, left.add(&right)?)?
        }
        "silu" => {
            let x = s.input(0)?;
            let sg = x.sigmoid()?;
            unary(g, sg.mul(&x.mul(&sg.rsub(1.0)?)?.add(1.0)?)?)?
        }
        "softplus" => {
            let (beta, threshold) = (params[0], params[1]);
            let xb = s.input(0)?.mul(beta)?;
            let factor = xb.sigmoid()?.masked_fill(&xb.gt(threshold)?, 1.0)?;
            unary(g, factor)?
        }
        "erf" => unary(g, s.input(0)?.square()?.neg()?.exp()?.mul(2.0 / PI.sqrt())?)?,
        "erfc" => unary(
            g,
            s.input(0)?.square()?.neg()?.exp()?.mul(-2.0 / PI.sqrt())?,
        )?,
        "floor" | "ceil" | "round" | "trunc" | "sign" => vec![Some(g.zeros_like()?)],
        "frac" => vec![Some(g.clone())],
        "reciprocal" => unary(g, s.out()?.square()?.neg()?)?,
        "square" => unary(g, s.input(0)?.mul(2.0)?)?,
        "nan_to_num" => vec![Some(
            g.masked_fill(&s.input(0)?.isfinite()?.logical_not()?, 0.0)?,
        )],
        "add" => vec![Some(g.clone()), Some(g.mul(params[0])?)],
        "sub" => vec![Some(g.clone()), Some(g.mul(-params[0])?)],
        // Each side reads the other only when it needs a gradient (torch saves no more), so
        // an in-place write to an operand that needs none is no error.
        "mul" => vec![
            s.needs(0).then(|| g.mul(s.operand(1)?)).transpose()?,
            s.needs(1).then(|| g.mul(s.operand(0)?)).transpose()?,
        ],
        "div" => {
            let b = s.operand(1)?;
            let ga = g.div(b.clone())?;
            let gb = match s.scalar(1) {
                Some(_) => None,
                None => Some(ga.mul(&s.out()?)?.neg()?),
            };
            vec![Some(ga), gb]
        }
        "div_floor" | "div_trunc" => vec![Some(g.zeros_like()?), Some(g.zeros_like()?)],
        "remainder" => {
            let q = s
                .operand(0)
                .and_then(|a| into_tensor(a)?.div_mode(s.operand(1)?, Some("floor")));
            vec![
                Some(g.clone()),
                q.ok().map(|q| g.mul(&q)?.neg()).transpose()?,
            ]
        }
        "fmod" => {
            let q = s
                .operand(0)
                .and_then(|a| into_tensor(a)?.div_mode(s.operand(1)?, Some("trunc")));
            vec![
                Some(g.clone()),
                q.ok().map(|q| g.mul(&q)?.neg()).transpose()?,
            ]
        }
        "pow" => pow(&s, g)?,
        "atan2" => {
            let (a, b) = (s.input(0)?, s.input(1)?);
            let denom = a.square()?.add(&b.square()?)?;
            vec![
                Some(g.mul(&b)?.div(&denom)?),
                Some(g.mul(&a)?.neg()?.div(&denom)?),
            ]
        }
        "maximum" | "minimum" => {
            // torch: ties share the gradient, NaN sends it to both inputs.
            let (a, b) = (s.input(0)?, s.input(1)?);
            let (a_loses, b_loses) = if name == "maximum" {
                (a.lt(&b)?, a.gt(&b)?)
            } else {
                (a.gt(&b)?, a.lt(&b)?)
            };
            let shared = g.where_(&a.ne(&b)?, g.mul(0.5)?)?;
            vec![
                Some(shared.masked_fill(&a_loses, 0.0)?),
                Some(shared.masked_fill(&b_loses, 0.0)?),
            ]
        }
        "clamp" => clamp(&s, g, true, true)?,
        "clamp_min" => clamp(&s, g, true, false)?,
        "clamp_max" => clamp(&s, g, false, true)?,
        "lerp" => {
            let w = s.operand(2)?;
            let ga = g.mul(into_tensor(w.clone())?.rsub(1.0)?)?;
            let gb = g.mul(w)?;
            let gw = match s.scalar(2) {
                Some(_) => None,
                None => Some(g.mul(&s.input(1)?.sub(&s.input(0)?)?)?),
            };
            vec![Some(ga), Some(gb), gw]
        }
        "addcmul" => {
            let v = params[0];
            vec![
                Some(g.clone()),
                Some(g.mul(&s.input(2)?)?.mul(v)?),
                Some(g.mul(&s.input(1)?)?.mul(v)?),
            ]
        }
        "addcdiv" => {
            let (t1, t2) = (s.input(1)?, s.input(2)?);
            let v = params[0];
            vec![
                Some(g.clone()),
                Some(g.div(&t2)?.mul(v)?),
                Some(g.mul(&t1)?.div(&t2.square()?)?.mul(-v)?),
            ]
        }
        "where" => {
            let cond = s.input(0)?;
            vec![
                None,
                Some(g.masked_fill(&cond.logical_not()?, 0.0)?),
                Some(g.masked_fill(&cond, 0.0)?),
            ]
        }
        other => {
            return Err(borch_tensor::BorchError::NotImplemented(format!(
                "the derivative for '{other}' is not implemented"
            )));
        }
    };
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
