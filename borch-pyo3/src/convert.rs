//! Python values to the core's values and back. Arguments follow borch-ts's convention, which
//! the shared Python layer speaks: positional values, then optionally one trailing `dict` holding
//! the keyword arguments (torch's names). Python keeps int, float and bool apart, so no value
//! needs marking (borch-ts's `asFloat`).

use borch_tensor::api::Value;
use borch_tensor::{HostData, Scalar};
use pyo3::IntoPyObjectExt;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

use crate::errors::type_error;
use crate::tensor::PyTensor;

/// How deep lists may nest in an argument.
const MAX_DEPTH: usize = 64;

/// Positional values and keyword values.
pub type Arguments = (Vec<Value>, Vec<(String, Value)>);

/// The Python name of `v`'s type.
pub fn type_name(v: &Bound<'_, PyAny>) -> String {
    v.get_type()
        .name()
        .and_then(|n| n.extract::<String>())
        .unwrap_or_else(|_| "object".into())
}

/// `args` split as borch-ts splits them: a trailing `dict` is the keyword arguments.
pub fn arguments(args: &Bound<'_, PyTuple>) -> PyResult<Arguments> {
    let n = args.len();
    let last = n
        .checked_sub(1)
        .map(|i| args.get_borrowed_item(i))
        .transpose()?;
    let trailing = last.filter(|last| last.is_exact_instance_of::<PyDict>());
    let given = n - usize::from(trailing.is_some());
    let mut positional = Vec::with_capacity(given);
    for item in args.iter_borrowed().take(given) {
        positional.push(value(&item)?);
    }
    let mut keywords = Vec::new();
    if let Some(dict) = trailing {
        for (k, v) in dict.cast::<PyDict>()?.iter() {
            keywords.push((k.extract::<String>()?, value(&v)?));
        }
    }
    Ok((positional, keywords))
}

/// Positional Python objects and keyword (name, object) pairs, not yet converted.
pub type RawArguments<'py> = (Vec<Bound<'py, PyAny>>, Vec<(String, Bound<'py, PyAny>)>);

/// The Python objects of `args`, the trailing `dict` split off as (key, value) pairs.
pub fn raw_arguments<'py>(args: &Bound<'py, PyTuple>) -> PyResult<RawArguments<'py>> {
    let mut items: Vec<Bound<'py, PyAny>> = args.iter().collect();
    let mut keywords = Vec::new();
    if items
        .last()
        .is_some_and(|last| last.is_exact_instance_of::<PyDict>())
        && let Some(last) = items.pop()
    {
        for (k, v) in last.cast::<PyDict>()?.iter() {
            keywords.push((k.extract::<String>()?, v));
        }
    }
    Ok((items, keywords))
}

/// A Python argument as a core value; one no parameter takes is `Value::Other` naming its type,
/// for the binder to refuse with torch's message.
pub fn value(v: &Bound<'_, PyAny>) -> PyResult<Value> {
    value_in(v, 0)
}

fn value_in(v: &Bound<'_, PyAny>, depth: usize) -> PyResult<Value> {
    if let Ok(t) = v.cast::<PyTensor>() {
        return Ok(Value::Tensor(t.borrow().0.clone()));
    }
    if v.is_none() {
        return Ok(Value::None);
    }
    if let Ok(b) = v.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if v.is_instance_of::<PyInt>() {
        return Ok(match v.extract::<i64>() {
            Ok(i) => Value::Int(i),
            Err(_) => Value::Other("int (out of the 64-bit range)".into()),
        });
    }
    if v.is_instance_of::<PyFloat>() {
        return Ok(Value::Float(v.extract::<f64>()?));
    }
    if v.is_instance_of::<PyString>() {
        return Ok(Value::Str(v.extract::<String>()?));
    }
    if v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>() {
        if depth >= MAX_DEPTH {
            return Ok(Value::Other(format!(
                "list (nested more than {MAX_DEPTH} deep)"
            )));
        }
        return v
            .try_iter()?
            .map(|item| value_in(&item?, depth + 1))
            .collect::<PyResult<Vec<_>>>()
            .map(Value::List);
    }
    Ok(Value::Other(type_name(v)))
}

/// A core result as Python: tensors as `Tensor`, lists as tuples, None as None.
pub fn to_py(py: Python<'_>, v: Value) -> PyResult<Py<PyAny>> {
    match v {
        Value::None => Ok(py.None()),
        Value::Bool(b) => b.into_py_any(py),
        Value::Int(i) => i.into_py_any(py),
        Value::Float(x) => x.into_py_any(py),
        Value::Str(s) => s.into_py_any(py),
        Value::Tensor(t) => PyTensor(t).into_py_any(py),
        Value::List(items) => {
            let items = items
                .into_iter()
                .map(|i| to_py(py, i))
                .collect::<PyResult<Vec<_>>>()?;
            PyTuple::new(py, items)?.into_py_any(py)
        }
        Value::Other(name) => Err(type_error(format!("an op returned a {name}"))),
    }
}

/// One element read back, as Python's float, int or bool.
pub fn scalar(py: Python<'_>, s: Scalar) -> PyResult<Py<PyAny>> {
    match s {
        Scalar::Float(x) => x.into_py_any(py),
        Scalar::Int(i) => i.into_py_any(py),
        Scalar::Bool(b) => b.into_py_any(py),
    }
}

/// Read-back data as nested lists of `shape` (torch's `tolist()`), a bare value for 0-d.
pub fn nested(py: Python<'_>, data: &HostData, shape: &[usize]) -> PyResult<Py<PyAny>> {
    let element = |i: usize| -> PyResult<Py<PyAny>> {
        match data {
            HostData::F32(v) => (v[i] as f64).into_py_any(py),
            HostData::I64(v) => v[i].into_py_any(py),
            HostData::Bool(v) => v[i].into_py_any(py),
        }
    };
    fn rows(
        py: Python<'_>,
        dims: &[usize],
        at: &mut usize,
        element: &dyn Fn(usize) -> PyResult<Py<PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        match dims.split_first() {
            None => {
                let v = element(*at)?;
                *at += 1;
                Ok(v)
            }
            Some((&n, rest)) => {
                let items = (0..n)
                    .map(|_| rows(py, rest, at, element))
                    .collect::<PyResult<Vec<_>>>()?;
                PyList::new(py, items)?.into_py_any(py)
            }
        }
    }
    rows(py, shape, &mut 0, &element)
}
