//! The composed ops that report themselves (`op_trace::Span`): convolution (with the fused
//! epilogue of `nn.intrinsic`: residual add and ReLU, written as the unfused Conv, Add, Relu),
//! transposed convolution, pooling, batch and layer norm, and the fused linear + ReLU. Padding
//! and resampling are in `lower_resample.rs`.

use borch_tensor::{Operand, Result};

use crate::graph::A;
use crate::lower::{Ctx, Lowerer, Val};
use crate::recorder::{Rec, flag, float, int, ints};

impl Lowerer<'_> {
    fn optional(&mut self, rec: &Rec, i: usize, ctx: &Ctx) -> Result<Option<Val>> {
        match rec.inputs.get(i) {
            Some(Some(Operand::Tensor(t))) => Ok(Some(self.value(t, ctx)?)),
            _ => Ok(None),
        }
    }

    /// `x` with a batch dim of 1 added (for unbatched inputs of ops that need one).
    fn unsqueeze0(&mut self, x: &Val, ctx: &Ctx) -> Val {
        let a = self.ints(ctx, &[0]);
        self.node(ctx, "Unsqueeze", &[x, &a], vec![])
    }

    fn squeeze0(&mut self, x: &Val, ctx: &Ctx) -> Val {
        let a = self.ints(ctx, &[0]);
        self.node(ctx, "Squeeze", &[x, &a], vec![])
    }

    pub fn composed(&mut self, rec: &Rec, ctx: &Ctx) -> Result<Val> {
        let at = &rec.attrs;
        let (x, xt) = self.tensor_input(rec, 0, ctx)?;
        let rank = xt.dim();
        match rec.name.as_str() {
            "convolution" | "conv_transpose" => {
                let (w, wt) = self.tensor_input(rec, 1, ctx)?;
                let b = self.optional(rec, 2, ctx)?;
                let batched = flag(at, "batched");
                let xin = if batched {
                    x.clone()
                } else {
                    self.unsqueeze0(&x, ctx)
                };
                let mut attrs = vec![
                    (
                        "kernel_shape",
                        A::Is(wt.shape()[2..].iter().map(|&d| d as i64).collect()),
                    ),
                    ("strides", A::Is(ints(at, "strides"))),
                    ("pads", A::Is(ints(at, "pads"))),
                    ("dilations", A::Is(ints(at, "dilations"))),
                    ("group", A::I(int(at, "group").unwrap_or(1))),
                ];
                let transpose = rec.name == "conv_transpose";
                if transpose {
                    attrs.push(("output_padding", A::Is(ints(at, "output_padding"))));
                }
                let mut inputs = vec![&xin, &w];
                if let Some(b) = &b {
                    inputs.push(b);
                }
                let op = if transpose { "ConvTranspose" } else { "Conv" };
                let mut y = self.node(ctx, op, &inputs, attrs);
                y.dyn0 = x.dyn0 && batched;
                if !batched {
                    y = self.squeeze0(&y, ctx);
                }
                if !transpose {
                    if let Some(r) = self.optional(rec, 3, ctx)? {
                        y = self.node(ctx, "Add", &[&y, &r], vec![]);
                    }
                    if flag(at, "relu") {
                        y = self.node(ctx, "Relu", &[&y], vec![]);
                    }
                }
                Ok(y)
            }
            "max_pool" | "avg_pool" | "adaptive_avg_pool" => {
                let xin = if rank == 3 {
                    self.unsqueeze0(&x, ctx)
                } else {
                    x.clone()
                };
                let mut y = match rec.name.as_str() {
                    "max_pool" => {
                        let attrs = vec![
                            ("kernel_shape", A::Is(ints(at, "kernel_shape"))),
                            ("strides", A::Is(ints(at, "strides"))),
                            ("pads", A::Is(ints(at, "pads"))),
                            ("dilations", A::Is(ints(at, "dilations"))),
                            ("ceil_mode", A::I(i64::from(flag(at, "ceil_mode")))),
                        ];
                        self.node(ctx, "MaxPool", &[&xin], attrs)
                    }
                    "avg_pool" => {
                        if int(at, "divisor_override").is_some() {
                            return Err(ctx.unsupported("avg_pool2d with divisor_override"));
                        }
                        let attrs = vec![
                            ("kernel_shape", A::Is(ints(at, "kernel_shape"))),
                            ("strides", A::Is(ints(at, "strides"))),
                            ("pads", A::Is(ints(at, "pads"))),
                            ("ceil_mode", A::I(i64::from(flag(at, "ceil_mode")))),
                            (
                                "count_include_pad",
                                A::I(i64::from(flag(at, "count_include_pad"))),
                            ),
                        ];
                        self.node(ctx, "AveragePool", &[&xin], attrs)
                    }
                    _ => {
                        let o = ints(at, "output_size");
                        let s = xt.shape();
                        let (h, w) = (s[rank - 2] as i64, s[rank - 1] as i64);
                        if o == [1, 1] {
                            self.node(ctx, "GlobalAveragePool", &[&xin], vec![])
                        } else if o.len() == 2
                            && o[0] > 0
                            && o[1] > 0
                            && h % o[0] == 0
                            && w % o[1] == 0
                        {
                            let k = vec![h / o[0], w / o[1]];
                            let attrs =
                                vec![("kernel_shape", A::Is(k.clone())), ("strides", A::Is(k))];
                            self.node(ctx, "AveragePool", &[&xin], attrs)
                        } else {
                            return Err(ctx.unsupported(
                                "adaptive_avg_pool2d to an output size that does not divide the input",
                            ));
                        }
                    }
                };
                y.dyn0 = x.dyn0 && rank == 4;
                if rank == 3 {
                    y = self.squeeze0(&y, ctx);
                }
                Ok(y)
            }
            "batch_norm" => {
                let (Some(mean), Some(var)) =
                    (self.optional(rec, 3, ctx)?, self.optional(rec, 4, ctx)?)
                else {
                    return Err(
                        ctx.unsupported("batch_norm with batch statistics (no running statistics)")
                    );
                };
                if flag(at, "training") {
                    return Err(ctx.unsupported(
                        "batch_norm in training mode (export traces the eval forward: call model.eval())",
                    ));
                }
                let c = xt.shape().get(1).copied().unwrap_or(0);
                let scale = match self.optional(rec, 1, ctx)? {
                    Some(w) => w,
                    None => Val {
                        name: self.g.filled(&ctx.scope, 1.0, &[c]),
                        dyn0: false,
                    },
                };
                let bias = match self.optional(rec, 2, ctx)? {
                    Some(b) => b,
                    None => Val {
                        name: self.g.filled(&ctx.scope, 0.0, &[c]),
                        dyn0: false,
                    },
                };
                let eps = float(at, "epsilon").unwrap_or(1e-5) as f32;
                Ok(self.node(
                    ctx,
                    "BatchNormalization",
                    &[&x, &scale, &bias, &mean, &var],
                    vec![("epsilon", A::F(eps))],
                ))
            }
            "layer_norm" => {
                let axis = int(at, "axis").unwrap_or(-1);
                let normalized: Vec<usize> = xt.shape()[axis.max(0) as usize..].to_vec();
                let scale = match self.optional(rec, 1, ctx)? {
                    Some(w) => w,
                    None => Val {
                        name: self.g.filled(&ctx.scope, 1.0, &normalized),
                        dyn0: false,
                    },
                };
                let eps = float(at, "epsilon").unwrap_or(1e-5) as f32;
                let attrs = vec![("axis", A::I(axis)), ("epsilon", A::F(eps))];
                let mut inputs = vec![&x, &scale];
                let b = self.optional(rec, 2, ctx)?;
                if let Some(b) = &b {
                    inputs.push(b);
                }
                Ok(self.node(ctx, "LayerNormalization", &inputs, attrs))
            }
            "linear_relu" => {
                let (w, _) = self.tensor_input(rec, 1, ctx)?;
                let b = self.optional(rec, 2, ctx)?;
                let y = if rank == 2 {
                    let mut inputs = vec![&x, &w];
                    if let Some(b) = &b {
                        inputs.push(b);
                    }
                    self.node(ctx, "Gemm", &inputs, vec![("transB", A::I(1))])
                } else {
                    let wt = self.node(ctx, "Transpose", &[&w], vec![("perm", A::Is(vec![1, 0]))]);
                    let mut y = self.node(ctx, "MatMul", &[&x, &wt], vec![]);
                    y.dyn0 = x.dyn0;
                    if let Some(b) = &b {
                        y = self.node(ctx, "Add", &[&y, b], vec![]);
                    }
                    y
                };
                let mut r = self.node(ctx, "Relu", &[&y], vec![]);
                r.dyn0 = x.dyn0;
                Ok(r)
            }
            "pad" => self.pad(rec, &x, &xt, ctx),
            "interpolate" => self.resize(rec, &x, &xt, ctx),
            "scaled_dot_product_attention" => self.attention(rec, &x, &xt, ctx),
            other => Err(ctx.unsupported(&format!("'{other}'"))),
        }
    }
}
