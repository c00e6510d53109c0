//! The tensor's side of autograd: whether it requires grad, its `.grad`, and the node recording
//! the op that made it. Ops call `record`; the engine and every derivative live in
//! borch-autograd, which matches exhaustively on `Op`.

use std::cell::Cell;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::dtype::DType;
use crate::error::{BorchError, Result, runtime};
use crate::ops::table::MapOp;
use crate::ops::unfold::Window2d;
use crate::scalar::Operand;
use crate::tensor::Tensor;

/// A view's relation to its input, enough to route the gradient back.
#[derive(Debug, Clone, PartialEq)]
pub enum ViewOp {
    /// view, reshape, flatten, unflatten, squeeze, unsqueeze.
    Reshape,
    /// permute, transpose, t, mT: output dim i is input dim `perm[i]`.
    Permute(Vec<usize>),
    /// expand, broadcast_to.
    Expand,
    /// narrow and stepped slicing along `dim`.
    Slice {
        /// The dim.
        dim: usize,
        /// The first index kept.
        start: usize,
        /// The step between kept indices.
        step: usize,
    },
    /// select: `dim` removed at `index`.
    Select {
        /// The dim.
        dim: usize,
        /// The index.
        index: usize,
    },
}

/// Reductions over `dims` (sorted, wrapped; every dim when the input is reduced whole).
#[derive(Debug, Clone, PartialEq)]
pub enum ReduceOp {
    /// sum.
    Sum,
    /// mean.
    Mean,
    /// prod.
    Prod,
    /// amax: the gradient is shared evenly among ties.
    Amax,
    /// amin: the gradient is shared evenly among ties.
    Amin,
    /// max() of every element: shared among ties, or among the NaNs when the result is NaN.
    Max,
    /// min() of every element: shared among ties, or among the NaNs when the result is NaN.
    Min,
    /// logsumexp.
    LogSumExp,
    /// norm with order `p` (`vector_norm`'s `ord`).
    Norm(f64),
    /// var with torch's `correction`.
    Var {
        /// torch's `correction` (1 is Bessel's).
        correction: f64,
    },
    /// std with torch's `correction`.
    Std {
        /// torch's `correction` (1 is Bessel's).
        correction: f64,
    },
}

/// Ops along one dim whose output has the input's shape.
#[derive(Debug, Clone, PartialEq)]
pub enum AlongOp {
    /// softmax.
    Softmax,
    /// log_softmax.
    LogSoftmax,
    /// cumsum.
    Cumsum,
    /// cumprod.
    Cumprod,
}

/// Shape and indexing ops; index tensors are saved in the op.
#[derive(Clone)]
pub enum ShapeOp {
    /// cat along `dim`; inputs in order.
    Cat {
        /// The dim.
        dim: usize,
    },
    /// stack along `dim`.
    Stack {
        /// The dim.
        dim: usize,
    },
    /// flip of `dims`.
    Flip {
        /// The dims.
        dims: Vec<usize>,
    },
    /// roll by `shifts` along `dims`.
    Roll {
        /// The shift of each dim.
        shifts: Vec<isize>,
        /// The dims.
        dims: Vec<usize>,
    },
    /// repeat (and tile) by `sizes`, aligned to the output's dims.
    Repeat {
        /// The repeats of each output dim.
        sizes: Vec<usize>,
    },
    /// index_select along `dim`.
    IndexSelect {
        /// The dim.
        dim: usize,
        /// The index tensor.
        index: Tensor,
    },
    /// gather along `dim`.
    Gather {
        /// The dim.
        dim: usize,
        /// The index tensor.
        index: Tensor,
    },
    /// take of the flattened input.
    Take {
        /// The index tensor.
        index: Tensor,
    },
    /// scatter of a tensor source (inputs: self, src) or of a value (inputs: self).
    Scatter {
        /// The dim.
        dim: usize,
        /// The index tensor.
        index: Tensor,
    },
    /// scatter_add along `dim` (inputs: self, src).
    ScatterAdd {
        /// The dim.
        dim: usize,
        /// The index tensor.
        index: Tensor,
    },
    /// index_add along `dim` (inputs: self, source).
    IndexAdd {
        /// The dim.
        dim: usize,
        /// The index tensor.
        index: Tensor,
        /// torch's `alpha`: the source's factor.
        alpha: f64,
    },
    /// tril with `diagonal`.
    Tril {
        /// torch's `diagonal`.
        diagonal: isize,
    },
    /// triu with `diagonal`.
    Triu {
        /// torch's `diagonal`.
        diagonal: isize,
    },
    /// Values picked along `dim` by `indices` (max/min with dim, sort, topk, kthvalue); the
    /// indices have the output's shape, or that shape with `dim` kept when `keepdim` is false.
    TakeAlong {
        /// The dim.
        dim: usize,
        /// The picked indices.
        indices: Tensor,
        /// torch's `keepdim`.
        keepdim: bool,
    },
    /// The windows of planes laid out as columns (convolution, pooling); see `Tensor::im2col`.
    Im2col {
        /// The window geometry.
        window: Window2d,
    },
    /// Columns summed back into planes; see `Tensor::col2im`.
    Col2im {
        /// The window geometry.
        window: Window2d,
    },
    /// The windows of volumes laid out as columns; see `Tensor::im2col`.
    Im2col3d {
        /// The window geometry.
        window: crate::ops::unfold::Window3d,
    },
    /// Columns summed back into volumes; see `Tensor::col2im`.
    Col2im3d {
        /// The window geometry.
        window: crate::ops::unfold::Window3d,
    },
}

