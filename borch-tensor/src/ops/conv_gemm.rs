//! conv1d / conv2d (and `conv2d_fused`'s bias + residual + ReLU epilogue) without im2col: the
//! implicit-GEMM kernels of `kernels/conv_gemm.rs`, recorded for autograd as one op whose
//! backward runs the input-gradient and weight-gradient kernels (plus a sum for the bias).
//! While a backward builds a graph (`create_graph`), the gradients are composed from
//! differentiable ops instead (`im2col`/`col2im` and matmuls, the old path), so higher
//! derivatives keep working.

use std::sync::{Arc, Mutex};

use crate::autograd::{BackwardFn, Node, Op, is_grad_enabled, record};
use crate::error::{Result, runtime};
use crate::kernels::conv_gemm::{self, ConvGeom, OVERRIDES, Operands};
use crate::kernels::conv_gemm_wgsl::Pass;
use crate::kernels::conv_winograd::{self, Planes};
use crate::kernels::matmul::MatmulTile;
use crate::ops::unfold::{Window2d, in_chunks};
use crate::scalar::Operand;
use crate::tensor::Tensor;

/// Which algorithm `conv1d`/`conv2d` use (for benchmarks and tests).
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConvPath {
    /// borch's pick: the implicit GEMM wherever its grid fits the device.
    Auto,
    /// im2col + matmul (the input's windows laid out as columns).
    Im2col,
}

static PATH: Mutex<ConvPath> = Mutex::new(ConvPath::Auto);

/// Choose the convolution algorithm (process-wide).
#[doc(hidden)]
pub fn set_conv_path(path: ConvPath) {
    *PATH.lock().unwrap_or_else(|p| p.into_inner()) = path;
}

/// Override the implicit GEMM's tile (`None`: borch's pick) and its number of K splits
/// (`None`: borch's pick; `Some(1)`: never split).
#[doc(hidden)]
pub fn set_conv_kernel(tile: Option<MatmulTile>, splits: Option<usize>) {
    let mut o = OVERRIDES.lock().unwrap_or_else(|p| p.into_inner());
    o.tile = tile;
    o.splits = splits;
}

/// Split a small grid's K in one dispatch (`Some(true)`), in two (`Some(false)`: partial
/// sums, then a reduction) or as borch picks (`None`), for tests and benchmarks.
#[doc(hidden)]
pub fn set_conv_sliced(sliced: Option<bool>) {
    OVERRIDES.lock().unwrap_or_else(|p| p.into_inner()).sliced = sliced;
}

/// Bake the convolution's geometry into its kernels as constants (`None`: borch's pick, on
/// GPUs only), for tests and benchmarks.
#[doc(hidden)]
pub fn set_conv_baked(baked: Option<bool>) {
    OVERRIDES.lock().unwrap_or_else(|p| p.into_inner()).baked = baked;
}

/// When 3 x 3 stride-1 convolutions run by Winograd's F(2 x 2, 3 x 3): `mode` `Some(true)`
/// always (any channel count and adapter, all three passes, for tests), `Some(false)` never,
/// `None` borch's pick (GPUs, at least 16 channels in and out, `min_tiles` 2 x 2 output tiles in
/// the batch and [`set_conv_winograd_min_work`]; `None`: borch's).
#[doc(hidden)]
pub fn set_conv_winograd(mode: Option<bool>, min_tiles: Option<usize>) {
    let mut rule = WINOGRAD.lock().unwrap_or_else(|p| p.into_inner());
    rule.mode = mode;
    rule.min_tiles = min_tiles;
}

/// borch's pick's fewest `tiles x C_in x C_out` for Winograd (`None`: borch's), for benchmarks.
#[doc(hidden)]
pub fn set_conv_winograd_min_work(min_work: Option<usize>) {
    WINOGRAD.lock().unwrap_or_else(|p| p.into_inner()).min_work = min_work;
}

