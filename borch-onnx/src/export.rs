//! `export(module, sample_inputs, options)`: trace one eval forward with the recording hook of
//! borch-tensor (`op_trace`), lower each reported op to ONNX nodes, keep what the outputs
//! need, and write the model (opset 17, IR version 8) through prost.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use borch_nn::{Module, module_id};
use borch_tensor::{BorchError, DType, Result, Tensor, op_trace};
use prost::Message;

use crate::graph::{Graph, tensor_proto, value_info};
use crate::lower::{Lowerer, Names, Val};
use crate::onnx_pb::{GraphProto, ModelProto, OperatorSetIdProto, ValueInfoProto};
use crate::recorder::{Recorded, Recorder};

/// The opset borch-onnx writes.
pub const OPSET: i64 = 17;
/// ONNX IR version 8 (the one of opset 17).
pub const IR_VERSION: i64 = 8;

/// torch's `dynamic_axes`: value name → its dynamic axes as (axis, symbolic name).
pub type DynamicAxes = Vec<(String, Vec<(usize, String)>)>;

/// torch.onnx.export's options that borch honours.
#[derive(Debug, Clone, Default)]
pub struct ExportOptions {
    /// Names of the graph inputs in order (default `input`, or `input_0`, `input_1`, …).
    pub input_names: Vec<String>,
    /// Names of the graph outputs (default `output`).
    pub output_names: Vec<String>,
    /// torch's `dynamic_axes`: value name → (axis, symbolic name). `None` makes dim 0 of every
    /// input and of the output a dynamic `batch`; `Some(vec![])` exports static shapes.
    pub dynamic_axes: Option<DynamicAxes>,
    /// Must be 17 when given (torch's `opset_version`).
    pub opset_version: Option<i64>,
}

/// A traced model whose initializer values are still on the device.
pub struct Traced {
    graph: Graph,
    inputs: Vec<ValueInfoProto>,
    outputs: Vec<ValueInfoProto>,
}

fn value_err(msg: String) -> BorchError {
    BorchError::Value(msg)
}

fn names_or(given: &[String], n: usize, base: &str) -> Result<Vec<String>> {
    if given.len() > n {
        return Err(value_err(format!(
            "ONNX export: {} {base} names given for {n} {base}s",
            given.len()
        )));
    }
    let mut out: Vec<String> = given.to_vec();
    for i in given.len()..n {
        out.push(if n == 1 {
            base.to_string()
        } else {
            format!("{base}_{i}")
        });
    }
    for name in &out {
        if name.is_empty() || name.chars().any(char::is_control) {
            return Err(value_err(format!(
                "ONNX export: invalid {base} name {name:?}"
            )));
        }
    }
    Ok(out)
}

/// For every graph input and output, its dims with a symbolic name where dynamic.
fn dims_of(
    name: &str,
    shape: &[usize],
    dynamic: &Option<DynamicAxes>,
    default_batch: bool,
) -> Vec<(usize, Option<String>)> {
    shape
        .iter()
        .enumerate()
        .map(|(i, &d)| {
            let sym = match dynamic {
                None => (i == 0 && default_batch).then(|| "batch".to_string()),
                Some(axes) => axes
                    .iter()
                    .filter(|(n, _)| n == name)
                    .flat_map(|(_, a)| a.iter())
                    .find(|(axis, _)| *axis == i)
                    .map(|(_, s)| s.clone()),
            };
            (d, sym)
        })
        .collect()
}

