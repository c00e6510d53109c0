//! One SDPA call's operands and options as kernel parameters, and the launches.

use borch_device::Kernel;

use super::{MaskKind, Pass, Spec, T};
use crate::error::Result;
use crate::kernels::dispatch_grid;
use crate::tensor::Tensor;

/// A normalised operand: its tensor, offset and (batch, head, row) strides.
pub(crate) struct View4<'a> {
    pub t: &'a Tensor,
    pub offset: usize,
    pub strides: [usize; 3],
}

impl View4<'_> {
    fn words(&self) -> [u32; 4] {
        [
            self.offset as u32,
            self.strides[0] as u32,
            self.strides[1] as u32,
            self.strides[2] as u32,
        ]
    }
}

/// The mask operand: offset and (batch, head, row, column) strides.
pub(crate) struct Mask4<'a> {
    pub t: &'a Tensor,
    pub kind: MaskKind,
    pub offset: usize,
    pub strides: [usize; 4],
}

/// Everything one SDPA's kernels read.
pub(crate) struct Problem<'a> {
    pub b: usize,
    pub h: usize,
    pub l: usize,
    pub s: usize,
    pub e: usize,
    pub ev: usize,
    pub gk: usize,
    pub gv: usize,
    pub scale: f32,
    pub causal: bool,
    pub bc: u32,
    /// The tiled forward's key block, where it takes the call (`tiled.rs`).
    pub tiled: Option<u32>,
    pub q: View4<'a>,
    pub k: View4<'a>,
    pub v: View4<'a>,
    pub mask: Option<Mask4<'a>>,
}

impl Problem<'_> {
    fn mask_kind(&self) -> MaskKind {
        self.mask.as_ref().map_or(MaskKind::None, |m| m.kind)
    }

    fn spec(&self, pass: Pass) -> Spec {
        Spec {
            pass,
            e: self.e as u32,
            ev: self.ev as u32,
            bc: match (pass, self.tiled) {
                (Pass::TiledForward, Some(bc)) => bc,
                _ => self.bc,
            },
            mask: self.mask_kind(),
        }
    }

    fn params(&self, g: Option<&View4<'_>>) -> Vec<u32> {
        let mut p = vec![
            self.l as u32,
            self.s as u32,
            self.h as u32,
            self.gk as u32,
            self.gv as u32,
            self.scale.to_bits(),
            u32::from(self.causal),
            (self.b * self.h * self.l) as u32,
        ];
        p.extend(self.q.words());
        p.extend(self.k.words());
        p.extend(self.v.words());
        p.extend(g.map_or([0; 4], |g| g.words()));
        match &self.mask {
            Some(m) => {
                p.push(m.offset as u32);
                p.extend(m.strides.iter().map(|&s| s as u32));
            }
            None => p.extend([0; 5]),
        }
        p
    }

    fn run(
        &self,
        pass: Pass,
        tensors: &[&Tensor],
        g: Option<&View4<'_>>,
        grid: [u32; 3],
    ) -> Result<()> {
        let spec = self.spec(pass);
        let key = spec.key();
        let source = || spec.source();
        let kernel = Kernel {
            key: &key,
            source: &source,
            // Every global access is guarded by construction (see the module's doc).
            bounds_checked: false,
        };
        let mut all: Vec<&Tensor> = tensors.to_vec();
        if let Some(m) = self.mask.as_ref().filter(|_| pass != Pass::Delta) {
            all.push(m.t);
        }
        dispatch_grid(self.q.t.device(), &kernel, &all, &self.params(g), grid)
    }

    fn rows(&self, n: usize, heads: usize) -> [u32; 3] {
        [n.div_ceil(T as usize) as u32, (self.b * heads) as u32, 1]
    }

    /// The output, stored `(B, L, H, Ev)` (torch's efficient attention's layout: the heads'
    /// merge `transpose(1, 2).reshape(B, L, H * Ev)` is then a view), and the stats
    /// `[2, B*H*L]` (logsumexp filled).
    pub(crate) fn forward(&self) -> Result<(Tensor, Tensor)> {
        let dev = self.q.t.device();
        let out = Tensor::uninit(
            dev,
            &[self.b, self.l, self.h, self.ev],
            crate::DType::Float32,
        )?;
        let st = Tensor::uninit(dev, &[2 * self.b * self.h * self.l], crate::DType::Float32)?;
        // The tiled forward's 64 query rows per workgroup are the rows kernel's T.
        let grid = self.rows(self.l, self.h);
        let pass = match self.tiled {
            Some(_) => Pass::TiledForward,
            None => Pass::Forward,
        };
        self.run(pass, &[&out, &st, self.q.t, self.k.t, self.v.t], None, grid)?;
        Ok((out, st))
    }

    /// dQ `(B, H, L, E)`, dK `(B, H / gk, S, E)` and dV `(B, H / gv, S, Ev)` of `g` (the output's
    /// gradient), given the forward's output and stats; `want` picks which.
    pub(crate) fn backward(
        &self,
        out: &Tensor,
        st: &Tensor,
        g: &View4<'_>,
        want: [bool; 3],
    ) -> Result<[Option<Tensor>; 3]> {
        let dev = self.q.t.device();
        let f32 = crate::DType::Float32;
        // delta: written into the stats' second half (the first, the logsumexp, is kept).
        self.run(
            Pass::Delta,
            &[st, out, g.t],
            Some(g),
            self.rows(self.l, self.h),
        )?;
        let dq = if want[0] {
            let dq = Tensor::uninit(dev, &[self.b, self.h, self.l, self.e], f32)?;
            let t = [&dq, st, self.q.t, self.k.t, self.v.t, g.t];
            self.run(Pass::GradQ, &t, Some(g), self.rows(self.l, self.h))?;
            Some(dq)
        } else {
            None
        };
        let dk = if want[1] {
            let hk = self.h / self.gk;
            let dk = Tensor::uninit(dev, &[self.b, hk, self.s, self.e], f32)?;
            let t = [&dk, st, self.q.t, self.k.t, self.v.t, g.t];
            self.run(Pass::GradK, &t, Some(g), self.rows(self.s, hk))?;
            Some(dk)
        } else {
            None
        };
        let dv = if want[2] {
            let hv = self.h / self.gv;
            let dv = Tensor::uninit(dev, &[self.b, hv, self.s, self.ev], f32)?;
            let t = [&dv, st, self.q.t, self.k.t, g.t];
            self.run(Pass::GradV, &t, Some(g), self.rows(self.s, hv))?;
            Some(dv)
        } else {
            None
        };
        Ok([dq, dk, dv])
    }
}
