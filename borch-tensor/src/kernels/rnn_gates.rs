//! The recurrent cells' gate math as one kernel per time step (forward) and one per step
//! (backward), from the two gate pre-activations `gi = x W_ih^T + b_ih` and `gh = h W_hh^T +
//! b_hh` (each `[N, G·H]`, torch's gate order). One thread per `(n, j)` of the hidden state
//! reads its `G` gates, so no gate costs a dispatch of its own. Tensors are read at their
//! storage offsets (params words from 2 on), contiguous.

use borch_device::Kernel;

use super::batch_norm::{Bindings, MAIN_WG};
use super::{groups_for, launch, prelude};
use crate::dtype::DType;
use crate::error::Result;
use crate::tensor::Tensor;

/// The cell whose gates a kernel computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GateKind {
    /// RNN with tanh: `h' = tanh(gi + gh)`.
    Tanh,
    /// RNN with relu: `h' = relu(gi + gh)`.
    Relu,
    /// GRU (`r, z, n`): `h' = (h - n) z + n`, `n = tanh(gi_n + r gh_n)`.
    Gru,
    /// LSTM (`i, f, g, o`): `c' = f c + i g`, `h' = o tanh(c')`; output `[2, N, H]` (h', c').
    Lstm,
}

impl GateKind {
    /// Gates per hidden unit: 1 for RNN cells, 3 for GRU, 4 for LSTM.
    pub fn gates(self) -> usize {
        match self {
            GateKind::Tanh | GateKind::Relu => 1,
            GateKind::Gru => 3,
            GateKind::Lstm => 4,
        }
    }
}

pub(crate) const HEAD: &str = r#"    let i = flat_index(wid, nwg, lid);
    if (i >= p[0]) { return; }
    let hs = p[1];
    let row = (i / hs) * GATES * hs + i % hs;
"#;

pub(crate) fn pre(k: u32) -> String {
    format!("(gi[sp(2u) + i32(row + {k}u * hs)] + gh[sp(3u) + i32(row + {k}u * hs)])")
}

/// Params: N·H, H, gi offset, gh offset, state offset (h for a GRU, c for an LSTM), h' offset
/// and (LSTM) c' offset in `out`. With `state_in_out` the state is read from `out` (a layer's
/// previous step, `kernels/rnn_layer.rs`), else from its own tensor.
pub(crate) fn forward_source(kind: GateKind, state_in_out: bool) -> String {
    let mut b = Bindings::new();
    b.add("out", true, "f32");
    b.add("gi", false, "f32");
    b.add("gh", false, "f32");
    let stateful = matches!(kind, GateKind::Gru | GateKind::Lstm);
    if stateful && !state_in_out {
        b.add("st", false, "f32");
    }
    let body = match kind {
        GateKind::Tanh => format!("    out[sp(5u) + i32(i)] = tanh_({});\n", pre(0)),
        GateKind::Relu => format!(
            "    let v = {};\n    out[sp(5u) + i32(i)] = select(v, 0.0, v < 0.0);\n",
            pre(0)
        ),
        GateKind::Gru => r#"    let r = sigmoid_(gi[sp(2u) + i32(row)] + gh[sp(3u) + i32(row)]);
    let z = sigmoid_(gi[sp(2u) + i32(row + hs)] + gh[sp(3u) + i32(row + hs)]);
    let n = tanh_(gi[sp(2u) + i32(row + 2u * hs)] + r * gh[sp(3u) + i32(row + 2u * hs)]);
    out[sp(5u) + i32(i)] = (st[sp(4u) + i32(i)] - n) * z + n;
"#
        .to_string(),
        GateKind::Lstm => format!(
            r#"    let ig = sigmoid_({});
    let fg = sigmoid_({});
    let gg = tanh_({});
    let og = sigmoid_({});
    let c = fg * st[sp(4u) + i32(i)] + ig * gg;
    out[sp(6u) + i32(i)] = c;
    out[sp(5u) + i32(i)] = og * tanh_(c);
"#,
            pre(0),
            pre(1),
            pre(2),
            pre(3)
        ),
    };
    let body = if state_in_out {
        body.replace("st[", "out[")
    } else {
        body
    };
    source(&b, kind, &body)
}

