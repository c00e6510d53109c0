//! The tracer installed for the one traced forward: it keeps each reported op (with clones of
//! its tensors, so ids stay taken) and the module running when it was reported.

use std::cell::RefCell;
use std::rc::Rc;

use borch_tensor::op_trace::{Attr, TracedOp, Tracer};
use borch_tensor::{Op, Operand, Tensor};

/// One op as the forward reported it.
pub struct Rec {
    pub name: String,
    pub op: Option<Op>,
    pub inputs: Vec<Option<Operand>>,
    pub attrs: Vec<(&'static str, Attr)>,
    pub output: Tensor,
    /// The innermost module (by identity) whose forward was running, if a container said so.
    pub module: Option<usize>,
}

#[derive(Default)]
pub struct Recorded {
    pub ops: Vec<Rec>,
    stack: Vec<usize>,
}

/// The installed tracer; the caller keeps another handle on what it records.
pub struct Recorder(pub Rc<RefCell<Recorded>>);

impl Tracer for Recorder {
    fn op(&mut self, op: TracedOp<'_>) {
        let mut s = self.0.borrow_mut();
        let module = s.stack.last().copied();
        s.ops.push(Rec {
            name: op.name.to_string(),
            op: op.op.cloned(),
            inputs: op.inputs.to_vec(),
            attrs: op.attrs.to_vec(),
            output: op.output.clone(),
            module,
        });
    }
    fn enter_module(&mut self, module: usize) {
        self.0.borrow_mut().stack.push(module);
    }
    fn exit_module(&mut self) {
        self.0.borrow_mut().stack.pop();
    }
}

/// `attrs[name]` as ints (empty when absent).
pub fn ints(attrs: &[(&'static str, Attr)], name: &str) -> Vec<i64> {
    match attrs.iter().find(|(k, _)| *k == name) {
        Some((_, Attr::Ints(v))) => v.clone(),
        Some((_, Attr::Int(i))) => vec![*i],
        _ => Vec::new(),
    }
}

pub fn int(attrs: &[(&'static str, Attr)], name: &str) -> Option<i64> {
    match attrs.iter().find(|(k, _)| *k == name) {
        Some((_, Attr::Int(i))) => Some(*i),
        _ => None,
    }
}

pub fn float(attrs: &[(&'static str, Attr)], name: &str) -> Option<f64> {
    match attrs.iter().find(|(k, _)| *k == name) {
        Some((_, Attr::Float(f))) => Some(*f),
        _ => None,
    }
}

pub fn flag(attrs: &[(&'static str, Attr)], name: &str) -> bool {
    matches!(
        attrs.iter().find(|(k, _)| *k == name),
        Some((_, Attr::Bool(true)))
    )
}

pub fn floats(attrs: &[(&'static str, Attr)], name: &str) -> Option<Vec<f64>> {
    match attrs.iter().find(|(k, _)| *k == name) {
        Some((_, Attr::Floats(v))) => Some(v.clone()),
        _ => None,
    }
}

pub fn string<'a>(attrs: &'a [(&'static str, Attr)], name: &str) -> &'a str {
    match attrs.iter().find(|(k, _)| *k == name) {
        Some((_, Attr::Str(s))) => s,
        _ => "",
    }
}
