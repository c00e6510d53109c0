//! Reading golden.json: inputs (tensors through view chains, or scalars), args, expectations.

use borch_tensor::{DType, HostData, Operand, Result, Scalar, Tensor};
use serde_json::Value;

pub struct Case {
    pub name: String,
    pub op: String,
    pub family: String,
    pub inputs: Vec<Value>,
    pub args: Value,
    pub expect: Option<Vec<Value>>,
    pub error: Option<Value>,
    /// Backward cases: the gradient fed to `out[0]` and torch's gradient of each input's base.
    pub backward: Option<(Value, Vec<Value>)>,
}

pub fn load(path: &std::path::Path) -> Vec<Case> {
    let text = std::fs::read_to_string(path).expect("golden.json is committed");
    let root: Value = serde_json::from_str(&text).expect("golden.json parses");
    root["cases"]
        .as_array()
        .expect("cases array")
        .iter()
        .map(|c| Case {
            name: c["name"].as_str().unwrap_or_default().to_string(),
            op: c["op"].as_str().unwrap_or_default().to_string(),
            family: c["family"].as_str().unwrap_or_default().to_string(),
            inputs: c["inputs"].as_array().cloned().unwrap_or_default(),
            args: c["args"].clone(),
            expect: c["expect"].as_array().cloned(),
            error: c.get("error").cloned(),
            backward: (c["kind"].as_str() == Some("backward")).then(|| {
                (
                    c["grad_output"].clone(),
                    c["grads"].as_array().cloned().unwrap_or_default(),
                )
            }),
        })
        .collect()
}

pub fn number(v: &Value) -> f64 {
    match v {
        Value::String(s) if s == "nan" => f64::NAN,
        Value::String(s) if s == "inf" => f64::INFINITY,
        Value::String(s) if s == "-inf" => f64::NEG_INFINITY,
        Value::Bool(b) => f64::from(u8::from(*b)),
        other => other.as_f64().unwrap_or(f64::NAN),
    }
}

pub fn dtype(name: &str) -> DType {
    DType::from_name(name).unwrap_or_else(|| panic!("golden dtype {name} unknown"))
}

/// An encoded tensor's host data and shape.
pub fn host(v: &Value) -> (HostData, Vec<usize>) {
    let shape: Vec<usize> = v["shape"]
        .as_array()
        .map(|a| a.iter().map(|d| d.as_u64().unwrap_or(0) as usize).collect())
        .unwrap_or_default();
    let data = v["data"].as_array().cloned().unwrap_or_default();
    let host = match dtype(v["dtype"].as_str().unwrap_or("float32")) {
        DType::Float32 => HostData::F32(data.iter().map(|x| number(x) as f32).collect()),
        DType::Int64 => HostData::I64(data.iter().map(|x| x.as_i64().unwrap_or(0)).collect()),
        DType::Bool => HostData::Bool(data.iter().map(|x| x.as_bool().unwrap_or(false)).collect()),
    };
    (host, shape)
}

fn dims(v: &Value) -> Vec<isize> {
    v.as_array()
        .map(|a| a.iter().map(|d| d.as_i64().unwrap_or(0) as isize).collect())
        .unwrap_or_default()
}

fn int(v: &Value) -> isize {
    v.as_i64().unwrap_or(0) as isize
}

fn opt_int(v: &Value) -> Option<isize> {
    v.as_i64().map(|x| x as isize)
}

/// Apply one view step of the chain, as families/common.py's apply_view does in torch.
fn view_step(t: &Tensor, step: &[Value]) -> Result<Tensor> {
    let a = &step[1..];
    match step[0].as_str().unwrap_or_default() {
        "t" => t.t(),
        "transpose" => t.transpose(int(&a[0]), int(&a[1])),
        "permute" => t.permute(&dims(&a[0])),
        "slice" => t.slice(
            int(&a[0]),
            opt_int(&a[1]),
            opt_int(&a[2]),
            a[3].as_i64().unwrap_or(1) as isize,
        ),
        "expand" => t.expand(&dims(&a[0])),
        "select" => t.select(int(&a[0]), int(&a[1])),
        "unsqueeze" => t.unsqueeze(int(&a[0])),
        "reshape" => t.reshape(&dims(&a[0])),
        "narrow" => t.narrow(int(&a[0]), int(&a[1]), a[2].as_u64().unwrap_or(0) as usize),
        other => panic!("unknown view step {other}"),
    }
}

