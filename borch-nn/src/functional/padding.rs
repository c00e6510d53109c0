//! torch's `F.pad` in every mode: `constant` (any number of dims, negative pads crop),
//! `reflect`, `replicate` and `circular` (the last 1, 2 or 3 dims of a batched or unbatched
//! input). Each padded dim is one gather (`index_select` with host-computed source indices) or,
//! for `constant`, one `cat` with filled blocks, so the gradient comes from those ops. An
//! exporter sees one `pad` op (`op_trace::Span`) with torch's mode, pads and value.

use borch_tensor::op_trace::{Attr, Span, ints};
use borch_tensor::{BorchError, HostData, Result, Tensor, cat, full};

/// torch's padding modes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PadMode {
    /// `'constant'`: a fill value.
    Constant,
    /// `'reflect'`: the input mirrored without its edge.
    Reflect,
    /// `'replicate'`: the edge repeated.
    Replicate,
    /// `'circular'`: the input wrapped around.
    Circular,
}

impl std::str::FromStr for PadMode {
    type Err = BorchError;
    fn from_str(s: &str) -> Result<PadMode> {
        match s {
            "constant" => Ok(PadMode::Constant),
            "reflect" => Ok(PadMode::Reflect),
            "replicate" => Ok(PadMode::Replicate),
            "circular" => Ok(PadMode::Circular),
            other => Err(BorchError::NotImplemented(format!(
                "Unrecognised padding mode {other}"
            ))),
        }
    }
}

impl PadMode {
    fn name(self) -> &'static str {
        match self {
            PadMode::Constant => "constant",
            PadMode::Reflect => "reflect",
            PadMode::Replicate => "replicate",
            PadMode::Circular => "circular",
        }
    }
}

fn runtime<T>(msg: impl Into<String>) -> Result<T> {
    Err(BorchError::Runtime(msg.into()))
}

fn fmt_shape(s: &[usize]) -> String {
    let parts: Vec<String> = s.iter().map(usize::to_string).collect();
    format!("[{}]", parts.join(", "))
}

/// An int64 index vector.
pub(crate) fn index_tensor(idx: &[i64]) -> Result<Tensor> {
    Tensor::from_host(&HostData::I64(idx.to_vec()), &[idx.len()])
}

/// torch's `F.pad(input, pad, mode='constant', value=None)`: `pad` holds (left, right) pairs from
/// the last dim backwards.
pub fn pad(input: &Tensor, pad: &[isize], mode: &str, value: Option<f64>) -> Result<Tensor> {
    let span = Span::begin();
    let out = padded(input, pad, mode, value);
    let attrs = vec![
        ("mode", Attr::Str(mode.to_string())),
        ("pads", ints(pad)),
        ("value", Attr::Float(value.unwrap_or(0.0))),
    ];
    span.finish("pad", &[Some(input)], attrs, out)
}

fn padded(input: &Tensor, pad: &[isize], mode: &str, value: Option<f64>) -> Result<Tensor> {
    let mode: PadMode = mode.parse()?;
    let dim = input.dim();
    if !pad.len().is_multiple_of(2) {
        return runtime("Padding length must be divisible by 2");
    }
    if pad.len() > dim * 2 {
        return runtime(format!(
            "Padding length should be less than or equal to two times the input dimension but \
             got padding length {} and input of dimension {dim}",
            pad.len()
        ));
    }
    if mode == PadMode::Constant {
        return constant_pad(input, pad, value.unwrap_or(0.0));
    }
    if value.is_some_and(|v| v != 0.0) {
        return runtime(format!(
            "Padding mode \"{}\" doesn't take in value argument",
            mode.name()
        ));
    }
    let k = pad.len() / 2;
    if !(1..=3).contains(&k) || !(dim == k + 1 || dim == k + 2) {
        return Err(BorchError::NotImplemented(format!(
            "Padding size {} is not supported for {dim}D input tensor.",
            pad.len()
        )));
    }
    match mode {
        PadMode::Reflect => check_reflect(input, pad)?,
        PadMode::Replicate => check_replicate(input, pad)?,
        _ => check_circular(input, pad)?,
    }
    let mut x = input.clone();
    for i in 0..k {
        let d = dim - 1 - i;
        let (l, r) = (pad[2 * i], pad[2 * i + 1]);
        if l == 0 && r == 0 {
            continue;
        }
        let n = x.shape()[d] as isize;
        let idx: Vec<i64> = if mode == PadMode::Circular {
            // torch crops by the negative pads first, then wraps around what is left.
            let (start, end) = (l.min(0).abs(), n - r.min(0).abs());
            let m = end - start;
            if m <= 0 && (l > 0 || r > 0) {
                return runtime("Padding value causes wrapping around more than once.");
            }
            (-l.max(0)..m + r.max(0))
                .map(|j| (start + j.rem_euclid(m.max(1))) as i64)
                .collect()
        } else {
            (-l..n + r).map(|j| source(mode, j, n) as i64).collect()
        };
        x = x.index_select(d as isize, &index_tensor(&idx)?)?;
    }
    Ok(x)
}

