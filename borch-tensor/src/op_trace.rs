//! A recording hook for exporters (borch-onnx): while a [`Tracer`] is installed on this thread,
//! every op reports its name, inputs, attributes and output once, at the level an exporter can
//! name it. Ops that record for autograd report through [`crate::autograd::record`] (the
//! [`Op`] itself); ops that are composed of others (convolution, pooling, batch norm) open a
//! [`Span`] and report themselves with their attributes, and what they do inside is not
//! reported. `enter_module` / `exit_module` let containers say which module runs, by identity.
//!
//! With no tracer installed each hook is one thread-local read.

use std::cell::{Cell, RefCell};

use crate::autograd::Op;
use crate::scalar::Operand;
use crate::tensor::Tensor;

/// An attribute of a reported op.
#[derive(Debug, Clone, PartialEq)]
pub enum Attr {
    /// An int.
    Int(i64),
    /// A list of ints.
    Ints(Vec<i64>),
    /// A float.
    Float(f64),
    /// A list of floats.
    Floats(Vec<f64>),
    /// A bool.
    Bool(bool),
    /// A string.
    Str(String),
}

/// One reported op. `op` is the autograd op for primitives, `None` for a [`Span`]'s report;
/// `None` among the inputs is an optional input not given (a convolution without bias).
pub struct TracedOp<'a> {
    /// torch's name of the op.
    pub name: &'a str,
    /// The autograd op, for primitives.
    pub op: Option<&'a Op>,
    /// The inputs in torch's order.
    pub inputs: &'a [Option<Operand>],
    /// The attributes by torch's argument names.
    pub attrs: &'a [(&'static str, Attr)],
    /// The output.
    pub output: &'a Tensor,
}

/// What an exporter installs for one traced call.
pub trait Tracer {
    /// One op ran.
    fn op(&mut self, op: TracedOp<'_>);
    /// A module (identified by the address of its `dyn Module` data) starts its forward.
    fn enter_module(&mut self, module: usize);
    /// The module that started last ends its forward.
    fn exit_module(&mut self);
}

thread_local! {
    static TRACER: RefCell<Option<Box<dyn Tracer>>> = RefCell::new(None);
    static DEPTH: Cell<usize> = const { Cell::new(0) };
    static ACTIVE: Cell<bool> = const { Cell::new(false) };
}

/// Run `f` with `tracer` installed on this thread; returns `f`'s result and the tracer. An
/// installed tracer already there is kept aside and restored after.
pub fn with_tracer<R>(tracer: Box<dyn Tracer>, f: impl FnOnce() -> R) -> (R, Box<dyn Tracer>) {
    /// Puts the thread's previous state back, also when `f` unwinds.
    struct Restore {
        previous: Option<Box<dyn Tracer>>,
        was_active: bool,
        depth: usize,
    }
    impl Drop for Restore {
        fn drop(&mut self) {
            DEPTH.with(|d| d.set(self.depth));
            ACTIVE.with(|a| a.set(self.was_active));
            let previous = self.previous.take();
            TRACER.with(|t| *t.borrow_mut() = previous);
        }
    }
    let restore = Restore {
        previous: TRACER.with(|t| t.borrow_mut().replace(tracer)),
        was_active: ACTIVE.with(|a| a.replace(true)),
        depth: DEPTH.with(|d| d.replace(0)),
    };
    let r = f();
    let mine = TRACER.with(|t| t.borrow_mut().take());
    drop(restore);
    (r, mine.expect("the tracer installed by with_tracer"))
}

fn reporting() -> bool {
    ACTIVE.with(Cell::get) && DEPTH.with(Cell::get) == 0
}

fn report(op: TracedOp<'_>) {
    TRACER.with(|t| {
        if let Ok(mut t) = t.try_borrow_mut()
            && let Some(t) = t.as_mut()
        {
            t.op(op);
        }
    });
}

/// Called by `autograd::record` for every primitive op.
pub(crate) fn primitive(op: &Op, inputs: &[Operand], output: &Tensor) {
    if reporting() {
        let name = op.name();
        let inputs: Vec<Option<Operand>> = inputs.iter().cloned().map(Some).collect();
        report(TracedOp {
            name: &name,
            op: Some(op),
            inputs: &inputs,
            attrs: &[],
            output,
        });
    }
}

/// A composed op in progress: ops run inside it are not reported; [`Span::finish`] reports it.
pub struct Span {
    open: bool,
}

impl Span {
    /// Open a span when a tracer is installed and no span is open.
    pub fn begin() -> Span {
        let open = reporting();
        if open {
            DEPTH.with(|d| d.set(d.get() + 1));
        }
        Span { open }
    }

    /// Whether this span reports (a tracer is installed and no outer span is open).
    pub fn is_open(&self) -> bool {
        self.open
    }

    /// Report the op (when this span is the outermost one) and pass its result through.
    pub fn finish(
        mut self,
        name: &str,
        inputs: &[Option<&Tensor>],
        attrs: Vec<(&'static str, Attr)>,
        output: crate::Result<Tensor>,
    ) -> crate::Result<Tensor> {
        if !self.open {
            return output;
        }
        self.close();
        if let Ok(out) = &output {
            let inputs: Vec<Option<Operand>> = inputs
                .iter()
                .map(|t| t.map(|t| Operand::Tensor(t.clone())))
                .collect();
            report(TracedOp {
                name,
                op: None,
                inputs: &inputs,
                attrs: &attrs,
                output: out,
            });
        }
        output
    }

    fn close(&mut self) {
        if self.open {
            self.open = false;
            DEPTH.with(|d| d.set(d.get() - 1));
        }
    }
}

impl Drop for Span {
    fn drop(&mut self) {
        self.close();
    }
}

/// A module's forward, by identity, while a tracer is installed (containers call it around
/// each child); the guard ends it.
pub struct ModuleScope {
    open: bool,
}

/// Report that `module` (the address of its `dyn Module` data) starts its forward; dropping
/// the guard reports its end.
pub fn enter_module(module: usize) -> ModuleScope {
    let open = reporting();
    if open {
        TRACER.with(|t| {
            if let Ok(mut t) = t.try_borrow_mut()
                && let Some(t) = t.as_mut()
            {
                t.enter_module(module);
            }
        });
    }
    ModuleScope { open }
}

impl Drop for ModuleScope {
    fn drop(&mut self) {
        if self.open {
            TRACER.with(|t| {
                if let Ok(mut t) = t.try_borrow_mut()
                    && let Some(t) = t.as_mut()
                {
                    t.exit_module();
                }
            });
        }
    }
}

/// `values` as an `Ints` attribute.
pub fn ints<T: Copy + TryInto<i64>>(values: &[T]) -> Attr {
    Attr::Ints(
        values
            .iter()
            .map(|v| (*v).try_into().unwrap_or(i64::MAX))
            .collect(),
    )
}