/// The most bytes of one chunk's transformed tiles in the Winograd path (`None`: 64 MiB) and the
/// fewest tiles of a slice of its weight gradient's K (`None`: 256), for tests of the chunking
/// and the slices.
#[doc(hidden)]
pub fn set_conv_winograd_chunk(bytes: Option<usize>, min_slice: Option<usize>) {
    use std::sync::atomic::Ordering::Relaxed;
    conv_winograd::CHUNK_BYTES.store(bytes.unwrap_or(64 << 20), Relaxed);
    conv_winograd::MIN_SLICE.store(min_slice.unwrap_or(256), Relaxed);
}

struct WinogradRule {
    mode: Option<bool>,
    min_tiles: Option<usize>,
    min_work: Option<usize>,
}

static WINOGRAD: Mutex<WinogradRule> = Mutex::new(WinogradRule {
    mode: None,
    min_tiles: None,
    min_work: None,
});

/// Fewest 2 x 2 output tiles (batch x plane / 4) for the Winograd path by default.
const WINOGRAD_MIN_TILES: usize = 256;
/// Fewest `tiles x C_in x C_out` for the Winograd path by default: ResNet-18's layer 1 at batch
/// 1 (256 tiles of 64 x 64 channels, 2^20) stays one direct dispatch, not four.
const WINOGRAD_MIN_WORK: usize = 1 << 22;

/// Whether the convolution `geom` runs by Winograd's F(2 x 2, 3 x 3) (all three passes).
pub(crate) fn winograd(device: &crate::Device, geom: &ConvGeom) -> bool {
    let rule = WINOGRAD.lock().unwrap_or_else(|p| p.into_inner());
    winograd_picks(&rule, device.adapter_info().is_software, geom)
}

fn winograd_picks(rule: &WinogradRule, software: bool, geom: &ConvGeom) -> bool {
    let w = &geom.window;
    let shape_fits = geom.groups == 1
        && w.kernel == [3, 3]
        && w.stride == [1, 1]
        && w.dilation == [1, 1]
        && [w.input, w.output]
            .iter()
            .all(|p| geom.batch * geom.c_in.max(geom.c_out) * p[0] * p[1] < 1 << 31);
    let tiles = geom.batch * w.output[0].div_ceil(2) * w.output[1].div_ceil(2);
    shape_fits
        && rule.mode.unwrap_or_else(|| {
            !software
                && geom.c_in >= 16
                && geom.c_out >= 16
                && tiles >= rule.min_tiles.unwrap_or(WINOGRAD_MIN_TILES)
                && tiles * geom.c_in * geom.c_out >= rule.min_work.unwrap_or(WINOGRAD_MIN_WORK)
        })
}

/// The tile, split count and slices borch runs `pass` (`"forward"`, `"input_grad"`,
/// `"weight_grad"`) of a convolution with (for reports).
#[doc(hidden)]
pub fn conv_plan(
    device: &crate::Device,
    [batch, c_in, c_out, groups]: [usize; 4],
    window: &Window2d,
    pass: &str,
) -> Result<(MatmulTile, usize, u32)> {
    let pass = match pass {
        "forward" => Pass::Forward,
        "input_grad" => Pass::GradInput,
        _ => Pass::GradWeight,
    };
    let geom = ConvGeom {
        batch,
        c_in,
        c_out,
        groups,
        window: *window,
    };
    let plan = conv_gemm::plan(device, &geom, pass)?;
    Ok((plan.tile, plan.splits, plan.slices))
}

/// Whether this convolution runs as an implicit GEMM.
pub(crate) fn implicit(x: &Tensor, c_out: usize, window: &Window2d, groups: usize) -> bool {
    if *PATH.lock().unwrap_or_else(|p| p.into_inner()) == ConvPath::Im2col {
        return false;
    }
    // One sample's planes must fit the grid (a batch is chunked below).
    let geom = ConvGeom {
        batch: 1,
        c_in: x.shape()[1],
        c_out,
        groups,
        window: *window,
    };
    [Pass::Forward, Pass::GradInput, Pass::GradWeight]
        .iter()
        .all(|&p| conv_gemm::fits(x.device(), &geom, p).unwrap_or(false))
}

