//! Each reported op turned into ONNX nodes: the values map (tensor id → ONNX value), the
//! primitives (the autograd ops: elementwise table, views, reductions, softmax, cat, matmul).
//! Composed ops (convolution, pooling, norms) are in `lower_composed.rs`.

use std::collections::{HashMap, HashSet};

use borch_tensor::{
    AlongOp, BorchError, DType, MatmulOp, Op, Operand, ReduceOp, Result, Scalar, ShapeOp, Tensor,
    ViewOp,
};

use crate::graph::{A, Graph, elem_type};
use crate::recorder::Rec;

/// An ONNX value standing for a borch tensor; `dyn0` when its dim 0 is the dynamic batch.
#[derive(Clone)]
pub struct Val {
    pub name: String,
    pub dyn0: bool,
}

/// Where the names of modules and parameters come from.
pub struct Names {
    /// Parameter and buffer tensor id → dotted name.
    pub params: HashMap<u64, String>,
    /// Module identity → (dotted path, class name).
    pub modules: HashMap<usize, (String, String)>,
    pub root_class: String,
}

pub struct Lowerer<'a> {
    pub g: &'a mut Graph,
    pub values: HashMap<u64, Val>,
    pub names: &'a Names,
    /// The value an `Expand` output was expanded from: Gemm's C broadcasts by itself, and an
    /// expand to the traced batch would fix the batch size.
    pub expanded_from: HashMap<u64, Val>,
    /// The traced size of the dynamic batch dim (dim 0 of a dynamic input), if any.
    pub batch: Option<usize>,
    /// The graph input whose dim 0 is that batch (the batch size of an expand comes from it).
    pub batch_input: Option<Val>,
    /// Values whose batch dim a permute moved off dim 0, by name: where it is (so that a
    /// select that brings it back to dim 0 keeps the batch dynamic: timm's `qkv.permute(2, 0,
    /// 3, 1, 4).unbind(0)`).
    pub batch_dim: HashMap<String, usize>,
    /// Values whose dim 0 is the batch times a constant (a Linear's `(B·N, C)` flattening): a
    /// reshape of one infers dim 0 (-1) instead of fixing the traced size.
    pub scaled0: HashSet<String>,
}

/// The node-name scope of an op and the module path and class for error messages.
pub struct Ctx {
    pub scope: String,
    pub path: String,
    pub class: String,
    pub op: String,
}

impl Ctx {
    pub fn unsupported(&self, what: &str) -> BorchError {
        let at = if self.path.is_empty() {
            format!("the root module ({})", self.class)
        } else {
            format!("module '{}' ({})", self.path, self.class)
        };
        BorchError::NotImplemented(format!(
            "ONNX export: {what} is not supported (op '{}' in {at})",
            self.op
        ))
    }
}

fn scope_of(path: &str) -> String {
    if path.is_empty() {
        String::new()
    } else {
        format!("/{}", path.replace('.', "/"))
    }
}

