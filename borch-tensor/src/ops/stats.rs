//! Order statistics composed from the stable sort and recorded gathers (so gradients reach the
//! picked elements as torch's do): `kthvalue`, `median` / `nanmedian`, `quantile` /
//! `nanquantile`, `mode`, `cummax` / `cummin`. Positions that depend on the values (how many
//! NaNs a row has) are computed on the device, with no readback.

use crate::dtype::DType;
use crate::error::{BorchError, Result, runtime};
use crate::layout::wrap_dim;
use crate::ops::creation;
use crate::scalar::{Operand, Scalar};
use crate::tensor::Tensor;

fn long(x: i64) -> Operand {
    Operand::Scalar(Scalar::Int(x))
}

/// Wrap `dim` (a 0-dim tensor counts as 1-D) and view `t` as at least 1-D.
fn prepared(t: &Tensor, dim: isize) -> Result<(Tensor, usize)> {
    let d = wrap_dim(dim, t.dim().max(1))?;
    let t1 = if t.dim() == 0 {
        t.reshape(&[1])?
    } else {
        t.clone()
    };
    Ok((t1, d))
}

fn finish(t: Tensor, d: usize, keepdim: bool, scalar_input: bool) -> Result<Tensor> {
    if scalar_input {
        return t.reshape(&[]);
    }
    if keepdim {
        Ok(t)
    } else {
        t.squeeze_dims(&[d as isize])
    }
}

impl Tensor {
    /// torch's `kthvalue(k, dim, keepdim)`: the k-th smallest value along `dim` and its index.
    pub fn kthvalue(&self, k: i64, dim: isize, keepdim: bool) -> Result<(Tensor, Tensor)> {
        let (t, d) = prepared(self, dim)?;
        let n = t.shape()[d] as i64;
        if k < 1 || k > n {
            return runtime(format!(
                "kthvalue(): selected number k out of range for dimension {d}"
            ));
        }
        let (s, i) = t.sort(d as isize, false, true)?;
        let pick = |x: &Tensor| x.narrow(d as isize, (k - 1) as isize, 1);
        let scalar = self.dim() == 0;
        Ok((
            finish(pick(&s)?, d, keepdim, scalar)?,
            finish(pick(&i)?, d, keepdim, scalar)?,
        ))
    }

    /// `(values, indices)` at per-row positions `at` (keepdim shape) of the sorted rows.
    fn sorted_at(&self, d: usize, at: &Tensor) -> Result<(Tensor, Tensor)> {
        let (s, i) = self.sort(d as isize, false, true)?;
        Ok((s.gather(d as isize, at)?, i.gather(d as isize, at)?))
    }

    /// How many non-NaN elements each row along `d` has (int64, keepdim).
    fn count_not_nan(&self, d: usize) -> Result<Tensor> {
        self.isnan()?
            .logical_not()?
            .to_dtype(DType::Int64)?
            .sum(Some(&[d as isize]), true)
    }

    /// torch's `median(dim, keepdim)`: the lower median along `dim` and its index; a row with a
    /// NaN gives NaN (and the NaN's index).
    pub fn median_dim(&self, dim: isize, keepdim: bool) -> Result<(Tensor, Tensor)> {
        self.median_impl(dim, keepdim, false)
    }

    /// torch's `nanmedian(dim, keepdim)`: the lower median of each row's non-NaN values.
    pub fn nanmedian_dim(&self, dim: isize, keepdim: bool) -> Result<(Tensor, Tensor)> {
        self.median_impl(dim, keepdim, true)
    }

    fn median_impl(&self, dim: isize, keepdim: bool, ignore_nan: bool) -> Result<(Tensor, Tensor)> {
        let (t, d) = prepared(self, dim)?;
        let n = t.shape()[d] as i64;
        if n == 0 {
            return Err(BorchError::Index(format!(
                "median(): Expected reduction dim {d} to have non-zero size."
            )));
        }
        let count = t.count_not_nan(d)?;
        let at = if ignore_nan {
            count
                .sub(long(1))?
                .clamp_min(long(0))?
                .div_mode(long(2), Some("floor"))?
        } else {
            let lower = creation::full(count.shape(), (n - 1) / 2, Some(DType::Int64))?;
            crate::where_cond(
                &count.lt(long(n))?,
                Operand::Tensor(count.clone()),
                Operand::Tensor(lower),
            )?
        };
        let (v, i) = t.sorted_at(d, &at)?;
        let scalar = self.dim() == 0;
        Ok((
            finish(v, d, keepdim, scalar)?,
            finish(i, d, keepdim, scalar)?,
        ))
    }

    /// torch's `median()`: the lower median of every element (NaN if any is NaN).
    pub fn median(&self) -> Result<Tensor> {
        let v = self.reshape(&[-1])?.median_dim(0, false)?.0;
        self.evenly_distributed(v)
    }

    /// torch's `nanmedian()`: the lower median of every non-NaN element.
    pub fn nanmedian(&self) -> Result<Tensor> {
        let v = self.reshape(&[-1])?.nanmedian_dim(0, false)?.0;
        self.evenly_distributed(v)
    }