/// The epilogue of a fused convolution.
pub(crate) struct Fused<'a> {
    pub bias: Option<&'a Tensor>,
    /// Of the output's shape `(N, C_out, OH, OW)`.
    pub residual: Option<&'a Tensor>,
    pub relu: bool,
}

/// `(N, C_in, H, W)` convolved with `(C_out, C_in / G, kh, kw)` into `(N, C_out, OH, OW)`,
/// the epilogue applied, recorded for autograd; a batch whose grid would not fit the device
/// runs in chunks.
pub(crate) fn convolve(
    x: &Tensor,
    weight: &Tensor,
    f: &Fused<'_>,
    window: &Window2d,
    groups: usize,
) -> Result<Tensor> {
    let geom = ConvGeom {
        batch: x.shape()[0],
        c_in: x.shape()[1],
        c_out: weight.shape()[0],
        groups,
        window: *window,
    };
    let rows = conv_gemm::max_batch(x.device(), &geom)?;
    if x.shape()[0] <= rows {
        return convolve_once(x, weight, f, window, groups);
    }
    let start = std::cell::Cell::new(0usize);
    let mut out = in_chunks(x, rows, |xs| {
        let n = xs.shape()[0];
        let residual = match f.residual {
            Some(r) => Some(r.narrow(0, start.get() as isize, n)?),
            None => None,
        };
        start.set(start.get() + n);
        let part = Fused {
            bias: f.bias,
            residual: residual.as_ref(),
            relu: f.relu,
        };
        Ok(vec![convolve_once(xs, weight, &part, window, groups)?])
    })?;
    Ok(out.remove(0))
}

fn convolve_once(
    x: &Tensor,
    weight: &Tensor,
    f: &Fused<'_>,
    window: &Window2d,
    groups: usize,
) -> Result<Tensor> {
    let ws = weight.shape();
    let geom = ConvGeom {
        batch: x.shape()[0],
        c_in: x.shape()[1],
        c_out: ws[0],
        groups,
        window: *window,
    };
    let xc = x.detach().contiguous()?;
    let wc = weight.detach().contiguous()?;
    let bias = f.bias.map(|b| b.detach().contiguous()).transpose()?;
    let residual = f.residual.map(|r| r.detach().contiguous()).transpose()?;
    let shape = [geom.batch, geom.c_out, window.output[0], window.output[1]];
    let out = if winograd(x.device(), &geom) {
        let planes = Planes {
            batch: geom.batch,
            input: window.input,
            output: window.output,
            padding: window.padding.map(|p| p as isize),
        };
        let (b, r) = (bias.as_ref(), residual.as_ref());
        conv_winograd::forward(&xc, &wc, false, &planes, b, r, f.relu)?
    } else {
        conv_gemm::run(
            Pass::Forward,
            &geom,
            &Operands {
                a: &wc,
                b: &xc,
                bias: bias.as_ref(),
                residual: residual.as_ref(),
                relu: f.relu,
            },
            &shape,
        )?
    };
    let mut inputs = vec![Operand::Tensor(x.clone()), Operand::Tensor(weight.clone())];
    inputs.extend(f.bias.map(|b| Operand::Tensor(b.clone())));
    inputs.extend(f.residual.map(|r| Operand::Tensor(r.clone())));
    let backward = ConvBackward {
        geom,
        bias: f.bias.is_some(),
        residual: f.residual.is_some(),
        relu: f.relu,
    };
    Ok(record(Op::Custom(Arc::new(backward)), &inputs, out))
}

/// The derivative of one implicit-GEMM convolution. Inputs: x, weight, then bias and residual
/// where given.
struct ConvBackward {
    geom: ConvGeom,
    bias: bool,
    residual: bool,
    relu: bool,
}

fn needs(node: &Node, i: usize) -> bool {
    matches!(node.inputs.get(i), Some(Operand::Tensor(t)) if t.requires_grad())
}

/// The recorded input `i` itself (with its graph, for derivatives that build one), after the
/// version check of its saved values.
fn original(node: &Node, i: usize) -> Result<Tensor> {
    node.saved_input(i)?;
    match &node.inputs[i] {
        Operand::Tensor(t) => Ok(t.clone()),
        Operand::Scalar(_) => runtime("internal: convolution input is a scalar"),
    }
}