impl ShapeOp {
    /// torch's name of the op.
    pub fn name(&self) -> &'static str {
        match self {
            ShapeOp::Cat { .. } => "cat",
            ShapeOp::Stack { .. } => "stack",
            ShapeOp::Flip { .. } => "flip",
            ShapeOp::Roll { .. } => "roll",
            ShapeOp::Repeat { .. } => "repeat",
            ShapeOp::IndexSelect { .. } => "index_select",
            ShapeOp::Gather { .. } => "gather",
            ShapeOp::Take { .. } => "take",
            ShapeOp::Scatter { .. } => "scatter",
            ShapeOp::ScatterAdd { .. } => "scatter_add",
            ShapeOp::IndexAdd { .. } => "index_add",
            ShapeOp::Tril { .. } => "tril",
            ShapeOp::Triu { .. } => "triu",
            ShapeOp::TakeAlong { .. } => "take_along_dim",
            ShapeOp::Im2col { .. } => "im2col",
            ShapeOp::Col2im { .. } => "col2im",
            ShapeOp::Im2col3d { .. } => "im2col3d",
            ShapeOp::Col2im3d { .. } => "col2im3d",
        }
    }
}

/// Matrix products (torch's matmul composes views with these).
#[derive(Debug, Clone, PartialEq)]
pub enum MatmulOp {
    /// (n, k) @ (k, m).
    Mm,
    /// (b, n, k) @ (b, k, m).
    Bmm,
    /// beta * input + alpha * (mat1 @ mat2); inputs: input, mat1, mat2.
    Addmm {
        /// torch's `beta`: the input's factor.
        beta: f64,
        /// torch's `alpha`: the product's factor.
        alpha: f64,
    },
}

/// A user-defined backward (torch's `autograd.Function`).
pub trait BackwardFn: Send + Sync {
    /// The name the node reports.
    fn name(&self) -> &str;
    /// Gradients for each input given the gradient of the output.
    fn backward(&self, grad_output: &Tensor) -> Result<Vec<Option<Tensor>>>;
    /// The same with the recorded node at hand (its inputs, saved values with their version
    /// checks, its output): ops that bring their own backward (the implicit-GEMM convolution)
    /// read what they saved from it. Defaults to `backward`.
    fn backward_node(&self, node: &Node, grad_output: &Tensor) -> Result<Vec<Option<Tensor>>> {
        let _ = node;
        self.backward(grad_output)
    }
}

/// What produced a tensor. borch-autograd holds the derivative of every variant.
#[derive(Clone)]
pub enum Op {
    /// An elementwise op of the table with its scalar parameters.
    Map {
        /// The op.
        op: &'static MapOp,
        /// Its scalar parameters (`alpha`, `min`, ...).
        params: Vec<f64>,
    },
    /// A view (no copy).
    View(ViewOp),
    /// to(dtype), contiguous(), clone(): the gradient passes through (as float).
    Identity,
    /// A reduction over `dims`.
    Reduce {
        /// The op.
        op: ReduceOp,
        /// The reduced dims (sorted, wrapped).
        dims: Vec<usize>,
        /// torch's `keepdim`.
        keepdim: bool,
    },
    /// An op along `dim` keeping the input's shape.
    Along {
        /// The op.
        op: AlongOp,
        /// The dim.
        dim: usize,
    },
    /// A shape or indexing op.
    Shape(ShapeOp),
    /// A matrix product.
    Matmul(MatmulOp),
    /// A user-defined function (torch's `autograd.Function`).
    Custom(Arc<dyn BackwardFn>),
}