impl Lowerer<'_> {
    pub fn ctx(&self, rec: &Rec) -> Ctx {
        let param_owner = rec.inputs.iter().flatten().find_map(|o| match o {
            Operand::Tensor(t) => self.names.params.get(&t.id()),
            Operand::Scalar(_) => None,
        });
        let (path, class) = match param_owner {
            Some(p) => {
                let owner = p.rsplit_once('.').map_or("", |(a, _)| a).to_string();
                let class = self
                    .names
                    .modules
                    .values()
                    .find(|(mp, _)| *mp == owner)
                    .map_or_else(String::new, |(_, c)| c.clone());
                (owner, class)
            }
            None => match rec.module.and_then(|m| self.names.modules.get(&m)) {
                Some((p, c)) => (p.clone(), c.clone()),
                None => (String::new(), self.names.root_class.clone()),
            },
        };
        Ctx {
            scope: scope_of(&path),
            path,
            class,
            op: rec.name.clone(),
        }
    }

    /// The context of the graph's output.
    pub fn ctx_root(&self) -> Ctx {
        Ctx {
            scope: String::new(),
            path: String::new(),
            class: self.names.root_class.clone(),
            op: "output".into(),
        }
    }

    /// The ONNX value of `t`: made by an op already lowered, a graph input, a parameter or
    /// buffer (an initializer under its dotted name), or a constant made inside the forward
    /// that depends on no input (an initializer with its values).
    pub fn value(&mut self, t: &Tensor, ctx: &Ctx) -> Result<Val> {
        if let Some(v) = self.values.get(&t.id()) {
            return Ok(v.clone());
        }
        let name = match self.names.params.get(&t.id()) {
            Some(p) => {
                self.g.reserve(p);
                p.clone()
            }
            None => {
                if t.requires_grad() {
                    let made_by = t
                        .grad_fn()
                        .map_or_else(|| "an untraced op".to_string(), |n| n.op.name());
                    return Err(ctx.unsupported(&format!(
                        "a tensor of shape {:?} made by '{made_by}' (an op borch cannot trace)",
                        t.shape()
                    )));
                }
                if let Some(b) = self.batch
                    && t.dim() >= 2
                    && t.shape()[0] == b
                {
                    return Err(ctx.unsupported(&format!(
                        "a constant of shape {:?} made inside the forward with the traced batch \
                         size in dim 0 (it would not follow a dynamic batch: export with static \
                         shapes, dynamic_axes={{}}, or trace with another batch size)",
                        t.shape()
                    )));
                }
                self.g.unique(&format!("{}/Constant_output_0", ctx.scope))
            }
        };
        self.g.tensor_inits.push((name.clone(), t.detach()));
        let v = Val { name, dyn0: false };
        self.values.insert(t.id(), v.clone());
        Ok(v)
    }

    /// An operand as a value of `dtype`: a scalar becomes a constant, a tensor of another
    /// dtype is cast.
    pub fn operand(&mut self, o: &Operand, dtype: DType, ctx: &Ctx) -> Result<Val> {
        match o {
            Operand::Scalar(s) => {
                let v = match s {
                    Scalar::Float(f) => *f,
                    Scalar::Int(i) => *i as f64,
                    Scalar::Bool(b) => f64::from(u8::from(*b)),
                };
                Ok(Val {
                    name: self.g.scalar(&ctx.scope, v, dtype),
                    dyn0: false,
                })
            }
            Operand::Tensor(t) => {
                let v = self.value(t, ctx)?;
                Ok(self.cast(v, t.dtype(), dtype, ctx))
            }
        }
    }

    pub fn cast(&mut self, v: Val, from: DType, to: DType, ctx: &Ctx) -> Val {
        if from == to {
            return v;
        }
        let name = self.g.node(
            &ctx.scope,
            "Cast",
            &[&v.name],
            vec![("to", A::I(elem_type(to) as i64))],
        );
        Val { name, dyn0: v.dyn0 }
    }

    pub fn node(&mut self, ctx: &Ctx, op: &str, inputs: &[&Val], attrs: Vec<(&str, A)>) -> Val {
        let names: Vec<&str> = inputs.iter().map(|v| v.name.as_str()).collect();
        let dyn0 = inputs.first().is_some_and(|v| v.dyn0);
        let scaled = inputs
            .first()
            .is_some_and(|v| self.scaled0.contains(&v.name));
        let name = self.g.node(&ctx.scope, op, &names, attrs);
        if scaled {
            self.scaled0.insert(name.clone());
        }
        Val { name, dyn0 }
    }

    pub fn ints(&mut self, ctx: &Ctx, values: &[i64]) -> Val {
        Val {
            name: self.g.ints(&ctx.scope, values, &[values.len()]),
            dyn0: false,
        }
    }

    pub fn tensor_input(&mut self, rec: &Rec, i: usize, ctx: &Ctx) -> Result<(Val, Tensor)> {
        match rec.inputs.get(i) {
            Some(Some(Operand::Tensor(t))) => Ok((self.value(t, ctx)?, t.clone())),
            _ => Err(ctx.unsupported("an op without its tensor input")),
        }
    }

    /// Lower one reported op and map its output.
    pub fn lower(&mut self, rec: &Rec) -> Result<()> {
        let ctx = self.ctx(rec);
        let out = match &rec.op {
            Some(op) => self.primitive(op, rec, &ctx)?,
            None => self.composed(rec, &ctx)?,
        };
        self.values.insert(rec.output.id(), out);
        Ok(())
    }

    fn primitive(&mut self, op: &Op, rec: &Rec, ctx: &Ctx) -> Result<Val> {
        let out = &rec.output;
        match op {
            Op::Map { op, params } => self.map(op.name, op.predicate, params, rec, ctx),
            Op::View(v) => self.view(v, rec, ctx),
            Op::Identity => {
                let (x, t) = self.tensor_input(rec, 0, ctx)?;
                if t.dtype() == out.dtype() {
                    Ok(self.node(ctx, "Identity", &[&x], vec![]))
                } else {
                    Ok(self.cast(x, t.dtype(), out.dtype(), ctx))
                }
            }
            Op::Reduce { op, dims, keepdim } => self.reduce(op, dims, *keepdim, rec, ctx),
            Op::Along { op, dim } => {
                let (x, _) = self.tensor_input(rec, 0, ctx)?;
                let axis = *dim as i64;
                match op {
                    AlongOp::Softmax => {
                        Ok(self.node(ctx, "Softmax", &[&x], vec![("axis", A::I(axis))]))
                    }
                    AlongOp::LogSoftmax => {
                        Ok(self.node(ctx, "LogSoftmax", &[&x], vec![("axis", A::I(axis))]))
                    }
                    AlongOp::Cumsum => {
                        let a = Val {
                            name: self.g.ints(&ctx.scope, &[axis], &[]),
                            dyn0: false,
                        };
                        Ok(self.node(ctx, "CumSum", &[&x, &a], vec![]))
                    }
                    AlongOp::Cumprod => Err(ctx.unsupported("cumprod")),
                }
            }
            Op::Shape(s) => self.shape_op(s, rec, ctx),
            Op::Matmul(m) => {
                let vals: Vec<Val> = (0..rec.inputs.len())
                    .map(|i| self.tensor_input(rec, i, ctx).map(|(v, _)| v))
                    .collect::<Result<_>>()?;
                match m {
                    MatmulOp::Mm | MatmulOp::Bmm => {
                        Ok(self.node(ctx, "MatMul", &[&vals[0], &vals[1]], vec![]))
                    }
                    MatmulOp::Addmm { beta, alpha } => {
                        let c = match &rec.inputs[0] {
                            Some(Operand::Tensor(t)) => self.expanded_from.get(&t.id()).cloned(),
                            _ => None,
                        };
                        let vals = match c {
                            Some(c) => vec![c, vals[1].clone(), vals[2].clone()],
                            None => vals,
                        };
                        let attrs =
                            vec![("alpha", A::F(*alpha as f32)), ("beta", A::F(*beta as f32))];
                        Ok(self.node(ctx, "Gemm", &[&vals[1], &vals[2], &vals[0]], attrs))
                    }
                }
            }
            Op::Custom(f) => Err(ctx.unsupported(&format!("'{}'", f.name()))),
        }
    }

    /// The dtype the operands of an elementwise op are computed in (torch's promotion, with
    /// scalars as wrapped numbers).
    fn promoted(rec: &Rec, from: usize) -> DType {
        let rank = |d: DType| match d {
            DType::Bool => 0,
            DType::Int64 => 1,
            DType::Float32 => 2,
        };
        let mut tensors = None::<DType>;
        let mut scalars = DType::Bool;
        for o in rec.inputs.iter().skip(from).flatten() {
            match o {
                Operand::Tensor(t) => {
                    if tensors.is_none_or(|d| rank(t.dtype()) > rank(d)) {
                        tensors = Some(t.dtype());
                    }
                }
                Operand::Scalar(s) => {
                    let d = match s {
                        Scalar::Float(_) => DType::Float32,
                        Scalar::Int(_) => DType::Int64,
                        Scalar::Bool(_) => DType::Bool,
                    };
                    if rank(d) > rank(scalars) {
                        scalars = d;
                    }
                }
            }
        }
        match tensors {
            Some(t) if rank(t) >= rank(scalars) => t,
            _ => scalars,
        }
    }

    fn map(
        &mut self,
        name: &str,
        predicate: bool,
        params: &[f64],
        rec: &Rec,
        ctx: &Ctx,
    ) -> Result<Val> {
        let out_dtype = rec.output.dtype();
        let logical = name.starts_with("logical_");
        let compute = if logical {
            DType::Bool
        } else if name == "where" {
            out_dtype
        } else if predicate {
            Self::promoted(rec, 0)
        } else {
            out_dtype
        };
        let from = usize::from(name == "where");
        let mut args = Vec::new();
        for (i, o) in rec.inputs.iter().enumerate() {
            let Some(o) = o else {
                return Err(ctx.unsupported("an absent operand"));
            };
            let dtype = if i < from { DType::Bool } else { compute };
            let dtype = if matches!(name, "isnan" | "isinf") {
                DType::Float32
            } else {
                dtype
            };
            args.push(self.operand(o, dtype, ctx)?);
        }
        let a = |i: usize| -> Result<&Val> {
            args.get(i)
                .ok_or_else(|| ctx.unsupported("an op with fewer operands"))
        };
        let direct = match name {
            "abs" => "Abs",
            "neg" => "Neg",
            "exp" => "Exp",
            "log" => "Log",
            "sqrt" => "Sqrt",
            "sin" => "Sin",
            "cos" => "Cos",
            "tan" => "Tan",
            "asin" => "Asin",
            "acos" => "Acos",
            "atan" => "Atan",
            "sinh" => "Sinh",
            "cosh" => "Cosh",
            "tanh" => "Tanh",
            "asinh" => "Asinh",
            "acosh" => "Acosh",
            "atanh" => "Atanh",
            "sigmoid" => "Sigmoid",
            "relu" => "Relu",
            "erf" => "Erf",
            "floor" => "Floor",
            "ceil" => "Ceil",
            "round" => "Round",
            "sign" => "Sign",
            "reciprocal" => "Reciprocal",
            "isnan" => "IsNaN",
            "isinf" => "IsInf",
            "logical_not" => "Not",
            "mul" => "Mul",
            "div" => "Div",
            "pow" => "Pow",
            "maximum" => "Max",
            "minimum" => "Min",
            "eq" => "Equal",
            "lt" => "Less",
            "gt" => "Greater",
            "le" => "LessOrEqual",
            "ge" => "GreaterOrEqual",
            "logical_and" => "And",
            "logical_or" => "Or",
            "logical_xor" => "Xor",
            "clamp_min" => "Max",
            "clamp_max" => "Min",
            "where" => "Where",
            _ => "",
        };
        if !direct.is_empty() {
            let refs: Vec<&Val> = args.iter().collect();
            return Ok(self.node(ctx, direct, &refs, vec![]));
        }
        let f = DType::Float32;
        match name {
            "add" | "sub" => {
                let (x, mut y) = (a(0)?.clone(), a(1)?.clone());
                let alpha = params.first().copied().unwrap_or(1.0);
                if alpha != 1.0 {
                    let k = Val {
                        name: self.g.scalar(&ctx.scope, alpha, compute),
                        dyn0: false,
                    };
                    y = self.node(ctx, "Mul", &[&y, &k], vec![]);
                }
                let op = if name == "add" { "Add" } else { "Sub" };
                Ok(self.node(ctx, op, &[&x, &y], vec![]))
            }
            "ne" => {
                let e = self.node(ctx, "Equal", &[a(0)?, a(1)?], vec![]);
                Ok(self.node(ctx, "Not", &[&e], vec![]))
            }
            "rsqrt" => {
                let s = self.node(ctx, "Sqrt", &[a(0)?], vec![]);
                Ok(self.node(ctx, "Reciprocal", &[&s], vec![]))
            }
            "square" => {
                let x = a(0)?.clone();
                Ok(self.node(ctx, "Mul", &[&x, &x], vec![]))
            }
            "silu" => {
                let x = a(0)?.clone();
                let s = self.node(ctx, "Sigmoid", &[&x], vec![]);
                Ok(self.node(ctx, "Mul", &[&x, &s], vec![]))
            }
            "gelu" => {
                // x * 0.5 * (1 + erf(x / sqrt(2))): opset 17 has no Gelu (it came in 20).
                let x = a(0)?.clone();
                let k = self.konst(ctx, std::f64::consts::FRAC_1_SQRT_2);
                let s = self.node(ctx, "Mul", &[&x, &k], vec![]);
                let e = self.node(ctx, "Erf", &[&s], vec![]);
                let one = self.konst(ctx, 1.0);
                let p = self.node(ctx, "Add", &[&e, &one], vec![]);
                let half = self.konst(ctx, 0.5);
                let h = self.node(ctx, "Mul", &[&x, &half], vec![]);
                Ok(self.node(ctx, "Mul", &[&h, &p], vec![]))
            }
            "gelu_tanh" => {
                let x = a(0)?.clone();
                let x3 = self.node(ctx, "Mul", &[&x, &x], vec![]);
                let x3 = self.node(ctx, "Mul", &[&x3, &x], vec![]);
                let c = self.konst(ctx, 0.044715);
                let t = self.node(ctx, "Mul", &[&x3, &c], vec![]);
                let t = self.node(ctx, "Add", &[&x, &t], vec![]);
                let k = self.konst(ctx, (2.0 / std::f64::consts::PI).sqrt());
                let t = self.node(ctx, "Mul", &[&t, &k], vec![]);
                let t = self.node(ctx, "Tanh", &[&t], vec![]);
                let one = self.konst(ctx, 1.0);
                let t = self.node(ctx, "Add", &[&t, &one], vec![]);
                let half = self.konst(ctx, 0.5);
                let h = self.node(ctx, "Mul", &[&x, &half], vec![]);
                Ok(self.node(ctx, "Mul", &[&h, &t], vec![]))
            }
            "softplus" => {
                let (beta, threshold) = (params[0], params[1]);
                let x = a(0)?.clone();
                let b = self.konst(ctx, beta);
                let bx = self.node(ctx, "Mul", &[&x, &b], vec![]);
                let sp = self.node(ctx, "Softplus", &[&bx], vec![]);
                let sp = self.node(ctx, "Div", &[&sp, &b], vec![]);
                let th = self.konst(ctx, threshold);
                let over = self.node(ctx, "Greater", &[&bx, &th], vec![]);
                Ok(self.node(ctx, "Where", &[&over, &x, &sp], vec![]))
            }
            "clamp" => {
                let lo = self.node(ctx, "Max", &[a(0)?, a(1)?], vec![]);
                Ok(self.node(ctx, "Min", &[&lo, a(2)?], vec![]))
            }
            "addcmul" => {
                let bc = self.node(ctx, "Mul", &[a(1)?, a(2)?], vec![]);
                let k = Val {
                    name: self.g.scalar(&ctx.scope, params[0], compute),
                    dyn0: false,
                };
                let bc = self.node(ctx, "Mul", &[&bc, &k], vec![]);
                Ok(self.node(ctx, "Add", &[a(0)?, &bc], vec![]))
            }
            _ => {
                let _ = f;
                Err(ctx.unsupported(&format!("'{name}'")))
            }
        }
    }

    pub fn konst(&mut self, ctx: &Ctx, v: f64) -> Val {
        Val {
            name: self.g.scalar(&ctx.scope, v, DType::Float32),
            dyn0: false,
        }
    }

    /// A `Reshape` to `shape`, keeping a dynamic batch (0 copies dim 0 of the input; -1 in
    /// dim 0 when the batch is folded into it).
    pub fn reshape(&mut self, x: &Val, in_shape: &[usize], shape: &[usize], ctx: &Ctx) -> Val {
        let mut target: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
        let (mut dyn0, mut scaled) = (false, false);
        let x_scaled = self.scaled0.contains(&x.name);
        if (x.dyn0 || x_scaled) && !target.is_empty() {
            if x.dyn0 && in_shape.first() == shape.first() {
                target[0] = 0;
                dyn0 = true;
            } else {
                // Dim 0 inferred: the batch when it has the traced batch's size, the batch
                // times the rest otherwise.
                target[0] = -1;
                dyn0 = self.batch == shape.first().copied();
                scaled = !dyn0;
            }
        }
        let s = self.ints(ctx, &target);
        let mut v = self.node(ctx, "Reshape", &[x, &s], vec![]);
        v.dyn0 = dyn0;
        if scaled {
            self.scaled0.insert(v.name.clone());
        } else {
            self.scaled0.remove(&v.name);
        }
        v
    }

    fn view(&mut self, v: &ViewOp, rec: &Rec, ctx: &Ctx) -> Result<Val> {
        let (x, t) = self.tensor_input(rec, 0, ctx)?;
        let out = rec.output.shape().to_vec();
        let ins = t.shape().to_vec();
        Ok(match v {
            ViewOp::Reshape => self.reshape(&x, &ins, &out, ctx),
            ViewOp::Permute(perm) => {
                let p: Vec<i64> = perm.iter().map(|&d| d as i64).collect();
                let mut r = self.node(ctx, "Transpose", &[&x], vec![("perm", A::Is(p))]);
                let from = if x.dyn0 {
                    Some(0)
                } else {
                    self.batch_dim.get(&x.name).copied()
                };
                let to = from.and_then(|b| perm.iter().position(|&d| d == b));
                r.dyn0 = to == Some(0);
                if let Some(at) = to.filter(|&at| at > 0) {
                    self.batch_dim.insert(r.name.clone(), at);
                }
                r
            }
            ViewOp::Expand => {
                let lead = out.len() - ins.len();
                let shape: Vec<i64> = out
                    .iter()
                    .enumerate()
                    .map(|(i, &d)| {
                        if i >= lead && ins[i - lead] == d {
                            1
                        } else {
                            d as i64
                        }
                    })
                    .collect();
                // A size-1 batch dim expanded to the traced batch (timm's `cls_token.expand(B,
                // -1, -1)`) follows the dynamic batch: its size is read from the batch input.
                let to_batch = lead == 0
                    && !x.dyn0
                    && ins.first() == Some(&1)
                    && self.batch.is_some_and(|b| b == out[0] && b != 1);
                let s = match (&self.batch_input, to_batch) {
                    (Some(input), true) => {
                        let input = input.clone();
                        let shape_of = self.node(ctx, "Shape", &[&input], vec![]);
                        let (start, end) = (self.ints(ctx, &[0]), self.ints(ctx, &[1]));
                        let mut b = self.node(ctx, "Slice", &[&shape_of, &start, &end], vec![]);
                        b.dyn0 = false;
                        let rest = self.ints(ctx, &shape[1..]);
                        let mut s = self.node(ctx, "Concat", &[&b, &rest], vec![("axis", A::I(0))]);
                        s.dyn0 = false;
                        s
                    }
                    _ => self.ints(ctx, &shape),
                };
                let mut r = self.node(ctx, "Expand", &[&x, &s], vec![]);
                r.dyn0 = (x.dyn0 && lead == 0) || (to_batch && self.batch_input.is_some());
                self.expanded_from.insert(rec.output.id(), x.clone());
                r
            }
            ViewOp::Slice { dim, start, step } => {
                let len = out[*dim];
                let to_end = start + step * len >= ins[*dim];
                let end = if to_end {
                    i64::MAX
                } else {
                    (start + step * len.saturating_sub(1) + 1) as i64
                };
                let s = self.ints(ctx, &[*start as i64]);
                let e = self.ints(ctx, &[end]);
                let a = self.ints(ctx, &[*dim as i64]);
                let st = self.ints(ctx, &[*step as i64]);
                let mut r = self.node(ctx, "Slice", &[&x, &s, &e, &a, &st], vec![]);
                r.dyn0 = x.dyn0 && (*dim != 0 || (*start == 0 && *step == 1 && to_end));
                r
            }
            ViewOp::Select { dim, index } => {
                let i = Val {
                    name: self.g.ints(&ctx.scope, &[*index as i64], &[]),
                    dyn0: false,
                };
                let mut r = self.node(ctx, "Gather", &[&x, &i], vec![("axis", A::I(*dim as i64))]);
                r.dyn0 = x.dyn0 && *dim != 0;
                if let Some(&at) = self.batch_dim.get(&x.name) {
                    match at.cmp(dim) {
                        std::cmp::Ordering::Greater if at == dim + 1 && *dim == 0 => r.dyn0 = true,
                        std::cmp::Ordering::Greater => {
                            self.batch_dim.insert(r.name.clone(), at - 1);
                        }
                        std::cmp::Ordering::Less => {
                            self.batch_dim.insert(r.name.clone(), at);
                        }
                        std::cmp::Ordering::Equal => {}
                    }
                }
                r
            }
        })
    }

    fn reduce(
        &mut self,
        op: &ReduceOp,
        dims: &[usize],
        keepdim: bool,
        rec: &Rec,
        ctx: &Ctx,
    ) -> Result<Val> {
        let (x, t) = self.tensor_input(rec, 0, ctx)?;
        let x = self.cast(x, t.dtype(), rec.output.dtype(), ctx);
        let axes: Vec<i64> = dims.iter().map(|&d| d as i64).collect();
        let keep = ("keepdims", A::I(i64::from(keepdim)));
        let ty = match op {
            ReduceOp::Sum => {
                let a = self.ints(ctx, &axes);
                let mut r = self.node(ctx, "ReduceSum", &[&x, &a], vec![keep]);
                r.dyn0 = x.dyn0 && !dims.contains(&0);
                return Ok(r);
            }
            ReduceOp::Mean => "ReduceMean",
            ReduceOp::Prod => "ReduceProd",
            ReduceOp::Amax | ReduceOp::Max => "ReduceMax",
            ReduceOp::Amin | ReduceOp::Min => "ReduceMin",
            ReduceOp::LogSumExp => "ReduceLogSumExp",
            ReduceOp::Norm(p) if *p == 2.0 => "ReduceL2",
            ReduceOp::Norm(p) if *p == 1.0 => "ReduceL1",
            other => return Err(ctx.unsupported(&format!("the reduction {other:?}"))),
        };
        let mut r = self.node(ctx, ty, &[&x], vec![("axes", A::Is(axes)), keep]);
        r.dyn0 = x.dyn0 && !dims.contains(&0);
        Ok(r)
    }

    fn shape_op(&mut self, s: &ShapeOp, rec: &Rec, ctx: &Ctx) -> Result<Val> {
        let out_dtype = rec.output.dtype();
        let mut all = Vec::new();
        for o in rec.inputs.iter().flatten() {
            all.push(self.operand(o, out_dtype, ctx)?);
        }
        let first = all
            .first()
            .cloned()
            .ok_or_else(|| ctx.unsupported("an op without inputs"))?;
        Ok(match s {
            ShapeOp::Cat { dim } => {
                let refs: Vec<&Val> = all.iter().collect();
                let mut r = self.node(ctx, "Concat", &refs, vec![("axis", A::I(*dim as i64))]);
                r.dyn0 = first.dyn0 && *dim != 0;
                r
            }
            ShapeOp::Stack { dim } => {
                let a = self.ints(ctx, &[*dim as i64]);
                let parts: Vec<Val> = all
                    .iter()
                    .map(|v| self.node(ctx, "Unsqueeze", &[v, &a], vec![]))
                    .collect();
                let refs: Vec<&Val> = parts.iter().collect();
                let mut r = self.node(ctx, "Concat", &refs, vec![("axis", A::I(*dim as i64))]);
                r.dyn0 = first.dyn0 && *dim != 0;
                r
            }
            ShapeOp::Flip { dims } => {
                let n = dims.len();
                let s = self.ints(ctx, &vec![-1; n]);
                let e = self.ints(ctx, &vec![i64::MIN; n]);
                let ax: Vec<i64> = dims.iter().map(|&d| d as i64).collect();
                let a = self.ints(ctx, &ax);
                let st = self.ints(ctx, &vec![-1; n]);
                self.node(ctx, "Slice", &[&first, &s, &e, &a, &st], vec![])
            }
            ShapeOp::IndexSelect { dim, index } => {
                let i = self.value(index, ctx)?;
                let mut r = self.node(
                    ctx,
                    "Gather",
                    &[&first, &i],
                    vec![("axis", A::I(*dim as i64))],
                );
                r.dyn0 = first.dyn0 && *dim != 0;
                r
            }
            ShapeOp::Gather { dim, index } => {
                let i = self.value(index, ctx)?;
                let mut r = self.node(
                    ctx,
                    "GatherElements",
                    &[&first, &i],
                    vec![("axis", A::I(*dim as i64))],
                );
                r.dyn0 = false;
                r
            }
            ShapeOp::Tril { diagonal } | ShapeOp::Triu { diagonal } => {
                let k = Val {
                    name: self.g.ints(&ctx.scope, &[*diagonal as i64], &[]),
                    dyn0: false,
                };
                let upper = i64::from(matches!(s, ShapeOp::Triu { .. }));
                self.node(ctx, "Trilu", &[&first, &k], vec![("upper", A::I(upper))])
            }
            other => return Err(ctx.unsupported(&format!("'{}'", other.name()))),
        })
    }
}
