//! BatchNorm1d/2d/3d, InstanceNorm1d/2d/3d, GroupNorm and LocalResponseNorm.

use borch_tensor::Result;
use borch_tensor::api::{Args, Value};

use super::{ModuleClass, boxed, class, factory};
use crate::{
    BatchNorm1d, BatchNorm2d, BatchNorm3d, GroupNorm, InstanceNorm1d, InstanceNorm2d,
    InstanceNorm3d, LocalResponseNorm,
};

/// torch's `_NormBase` constructor (BatchNorm; InstanceNorm with its own defaults).
const BATCH: &str = "num_features: Int, eps: Float = 1e-05, momentum: Float = 0.1 | None, \
                     affine: Bool = True, track_running_stats: Bool = True, device: Str = None, \
                     dtype: DType = None, bias: Bool = True";
const INSTANCE: &str = "num_features: Int, eps: Float = 1e-05, momentum: Float = 0.1 | None, \
                        affine: Bool = False, track_running_stats: Bool = False, \
                        device: Str = None, dtype: DType = None, bias: Bool = True";

/// `momentum`: a number, or None (the cumulative average).
fn momentum(a: &Args) -> Result<Option<f64>> {
    match a.get(2) {
        Value::None => Ok(None),
        _ => a.f64(2).map(Some),
    }
}

/// `(num_features, eps, momentum, affine, track_running_stats, bias)` after the factory check.
fn norm_args(a: &Args) -> Result<(usize, f64, Option<f64>, bool, bool, bool)> {
    factory(a, 5)?;
    Ok((
        a.usize(0)?,
        a.f64(1)?,
        momentum(a)?,
        a.bool(3)?,
        a.bool(4)?,
        a.bool(7)?,
    ))
}

macro_rules! norm_class {
    ($name:ident, $sig:expr) => {
        class(stringify!($name), $sig, |a| {
            let (n, eps, m, affine, track, bias) = norm_args(a)?;
            boxed($name::with_options(n, eps, m, affine, track, bias)?)
        })
    };
}

/// The classes of this group.
#[rustfmt::skip]
pub(super) fn entries() -> Vec<ModuleClass> {
    vec![
        norm_class!(BatchNorm1d, BATCH),
        norm_class!(BatchNorm2d, BATCH),
        norm_class!(BatchNorm3d, BATCH),
        norm_class!(InstanceNorm1d, INSTANCE),
        norm_class!(InstanceNorm2d, INSTANCE),
        norm_class!(InstanceNorm3d, INSTANCE),
        class("GroupNorm", "num_groups: Int, num_channels: Int, eps: Float = 1e-05, affine: Bool = True, \
                           device: Str = None, dtype: DType = None, bias: Bool = True",
            |a| { factory(a, 4)?; boxed(GroupNorm::with_options(a.usize(0)?, a.usize(1)?, a.f64(2)?, a.bool(3)?, a.bool(6)?)?) }),
        class("LocalResponseNorm", "size: Int, alpha: Float = 0.0001, beta: Float = 0.75, k: Float = 1.0",
            |a| boxed(LocalResponseNorm::new(a.usize(0)?, a.f64(1)?, a.f64(2)?, a.f64(3)?))),
    ]
}

#[cfg(test)]
mod tests {
    use borch_tensor::api::Value;

    use super::super::build_module;

    fn repr(name: &str, keywords: Vec<(&str, Value)>) -> String {
        let kw = keywords
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect();
        build_module(name, vec![Value::Int(3)], kw).unwrap().repr()
    }

    #[test]
    fn momentum_none_is_kept_and_the_default_is_torchs() {
        assert_eq!(
            repr("BatchNorm2d", vec![("momentum", Value::None)]),
            "BatchNorm2d(3, eps=1e-05, momentum=None, affine=True, bias=True, \
             track_running_stats=True)"
        );
        assert_eq!(
            repr("InstanceNorm1d", vec![]),
            "InstanceNorm1d(3, eps=1e-05, momentum=0.1, affine=False, bias=False, \
             track_running_stats=False)"
        );
        let bn = build_module(
            "BatchNorm1d",
            vec![Value::Int(3), Value::Float(1e-3), Value::None],
            vec![],
        )
        .unwrap();
        assert!(
            bn.repr().contains("eps=0.001, momentum=None"),
            "{}",
            bn.repr()
        );
    }
}
