//! The kernels behind convolution and pooling, for windows of any rank (planes, volumes):
//! `im2col` copies every sliding window of a batch of inputs into columns (torch's `unfold`), and
//! `col2im` adds the columns back into the inputs (torch's `fold`), each the other's gradient. One
//! thread per output element, so `col2im` gathers the (at most `taps`) window positions covering
//! its element, in the taps' order: deterministic, no atomics. The WGSL is written per rank.

use borch_device::Kernel;

use super::{groups_for, launch, prelude};
use crate::dtype::DType;
use crate::error::Result;
use crate::ops::unfold::{Sliding, Window};
use crate::tensor::Tensor;

/// Parameters shared by both kernels (after the element count and the source offset): each of
/// input, output, kernel, stride, padding and dilation, one word per dim.
fn geometry<const N: usize>(w: &Window<N>) -> Vec<u32> {
    [w.input, w.output, w.kernel, w.stride, w.padding, w.dilation]
        .iter()
        .flat_map(|v| v.iter().map(|&x| x as u32))
        .collect()
}

/// The names of the geometry words, in `geometry`'s order.
const FIELDS: [&str; 6] = ["size", "out", "ks", "st", "pad", "dil"];

/// WGSL `let`s reading the geometry of rank `n` (`size0`, `out0`, `ks0`, …).
fn geometry_lets(n: usize) -> String {
    let mut out = String::new();
    for (f, name) in FIELDS.iter().enumerate() {
        for d in 0..n {
            out.push_str(&format!("    let {name}{d} = sp({}u);\n", 2 + f * n + d));
        }
    }
    out
}

/// `a0 * a1 * …` over dims `from..n`, each named by `name(d)` (`1` when empty).
fn product(name: impl Fn(usize) -> String, from: usize, n: usize) -> String {
    let dims: Vec<String> = (from..n).map(name).collect();
    if dims.is_empty() {
        "1".into()
    } else {
        dims.join(" * ")
    }
}

/// The geometry field `field`'s word for dim `d` (`out1`).
fn word(field: &'static str) -> impl Fn(usize) -> String + Copy {
    move |d| format!("{field}{d}")
}

/// The same as a `u32` (`u32(size1)`).
fn unsigned(field: &'static str) -> impl Fn(usize) -> String + Copy {
    move |d| format!("u32({field}{d})")
}

/// Coordinate `d` of the row-major flat index `flat` over sizes `size(0..n)`; `more` when `flat`
/// counts past them (a batch index above), so coordinate 0 wraps too.
fn coordinate(
    flat: &str,
    size: impl Fn(usize) -> String + Copy,
    d: usize,
    n: usize,
    more: bool,
) -> String {
    match (d == 0 && !more, d + 1 == n) {
        (true, true) => flat.to_string(),
        (true, false) => format!("({flat} / ({}))", product(size, d + 1, n)),
        (false, true) => format!("({flat} % {})", size(d)),
        (false, false) => format!("(({flat} / ({})) % {})", product(size, d + 1, n), size(d)),
    }
}

const HEADER: &str = r#"@group(0) @binding(0) var<storage, read> p: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
"#;

const MAIN: &str = r#"@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if (i >= p[0]) { return; }
"#;

pub(crate) fn im2col_source<const N: usize>() -> String {
    let mut s = format!(
        "{HEADER}@group(0) @binding(2) var<storage, read> src: array<f32>;\n{}{MAIN}",
        prelude::INDEX
    );
    s.push_str(&geometry_lets(N));
    s.push_str(&format!(
        "    let windows = u32({});\n    let taps = u32({});\n",
        product(word("out"), 0, N),
        product(word("ks"), 0, N)
    ));
    s.push_str("    let l = i32(i % windows);\n    let k = i32((i / windows) % taps);\n");
    s.push_str("    let b = i32(i / (windows * taps));\n");
    let mut inside = Vec::new();
    for d in 0..N {
        let o = coordinate("l", word("out"), d, N, false);
        let t = coordinate("k", word("ks"), d, N, false);
        s.push_str(&format!(
            "    let x{d} = {o} * st{d} - pad{d} + {t} * dil{d};\n"
        ));
        inside.push(format!("x{d} >= 0 && x{d} < size{d}"));
    }
    let at = (0..N).fold("b".to_string(), |acc, d| {
        format!("({acc} * size{d} + x{d})")
    });
    s.push_str(&format!(
        "    var v = bitcast<f32>(p[{}]);\n    if ({}) {{\n        v = src[sp(1u) + {at}];\n    }}\n    out[i] = v;\n}}\n",
        2 + 6 * N,
        inside.join(" && ")
    ));
    s
}