    /// The value `v` of a whole-tensor median, with torch's gradient for it
    /// (`evenly_distribute_backward`): shared evenly among the elements equal to `v`, or among
    /// the NaNs when `v` is NaN. The forward value is `v` exactly: the added term is a sum of
    /// zeros (`x - x.detach()`) where `v` is a number, and NaN already where it is NaN.
    fn evenly_distributed(&self, v: Tensor) -> Result<Tensor> {
        if !self.requires_grad() {
            return Ok(v);
        }
        let v = v.detach();
        let mask = self
            .detach()
            .eq(&v)?
            .logical_or(&self.isnan()?.logical_and(&v.isnan()?)?)?;
        let count = mask.to_dtype(DType::Float32)?.sum(None, false)?;
        let zeros = self.sub(self.detach())?;
        let share = crate::where_cond(
            &mask,
            Operand::Tensor(zeros),
            Operand::Scalar(Scalar::Float(0.0)),
        )?
        .sum(None, false)?
        .div(&count)?;
        v.add(&share)
    }

    /// torch's `quantile(q, dim, keepdim, interpolation)` (`ignore_nan`: `nanquantile`). `q` is
    /// a number (no new dim) or a 1-D tensor (its dim comes first).
    pub fn quantile(
        &self,
        q: Operand,
        dim: Option<isize>,
        keepdim: bool,
        interpolation: &str,
        ignore_nan: bool,
    ) -> Result<Tensor> {
        let name = if ignore_nan {
            "nanquantile"
        } else {
            "quantile"
        };
        if self.dtype() != DType::Float32 {
            return runtime(format!(
                "{name}() input tensor must be either float or double dtype"
            ));
        }
        if !["linear", "lower", "higher", "midpoint", "nearest"].contains(&interpolation) {
            return runtime(format!(
                "{name}() interpolation must be one of linear, lower, higher, midpoint or \
                 nearest, but got {interpolation}"
            ));
        }
        let (q, q_dim) = match q {
            Operand::Scalar(s) => {
                let v = s.to_f64();
                if !(0.0..=1.0).contains(&v) {
                    return runtime(format!(
                        "{name}() q must be in the range [0, 1] but got {v}"
                    ));
                }
                (creation::full(&[1], v, Some(DType::Float32))?, false)
            }
            Operand::Tensor(t) => {
                if t.dim() > 1 {
                    return runtime(format!("{name}() q must be a scalar or 1D tensor"));
                }
                if t.dtype() != DType::Float32 {
                    return runtime(format!(
                        "{name}() q tensor must be same dtype as the input tensor"
                    ));
                }
                let one_d = t.dim() == 1;
                (t.reshape(&[-1])?, one_d)
            }
        };
        let (x, d) = match dim {
            None => (self.reshape(&[-1])?, 0),
            Some(dm) => prepared(self, dm)?,
        };
        let n = x.shape()[d];
        if n == 0 {
            return runtime(format!("{name}() input tensor must be non-empty"));
        }
        let nq = q.numel();
        // x sorted, with a leading q dim: [nq, …x…]; positions per q and row.
        let (sorted, _) = x.sort(d as isize, false, true)?;
        let mut xs: Vec<isize> = vec![nq as isize];
        xs.extend(x.shape().iter().map(|&s| s as isize));
        let sorted = sorted.unsqueeze(0)?.expand(&xs)?;
        let dd = d as isize + 1;
        let count = x.count_not_nan(d)?.unsqueeze(0)?.to_dtype(DType::Float32)?;
        let mut qs = vec![nq as isize];
        qs.extend(std::iter::repeat_n(1, x.dim()));
        let qv = q.reshape(&qs)?;
        // torch: a row with a NaN (quantile) points at its last sorted element, the NaN; a row
        // of NaNs only (nanquantile) at its first. Both give NaN, and the gradient goes there.
        let pos = if ignore_nan {
            qv.mul(&count.sub(1.0)?.clamp_min(0.0)?)?
        } else {
            let last = (n - 1) as f64;
            let p = qv.mul(last)?.expand(&{
                let mut s: Vec<isize> = vec![nq as isize];
                s.extend(count.shape()[1..].iter().map(|&d| d as isize));
                s
            })?;
            crate::where_cond(
                &count.lt(n as f64)?,
                Operand::Scalar(Scalar::Float(last)),
                Operand::Tensor(p),
            )?
        };
        let lo = pos.floor()?;
        let hi = pos.ceil()?;
        let at = |p: &Tensor| -> Result<Tensor> {
            let mut shape: Vec<isize> = p.shape().iter().map(|&s| s as isize).collect();
            shape[d + 1] = 1;
            let idx = p
                .to_dtype(DType::Int64)?
                .clamp(Some(long(0)), Some(long(n as i64 - 1)))?;
            sorted.gather(dd, &idx.expand(&shape)?)
        };
        let value = match interpolation {
            "lower" => at(&lo)?,
            "higher" => at(&hi)?,
            "nearest" => at(&pos.round()?)?,
            "midpoint" => {
                let (a, b) = (at(&lo)?, at(&hi)?);
                a.add(&b.sub(&a)?.mul(0.5)?)?
            }
            _ => at(&lo)?.lerp(&at(&hi)?, Operand::Tensor(pos.sub(&lo)?))?,
        };
        let value = if dim.is_none() {
            if keepdim {
                let mut shape = vec![nq as isize];
                shape.extend(std::iter::repeat_n(1, self.dim()));
                value.reshape(&shape)?
            } else {
                value.reshape(&[nq as isize])?
            }
        } else if keepdim {
            if self.dim() == 0 {
                value.reshape(&[nq as isize])?
            } else {
                value
            }
        } else {
            value.squeeze_dims(&[dd])?
        };
        if q_dim {
            Ok(value)
        } else {
            value.squeeze_dims(&[0])
        }
    }