/// Build a case's inputs: tensors with their view chain applied, or scalars.
pub fn operands(inputs: &[Value]) -> Result<Vec<Operand>> {
    Ok(leaves(inputs, false)?.0)
}

/// Inputs as `operands` does, and each float tensor input's base (before its view chain),
/// which requires grad when `requires_grad`.
pub fn leaves(
    inputs: &[Value],
    requires_grad: bool,
) -> Result<(Vec<Operand>, Vec<Option<Tensor>>)> {
    let mut operands = Vec::new();
    let mut bases = Vec::new();
    for i in inputs {
        if let Some(s) = i.get("scalar") {
            operands.push(Operand::Scalar(match i["kind"].as_str() {
                Some("bool") => Scalar::Bool(s.as_bool().unwrap_or(false)),
                Some("int") => Scalar::Int(s.as_i64().unwrap_or(0)),
                _ => Scalar::Float(number(s)),
            }));
            bases.push(None);
            continue;
        }
        let (data, shape) = host(&i["tensor"]);
        let base = Tensor::from_host(&data, &shape)?;
        let float = base.dtype() == DType::Float32;
        if requires_grad && float {
            base.set_requires_grad(true)?;
        }
        let mut t = base.clone();
        for step in i["view"].as_array().into_iter().flatten() {
            t = view_step(&t, step.as_array().map(Vec::as_slice).unwrap_or_default())?;
        }
        operands.push(Operand::Tensor(t));
        bases.push(float.then_some(base));
    }
    Ok((operands, bases))
}

/// Typed access to a case's args.
pub struct Args<'a>(pub &'a Value);

impl Args<'_> {
    pub fn get(&self, k: &str) -> &Value {
        &self.0[k]
    }
    pub fn has(&self, k: &str) -> bool {
        self.0.get(k).is_some_and(|v| !v.is_null())
    }
    pub fn int(&self, k: &str) -> isize {
        int(&self.0[k])
    }
    pub fn opt_int(&self, k: &str) -> Option<isize> {
        opt_int(&self.0[k])
    }
    pub fn usize(&self, k: &str) -> usize {
        self.0[k].as_u64().unwrap_or(0) as usize
    }
    pub fn f64(&self, k: &str) -> f64 {
        number(&self.0[k])
    }
    pub fn opt_f64(&self, k: &str) -> Option<f64> {
        self.has(k).then(|| number(&self.0[k]))
    }
    #[allow(dead_code)] // for families with boolean args (keepdim, descending, …)
    pub fn bool(&self, k: &str) -> bool {
        self.0[k].as_bool().unwrap_or(false)
    }
    pub fn dims(&self, k: &str) -> Vec<isize> {
        dims(&self.0[k])
    }
    pub fn shape(&self, k: &str) -> Vec<usize> {
        dims(&self.0[k]).into_iter().map(|d| d as usize).collect()
    }
    #[allow(dead_code)] // for families with string args (reduction, mode, …)
    pub fn str(&self, k: &str) -> Option<&str> {
        self.0[k].as_str()
    }
    pub fn dtype(&self, k: &str) -> Option<DType> {
        self.0[k].as_str().map(dtype)
    }
    /// A number arg as a Scalar of its JSON kind (int stays int, bool stays bool).
    pub fn scalar(&self, k: &str) -> Scalar {
        match &self.0[k] {
            Value::Bool(b) => Scalar::Bool(*b),
            v if v.is_i64() => Scalar::Int(v.as_i64().unwrap_or(0)),
            v => Scalar::Float(number(v)),
        }
    }
}
