//! The backward step of a whole recurrent layer (`ops/rnn_layer.rs`), one kernel per time step:
//! the gradient reaching `h'` is the output's (`dy`, the step's slot) plus the recurrent
//! `carry` (`dG_{t+1} W_hh`), the gates' gradient goes into the step's slot of `dgi` (and `dgh`
//! for a GRU), and the state's direct gradient is carried in place (GRU: `carry := g z`, then
//! `carry + dGh_t W_hh` by addmm; LSTM: `dc := dc' f`). States and outputs are read from the
//! forward's slotted output `y` (`[T + 1, N, H]`, `[2, T + 1, N, H]` for an LSTM).

use borch_device::Kernel;

use super::batch_norm::Bindings;
use super::rnn_gates::{GateKind, off, pre, run, source};
use crate::error::Result;
use crate::tensor::Tensor;

/// Params: N·H, H, gi offset, gh offset, state offset (in `y`), dy h offset, dy c offset, dgi
/// offset, dgh offset, carry offset, y offset of h' (RNN kinds).
pub(crate) fn backward_source(kind: GateKind) -> String {
    let mut b = Bindings::new();
    b.add("dgi", true, "f32");
    b.add("dy", false, "f32");
    let body = match kind {
        GateKind::Tanh | GateKind::Relu => {
            b.add("carry", false, "f32");
            b.add("y", false, "f32");
            let d = if kind == GateKind::Tanh {
                "gv * (1.0 - yv * yv)"
            } else {
                "select(0.0, gv, yv > 0.0)"
            };
            format!(
                r#"    let gv = dy[sp(5u) + i32(i)] + carry[sp(9u) + i32(i)];
    let yv = y[sp(10u) + i32(i)];
    dgi[sp(7u) + i32(row)] = {d};
"#
            )
        }
        GateKind::Gru => {
            b.add("carry", true, "f32");
            b.add("gi", false, "f32");
            b.add("gh", false, "f32");
            b.add("y", false, "f32");
            b.add("dgh", true, "f32");
            r#"    let r = sigmoid_(gi[sp(2u) + i32(row)] + gh[sp(3u) + i32(row)]);
    let z = sigmoid_(gi[sp(2u) + i32(row + hs)] + gh[sp(3u) + i32(row + hs)]);
    let hn = gh[sp(3u) + i32(row + 2u * hs)];
    let n = tanh_(gi[sp(2u) + i32(row + 2u * hs)] + r * hn);
    let h = y[sp(4u) + i32(i)];
    let gv = dy[sp(5u) + i32(i)] + carry[sp(9u) + i32(i)];
    let dn = gv * (1.0 - z) * (1.0 - n * n);
    let dz = gv * (h - n) * z * (1.0 - z);
    let dr = dn * hn * r * (1.0 - r);
    let a = sp(7u) + i32(row);
    let b = sp(8u) + i32(row);
    dgi[a] = dr;
    dgi[a + i32(hs)] = dz;
    dgi[a + i32(2u * hs)] = dn;
    dgh[b] = dr;
    dgh[b + i32(hs)] = dz;
    dgh[b + i32(2u * hs)] = dn * r;
    carry[sp(9u) + i32(i)] = gv * z;
"#
            .to_string()
        }
        GateKind::Lstm => {
            b.add("carry", false, "f32");
            b.add("gi", false, "f32");
            b.add("gh", false, "f32");
            b.add("y", false, "f32");
            b.add("dc", true, "f32");
            format!(
                r#"    let ig = sigmoid_({});
    let fg = sigmoid_({});
    let gg = tanh_({});
    let og = sigmoid_({});
    let cp = y[sp(4u) + i32(i)];
    let c = fg * cp + ig * gg;
    let tc = tanh_(c);
    let dh = dy[sp(5u) + i32(i)] + carry[sp(9u) + i32(i)];
    let dcv = dy[sp(6u) + i32(i)] + dc[i] + dh * og * (1.0 - tc * tc);
    let a = sp(7u) + i32(row);
    dgi[a] = dcv * gg * ig * (1.0 - ig);
    dgi[a + i32(hs)] = dcv * cp * fg * (1.0 - fg);
    dgi[a + i32(2u * hs)] = dcv * ig * (1.0 - gg * gg);
    dgi[a + i32(3u * hs)] = dh * tc * og * (1.0 - og);
    dc[i] = dcv * fg;
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

/// Where one backward step reads and writes: element offsets into `y` and `dy` (the state, the
/// step's h' in `y`, the step's h' and c' gradients in `dy`).
pub(crate) struct StepAt {
    pub state: usize,
    pub y_h: usize,
    pub dy_h: usize,
    pub dy_c: usize,
}

/// One backward step. `gi`, `gh`: the step's gate pre-activations (views); `dgi`, `dgh`: the
/// step's slots of the gate gradients (views; `dgh` a GRU's only); `carry` `[N, H]` and (LSTM)
/// `dc` `[N, H]` contiguous.
#[allow(clippy::too_many_arguments)]
pub(crate) fn backward_step(
    kind: GateKind,
    gi: &Tensor,
    gh: &Tensor,
    y: &Tensor,
    dy: &Tensor,
    at: &StepAt,
    dgi: &Tensor,
    dgh: Option<&Tensor>,
    carry: &Tensor,
    dc: Option<&Tensor>,
    [n, h]: [usize; 2],
) -> Result<()> {
    let total = n * h;
    let params = [
        total as u32,
        h as u32,
        off(gi),
        off(gh),
        at.state as u32,
        at.dy_h as u32,
        at.dy_c as u32,
        off(dgi),
        dgh.map_or(0, off),
        off(carry),
        at.y_h as u32,
    ];
    let key = format!("rnn_layer_backward|{kind:?}");
    let kernel = Kernel {
        key: &key,
        source: &|| backward_source(kind),
        bounds_checked: true,
    };
    let mut tensors = vec![dgi, dy, carry];
    match kind {
        GateKind::Tanh | GateKind::Relu => tensors.push(y),
        GateKind::Gru => {
            tensors.extend([gi, gh, y]);
            tensors.extend(dgh);
        }
        GateKind::Lstm => {
            tensors.extend([gi, gh, y]);
            tensors.extend(dc);
        }
    }
    run(&kernel, &tensors, &params, total)
}

/// Every specialisation's WGSL, for validation.
pub(crate) fn sources() -> Vec<(String, String)> {
    [
        GateKind::Tanh,
        GateKind::Relu,
        GateKind::Gru,
        GateKind::Lstm,
    ]
    .into_iter()
    .map(|k| (format!("rnn_layer_backward|{k:?}"), backward_source(k)))
    .collect()
}