/// Params: N·H, H, gi offset, gh offset, state offset, grad offset, output offset. The
/// gradient is `[N, H]` (`[2, N, H]` for an LSTM: dh', dc'). Writes `dgi` (`[N, G·H]`; also the
/// gradient of `gh` except for a GRU, whose `dgh` differs in the new gate), and the state's
/// gradient `dst` (GRU, LSTM).
pub(crate) fn backward_source(kind: GateKind) -> String {
    let mut b = Bindings::new();
    b.add("dgi", true, "f32");
    b.add("g", false, "f32");
    let body = match kind {
        GateKind::Tanh | GateKind::Relu => {
            b.add("y", false, "f32");
            let d = if kind == GateKind::Tanh {
                "gv * (1.0 - yv * yv)"
            } else {
                "select(0.0, gv, yv > 0.0)"
            };
            format!(
                "    let gv = g[sp(5u) + i32(i)];\n    let yv = y[sp(6u) + i32(i)];\n    dgi[row] = {d};\n"
            )
        }
        GateKind::Gru => {
            b.add("gi", false, "f32");
            b.add("gh", false, "f32");
            b.add("st", false, "f32");
            b.add("dgh", true, "f32");
            b.add("dst", true, "f32");
            r#"    let r = sigmoid_(gi[sp(2u) + i32(row)] + gh[sp(3u) + i32(row)]);
    let z = sigmoid_(gi[sp(2u) + i32(row + hs)] + gh[sp(3u) + i32(row + hs)]);
    let hn = gh[sp(3u) + i32(row + 2u * hs)];
    let n = tanh_(gi[sp(2u) + i32(row + 2u * hs)] + r * hn);
    let h = st[sp(4u) + i32(i)];
    let gv = g[sp(5u) + i32(i)];
    let dn = gv * (1.0 - z) * (1.0 - n * n);
    let dz = gv * (h - n) * z * (1.0 - z);
    let dr = dn * hn * r * (1.0 - r);
    dgi[row] = dr;
    dgi[row + hs] = dz;
    dgi[row + 2u * hs] = dn;
    dgh[row] = dr;
    dgh[row + hs] = dz;
    dgh[row + 2u * hs] = dn * r;
    dst[i] = gv * z;
"#
            .to_string()
        }
        GateKind::Lstm => {
            b.add("gi", false, "f32");
            b.add("gh", false, "f32");
            b.add("st", false, "f32");
            b.add("dst", true, "f32");
            format!(
                r#"    let ig = sigmoid_({});
    let fg = sigmoid_({});
    let gg = tanh_({});
    let og = sigmoid_({});
    let cp = st[sp(4u) + i32(i)];
    let c = fg * cp + ig * gg;
    let tc = tanh_(c);
    let dh = g[sp(5u) + i32(i)];
    let dc = g[sp(5u) + i32(p[0] + i)] + dh * og * (1.0 - tc * tc);
    dgi[row] = dc * gg * ig * (1.0 - ig);
    dgi[row + hs] = dc * cp * fg * (1.0 - fg);
    dgi[row + 2u * hs] = dc * ig * (1.0 - gg * gg);
    dgi[row + 3u * hs] = dh * tc * og * (1.0 - og);
    dst[i] = dc * fg;
"#,
                pre(0),
                pre(1),
                pre(2),
                pre(3)
            )
        }
    };
    source(&b, kind, &body)
}

pub(crate) fn source(b: &Bindings, kind: GateKind, body: &str) -> String {
    format!(
        "{decls}{index}{math}const GATES: u32 = {gates}u;\n{MAIN_WG}{HEAD}{body}}}\n",
        decls = b.decls,
        index = prelude::INDEX,
        math = prelude::MATH,
        gates = kind.gates(),
    )
}

pub(crate) fn off(t: &Tensor) -> u32 {
    t.storage_offset() as u32
}

pub(crate) fn run(
    kernel: &Kernel<'_>,
    tensors: &[&Tensor],
    params: &[u32],
    total: usize,
) -> Result<()> {
    launch(
        tensors[0].device(),
        kernel,
        tensors,
        params,
        groups_for(total),
    )
}

/// One step forward over contiguous `gi`, `gh` (`[N, G·H]`) and the state (`h` for a GRU, `c`
/// for an LSTM, `[N, H]`): `h'` `[N, H]`, or `[2, N, H]` for an LSTM.
pub(crate) fn forward(
    kind: GateKind,
    gi: &Tensor,
    gh: &Tensor,
    state: Option<&Tensor>,
    [n, h]: [usize; 2],
) -> Result<Tensor> {
    let shape: Vec<usize> = match kind {
        GateKind::Lstm => vec![2, n, h],
        _ => vec![n, h],
    };
    let out = Tensor::uninit(gi.device(), &shape, DType::Float32)?;
    let total = n * h;
    forward_into(kind, gi, gh, state, &out, [0, total], [n, h])?;
    Ok(out)
}

