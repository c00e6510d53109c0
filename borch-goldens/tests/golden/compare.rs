//! One tolerance for every case: atol 1e-4 and rtol 1e-4 for floats (NaN matches NaN, infinities
//! match exactly), exact for int64 and bool; dtype and shape must match.

use borch_tensor::{BorchError, ErrorKind, HostData, Tensor};
use serde_json::Value;

use crate::case::{dtype, host};

pub const ATOL: f64 = 1e-4;
pub const RTOL: f64 = 1e-4;

/// Read every tensor back (index errors found on the GPU arrive here, as on CUDA).
pub fn read(tensors: &[Tensor]) -> borch_tensor::Result<Vec<HostData>> {
    tensors.iter().map(Tensor::to_host_blocking).collect()
}

/// `got` tensors with their read-back `data`, against torch's encoded outputs.
pub fn outputs(got: &[Tensor], data: &[HostData], expect: &[Value]) -> Result<(), String> {
    if got.len() != expect.len() {
        return Err(format!(
            "{} outputs, torch gave {}",
            got.len(),
            expect.len()
        ));
    }
    for (i, ((g, have), e)) in got.iter().zip(data).zip(expect).enumerate() {
        let (want, shape) = host(e);
        let want_dtype = dtype(e["dtype"].as_str().unwrap_or_default());
        if g.dtype() != want_dtype {
            return Err(format!(
                "output {i}: dtype {} but torch {}",
                g.dtype(),
                want_dtype
            ));
        }
        if g.shape() != shape.as_slice() {
            return Err(format!(
                "output {i}: shape {:?} but torch {:?}",
                g.shape(),
                shape
            ));
        }
        values(have, &want).map_err(|m| format!("output {i}: {m}"))?;
    }
    Ok(())
}

fn values(have: &HostData, want: &HostData) -> Result<(), String> {
    let (h, w) = (have.to_f64(), want.to_f64());
    let exact = !matches!(want, HostData::F32(_));
    for (k, (&a, &b)) in h.iter().zip(&w).enumerate() {
        let ok = if exact {
            a == b
        } else if b.is_nan() {
            a.is_nan()
        } else if b.is_infinite() {
            a == b
        } else {
            (a - b).abs() <= ATOL + RTOL * b.abs()
        };
        if !ok {
            return Err(format!("element {k}: {a} but torch {b}"));
        }
    }
    Ok(())
}

fn kind_of(torch_type: &str) -> Option<ErrorKind> {
    Some(match torch_type {
        "RuntimeError" => ErrorKind::Runtime,
        "IndexError" => ErrorKind::Index,
        "TypeError" => ErrorKind::Type,
        "ValueError" => ErrorKind::Value,
        "NotImplementedError" => ErrorKind::NotImplemented,
        _ => return None,
    })
}

/// An expected error agrees when the kind matches torch's exception class and borch's message
/// contains torch's (or the case's chosen `contains` part of it).
pub fn error(got: &BorchError, expect: &Value) -> Result<(), String> {
    let torch_type = expect["type"].as_str().unwrap_or_default();
    let want_kind = kind_of(torch_type);
    let contains = expect["contains"].as_str().unwrap_or_default();
    let message = got.to_string();
    if want_kind != Some(got.kind()) {
        return Err(format!(
            "error kind {:?} ({message}) but torch raised {torch_type}",
            got.kind()
        ));
    }
    if !message.contains(contains) && !contains.contains(message.as_str()) {
        return Err(format!("message «{message}» but torch said «{contains}»"));
    }
    Ok(())
}