/// Trace `module`'s eval forward on `sample_inputs` and build the ONNX graph.
pub fn trace(
    module: &dyn Module,
    sample_inputs: &[&Tensor],
    options: &ExportOptions,
) -> Result<Traced> {
    if let Some(v) = options.opset_version
        && v != OPSET
    {
        return Err(BorchError::NotImplemented(format!(
            "ONNX export: opset_version {v} is not supported: borch-onnx writes opset {OPSET}"
        )));
    }
    if sample_inputs.is_empty() {
        return Err(value_err(
            "ONNX export needs at least one sample input".into(),
        ));
    }
    let input_names = names_or(&options.input_names, sample_inputs.len(), "input")?;
    let output_names = names_or(&options.output_names, 1, "output")?;
    let mut seen = HashSet::new();
    for n in input_names.iter().chain(&output_names) {
        if !seen.insert(n) {
            return Err(value_err(format!(
                "ONNX export: the name '{n}' is given twice"
            )));
        }
    }
    if let Some(axes) = &options.dynamic_axes {
        for (name, list) in axes {
            let shape = match input_names.iter().position(|n| n == name) {
                Some(i) => Some(sample_inputs[i].dim()),
                None if output_names.contains(name) => None,
                None => {
                    return Err(value_err(format!(
                        "ONNX export: dynamic_axes names '{name}', which is neither an input nor an output"
                    )));
                }
            };
            for (axis, sym) in list {
                if shape.is_some_and(|r| *axis >= r) || sym.is_empty() {
                    return Err(value_err(format!(
                        "ONNX export: dynamic axis {axis} ('{sym}') of '{name}' is out of range"
                    )));
                }
            }
        }
    }
    for (path, m) in module.named_modules() {
        if m.is_training() {
            let at = if path.is_empty() {
                "the root module".to_string()
            } else {
                format!("module '{path}'")
            };
            return Err(BorchError::Runtime(format!(
                "ONNX export traces the eval forward, but {at} ({}) is in training mode: call \
                 model.eval() first",
                m.name()
            )));
        }
    }
    let mut params = HashMap::new();
    for (name, t) in module
        .named_parameters()
        .into_iter()
        .chain(module.named_buffers())
    {
        params.entry(t.id()).or_insert(name);
    }
    let modules = module
        .named_modules()
        .into_iter()
        .map(|(p, m)| (module_id(m), (p, m.name())))
        .collect();
    let names = Names {
        params,
        modules,
        root_class: module.name(),
    };
    // Graph inputs: float inputs require grad so that a tensor made from them by an op the
    // hook does not see is recognised (it has a grad_fn) instead of frozen into a constant.
    let mut inputs = Vec::new();
    for s in sample_inputs {
        let x = if s.dtype() == DType::Float32 {
            let leaf = s.detach();
            leaf.set_requires_grad(true)?;
            leaf.mul(1.0)?
        } else {
            s.detach()
        };
        inputs.push(x);
    }
    let refs: Vec<&Tensor> = inputs.iter().collect();
    let previous = borch_tensor::set_grad_enabled(true);
    let recorded = Rc::new(RefCell::new(Recorded::default()));
    let (out, _) = op_trace::with_tracer(Box::new(Recorder(recorded.clone())), || {
        module.forward_args(&refs)
    });
    borch_tensor::set_grad_enabled(previous);
    let output = out?;
    let recorder = recorded.borrow();

    let mut graph = Graph::new();
    let mut in_infos = Vec::new();
    let mut values = HashMap::new();
    let batch_default = options.dynamic_axes.is_none();
    for ((x, name), s) in inputs.iter().zip(&input_names).zip(sample_inputs) {
        graph.reserve(name);
        let dims = dims_of(name, s.shape(), &options.dynamic_axes, batch_default);
        let dyn0 = dims.first().is_some_and(|(_, p)| p.is_some());
        values.insert(
            x.id(),
            Val {
                name: name.clone(),
                dyn0,
            },
        );
        in_infos.push(value_info(name, s.dtype(), &dims));
    }
    for n in &output_names {
        graph.reserve(n);
    }
    let mut lowerer = Lowerer {
        g: &mut graph,
        values,
        names: &names,
        expanded_from: HashMap::new(),
        batch: inputs
            .iter()
            .zip(&in_infos)
            .find(|(_, info)| info_dyn0(info))
            .and_then(|(x, _)| x.shape().first().copied()),
        batch_input: inputs
            .iter()
            .zip(&in_infos)
            .zip(&input_names)
            .find(|((_, info), _)| info_dyn0(info))
            .map(|(_, name)| Val {
                name: name.clone(),
                dyn0: true,
            }),
        batch_dim: HashMap::new(),
        scaled0: Default::default(),
    };
    for rec in &recorder.ops {
        lowerer.lower(rec)?;
    }
    let root = lowerer.ctx_root();
    let out_val = lowerer.value(&output, &root)?;
    let out_name = &output_names[0];
    let produced = graph.nodes.iter().any(|n| n.output.contains(&out_val.name));
    if produced {
        rename(&mut graph, &out_val.name, out_name);
    } else {
        graph.node("", "Identity", &[&out_val.name], vec![]);
        let last = graph.nodes.len() - 1;
        graph.nodes[last].output = vec![out_name.clone()];
    }
    prune(&mut graph, out_name);
    let dims = dims_of(
        out_name,
        output.shape(),
        &options.dynamic_axes,
        batch_default && out_val.dyn0,
    );
    let outputs = vec![value_info(out_name, output.dtype(), &dims)];
    Ok(Traced {
        graph,
        inputs: in_infos,
        outputs,
    })
}