impl BackwardFn for ConvBackward {
    fn name(&self) -> &str {
        "convolution"
    }

    fn backward(&self, _: &Tensor) -> Result<Vec<Option<Tensor>>> {
        runtime("internal: the convolution's backward needs its node")
    }

    fn backward_node(&self, node: &Node, grad: &Tensor) -> Result<Vec<Option<Tensor>>> {
        let g = if self.relu {
            grad.masked_fill(&node.output()?.le(0.0)?, 0.0)?
        } else {
            grad.clone()
        };
        let (gx, gw) = if is_grad_enabled() {
            self.composed(node, &g)?
        } else {
            self.kernels(node, &g)?
        };
        let mut grads = vec![gx, gw];
        if self.bias {
            let gb = needs(node, 2)
                .then(|| g.sum(Some(&[0, 2, 3]), false))
                .transpose()?;
            grads.push(gb);
        }
        if self.residual {
            let i = 2 + self.bias as usize;
            grads.push(needs(node, i).then(|| g.clone()));
        }
        Ok(grads)
    }
}

impl ConvBackward {
    /// The input and weight gradients by the implicit-GEMM kernels.
    fn kernels(&self, node: &Node, g: &Tensor) -> Result<(Option<Tensor>, Option<Tensor>)> {
        let geom = &self.geom;
        let gc = g.detach().contiguous()?;
        // Measured on an H200 (2026-12-02): at stride 2 the implicit input gradient, which
        // visits every tap including the 3/4 that are zero, ran at 0.3-0.5x of col2im.
        let strided = geom.window.stride != [1, 1] && !g.device().adapter_info().is_software;
        let win = &geom.window;
        let winograd = winograd(g.device(), geom);
        let gx = if needs(node, 0) && winograd {
            let w = node.saved_input(1)?.contiguous()?;
            let planes = Planes {
                batch: geom.batch,
                input: win.output,
                output: win.input,
                padding: win.padding.map(|p| 2 - p as isize),
            };
            Some(conv_winograd::forward(
                &gc, &w, true, &planes, None, None, false,
            )?)
        } else if needs(node, 0) && strided {
            Some(self.composed_input_grad(node, &gc)?)
        } else if needs(node, 0) {
            let w = node.saved_input(1)?.contiguous()?;
            let w_in = geom.window.input;
            let shape = [geom.batch, geom.c_in, w_in[0], w_in[1]];
            Some(conv_gemm::run(
                Pass::GradInput,
                geom,
                &Operands {
                    a: &w,
                    b: &gc,
                    bias: None,
                    residual: None,
                    relu: false,
                },
                &shape,
            )?)
        } else {
            None
        };
        let gw = if needs(node, 1) && winograd {
            let x = node.saved_input(0)?.contiguous()?;
            let planes = Planes {
                batch: geom.batch,
                input: win.input,
                output: win.output,
                padding: win.padding.map(|p| p as isize),
            };
            Some(conv_winograd::weight_grad(&x, &gc, &planes)?)
        } else if needs(node, 1) {
            let x = node.saved_input(0)?.contiguous()?;
            let k = geom.window.kernel;
            let shape = [geom.c_out, geom.c_in / geom.groups, k[0], k[1]];
            Some(conv_gemm::run(
                Pass::GradWeight,
                geom,
                &Operands {
                    a: &gc,
                    b: &x,
                    bias: None,
                    residual: None,
                    relu: false,
                },
                &shape,
            )?)
        } else {
            None
        };
        Ok((gx, gw))
    }

    /// The same gradients from differentiable ops on the recorded inputs (`col2im` of
    /// `W^T g`, and `g cols^T` summed over the batch), for backward passes that build a graph.
    fn composed(&self, node: &Node, g: &Tensor) -> Result<(Option<Tensor>, Option<Tensor>)> {
        let gx = needs(node, 0)
            .then(|| self.composed_input_grad(node, g))
            .transpose()?;
        let gw = needs(node, 1)
            .then(|| self.composed_weight_grad(node, g))
            .transpose()?;
        Ok((gx, gw))
    }

