//! `F.scaled_dot_product_attention` (one reported op, whichever kernels ran it) as opset 17
//! has no Attention op: `MatMul(q·√scale, kᵀ·√scale)`, the mask added (a bool mask as 0 / -inf
//! through Where, `is_causal` as a constant lower-triangular one), `Softmax` over the last axis,
//! `MatMul` with `v`. torch's math path scales q and k by √scale the same way. One difference
//! that cannot be seen at export: a row whose keys are all masked gives NaN in ONNX's Softmax
//! where torch (and borch) give zeros.

use borch_tensor::{DType, Result, Tensor};

use crate::graph::A;
use crate::lower::{Ctx, Lowerer, Val};
use crate::recorder::{Rec, flag, float};

impl Lowerer<'_> {
    pub fn attention(&mut self, rec: &Rec, q: &Val, qt: &Tensor, ctx: &Ctx) -> Result<Val> {
        let at = &rec.attrs;
        if float(at, "dropout_p").unwrap_or(0.0) > 0.0 {
            return Err(ctx.unsupported(
                "scaled_dot_product_attention with dropout_p > 0 (export the model in eval mode)",
            ));
        }
        let (k, kt) = self.tensor_input(rec, 1, ctx)?;
        let (v, _) = self.tensor_input(rec, 2, ctx)?;
        let rank = qt.dim();
        if flag(at, "enable_gqa") && rank >= 3 && qt.shape()[rank - 3] != kt.shape()[rank - 3] {
            return Err(ctx.unsupported(
                "scaled_dot_product_attention with enable_gqa and fewer key heads than query heads",
            ));
        }
        let e = qt.shape()[rank - 1] as f64;
        let scale = float(at, "scale").unwrap_or(1.0 / e.sqrt());
        let root = scale.abs().sqrt();
        let q_scale = Val {
            name: self.g.scalar(
                &ctx.scope,
                if scale < 0.0 { -root } else { root },
                DType::Float32,
            ),
            dyn0: false,
        };
        let k_scale = Val {
            name: self.g.scalar(&ctx.scope, root, DType::Float32),
            dyn0: false,
        };
        let qs = self.node(ctx, "Mul", &[q, &q_scale], vec![]);
        let mut perm: Vec<i64> = (0..rank as i64).collect();
        perm.swap(rank - 1, rank - 2);
        let k_t = self.node(ctx, "Transpose", &[&k], vec![("perm", A::Is(perm))]);
        let ks = self.node(ctx, "Mul", &[&k_t, &k_scale], vec![]);
        let mut scores = self.node(ctx, "MatMul", &[&qs, &ks], vec![]);
        let mask = match rec.inputs.get(3) {
            Some(Some(borch_tensor::Operand::Tensor(m))) => Some((self.value(m, ctx)?, m.dtype())),
            _ => None,
        };
        if let Some((m, dtype)) = mask {
            let additive = if dtype == DType::Bool {
                let zero = self.g.scalar(&ctx.scope, 0.0, DType::Float32);
                let ninf = self.g.scalar(&ctx.scope, f64::NEG_INFINITY, DType::Float32);
                let (zero, ninf) = (
                    Val {
                        name: zero,
                        dyn0: false,
                    },
                    Val {
                        name: ninf,
                        dyn0: false,
                    },
                );
                self.node(ctx, "Where", &[&m, &zero, &ninf], vec![])
            } else {
                m
            };
            scores = self.node(ctx, "Add", &[&scores, &additive], vec![]);
        } else if flag(at, "is_causal") {
            let (l, s) = (qt.shape()[rank - 2], kt.shape()[rank - 2]);
            let values: Vec<f32> = (0..l * s)
                .map(|i| {
                    if i % s <= i / s {
                        0.0
                    } else {
                        f32::NEG_INFINITY
                    }
                })
                .collect();
            let flat = Val {
                name: self.g.floats(&ctx.scope, &values),
                dyn0: false,
            };
            let dims = self.ints(ctx, &[l as i64, s as i64]);
            let causal = self.node(ctx, "Reshape", &[&flat, &dims], vec![]);
            scores = self.node(ctx, "Add", &[&scores, &causal], vec![]);
        }
        let p = self.node(ctx, "Softmax", &[&scores], vec![("axis", A::I(-1))]);
        let mut out = self.node(ctx, "MatMul", &[&p, &v], vec![]);
        out.dyn0 = q.dyn0;
        Ok(out)
    }
}