impl Op {
    /// The op's name (`add`, `reshape`, `sum`, a custom function's name).
    pub fn name(&self) -> String {
        match self {
            Op::Map { op, .. } => op.name.to_string(),
            Op::View(v) => match v {
                ViewOp::Reshape => "reshape",
                ViewOp::Permute(_) => "permute",
                ViewOp::Expand => "expand",
                ViewOp::Slice { .. } => "slice",
                ViewOp::Select { .. } => "select",
            }
            .to_string(),
            Op::Identity => "identity".into(),
            Op::Reduce { op, .. } => format!("{op:?}").to_lowercase(),
            Op::Along { op, .. } => format!("{op:?}").to_lowercase(),
            Op::Shape(op) => op.name().into(),
            Op::Matmul(op) => format!("{op:?}").to_lowercase(),
            Op::Custom(f) => f.name().to_string(),
        }
    }
}

/// One recorded op: its inputs (tensors or scalars), a detached alias of its output, and whether
/// the saved values were freed by a backward pass without `retain_graph`.
pub struct Node {
    /// The op that recorded the node.
    pub op: Op,
    /// Its inputs: tensors (aliases of the values it read) or scalars.
    pub inputs: Vec<Operand>,
    output: Tensor,
    freed: AtomicBool,
    /// The version of each tensor input's storage when the op ran (0 for scalars), and the
    /// output's: a derivative reading a value changed since fails (torch's version counter).
    versions: Vec<u64>,
    output_version: u64,
    /// Each tensor input's node when the op ran (None for leaves and scalars): the graph's
    /// edges. An in-place op gives its tensor a new node later; this op's gradient still goes
    /// to the history it read, as in torch.
    pub input_nodes: Vec<Option<Arc<Node>>>,
}

/// torch's message for a backward through freed saved values.
pub const FREED_MESSAGE: &str = "Trying to backward through the graph a second time (or \
directly access saved tensors after they have already been freed). Saved intermediate values of \
the graph are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if \
you need to backward through the graph a second time or if you need to access saved tensors \
after calling backward.";

impl Node {
    /// The output's values (an alias without autograd state).
    pub fn output(&self) -> Result<&Tensor> {
        self.check_saved()?;
        crate::inplace::check_version(&self.output, self.output_version, || {
            format!(", which is output 0 of {},", self.torch_name())
        })?;
        Ok(&self.output)
    }
    /// torch's name of this node's function in messages (`Add`, `ClampMin`).
    pub fn torch_name(&self) -> String {
        crate::inplace::torch_node_name(&self.op.name())
    }
    /// Input `i`'s values, as a tensor without autograd state.
    pub fn saved_input(&self, i: usize) -> Result<Tensor> {
        self.check_saved()?;
        match &self.inputs[i] {
            Operand::Tensor(t) => {
                crate::inplace::check_version(t, self.versions[i], || match t.grad_fn() {
                    Some(n) => format!(", which is output 0 of {},", n.torch_name()),
                    None => String::new(),
                })?;
                Ok(t.detach())
            }
            Operand::Scalar(_) => runtime("internal: saved input is a scalar"),
        }
    }
    /// Input `i` for its shape and layout only (no version check: its values are not read).
    pub fn saved_layout(&self, i: usize) -> Result<Tensor> {
        self.check_saved()?;
        match &self.inputs[i] {
            Operand::Tensor(t) => Ok(t.detach()),
            Operand::Scalar(_) => runtime("internal: saved input is a scalar"),
        }
    }
    /// The output's shape.
    pub fn output_shape(&self) -> &[usize] {
        self.output.shape()
    }
    /// Fails with torch's message once a backward without `retain_graph` freed the saved
    /// values (for derivatives that read tensors saved in the op, such as index tensors).
    pub fn check_saved(&self) -> Result<()> {
        if self.freed.load(Ordering::Relaxed) {
            return runtime(FREED_MESSAGE);
        }
        Ok(())
    }
    /// Free the saved values (a backward without `retain_graph` does).
    pub fn free_saved(&self) {
        self.freed.store(true, Ordering::Relaxed);
    }
}