    fn group_grads(&self, g: &Tensor) -> Result<Tensor> {
        let geom = &self.geom;
        let i = |v: usize| v as isize;
        g.reshape(&[
            i(geom.batch),
            i(geom.groups),
            i(geom.c_out / geom.groups),
            i(geom.window.windows()),
        ])
    }

    /// `col2im(W^T g)`.
    fn composed_input_grad(&self, node: &Node, g: &Tensor) -> Result<Tensor> {
        let geom = &self.geom;
        let w = &geom.window;
        let (n, c, oc, gr) = (geom.batch, geom.c_in, geom.c_out, geom.groups);
        let i = |v: usize| v as isize;
        let weight = original(node, 1)?;
        let wt = weight
            .reshape(&[i(gr), i(oc / gr), i(c / gr * w.taps())])?
            .transpose(-1, -2)?;
        let cols =
            wt.matmul(&self.group_grads(g)?)?
                .reshape(&[i(n * c), i(w.taps()), i(w.windows())])?;
        cols.col2im(w)?
            .reshape(&[i(n), i(c), i(w.input[0]), i(w.input[1])])
    }

    /// `g cols^T` summed over the batch.
    fn composed_weight_grad(&self, node: &Node, g: &Tensor) -> Result<Tensor> {
        let geom = &self.geom;
        let w = &geom.window;
        let (n, c, oc, gr) = (geom.batch, geom.c_in, geom.c_out, geom.groups);
        let i = |v: usize| v as isize;
        let x = original(node, 0)?;
        let planes = x.reshape(&[i(n * c), i(w.input[0]), i(w.input[1])])?;
        let cols =
            planes
                .im2col(w, 0.0)?
                .reshape(&[i(n), i(gr), i(c / gr * w.taps()), i(w.windows())])?;
        let prod = self
            .group_grads(g)?
            .matmul(&cols.transpose(-1, -2)?)?
            .sum(Some(&[0]), false)?;
        prod.reshape(&[i(oc), i(c / gr), i(w.kernel[0]), i(w.kernel[1])])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resnet_conv(batch: usize, channels: [usize; 2], plane: usize, stride: usize) -> ConvGeom {
        let out = plane.div_ceil(stride);
        ConvGeom {
            batch,
            c_in: channels[0],
            c_out: channels[1],
            groups: 1,
            window: Window2d {
                input: [plane, plane],
                output: [out, out],
                kernel: [3, 3],
                stride: [stride, stride],
                padding: [1, 1],
                dilation: [1, 1],
            },
        }
    }

    #[test]
    fn winograd_default_pick_on_resnet18_shapes() {
        let rule = WinogradRule {
            mode: None,
            min_tiles: None,
            min_work: None,
        };
        let picks = |batch, ch, plane, stride, software| {
            winograd_picks(&rule, software, &resnet_conv(batch, ch, plane, stride))
        };
        // Layer 1 at batch 1 (2^20 of work) stays direct; at batch 16 and 64 it goes Winograd.
        assert!(!picks(1, [64, 64], 32, 1, false));
        assert!(picks(16, [64, 64], 32, 1, false));
        // Layer 4 at batch 64 (256 tiles of 512 x 512) goes, at batch 16 (64 tiles) not.
        assert!(picks(64, [512, 512], 4, 1, false));
        assert!(!picks(16, [512, 512], 4, 1, false));
        // The stem (3 channels in), stride 2, and software adapters never by default.
        assert!(!picks(64, [3, 64], 32, 1, false));
        assert!(!picks(64, [64, 128], 32, 2, false));
        assert!(!picks(64, [64, 64], 32, 1, true));
        let forced = WinogradRule {
            mode: Some(true),
            ..rule
        };
        assert!(winograd_picks(
            &forced,
            true,
            &resnet_conv(1, [3, 64], 32, 1)
        ));
        assert!(!winograd_picks(
            &forced,
            true,
            &resnet_conv(1, [3, 64], 32, 2)
        ));
    }
}