pub(crate) fn col2im_source<const N: usize>() -> String {
    let mut s = format!(
        "{HEADER}@group(0) @binding(2) var<storage, read> cols: array<f32>;\n{}{MAIN}",
        prelude::INDEX
    );
    s.push_str(&geometry_lets(N));
    for d in 0..N {
        let c = coordinate("i", unsigned("size"), d, N, true);
        s.push_str(&format!("    let x{d} = i32({c});\n"));
    }
    let volume = product(unsigned("size"), 0, N);
    s.push_str(&format!("    let b = i32(i / ({volume}));\n"));
    s.push_str(&format!(
        "    let windows = {};\n",
        product(word("out"), 0, N)
    ));
    s.push_str(&format!(
        "    let base = sp(1u) + b * {} * windows;\n    var acc = 0.0;\n",
        product(word("ks"), 0, N)
    ));
    for d in 0..N {
        let pad = "    ".repeat(d + 1);
        s.push_str(&format!(
            "{pad}for (var k{d} = 0; k{d} < ks{d}; k{d}++) {{\n\
             {pad}    let y{d} = x{d} + pad{d} - k{d} * dil{d};\n\
             {pad}    if (y{d} < 0 || y{d} % st{d} != 0 || y{d} / st{d} >= out{d}) {{ continue; }}\n"
        ));
    }
    let pad = "    ".repeat(N + 1);
    let tap = (1..N).fold("k0".to_string(), |acc, d| format!("({acc} * ks{d} + k{d})"));
    let l = (1..N).fold("(y0 / st0)".to_string(), |acc, d| {
        format!("({acc} * out{d} + y{d} / st{d})")
    });
    s.push_str(&format!(
        "{pad}acc += cols[base + {tap} * windows + {l}];\n"
    ));
    for d in (0..N).rev() {
        s.push_str(&format!("{}}}\n", "    ".repeat(d + 1)));
    }
    s.push_str("    out[i] = acc;\n}\n");
    s
}

/// The windows of contiguous float inputs `(B, *input)` as columns `(B, taps, windows)`;
/// positions outside the inputs read `pad_value`.
pub(crate) fn im2col<const N: usize>(src: &Tensor, w: &Window<N>, pad_value: f32) -> Result<Tensor>
where
    Window<N>: Sliding,
{
    let shape = [src.shape()[0], w.taps(), w.windows()];
    let out = Tensor::uninit(src.device(), &shape, DType::Float32)?;
    let n = out.numel();
    if n == 0 {
        return Ok(out);
    }
    let mut params = vec![n as u32, src.storage_offset() as u32];
    params.extend(geometry(w));
    params.push(pad_value.to_bits());
    let kernel = Kernel {
        key: <Window<N> as Sliding>::UNFOLD,
        source: &im2col_source::<N>,
        bounds_checked: true,
    };
    launch(src.device(), &kernel, &[&out, src], &params, groups_for(n))?;
    Ok(out)
}

/// Contiguous columns `(B, taps, windows)` summed back into inputs `(B, *input)`.
pub(crate) fn col2im<const N: usize>(cols: &Tensor, w: &Window<N>) -> Result<Tensor>
where
    Window<N>: Sliding,
{
    let mut shape = vec![cols.shape()[0]];
    shape.extend(w.input);
    let out = Tensor::uninit(cols.device(), &shape, DType::Float32)?;
    let n = out.numel();
    if n == 0 {
        return Ok(out);
    }
    let mut params = vec![n as u32, cols.storage_offset() as u32];
    params.extend(geometry(w));
    let kernel = Kernel {
        key: <Window<N> as Sliding>::FOLD,
        source: &col2im_source::<N>,
        bounds_checked: true,
    };
    launch(
        cols.device(),
        &kernel,
        &[&out, cols],
        &params,
        groups_for(n),
    )?;
    Ok(out)
}