/// Autograd state of one tensor object.
#[derive(Default)]
pub struct AutogradMeta {
    /// torch's `requires_grad`.
    pub requires_grad: bool,
    /// torch's `grad`: the accumulated gradient.
    pub grad: Option<Tensor>,
    /// torch's `retains_grad`: a non-leaf that keeps its `grad`.
    pub retains_grad: bool,
    /// torch's `grad_fn`: the node that made the tensor (`None` for a leaf).
    pub node: Option<Arc<Node>>,
    /// The hooks `register_hook` added, called in order.
    pub hooks: Vec<Arc<GradHook>>,
}

/// A gradient hook: may replace the gradient flowing into a tensor.
pub type GradHook = dyn Fn(&Tensor) -> Result<Option<Tensor>> + Send + Sync;

thread_local! {
    static GRAD_ENABLED: Cell<bool> = const { Cell::new(true) };
}

/// Whether ops record for autograd on this thread (torch's `is_grad_enabled`).
pub fn is_grad_enabled() -> bool {
    GRAD_ENABLED.with(Cell::get)
}

/// Turn recording on or off on this thread; returns the previous state.
pub fn set_grad_enabled(enabled: bool) -> bool {
    GRAD_ENABLED.with(|c| c.replace(enabled))
}

/// Attach a node to `output` when grad mode is on and any tensor input requires grad.
pub fn record(op: Op, inputs: &[Operand], output: Tensor) -> Tensor {
    crate::op_trace::primitive(&op, inputs, &output);
    if !is_grad_enabled() {
        return output;
    }
    let needs = inputs.iter().any(|i| match i {
        Operand::Tensor(t) => t.requires_grad(),
        Operand::Scalar(_) => false,
    });
    if !needs || output.dtype() != DType::Float32 {
        return output;
    }
    let versions = inputs
        .iter()
        .map(|i| match i {
            Operand::Tensor(t) => t.version(),
            Operand::Scalar(_) => 0,
        })
        .collect();
    let input_nodes = inputs
        .iter()
        .map(|i| match i {
            Operand::Tensor(t) => t.grad_fn(),
            Operand::Scalar(_) => None,
        })
        .collect();
    let node = Arc::new(Node {
        op,
        input_nodes,
        inputs: inputs.to_vec(),
        output_version: output.version(),
        output: output.detach(),
        freed: AtomicBool::new(false),
        versions,
    });
    {
        let mut meta = output.autograd();
        meta.requires_grad = true;
        meta.node = Some(node);
    }
    output
}

/// Record a user-defined function's output (borch-autograd's `Function`).
pub fn record_custom(f: Arc<dyn BackwardFn>, inputs: &[Tensor], output: Tensor) -> Tensor {
    let inputs: Vec<Operand> = inputs.iter().cloned().map(Operand::Tensor).collect();
    record(Op::Custom(f), &inputs, output)
}

impl Tensor {
    /// torch's `requires_grad`.
    pub fn requires_grad(&self) -> bool {
        self.autograd().requires_grad
    }

    /// torch's `requires_grad_(flag)`; only floating point leaves can change it.
    pub fn set_requires_grad(&self, flag: bool) -> Result<&Tensor> {
        if flag && self.dtype() != DType::Float32 {
            return runtime(
                "only Tensors of floating point and complex dtype can require gradients",
            );
        }
        let mut meta = self.autograd();
        if !flag && meta.node.is_some() {
            return Err(BorchError::Runtime(
                "you can only change requires_grad flags of leaf variables. If you want to use a \
                 computed variable in a subgraph that doesn't require differentiation use \
                 var_no_grad = var.detach()."
                    .into(),
            ));
        }
        meta.requires_grad = flag;
        Ok(self)
    }

    /// torch's `.grad`: the accumulated gradient, if any.
    pub fn grad(&self) -> Option<Tensor> {
        self.autograd().grad.clone()
    }

    /// Set or clear `.grad` (what optimizers' `zero_grad(set_to_none)` and the engine use).
    pub fn set_grad(&self, grad: Option<Tensor>) {
        self.autograd().grad = grad;
    }

