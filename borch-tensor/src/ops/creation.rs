//! torch's creation functions.

use crate::dtype::DType;
use crate::error::{Result, runtime};
use crate::host::HostData;
use crate::kernels::map::{Dest, MapSpec, map};
use crate::scalar::{Operand, Scalar};
use crate::size::{alloc_len, new_numel};
use crate::tensor::{Tensor, device};

/// torch.full(shape, value, dtype=…); without a dtype it follows the value (int → int64).
pub fn full(shape: &[usize], value: impl Into<Scalar>, dtype: Option<DType>) -> Result<Tensor> {
    let value = value.into();
    let dtype = dtype.unwrap_or(value.dtype());
    let compute = if dtype == DType::Float32 {
        DType::Float32
    } else {
        DType::Int64
    };
    let spec = MapSpec {
        expr: "a",
        compute,
        result_bool: false,
        out_dtype: dtype,
        extras: &[],
    };
    let _ = device()?;
    map(&spec, &[Operand::Scalar(value)], Dest::New(shape))
}

/// torch.zeros(shape, dtype).
pub fn zeros(shape: &[usize], dtype: DType) -> Result<Tensor> {
    full(shape, 0, Some(dtype))
}

/// torch.ones(shape, dtype).
pub fn ones(shape: &[usize], dtype: DType) -> Result<Tensor> {
    full(shape, 1, Some(dtype))
}

/// torch.empty(shape, dtype): contents unspecified.
pub fn empty(shape: &[usize], dtype: DType) -> Result<Tensor> {
    Tensor::uninit(&device()?, shape, dtype)
}

impl Tensor {
    /// torch.zeros_like.
    pub fn zeros_like(&self) -> Result<Tensor> {
        zeros(self.shape(), self.dtype())
    }
    /// torch.ones_like.
    pub fn ones_like(&self) -> Result<Tensor> {
        ones(self.shape(), self.dtype())
    }
    /// torch.full_like.
    pub fn full_like(&self, value: impl Into<Scalar>) -> Result<Tensor> {
        full(self.shape(), value, Some(self.dtype()))
    }
    /// torch.empty_like.
    pub fn empty_like(&self) -> Result<Tensor> {
        empty(self.shape(), self.dtype())
    }
}

/// torch.arange(start, end, step): int64 when every argument is an integer, else float32.
pub fn arange(
    start: impl Into<Scalar>,
    end: impl Into<Scalar>,
    step: impl Into<Scalar>,
) -> Result<Tensor> {
    let (start, end, step) = (start.into(), end.into(), step.into());
    let dtype = [start, end, step]
        .iter()
        .map(|s| s.dtype())
        .fold(DType::Int64, DType::promote);
    let (s, e, st) = (start.to_f64(), end.to_f64(), step.to_f64());
    if st == 0.0 {
        return runtime("step must be nonzero");
    }
    if !(s.is_finite() && e.is_finite()) {
        return runtime(format!("unsupported range: {s} -> {e}"));
    }
    if (st > 0.0 && e < s) || (st < 0.0 && e > s) {
        return runtime("upper bound and lower bound inconsistent with step sign");
    }
    let n = alloc_len(((e - s) / st).ceil().max(0.0))?;
    let data = match dtype {
        DType::Float32 => HostData::F32((0..n).map(|i| (s + i as f64 * st) as f32).collect()),
        _ => HostData::I64((0..n).map(|i| (s as i64) + i as i64 * st as i64).collect()),
    };
    Tensor::from_host(&data, &[n])
}

/// torch.arange(end).
pub fn arange_to(end: impl Into<Scalar>) -> Result<Tensor> {
    arange(0, end, 1)
}

/// torch.linspace(start, end, steps), float32.
pub fn linspace(start: f64, end: f64, steps: usize) -> Result<Tensor> {
    new_numel(&[steps])?;
    let (s, e) = (start as f32, end as f32);
    let values: Vec<f32> = if steps == 0 {
        vec![]
    } else if steps == 1 {
        vec![s]
    } else {
        let step = (e - s) / (steps - 1) as f32;
        let half = steps / 2;
        (0..steps)
            .map(|i| {
                if i < half {
                    s + step * i as f32
                } else {
                    e - step * (steps - i - 1) as f32
                }
            })
            .collect()
    };
    Tensor::from_host(&HostData::F32(values), &[steps])
}

/// torch.eye(n, m), float32.
pub fn eye(n: usize, m: Option<usize>) -> Result<Tensor> {
    let m = m.unwrap_or(n);
    let mut values = vec![0f32; new_numel(&[n, m])?];
    for i in 0..n.min(m) {
        values[i * m + i] = 1.0;
    }
    Tensor::from_host(&HostData::F32(values), &[n, m])
}