/// One step forward writing `h'` (and `c'`) into `out` at the element offsets `[h_at, c_at]`;
/// without `state`, a GRU or LSTM reads its state from `out` at element `state_at`.
#[allow(clippy::too_many_arguments)]
fn launch_forward(
    kind: GateKind,
    gi: &Tensor,
    gh: &Tensor,
    state: Option<&Tensor>,
    state_at: u32,
    out: &Tensor,
    [h_at, c_at]: [usize; 2],
    [n, h]: [usize; 2],
) -> Result<()> {
    let total = n * h;
    let in_out = state.is_none() && matches!(kind, GateKind::Gru | GateKind::Lstm);
    let params = [
        total as u32,
        h as u32,
        off(gi),
        off(gh),
        state.map_or(state_at, off),
        h_at as u32,
        c_at as u32,
    ];
    let mut tensors = vec![out, gi, gh];
    tensors.extend(state);
    let key = format!("rnn_gates_forward|{kind:?}|{in_out}");
    let kernel = Kernel {
        key: &key,
        source: &|| forward_source(kind, in_out),
        bounds_checked: true,
    };
    run(&kernel, &tensors, &params, total)
}

/// `forward` into a given contiguous `out` at element offsets `[h', c']`.
pub(crate) fn forward_into(
    kind: GateKind,
    gi: &Tensor,
    gh: &Tensor,
    state: Option<&Tensor>,
    out: &Tensor,
    slots: [usize; 2],
    dims: [usize; 2],
) -> Result<()> {
    launch_forward(kind, gi, gh, state, 0, out, slots, dims)
}

/// One step of a layer: the state (GRU: h, LSTM: c) read from `out` at element `state_at`,
/// `h'` (and `c'`) written at `slots`.
pub(crate) fn forward_in_place(
    kind: GateKind,
    gi: &Tensor,
    gh: &Tensor,
    out: &Tensor,
    state_at: usize,
    slots: [usize; 2],
    dims: [usize; 2],
) -> Result<()> {
    launch_forward(kind, gi, gh, None, state_at as u32, out, slots, dims)
}

/// The gradients of one step: `(dgi, dgh, dstate)`; `dgh` is `dgi` except for a GRU. `y` is the
/// forward's output (read by the RNN kinds only), `grad` the gradient of that output.
pub(crate) fn backward(
    kind: GateKind,
    gi: &Tensor,
    gh: &Tensor,
    state: Option<&Tensor>,
    y: &Tensor,
    grad: &Tensor,
    [n, h]: [usize; 2],
) -> Result<(Tensor, Tensor, Option<Tensor>)> {
    let dev = gi.device();
    let total = n * h;
    let gates = [n, kind.gates() * h];
    let dgi = Tensor::uninit(dev, &gates, DType::Float32)?;
    let params = [
        total as u32,
        h as u32,
        off(gi),
        off(gh),
        state.map_or(0, off),
        off(grad),
        off(y),
    ];
    let key = format!("rnn_gates_backward|{kind:?}");
    let kernel = Kernel {
        key: &key,
        source: &|| backward_source(kind),
        bounds_checked: true,
    };
    match kind {
        GateKind::Tanh | GateKind::Relu => {
            run(&kernel, &[&dgi, grad, y], &params, total)?;
            Ok((dgi.clone(), dgi, None))
        }
        GateKind::Gru => {
            let dgh = Tensor::uninit(dev, &gates, DType::Float32)?;
            let dst = Tensor::uninit(dev, &[n, h], DType::Float32)?;
            let st = state.unwrap_or(gi);
            run(
                &kernel,
                &[&dgi, grad, gi, gh, st, &dgh, &dst],
                &params,
                total,
            )?;
            Ok((dgi, dgh, Some(dst)))
        }
        GateKind::Lstm => {
            let dst = Tensor::uninit(dev, &[n, h], DType::Float32)?;
            let st = state.unwrap_or(gi);
            run(&kernel, &[&dgi, grad, gi, gh, st, &dst], &params, total)?;
            Ok((dgi.clone(), dgi, Some(dst)))
        }
    }
}

/// Every specialisation's WGSL, for validation.
pub(crate) fn sources() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for kind in [
        GateKind::Tanh,
        GateKind::Relu,
        GateKind::Gru,
        GateKind::Lstm,
    ] {
        for in_out in [false, true] {
            out.push((
                format!("rnn_gates_forward|{kind:?}|{in_out}"),
                forward_source(kind, in_out),
            ));
        }
        out.push((
            format!("rnn_gates_backward|{kind:?}"),
            backward_source(kind),
        ));
    }
    out
}