    /// torch's `t.grad = grad`, with its checks and torch 2.11's messages: the same dtype and size,
    /// not the tensor itself (borch has no `grad_dtype`).
    /// A scope's released tensor is refused as it is everywhere.
    pub fn assign_grad(&self, grad: Option<Tensor>) -> Result<()> {
        if let Some(g) = &grad {
            g.check_live()?;
            if g.id() == self.id() {
                return Err(BorchError::Runtime(
                    "can't assign Variable as its own grad".into(),
                ));
            }
            if g.dtype() != self.dtype() {
                return Err(BorchError::Runtime(format!(
                    "attempting to assign a gradient with dtype '{}' to a tensor with grad_dtype \
                     '{}'. The gradient must match the tensor's grad_dtype (defaults to the \
                     tensor's dtype). You can set the tensor's grad_dtype attribute with a \
                     specific dtype, or None to allow any dtype. Set grad_dtype with caution. \
                     Diverging the dtypes of a tensor and its gradient may break downstream \
                     systems that assume they match.",
                    g.dtype().cpp_name(),
                    self.dtype().scalar_type_name()
                )));
            }
            if g.shape() != self.shape() {
                return Err(BorchError::Runtime(format!(
                    "attempting to assign a gradient of size '{}' to a tensor of size '{}'. \
                     Please ensure that the gradient and the tensor are the same size",
                    crate::layout::fmt_list(g.shape()),
                    crate::layout::fmt_list(self.shape())
                )));
            }
        }
        self.set_grad(grad);
        Ok(())
    }

    /// torch's `is_leaf`: made by the user, not by a recorded op.
    pub fn is_leaf(&self) -> bool {
        self.autograd().node.is_none()
    }

    /// The node that produced this tensor (torch's `grad_fn`), if recorded.
    pub fn grad_fn(&self) -> Option<Arc<Node>> {
        self.autograd().node.clone()
    }

    /// torch's `retain_grad()`: keep `.grad` for a non-leaf tensor after backward.
    pub fn retain_grad(&self) -> Result<()> {
        let mut meta = self.autograd();
        if !meta.requires_grad {
            return runtime("can't retain_grad on Tensor that has requires_grad=False");
        }
        meta.retains_grad = true;
        Ok(())
    }

    /// torch's `retains_grad`.
    pub fn retains_grad(&self) -> bool {
        self.autograd().retains_grad
    }

    /// torch's `register_hook(fn)`: called with the gradient flowing into this tensor; returning
    /// `Some(g)` replaces it.
    pub fn register_hook(&self, hook: Arc<GradHook>) -> Result<()> {
        let mut meta = self.autograd();
        if !meta.requires_grad {
            return runtime("cannot register a hook on a tensor that doesn't require gradient");
        }
        meta.hooks.push(hook);
        Ok(())
    }

    /// The hooks registered on this tensor.
    pub fn hooks(&self) -> Vec<Arc<GradHook>> {
        self.autograd().hooks.clone()
    }

    /// torch's `detach()`: the same storage and layout, outside the graph.
    pub fn detach(&self) -> Tensor {
        self.with_layout(self.layout().clone())
    }

    /// torch's checks before an in-place write into a tensor autograd tracks: a leaf that
    /// requires grad, or a view of one, is refused with torch's message; a view of a computed
    /// tensor is refused as borch does not rebase views (torch's CopySlices).
    pub(crate) fn check_inplace(&self) -> Result<()> {
        if !is_grad_enabled() || !self.requires_grad() {
            return Ok(());
        }
        let Some(node) = self.grad_fn() else {
            return runtime(
                "a leaf Variable that requires grad is being used in an in-place operation.",
            );
        };
        let mut node = node;
        let mut viewed = false;
        while let Op::View(_) = node.op {
            viewed = true;
            let Some(Operand::Tensor(base)) = node.inputs.first() else {
                break;
            };
            match base.grad_fn() {
                Some(n) => node = n,
                None => {
                    return runtime(
                        "a view of a leaf Variable that requires grad is being used in an \
                         in-place operation.",
                    );
                }
            }
        }
        if viewed {
            return Err(BorchError::NotImplemented(
                "an in-place operation on a view of a tensor that requires grad is not supported \
                 by borch (torch rebases the view's base, CopySlices): clone() the view first or \
                 use the out-of-place op"
                    .into(),
            ));
        }
        Ok(())
    }
}
