//! torch's random creation functions and in-place samplers. Values are drawn on the host by
//! torch's CPU algorithms (see `crate::random`) and uploaded, so seeded results equal torch's.

use crate::dtype::DType;
use crate::error::{Result, not_impl, runtime};
use crate::host::HostData;
use crate::random::{Generator, GeneratorState, iteration_order, resolve, sample, trunc_normal};
use crate::size::new_numel;
use crate::tensor::Tensor;

/// torch.rand(shape): uniform on [0, 1), float32.
pub fn rand(shape: &[usize], generator: Option<&Generator>) -> Result<Tensor> {
    let values = sample::uniform(&mut resolve(generator).lock(), new_numel(shape)?, 0.0, 1.0);
    Tensor::from_host(&HostData::F32(values), shape)
}

/// torch.randn(shape): standard normal, float32.
pub fn randn(shape: &[usize], generator: Option<&Generator>) -> Result<Tensor> {
    normal(0.0, 1.0, shape, generator)
}

/// torch.normal(mean, std, size): normal with a scalar mean and std, float32.
pub fn normal(
    mean: f64,
    std: f64,
    shape: &[usize],
    generator: Option<&Generator>,
) -> Result<Tensor> {
    check_std(std)?;
    let n = new_numel(shape)?;
    let values = sample::normal(&mut resolve(generator).lock(), n, mean, std, true);
    Tensor::from_host(&HostData::F32(values), shape)
}

/// torch.randint(low, high, size): integers uniform on [low, high), int64.
pub fn randint(
    low: i64,
    high: i64,
    shape: &[usize],
    generator: Option<&Generator>,
) -> Result<Tensor> {
    let range = check_from_to(low, high)?;
    let n = new_numel(shape)?;
    let values = sample::random_from_to(&mut resolve(generator).lock(), n, range, low);
    Tensor::from_host(&HostData::I64(values), shape)
}

/// torch.randperm(n): a random permutation of 0..n, int64.
pub fn randperm(n: usize, generator: Option<&Generator>) -> Result<Tensor> {
    new_numel(&[n])?;
    let values = sample::randperm(&mut resolve(generator).lock(), n);
    Tensor::from_host(&HostData::I64(values), &[n])
}

fn check_std(std: f64) -> Result<()> {
    if std >= 0.0 {
        Ok(())
    } else {
        runtime(format!(
            "normal expects std >= 0.0, but found std {}",
            fmt_double(std)
        ))
    }
}

fn check_from_to(from: i64, to: i64) -> Result<u64> {
    if from < to {
        Ok(to.wrapping_sub(from) as u64)
    } else {
        runtime(format!(
            "random_ expects 'from' to be less than 'to', but got from={from} >= to={to}"
        ))
    }
}

fn check_float(t: &Tensor, kernel: &str) -> Result<()> {
    if t.dtype() == DType::Float32 {
        Ok(())
    } else {
        not_impl(format!(
            "\"{kernel}\" not implemented for '{}'",
            t.dtype().scalar_type_name()
        ))
    }
}

fn check_uniform_bounds(from: f64, to: f64) -> Result<()> {
    let max = f64::from(f32::MAX);
    for (name, v) in [("from", from), ("to", to)] {
        if !(v >= -max && v <= max) {
            return runtime(format!("{name} is out of bounds for float"));
        }
    }
    if from > to {
        return runtime(format!(
            "uniform_ expects to return a [from, to) range, but found from={} > to={}",
            fmt_double(from),
            fmt_double(to)
        ));
    }
    if to - from > max {
        return runtime(format!(
            "uniform_ expects to-from <= std::numeric_limits<Float>::max(), but found \
             to={} and from={} which result in to-from to exceed the limit",
            fmt_double(to),
            fmt_double(from)
        ));
    }
    Ok(())
}

impl Tensor {
    /// torch's `uniform_(from, to)`: fill with values uniform on [from, to).
    pub fn uniform_(&self, from: f64, to: f64, generator: Option<&Generator>) -> Result<()> {
        check_float(self, "check_uniform_bounds")?;
        check_uniform_bounds(from, to)?;
        self.fill_in_order(generator, |g, n| {
            HostData::F32(sample::uniform(g, n, from, to))
        })
    }

    /// `torch.nn.init.trunc_normal_(self, mean, std, a, b)`'s fill: normal values truncated to
    /// `[a, b]`, computed as torch does (`random/trunc_normal.rs`).
    pub fn trunc_normal_(
        &self,
        mean: f64,
        std: f64,
        a: f64,
        b: f64,
        generator: Option<&Generator>,
    ) -> Result<()> {
        check_float(self, "check_uniform_bounds")?;
        let (from, to) = trunc_normal::uniform_bounds(mean, std, a, b);
        check_uniform_bounds(from, to)?;
        self.fill_in_order(generator, |g, n| {
            HostData::F32(trunc_normal::trunc_normal(g, n, mean, std, a, b))
        })
    }

    /// torch's `normal_(mean, std)`: fill with normal values.
    pub fn normal_(&self, mean: f64, std: f64, generator: Option<&Generator>) -> Result<()> {
        check_std(std)?;
        check_float(self, "normal_kernel_cpu")?;
        let contiguous = self.is_contiguous();
        self.fill_in_order(generator, |g, n| {
            HostData::F32(sample::normal(g, n, mean, std, contiguous))
        })
    }

