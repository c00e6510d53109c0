//! `F.pad` as ONNX `Pad` and `F.interpolate` as ONNX `Resize` (opset 17), with torch's
//! coordinate rules written as Resize's attributes.

use borch_tensor::{Result, Tensor};

use crate::graph::A;
use crate::lower::{Ctx, Lowerer, Val};
use crate::recorder::{Rec, flag, float, floats, ints, string};

/// ONNX Pad's `pads` (every dim's begin, then every dim's end) from torch's pad list ((left,
/// right) pairs from the last dim backwards).
fn onnx_pads(torch: &[i64], rank: usize) -> Vec<i64> {
    let mut pads = vec![0; 2 * rank];
    for (i, pair) in torch.chunks(2).enumerate() {
        let d = rank - 1 - i;
        pads[d] = pair[0];
        pads[rank + d] = pair[1];
    }
    pads
}

/// Resize's `mode`, `coordinate_transformation_mode` and the mode's own attribute for a torch
/// interpolation mode.
fn resize_attrs(mode: &str, align: bool) -> Option<Vec<(&'static str, A)>> {
    let transform = if align { "align_corners" } else { "half_pixel" };
    Some(match mode {
        // torch's legacy nearest: floor(dst · in/out).
        "nearest" => vec![
            ("mode", A::S("nearest")),
            ("coordinate_transformation_mode", A::S("asymmetric")),
            ("nearest_mode", A::S("floor")),
        ],
        // floor((dst + 0.5) · in/out) is half_pixel rounded half up.
        "nearest-exact" => vec![
            ("mode", A::S("nearest")),
            ("coordinate_transformation_mode", A::S("half_pixel")),
            ("nearest_mode", A::S("round_prefer_ceil")),
        ],
        "linear" | "bilinear" | "trilinear" => vec![
            ("mode", A::S("linear")),
            ("coordinate_transformation_mode", A::S(transform)),
        ],
        "bicubic" => vec![
            ("mode", A::S("cubic")),
            ("coordinate_transformation_mode", A::S(transform)),
            ("cubic_coeff_a", A::F(-0.75)),
        ],
        _ => return None,
    })
}

impl Lowerer<'_> {
    pub fn pad(&mut self, rec: &Rec, x: &Val, xt: &Tensor, ctx: &Ctx) -> Result<Val> {
        let at = &rec.attrs;
        let torch = ints(at, "pads");
        let rank = xt.dim();
        let mode = match string(at, "mode") {
            "constant" => "constant",
            "reflect" => "reflect",
            "replicate" => "edge",
            "circular" => {
                return Err(
                    ctx.unsupported("F.pad mode 'circular' (ONNX Pad mode 'wrap' needs opset 19)")
                );
            }
            other => return Err(ctx.unsupported(&format!("F.pad mode '{other}'"))),
        };
        if mode != "constant" && torch.iter().any(|&p| p < 0) {
            return Err(ctx.unsupported(&format!(
                "F.pad mode '{}' with negative padding",
                string(at, "mode")
            )));
        }
        let pads = onnx_pads(&torch, rank);
        let pads_val = self.ints(ctx, &pads);
        let mut inputs = vec![x, &pads_val];
        let value;
        if mode == "constant" {
            let v = float(at, "value").unwrap_or(0.0);
            value = Val {
                name: self.g.scalar(&ctx.scope, v, xt.dtype()),
                dyn0: false,
            };
            inputs.push(&value);
        }
        let mut y = self.node(ctx, "Pad", &inputs, vec![("mode", A::S(mode))]);
        y.dyn0 = x.dyn0 && pads[0] == 0 && pads[rank] == 0;
        Ok(y)
    }

    pub fn resize(&mut self, rec: &Rec, x: &Val, xt: &Tensor, ctx: &Ctx) -> Result<Val> {
        let at = &rec.attrs;
        let mode = string(at, "mode");
        let Some(attrs) = resize_attrs(mode, flag(at, "align_corners")) else {
            return Err(ctx.unsupported(&format!("F.interpolate mode '{mode}'")));
        };
        let none = Val {
            name: String::new(),
            dyn0: false,
        };
        let mut y = match floats(at, "scales") {
            // Scale factors torch uses for the coordinates: Resize's scales (its output size is
            // floor(in · scale), as torch's).
            Some(s) => {
                let mut all = vec![1.0f32, 1.0];
                all.extend(s.iter().map(|&v| v as f32));
                let scales = Val {
                    name: self.g.floats(&ctx.scope, &all),
                    dyn0: false,
                };
                self.node(ctx, "Resize", &[x, &none, &scales], attrs)
            }
            // Output sizes: torch's coordinates use in / out, as Resize's do from sizes. The
            // batch and channel sizes come from the input's shape.
            None => {
                let spatial = ints(at, "sizes");
                let sizes = if x.dyn0 {
                    let nc = self.node(
                        ctx,
                        "Shape",
                        &[x],
                        vec![("start", A::I(0)), ("end", A::I(2))],
                    );
                    let tail = self.ints(ctx, &spatial);
                    self.node(ctx, "Concat", &[&nc, &tail], vec![("axis", A::I(0))])
                } else {
                    let mut all: Vec<i64> = xt.shape()[..2].iter().map(|&d| d as i64).collect();
                    all.extend(&spatial);
                    self.ints(ctx, &all)
                };
                self.node(ctx, "Resize", &[x, &none, &none, &sizes], attrs)
            }
        };
        y.dyn0 = x.dyn0;
        Ok(y)
    }
}
