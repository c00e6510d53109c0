//! The ONNX graph being built: nodes, initializers (with the tensors whose values they take,
//! read once the trace is done), constants, and the graph's inputs and outputs, as prost
//! messages of the ONNX schema.

use std::collections::HashMap;

use borch_tensor::{DType, HostData, Tensor};

use crate::onnx_pb::attribute_proto::AttributeType;
use crate::onnx_pb::tensor_proto::DataType;
use crate::onnx_pb::tensor_shape_proto::{Dimension, dimension};
use crate::onnx_pb::type_proto;
use crate::onnx_pb::{
    AttributeProto, NodeProto, TensorProto, TensorShapeProto, TypeProto, ValueInfoProto,
};

/// An attribute value of a node.
pub enum A {
    I(i64),
    Is(Vec<i64>),
    F(f32),
    S(&'static str),
}

pub struct Graph {
    pub nodes: Vec<NodeProto>,
    /// Initializers whose values come from a tensor (parameters, buffers, constants made
    /// inside the forward), in order of first use: (name, tensor).
    pub tensor_inits: Vec<(String, Tensor)>,
    /// Initializers with their values already known (shapes, axes, scalars).
    pub inits: Vec<TensorProto>,
    used_names: HashMap<String, usize>,
}

pub fn elem_type(dtype: DType) -> i32 {
    match dtype {
        DType::Float32 => DataType::Float as i32,
        DType::Int64 => DataType::Int64 as i32,
        DType::Bool => DataType::Bool as i32,
    }
}

/// A tensor value's type: `dims` with `Some(param)` for a symbolic dim.
pub fn value_info(name: &str, dtype: DType, dims: &[(usize, Option<String>)]) -> ValueInfoProto {
    let dim = dims
        .iter()
        .map(|(n, p)| Dimension {
            denotation: None,
            value: Some(match p {
                Some(p) => dimension::Value::DimParam(p.clone()),
                None => dimension::Value::DimValue(*n as i64),
            }),
        })
        .collect();
    ValueInfoProto {
        name: Some(name.to_string()),
        r#type: Some(TypeProto {
            denotation: None,
            value: Some(type_proto::Value::TensorType(type_proto::Tensor {
                elem_type: Some(elem_type(dtype)),
                shape: Some(TensorShapeProto { dim }),
            })),
        }),
        ..Default::default()
    }
}

/// An initializer from host values.
pub fn tensor_proto(name: &str, dims: &[usize], data: &HostData) -> TensorProto {
    let mut t = TensorProto {
        name: Some(name.to_string()),
        dims: dims.iter().map(|&d| d as i64).collect(),
        ..Default::default()
    };
    match data {
        HostData::F32(v) => {
            t.data_type = Some(DataType::Float as i32);
            t.raw_data = Some(v.iter().flat_map(|x| x.to_le_bytes()).collect());
        }
        HostData::I64(v) => {
            t.data_type = Some(DataType::Int64 as i32);
            t.raw_data = Some(v.iter().flat_map(|x| x.to_le_bytes()).collect());
        }
        HostData::Bool(v) => {
            t.data_type = Some(DataType::Bool as i32);
            t.raw_data = Some(v.iter().map(|&b| b as u8).collect());
        }
    }
    t
}

impl Graph {
    pub fn new() -> Graph {
        Graph {
            nodes: Vec::new(),
            tensor_inits: Vec::new(),
            inits: Vec::new(),
            used_names: HashMap::new(),
        }
    }

    /// `base`, or `base_1`, `base_2`, … when taken.
    pub fn unique(&mut self, base: &str) -> String {
        let n = self.used_names.entry(base.to_string()).or_insert(0);
        *n += 1;
        if *n == 1 {
            base.to_string()
        } else {
            format!("{base}_{}", *n - 1)
        }
    }

    /// Reserve `name` exactly (graph inputs, outputs, parameter names).
    pub fn reserve(&mut self, name: &str) {
        self.used_names.entry(name.to_string()).or_insert(1);
    }

    /// A node `op_type` named after `scope`; returns its output names (`outputs` of them).
    pub fn node(
        &mut self,
        scope: &str,
        op_type: &str,
        inputs: &[&str],
        attrs: Vec<(&str, A)>,
    ) -> String {
        let name = self.unique(&format!("{scope}/{op_type}"));
        let output = self.unique(&format!("{name}_output_0"));
        let attribute = attrs.into_iter().map(|(k, v)| attribute(k, v)).collect();
        self.nodes.push(NodeProto {
            input: inputs.iter().map(|s| s.to_string()).collect(),
            output: vec![output.clone()],
            name: Some(name),
            op_type: Some(op_type.to_string()),
            attribute,
            ..Default::default()
        });
        output
    }

    /// An int64 constant (shapes, axes, indices) as an initializer; `dims` empty for a scalar.
    pub fn ints(&mut self, scope: &str, values: &[i64], dims: &[usize]) -> String {
        let name = self.unique(&format!("{scope}/Constant_output_0"));
        let data = HostData::I64(values.to_vec());
        self.inits.push(tensor_proto(&name, dims, &data));
        name
    }

    /// A scalar constant of `dtype`.
    pub fn scalar(&mut self, scope: &str, value: f64, dtype: DType) -> String {
        let name = self.unique(&format!("{scope}/Constant_output_0"));
        let data = match dtype {
            DType::Float32 => HostData::F32(vec![value as f32]),
            DType::Int64 => HostData::I64(vec![value as i64]),
            DType::Bool => HostData::Bool(vec![value != 0.0]),
        };
        self.inits.push(tensor_proto(&name, &[], &data));
        name
    }

    /// A 1-D float constant.
    pub fn floats(&mut self, scope: &str, values: &[f32]) -> String {
        let name = self.unique(&format!("{scope}/Constant_output_0"));
        let data = HostData::F32(values.to_vec());
        self.inits.push(tensor_proto(&name, &[values.len()], &data));
        name
    }

    /// A float constant filled with `value`, of shape `dims`.
    pub fn filled(&mut self, scope: &str, value: f32, dims: &[usize]) -> String {
        let name = self.unique(&format!("{scope}/Constant_output_0"));
        let n: usize = dims.iter().product();
        self.inits
            .push(tensor_proto(&name, dims, &HostData::F32(vec![value; n])));
        name
    }
}

fn attribute(name: &str, v: A) -> AttributeProto {
    let mut a = AttributeProto {
        name: Some(name.to_string()),
        ..Default::default()
    };
    match v {
        A::I(i) => {
            a.r#type = Some(AttributeType::Int as i32);
            a.i = Some(i);
        }
        A::Is(is) => {
            a.r#type = Some(AttributeType::Ints as i32);
            a.ints = is;
        }
        A::F(f) => {
            a.r#type = Some(AttributeType::Float as i32);
            a.f = Some(f);
        }
        A::S(s) => {
            a.r#type = Some(AttributeType::String as i32);
            a.s = Some(s.as_bytes().to_vec());
        }
    }
    a
}
