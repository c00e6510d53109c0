//! The `torch.nn.functional` catalog entries of 3-D and transposed convolution and of the
//! pooling beyond 2-D max/average (listed in `api::entries`).

use borch_tensor::api::{
    self, Args, CONV_PARAMS, CONV_TRANSPOSE_PARAMS, Call, Entry, Form, Returns, Value, pair,
    parse_params,
};
use borch_tensor::{Result, Tensor};

use crate::functional as F;

type Body = fn(&Args) -> Result<Value>;

fn entry(name: &'static str, params: &str, returns: Returns, body: Body) -> Entry {
    Entry {
        name,
        form: Form::Function,
        params: parse_params(params),
        returns,
        call: Call::Fn(body),
    }
}

fn ok(r: Result<Tensor>) -> Result<Value> {
    r.map(Value::Tensor)
}

/// The values, or with `return_indices` (argument `i`) the (values, indices) pair.
fn maybe_pair(a: &Args, i: usize, r: Result<(Tensor, Tensor)>) -> Result<Value> {
    let p = r?;
    Ok(if a.bool(i)? {
        pair(p)
    } else {
        Value::Tensor(p.0)
    })
}

const MAX_POOL: &str = "input: Tensor, kernel_size: Ints, stride: Ints = None, padding: Ints = 0, \
                        dilation: Ints = 1, ceil_mode: Bool = False, return_indices: Bool = False";
const LP_POOL: &str = "input: Tensor, norm_type: Float, kernel_size: Ints, stride: Ints = None, ceil_mode: Bool = False";
const UNPOOL: &str = "input: Tensor, indices: Tensor, kernel_size: Ints, stride: Ints = None, \
                      padding: Ints = 0, output_size: Ints = None";

type LpPool = fn(&Tensor, f64, &[isize], Option<&[isize]>, bool) -> Result<Tensor>;

fn lp(a: &Args, f: LpPool) -> Result<Value> {
    let stride = a.opt_ints(3)?;
    ok(f(
        &a.tensor(0)?,
        a.f64(1)?,
        &a.ints(2)?,
        stride.as_deref(),
        a.bool(4)?,
    ))
}

type Unpool =
    fn(&Tensor, &Tensor, &[isize], Option<&[isize]>, &[isize], Option<&[isize]>) -> Result<Tensor>;

fn unpool(a: &Args, f: Unpool) -> Result<Value> {
    let (stride, size) = (a.opt_ints(3)?, a.opt_ints(5)?);
    ok(f(
        &a.tensor(0)?,
        &a.tensor(1)?,
        &a.ints(2)?,
        stride.as_deref(),
        &a.ints(4)?,
        size.as_deref(),
    ))
}

/// The entries, in torch's documentation order. Those with `return_indices` declare one tensor
/// (as `max_pool2d`): the pair comes back only when asked for.
#[rustfmt::skip]
pub(crate) fn entries() -> Vec<Entry> {
    use Returns::Tensor as T;
    vec![
        entry("conv3d", CONV_PARAMS, T, |a| api::run_conv(a, 3)),
        entry("conv_transpose1d", CONV_TRANSPOSE_PARAMS, T, |a| api::run_conv_transpose(a, 1)),
        entry("conv_transpose2d", CONV_TRANSPOSE_PARAMS, T, |a| api::run_conv_transpose(a, 2)),
        entry("conv_transpose3d", CONV_TRANSPOSE_PARAMS, T, |a| api::run_conv_transpose(a, 3)),
        entry("avg_pool1d", "input: Tensor, kernel_size: Ints, stride: Ints = None, padding: Ints = 0, \
                             ceil_mode: Bool = False, count_include_pad: Bool = True", T,
            |a| {
                let stride = a.opt_ints(2)?;
                ok(F::avg_pool1d(&a.tensor(0)?, &a.ints(1)?, stride.as_deref(), &a.ints(3)?, a.bool(4)?, a.bool(5)?))
            }),
        entry("avg_pool3d", "input: Tensor, kernel_size: Ints, stride: Ints = None, padding: Ints = 0, \
                             ceil_mode: Bool = False, count_include_pad: Bool = True, divisor_override: Int = None", T,
            |a| {
                let stride = a.opt_ints(2)?;
                ok(F::avg_pool3d(&a.tensor(0)?, &a.ints(1)?, stride.as_deref(), &a.ints(3)?, a.bool(4)?,
                    a.bool(5)?, a.opt_int(6)?))
            }),
        entry("max_pool1d", MAX_POOL, T, |a| api::run_max_pool(a, 1, a.bool(6)?)),
        entry("max_pool3d", MAX_POOL, T, |a| api::run_max_pool(a, 3, a.bool(6)?)),
        entry("max_unpool1d", UNPOOL, T, |a| unpool(a, F::max_unpool1d)),
        entry("max_unpool2d", UNPOOL, T, |a| unpool(a, F::max_unpool2d)),
        entry("max_unpool3d", UNPOOL, T, |a| unpool(a, F::max_unpool3d)),
        entry("lp_pool1d", LP_POOL, T, |a| lp(a, F::lp_pool1d)),
        entry("lp_pool2d", LP_POOL, T, |a| lp(a, F::lp_pool2d)),
        entry("lp_pool3d", LP_POOL, T, |a| lp(a, F::lp_pool3d)),
        entry("adaptive_max_pool1d", "input: Tensor, output_size: Ints, return_indices: Bool = False", T,
            |a| maybe_pair(a, 2, F::adaptive_max_pool1d(&a.tensor(0)?, &a.sizes_or_none(1)?))),
        entry("adaptive_max_pool2d", "input: Tensor, output_size: SizesOrNone, return_indices: Bool = False", T,
            |a| maybe_pair(a, 2, F::adaptive_max_pool2d(&a.tensor(0)?, &a.sizes_or_none(1)?))),
        entry("adaptive_max_pool3d", "input: Tensor, output_size: SizesOrNone, return_indices: Bool = False", T,
            |a| maybe_pair(a, 2, F::adaptive_max_pool3d(&a.tensor(0)?, &a.sizes_or_none(1)?))),
        entry("adaptive_avg_pool1d", "input: Tensor, output_size: Ints", T,
            |a| ok(F::adaptive_avg_pool1d(&a.tensor(0)?, &a.sizes_or_none(1)?))),
        entry("adaptive_avg_pool3d", "input: Tensor, output_size: SizesOrNone", T,
            |a| ok(F::adaptive_avg_pool3d(&a.tensor(0)?, &a.sizes_or_none(1)?))),
    ]
}