fn info_dyn0(info: &ValueInfoProto) -> bool {
    use crate::onnx_pb::tensor_shape_proto::dimension::Value as Dim;
    use crate::onnx_pb::type_proto::Value as Ty;
    match info.r#type.as_ref().and_then(|t| t.value.as_ref()) {
        Some(Ty::TensorType(t)) => t
            .shape
            .as_ref()
            .and_then(|s| s.dim.first())
            .is_some_and(|d| matches!(d.value, Some(Dim::DimParam(_)))),
        _ => false,
    }
}

fn rename(g: &mut Graph, from: &str, to: &str) {
    for n in &mut g.nodes {
        for s in n.input.iter_mut().chain(n.output.iter_mut()) {
            if s == from {
                *s = to.to_string();
            }
        }
    }
}

/// Keep only the nodes and initializers the output needs.
fn prune(g: &mut Graph, output: &str) {
    let mut needed: HashSet<String> = HashSet::from([output.to_string()]);
    let mut keep = vec![false; g.nodes.len()];
    for (i, n) in g.nodes.iter().enumerate().rev() {
        if n.output.iter().any(|o| needed.contains(o)) {
            keep[i] = true;
            needed.extend(n.input.iter().cloned());
        }
    }
    let mut k = keep.into_iter();
    g.nodes.retain(|_| k.next().unwrap_or(false));
    g.inits
        .retain(|t| t.name.as_ref().is_some_and(|n| needed.contains(n)));
    g.tensor_inits.retain(|(n, _)| needed.contains(n));
}

impl Traced {
    /// The ONNX model's bytes (reads the initializers' values from the device).
    pub async fn to_bytes(self) -> Result<Vec<u8>> {
        let Traced {
            graph,
            inputs,
            outputs,
        } = self;
        let mut initializer = graph.inits;
        for (name, t) in &graph.tensor_inits {
            let host = t.to_host().await?;
            initializer.push(tensor_proto(name, t.shape(), &host));
        }
        let model = ModelProto {
            ir_version: Some(IR_VERSION),
            opset_import: vec![OperatorSetIdProto {
                domain: Some(String::new()),
                version: Some(OPSET),
            }],
            producer_name: Some("borch".into()),
            producer_version: Some(env!("CARGO_PKG_VERSION").into()),
            graph: Some(GraphProto {
                node: graph.nodes,
                name: Some("main_graph".into()),
                initializer,
                input: inputs,
                output: outputs,
                ..Default::default()
            }),
            ..Default::default()
        };
        Ok(model.encode_to_vec())
    }
}

/// torch.onnx.export: the ONNX bytes of `module`'s eval forward traced on `sample_inputs`.
pub async fn export(
    module: &dyn Module,
    sample_inputs: &[&Tensor],
    options: &ExportOptions,
) -> Result<Vec<u8>> {
    trace(module, sample_inputs, options)?.to_bytes().await
}

/// [`export`] for native callers.
#[cfg(not(target_arch = "wasm32"))]
pub fn export_blocking(
    module: &dyn Module,
    sample_inputs: &[&Tensor],
    options: &ExportOptions,
) -> Result<Vec<u8>> {
    pollster::block_on(export(module, sample_inputs, options))
}