    /// torch's `mode(dim, keepdim)`: the most frequent value along `dim` (the smallest among
    /// equally frequent ones) and the index of its last occurrence.
    pub fn mode(&self, dim: isize, keepdim: bool) -> Result<(Tensor, Tensor)> {
        let (t, d) = prepared(self, dim)?;
        let (s, i) = t.sort(d as isize, false, true)?;
        let sd = s.detach();
        let di = d as isize;
        // counts[j] = how many elements equal sorted[j] (an n×n comparison per row).
        let counts = sd
            .unsqueeze(di + 1)?
            .eq(&sd.unsqueeze(di)?)?
            .to_dtype(DType::Int64)?
            .sum(Some(&[di + 1]), false)?;
        let first = counts.argmax(Some(di), true)?;
        let last = first.add(&counts.gather(di, &first)?)?.sub(long(1))?;
        let scalar = self.dim() == 0;
        Ok((
            finish(s.gather(di, &last)?, d, keepdim, scalar)?,
            finish(i.gather(di, &last)?, d, keepdim, scalar)?,
        ))
    }

    /// torch's `cummax(dim)`: the running maximum along `dim` and where it was last reached.
    pub fn cummax(&self, dim: isize) -> Result<(Tensor, Tensor)> {
        self.cumulative(dim, true)
    }

    /// torch's `cummin(dim)`.
    pub fn cummin(&self, dim: isize) -> Result<(Tensor, Tensor)> {
        self.cumulative(dim, false)
    }

    fn cumulative(&self, dim: isize, max: bool) -> Result<(Tensor, Tensor)> {
        let (t, d) = prepared(self, dim)?;
        let n = t.shape()[d];
        let di = d as isize;
        if n == 0 {
            // torch: an empty dim gives empty results.
            let index = creation::zeros(t.shape(), DType::Int64)?;
            let scalar = self.dim() == 0;
            return Ok((
                finish(t.gather(di, &index)?, d, true, scalar)?,
                finish(index, d, true, scalar)?,
            ));
        }
        // Laid out [.., j, i, ..]: candidate i for the running result at j (i <= j).
        let x_i = t.detach().unsqueeze(di)?;
        let mut js = vec![1isize; t.dim() + 1];
        js[d] = n as isize;
        let j = creation::arange(0, n as i64, 1)?.reshape(&js)?;
        let mut is = vec![1isize; t.dim() + 1];
        is[d + 1] = n as isize;
        let i = creation::arange(0, n as i64, 1)?.reshape(&is)?;
        let allowed = i.le(&j)?;
        let fill = match (t.dtype(), max) {
            (DType::Float32, true) => Scalar::Float(f64::NEG_INFINITY),
            (DType::Float32, false) => Scalar::Float(f64::INFINITY),
            (_, true) => Scalar::Int(i64::from(i32::MIN)),
            (_, false) => Scalar::Int(i64::from(i32::MAX)),
        };
        let cand = crate::where_cond(
            &allowed,
            Operand::Tensor(x_i.clone()),
            Operand::Scalar(fill),
        )?;
        let running = if max {
            cand.amax(Some(&[di + 1]), true)?
        } else {
            cand.amin(Some(&[di + 1]), true)?
        };
        let hit = allowed.logical_and(&x_i.eq(&running)?)?;
        let last = crate::where_cond(&hit, Operand::Tensor(i.clone()), long(-1))?
            .amax(Some(&[di + 1]), false)?;
        // torch: a NaN, once reached, stays the result (at its index).
        let nan_at = allowed.logical_and(&x_i.isnan()?)?;
        let first_nan = crate::where_cond(&nan_at, Operand::Tensor(i), long(n as i64))?
            .amin(Some(&[di + 1]), false)?;
        let index = crate::where_cond(
            &first_nan.lt(long(n as i64))?,
            Operand::Tensor(first_nan),
            Operand::Tensor(last),
        )?;
        let values = t.gather(di, &index)?;
        let scalar = self.dim() == 0;
        Ok((
            finish(values, d, true, scalar)?,
            finish(index, d, true, scalar)?,
        ))
    }
}