    /// torch's `random_(from, to)`: fill with integers uniform on [from, to), in this dtype.
    pub fn random_(&self, from: i64, to: i64, generator: Option<&Generator>) -> Result<()> {
        let range = check_from_to(from, to)?;
        if self.dtype() == DType::Bool {
            if !(0..=1).contains(&from) {
                return runtime("from is out of bounds for bool");
            }
            if !(0..=1).contains(&(to - 1)) {
                return runtime("to - 1 is out of bounds for bool");
            }
        }
        let dtype = self.dtype();
        self.fill_in_order(generator, |g, n| {
            let values = sample::random_from_to(g, n, range, from);
            match dtype {
                DType::Float32 => HostData::F32(values.iter().map(|&v| v as f32).collect()),
                DType::Int64 => HostData::I64(values),
                DType::Bool => HostData::Bool(values.iter().map(|&v| v != 0).collect()),
            }
        })
    }

    /// torch's `bernoulli_(p)`: each element 1 with probability `p`, else 0, in this dtype.
    pub fn bernoulli_(&self, p: f64, generator: Option<&Generator>) -> Result<()> {
        if !(0.0..=1.0).contains(&p) {
            return runtime(format!(
                "bernoulli_ expects p to be in [0, 1], but got p={}",
                fmt_double(p)
            ));
        }
        let dtype = self.dtype();
        self.fill_in_order(generator, |g, n| {
            let values = sample::bernoulli(g, n, p);
            match dtype {
                DType::Float32 => {
                    HostData::F32(values.iter().map(|&b| f32::from(u8::from(b))).collect())
                }
                DType::Int64 => HostData::I64(values.iter().map(|&b| i64::from(b)).collect()),
                DType::Bool => HostData::Bool(values),
            }
        })
    }

    /// torch.rand_like: uniform on [0, 1) with this shape and dtype.
    pub fn rand_like(&self, generator: Option<&Generator>) -> Result<Tensor> {
        let out = self.empty_like()?;
        out.uniform_(0.0, 1.0, generator)?;
        Ok(out)
    }

    /// torch.randn_like: standard normal with this shape and dtype.
    pub fn randn_like(&self, generator: Option<&Generator>) -> Result<Tensor> {
        let out = self.empty_like()?;
        out.normal_(0.0, 1.0, generator)?;
        Ok(out)
    }

    /// torch.randint_like(low, high): integers on [low, high) with this shape and dtype.
    pub fn randint_like(
        &self,
        low: i64,
        high: i64,
        generator: Option<&Generator>,
    ) -> Result<Tensor> {
        let out = self.empty_like()?;
        out.random_(low, high, generator)?;
        Ok(out)
    }

    /// Draw this tensor's values on the host in torch's visiting order and copy them in.
    fn fill_in_order(
        &self,
        generator: Option<&Generator>,
        draw: impl FnOnce(&mut GeneratorState, usize) -> HostData,
    ) -> Result<()> {
        let layout = self.layout();
        if layout
            .shape
            .iter()
            .zip(&layout.strides)
            .any(|(&n, &s)| n > 1 && s == 0)
        {
            return runtime(
                "unsupported operation: more than one element of the written-to tensor refers \
                 to a single memory location. Please clone() the tensor before performing the \
                 operation.",
            );
        }
        let n = self.numel();
        if n == 0 {
            return Ok(());
        }
        let drawn = draw(&mut resolve(generator).lock(), n);
        let values = if self.is_contiguous() {
            drawn
        } else {
            scatter(&drawn, &iteration_order(layout))
        };
        self.copy_(&Tensor::from_host(&values, self.shape())?)
    }
}

/// Put the i-th drawn value at row-major position `order[i]`.
fn scatter(drawn: &HostData, order: &[usize]) -> HostData {
    fn place<T: Copy + Default>(v: &[T], order: &[usize]) -> Vec<T> {
        let mut out = vec![T::default(); v.len()];
        for (&x, &at) in v.iter().zip(order) {
            out[at] = x;
        }
        out
    }
    match drawn {
        HostData::F32(v) => HostData::F32(place(v, order)),
        HostData::I64(v) => HostData::I64(place(v, order)),
        HostData::Bool(v) => HostData::Bool(place(v, order)),
    }
}

/// A double as C++'s `ostream << double` writes it (torch's messages): `%g`, 6 digits.
fn fmt_double(v: f64) -> String {
    if v.is_nan() {
        return "nan".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "inf" } else { "-inf" }.into();
    }
    if v == 0.0 {
        return if v.is_sign_negative() { "-0" } else { "0" }.into();
    }
    let sci = format!("{v:.5e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let trim = |s: String| {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    };
    if (-4..6).contains(&exp) {
        trim(format!("{v:.*}", (5 - exp) as usize))
    } else {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", trim(mantissa.to_string()), exp.abs())
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn fmt_double_like_cpp() {
        for (v, s) in [
            (2.0, "2"),
            (-1.0, "-1"),
            (3e38, "3e+38"),
            (1e-7, "1e-07"),
            (0.1234567891, "0.123457"),
            (123456.0, "123456"),
            (1234567.0, "1.23457e+06"),
            (0.0001, "0.0001"),
            (1.5, "1.5"),
        ] {
            assert_eq!(super::fmt_double(v), s);
        }
    }
}