/// The input position that output position `j` (counted from the input's first element) reads
/// when reflecting or replicating.
fn source(mode: PadMode, j: isize, n: isize) -> isize {
    match mode {
        PadMode::Reflect => {
            let j = j.abs();
            if j >= n { 2 * (n - 1) - j } else { j }
        }
        _ => j.clamp(0, n - 1),
    }
}

fn check_reflect(input: &Tensor, pad: &[isize]) -> Result<()> {
    let shape = input.shape();
    let dim = shape.len();
    for i in 0..pad.len() / 2 {
        let d = dim - 1 - i;
        let (l, r, n) = (pad[2 * i], pad[2 * i + 1], shape[d] as isize);
        if l >= n || r >= n {
            return runtime(format!(
                "Argument #{}: Padding size should be less than the corresponding input \
                 dimension, but got: padding ({l}, {r}) at dimension {d} of input {}",
                4 + 2 * i,
                fmt_shape(shape)
            ));
        }
        if n + l + r < 1 {
            return runtime(format!(
                "input (W: {n}) is too small. Calculated output W: {}",
                n + l + r
            ));
        }
    }
    Ok(())
}

fn check_replicate(input: &Tensor, pad: &[isize]) -> Result<()> {
    let shape = input.shape();
    let k = pad.len() / 2;
    let names = ["W", "H", "D"];
    let (mut ins, mut outs, mut bad) = (Vec::new(), Vec::new(), false);
    for i in (0..k).rev() {
        let n = shape[shape.len() - 1 - i] as isize;
        let o = n + pad[2 * i] + pad[2 * i + 1];
        bad |= n == 0 || o < 1;
        ins.push(format!("{}: {n}", names[i]));
        outs.push(format!("{}: {o}", names[i]));
    }
    if !bad {
        return Ok(());
    }
    if k == 1 {
        return runtime(format!(
            "input ({}) is too small. Calculated output {}",
            ins[0], outs[0]
        ));
    }
    runtime(format!(
        "Calculated output {} must be >= 1 in every dimension (input {})",
        outs.join(" "),
        ins.join(", ")
    ))
}

fn check_circular(input: &Tensor, pad: &[isize]) -> Result<()> {
    let shape = input.shape();
    let dim = shape.len();
    for i in 0..pad.len() / 2 {
        let d = dim - 1 - i;
        let (l, r, n) = (pad[2 * i], pad[2 * i + 1], shape[d] as isize);
        if l > n || r > n {
            return runtime("Padding value causes wrapping around more than once.");
        }
        if n + l + r < 0 {
            return runtime("Negative padding value is resulting in an empty dimension");
        }
    }
    Ok(())
}

/// torch's `constant_pad_nd`: negative pads crop (narrow), positive ones add blocks of `value`.
fn constant_pad(input: &Tensor, pad: &[isize], value: f64) -> Result<Tensor> {
    let shape = input.shape().to_vec();
    let dim = shape.len();
    for i in 0..pad.len() / 2 {
        let d = dim - 1 - i;
        let (l, r, n) = (pad[2 * i], pad[2 * i + 1], shape[d] as isize);
        if n + l + r < 0 {
            return runtime("narrow(): length must be non-negative.");
        }
    }
    let mut x = input.clone();
    for i in 0..pad.len() / 2 {
        let d = dim - 1 - i;
        let (l, r) = (pad[2 * i], pad[2 * i + 1]);
        let n = x.shape()[d] as isize;
        let (start, end) = (l.min(0).abs(), n - r.min(0).abs());
        if start > 0 || end < n {
            x = x.narrow(d as isize, start, (end - start).max(0) as usize)?;
        }
        let (l, r) = (l.max(0) as usize, r.max(0) as usize);
        if l == 0 && r == 0 {
            continue;
        }
        let block = |len: usize| -> Result<Tensor> {
            let mut s = x.shape().to_vec();
            s[d] = len;
            full(&s, value, Some(x.dtype()))
        };
        let mut parts = Vec::with_capacity(3);
        if l > 0 {
            parts.push(block(l)?);
        }
        parts.push(x.clone());
        if r > 0 {
            parts.push(block(r)?);
        }
        x = cat(&parts, d as isize)?;
    }
    Ok(x)
}
