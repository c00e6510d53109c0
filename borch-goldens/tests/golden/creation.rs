//! Creation functions.

use borch_tensor::{DType, Operand, Result, Tensor, arange, eye, full, linspace, ones, zeros};
use serde_json::Value;

use crate::case::{Args, number};

fn nested(v: &Value) -> Result<Tensor> {
    fn shape(v: &Value) -> Vec<usize> {
        match v.as_array() {
            Some(a) => {
                let mut s = vec![a.len()];
                if let Some(first) = a.first() {
                    s.extend(shape(first));
                }
                s
            }
            None => vec![],
        }
    }
    fn flat(v: &Value, depth: usize, shape: &[usize], out: &mut Vec<Value>) -> Result<()> {
        match v.as_array() {
            Some(a) => {
                if a.len() != shape[depth] {
                    return Err(borch_tensor::BorchError::Value(format!(
                        "expected sequence of length {} at dim {depth} (got {})",
                        shape[depth],
                        a.len()
                    )));
                }
                a.iter().try_for_each(|x| flat(x, depth + 1, shape, out))
            }
            None => {
                out.push(v.clone());
                Ok(())
            }
        }
    }
    let s = shape(v);
    let mut values = Vec::new();
    flat(v, 0, &s, &mut values)?;
    if values.iter().all(Value::is_boolean) {
        let b: Vec<bool> = values
            .iter()
            .map(|x| x.as_bool().unwrap_or(false))
            .collect();
        Tensor::from_slice(&b, &s)
    } else if values.iter().all(Value::is_i64) {
        let i: Vec<i64> = values.iter().map(|x| x.as_i64().unwrap_or(0)).collect();
        Tensor::from_slice(&i, &s)
    } else {
        let f: Vec<f32> = values.iter().map(|x| number(x) as f32).collect();
        Tensor::from_slice(&f, &s)
    }
}

pub fn run(op: &str, inputs: &[Operand], a: &Args) -> Option<Result<Vec<Tensor>>> {
    let like = || match inputs.first() {
        Some(Operand::Tensor(t)) => t.clone(),
        _ => panic!("{op} needs a tensor input"),
    };
    let dtype = a.dtype("dtype");
    let out = match op {
        "zeros" => zeros(&a.shape("shape"), dtype.unwrap_or(DType::Float32)),
        "ones" => ones(&a.shape("shape"), dtype.unwrap_or(DType::Float32)),
        "full" => full(&a.shape("shape"), a.scalar("fill_value"), dtype),
        "arange" => arange(a.scalar("start"), a.scalar("end"), a.scalar("step")),
        "linspace" => linspace(a.f64("start"), a.f64("end"), a.usize("steps")),
        "eye" => eye(a.usize("n"), a.opt_int("m").map(|m| m as usize)),
        "zeros_like" => like().zeros_like(),
        "ones_like" => like().ones_like(),
        "full_like" => like().full_like(a.scalar("fill_value")),
        "tensor" => nested(a.get("data")),
        _ => return None,
    };
    Some(out.map(|t| vec![t]))
}
