//! torch's `repr` of a tensor (`tensor([[1., 2.], [3., 4.]], requires_grad=True)`), from host
//! data, so that every binding prints what torch prints. It follows torch's `_tensor_str`: one
//! width for every element, fixed notation with 4 decimals, whole floats as `1.`, scientific
//! notation when the nonzero finite magnitudes span more than 1000× (or exceed 1e8, or go below
//! 1e-4 for non-whole values), 80-column lines. Not yet: summarizing tensors over 1000 elements
//! with `...`, and `size=` for empty tensors of more than one dim.

use crate::error::Result;
use crate::host::HostData;
use crate::tensor::Tensor;

const LINE_WIDTH: usize = 80;
const PRECISION: usize = 4;

enum Style {
    /// Whole floats: `1.`
    Whole,
    Fixed,
    Sci,
    Plain,
}

struct Formatter {
    style: Style,
    width: usize,
}

/// Python's `'{:.4e}'`: the exponent signed and at least two digits.
fn sci(v: f64) -> String {
    let s = format!("{v:.PRECISION$e}");
    match s.split_once('e') {
        Some((m, e)) => {
            let (sign, digits) = e.strip_prefix('-').map_or(("+", e), |d| ("-", d));
            format!("{m}e{sign}{digits:0>2}")
        }
        None => s,
    }
}

fn nonfinite(v: f64) -> Option<String> {
    if v.is_nan() {
        Some("nan".into())
    } else if v.is_infinite() {
        Some(if v > 0.0 { "inf" } else { "-inf" }.into())
    } else {
        None
    }
}

impl Formatter {
    fn for_floats(values: &[f64]) -> Formatter {
        let nz: Vec<f64> = values
            .iter()
            .copied()
            .filter(|v| v.is_finite() && *v != 0.0)
            .collect();
        let mut f = Formatter {
            style: Style::Whole,
            width: 1,
        };
        if nz.is_empty() {
            return f;
        }
        let max = nz.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        let min = nz.iter().fold(f64::INFINITY, |m, v| m.min(v.abs()));
        let whole = nz.iter().all(|v| v.fract() == 0.0);
        f.style = if whole {
            if max / min > 1000.0 || max > 1.0e8 {
                Style::Sci
            } else {
                Style::Whole
            }
        } else if max / min > 1000.0 || max > 1.0e8 || min < 1.0e-4 {
            Style::Sci
        } else {
            Style::Fixed
        };
        f.width = nz.iter().map(|&v| f.text(v).len()).max().unwrap_or(1);
        f
    }

    fn text(&self, v: f64) -> String {
        if let Some(s) = nonfinite(v) {
            return s;
        }
        match self.style {
            Style::Whole => format!("{v:.0}."),
            Style::Fixed => format!("{v:.PRECISION$}"),
            Style::Sci => sci(v),
            Style::Plain => unreachable!("plain values are formatted by the caller"),
        }
    }

    fn pad(&self, s: String) -> String {
        format!("{s:>width$}", width = self.width)
    }
}

fn items(data: &HostData) -> (Vec<String>, Formatter) {
    match data {
        HostData::F32(v) => {
            let values: Vec<f64> = v.iter().map(|&x| f64::from(x)).collect();
            let f = Formatter::for_floats(&values);
            (values.iter().map(|&x| f.text(x)).collect(), f)
        }
        HostData::I64(v) => plain(v.iter().map(i64::to_string).collect()),
        HostData::Bool(v) => plain(
            v.iter()
                .map(|&b| if b { "True" } else { "False" }.to_string())
                .collect(),
        ),
    }
}

fn plain(texts: Vec<String>) -> (Vec<String>, Formatter) {
    let width = texts.iter().map(String::len).max().unwrap_or(1);
    (
        texts,
        Formatter {
            style: Style::Plain,
            width,
        },
    )
}

/// The nested body (`[[1., 2.],\n        [3., 4.]]`) of `texts` laid out with `shape`.
fn body(texts: &[String], shape: &[usize], indent: usize, f: &Formatter) -> String {
    match shape {
        [] => texts.first().cloned().unwrap_or_default(),
        [_] => {
            let element = f.width + 2;
            let per_line = (LINE_WIDTH.saturating_sub(indent) / element).max(1);
            let padded: Vec<String> = texts.iter().map(|s| f.pad(s.clone())).collect();
            let lines: Vec<String> = padded.chunks(per_line).map(|c| c.join(", ")).collect();
            format!(
                "[{}]",
                lines.join(&format!(",\n{}", " ".repeat(indent + 1)))
            )
        }
        [n, rest @ ..] => {
            let stride: usize = rest.iter().product();
            let parts: Vec<String> = (0..*n)
                .map(|i| body(&texts[i * stride..(i + 1) * stride], rest, indent + 1, f))
                .collect();
            let sep = format!(
                ",{}{}",
                "\n".repeat(shape.len() - 1),
                " ".repeat(indent + 1)
            );
            format!("[{}]", parts.join(&sep))
        }
    }
}

/// torch's `repr` of data with `shape`, with `suffixes` such as `requires_grad=True`.
pub fn repr(data: &HostData, shape: &[usize], suffixes: &[String]) -> String {
    let prefix = "tensor(";
    let (texts, f) = items(data);
    let mut out = String::from(prefix);
    if shape.is_empty() {
        out.push_str(&texts.first().cloned().unwrap_or_default());
    } else if texts.is_empty() {
        out.push_str("[]");
    } else {
        out.push_str(&body(&texts, shape, prefix.len(), &f));
    }
    for s in suffixes {
        out.push_str(", ");
        out.push_str(s);
    }
    out.push(')');
    out
}

/// `AddBackward0` for the core op `add`: torch's class name of the node.
fn grad_fn_name(op: &str) -> String {
    let camel: String = op
        .split('_')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|h| h.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect();
    format!("{camel}Backward0")
}

impl Tensor {
    /// torch's `repr(t)`, reading the tensor back.
    pub async fn repr(&self) -> Result<String> {
        let data = self.to_host().await?;
        let mut suffixes = Vec::new();
        if let Some(node) = self.grad_fn() {
            suffixes.push(format!("grad_fn=<{}>", grad_fn_name(&node.op.name())));
        } else if self.requires_grad() {
            suffixes.push("requires_grad=True".into());
        }
        Ok(repr(&data, self.shape(), &suffixes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each expected string is what torch 2.x prints for the same data.
    #[test]
    fn reprs_match_torch() {
        let r = |v: Vec<f32>, s: &[usize]| repr(&HostData::F32(v), s, &[]);
        assert_eq!(r(vec![1.0, 2.0, 3.0], &[3]), "tensor([1., 2., 3.])");
        assert_eq!(r(vec![0.5], &[]), "tensor(0.5000)");
        assert_eq!(
            r(vec![1.0, 2.0, 3.0, 4.0], &[2, 2]),
            "tensor([[1., 2.],\n        [3., 4.]])"
        );
        assert_eq!(r(vec![0.1, -2.5], &[2]), "tensor([ 0.1000, -2.5000])");
        assert_eq!(r(vec![1e-5, 1.0], &[2]), "tensor([1.0000e-05, 1.0000e+00])");
        assert_eq!(r(vec![0.0, 10.0], &[2]), "tensor([ 0., 10.])");
        assert_eq!(
            repr(
                &HostData::I64(vec![1, -20]),
                &[2],
                &["requires_grad=True".into()]
            ),
            "tensor([  1, -20], requires_grad=True)"
        );
        assert_eq!(
            repr(&HostData::Bool(vec![true, false]), &[2], &[]),
            "tensor([ True, False])"
        );
    }
}
