//! `torch.nn.utils.fusion` as a catalog that bindings forward to ([`ModuleFunction`]s):
//! torch's `fuse_conv_bn_eval(conv, bn, transpose=False)`, `fuse_conv_bn_weights(...)`,
//! `fuse_linear_bn_eval(linear, bn)`, `fuse_linear_bn_weights(...)`, and borch's
//! `fuse_for_eval(model)` (not torch's: the whole eval model fused in place, see
//! [`super::fusion::fuse_for_eval`]).

use std::sync::OnceLock;

use borch_tensor::api::{Args, Returns, Value};
use borch_tensor::{BorchError, Result, Tensor};

use super::fusion::{self, BatchNormLike, FusableConv, as_batch_norm};
use crate::api::module_functions::{ModuleBody, ModuleFunction, function};
use crate::module::Module;
use crate::{Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d, Linear};

/// The module name in errors.
pub const MODULE: &str = "torch.nn.utils.fusion";

/// torch reads `bn.running_mean` of whatever it is given: its AttributeError's text.
fn no_attribute(m: &dyn Module, attribute: &str) -> BorchError {
    BorchError::Runtime(format!(
        "'{}' object has no attribute '{attribute}'",
        m.name()
    ))
}

/// torch's first check, on any two modules.
fn eval_only(a: &dyn Module, b: &dyn Module) -> Result<()> {
    if a.is_training() || b.is_training() {
        return Err(BorchError::Runtime("Fusion only for eval!".into()));
    }
    Ok(())
}

fn pair<'a>(m: &[Option<&'a dyn Module>]) -> (&'a dyn Module, &'a dyn Module) {
    match m {
        [Some(a), Some(b), ..] => (*a, *b),
        _ => unreachable!("both modules are required: checked before the body runs"),
    }
}

fn batch_norm(bn: &dyn Module) -> Result<&dyn BatchNormLike> {
    as_batch_norm(bn).ok_or_else(|| no_attribute(bn, "running_mean"))
}

fn fuse_conv<C: FusableConv + 'static>(
    c: &C,
    bn: &dyn BatchNormLike,
    t: bool,
) -> Result<Box<dyn Module>> {
    Ok(Box::new(fusion::fuse_conv_bn_eval(c, bn, t)?))
}

fn conv_bn_eval(m: &[Option<&dyn Module>], a: &Args) -> Result<Box<dyn Module>> {
    let (conv, bn) = pair(m);
    eval_only(conv, bn)?;
    let bn = batch_norm(bn)?;
    let transpose = a.bool(0)?;
    let any = conv.as_any();
    macro_rules! try_conv {
        ($($t:ty),*) => {$(
            if let Some(c) = any.downcast_ref::<$t>() {
                return fuse_conv(c, bn, transpose);
            }
        )*};
    }
    try_conv!(
        Conv1d,
        Conv2d,
        Conv3d,
        ConvTranspose1d,
        ConvTranspose2d,
        ConvTranspose3d
    );
    Err(BorchError::NotImplemented(format!(
        "fuse_conv_bn_eval(): borch fuses Conv1d/2d/3d and ConvTranspose1d/2d/3d, not {}",
        conv.name()
    )))
}

fn linear_bn_eval(m: &[Option<&dyn Module>], _: &Args) -> Result<Box<dyn Module>> {
    let (linear, bn) = pair(m);
    eval_only(linear, bn)?;
    let l = linear
        .as_any()
        .downcast_ref::<Linear>()
        .ok_or_else(|| no_attribute(linear, "out_features"))?;
    Ok(Box::new(fusion::fuse_linear_bn_eval(l, batch_norm(bn)?)?))
}

/// `fuse_*_bn_weights`'s seven tensor arguments (`None` where given so).
type Folder<'a> = &'a dyn Fn(
    &Tensor,
    Option<&Tensor>,
    &Tensor,
    &Tensor,
    f64,
    Option<&Tensor>,
    Option<&Tensor>,
) -> Result<(Tensor, Tensor)>;

/// A `fuse_*_bn_weights` call on the bound arguments, its pair as a list.
fn weights(a: &Args, fold: Folder) -> Result<Value> {
    let (b, bw, bb) = (a.opt_tensor(1)?, a.opt_tensor(5)?, a.opt_tensor(6)?);
    let (w, rm, rv) = (a.tensor(0)?, a.tensor(2)?, a.tensor(3)?);
    let (w, b) = fold(
        &w,
        b.as_ref(),
        &rm,
        &rv,
        a.f64(4)?,
        bw.as_ref(),
        bb.as_ref(),
    )?;
    Ok(Value::List(vec![Value::Tensor(w), Value::Tensor(b)]))
}

fn conv_bn_weights(a: &Args) -> Result<Value> {
    let transpose = a.bool(7)?;
    weights(a, &|w, b, rm, rv, eps, bw, bb| {
        fusion::fuse_conv_bn_weights(w, b, rm, rv, eps, bw, bb, transpose)
    })
}

fn linear_bn_weights(a: &Args) -> Result<Value> {
    weights(a, &fusion::fuse_linear_bn_weights)
}

fn for_eval(model: &mut dyn Module, _: &Args) -> Result<()> {
    fusion::fuse_for_eval(model)
}

/// The catalog, built once.
pub fn functions() -> &'static [ModuleFunction] {
    static FUNCTIONS: OnceLock<Vec<ModuleFunction>> = OnceLock::new();
    FUNCTIONS.get_or_init(|| {
        vec![
            function(
                "fuse_conv_bn_eval",
                "conv: Module, bn: Module, transpose: Bool = False",
                Returns::Nothing,
                ModuleBody::Make(conv_bn_eval),
            ),
            function(
                "fuse_conv_bn_weights",
                "conv_w: Tensor, conv_b: Tensor | None, bn_rm: Tensor, bn_rv: Tensor, \
                 bn_eps: Float, bn_w: Tensor | None, bn_b: Tensor | None, \
                 transpose: Bool = False",
                Returns::Pair,
                ModuleBody::Values(conv_bn_weights),
            ),
            function(
                "fuse_linear_bn_eval",
                "linear: Module, bn: Module",
                Returns::Nothing,
                ModuleBody::Make(linear_bn_eval),
            ),
            function(
                "fuse_linear_bn_weights",
                "linear_w: Tensor, linear_b: Tensor | None, bn_rm: Tensor, bn_rv: Tensor, \
                 bn_eps: Float, bn_w: Tensor | None, bn_b: Tensor | None",
                Returns::Pair,
                ModuleBody::Values(linear_bn_weights),
            ),
            function(
                "fuse_for_eval",
                "model: Module",
                Returns::Nothing,
                ModuleBody::InPlace(for_eval),
            ),
        ]
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::module_functions::{Output, call_in_place, call_reading, find};
    use crate::{BatchNorm2d, ReLU};

    fn call(name: &str, modules: &[Option<&dyn Module>], positional: Vec<Value>) -> Result<Output> {
        call_reading(
            find(functions(), MODULE, name)?,
            modules,
            positional,
            vec![],
        )
    }

    fn message(r: Result<Output>) -> String {
        match r {
            Ok(_) => "accepted".into(),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn signatures_split_into_modules_and_values() {
        let f = find(functions(), MODULE, "fuse_conv_bn_eval").unwrap();
        let names: Vec<_> = f.modules.iter().map(|p| (p.name, p.position)).collect();
        assert_eq!(names, [("conv", 0), ("bn", 1)]);
        assert_eq!(f.entry.params.len(), 1);
        let w = find(functions(), MODULE, "fuse_conv_bn_weights").unwrap();
        assert!(w.modules.is_empty() && w.entry.params.len() == 8);
        let e = find(functions(), MODULE, "fuse_modules").err().unwrap();
        assert_eq!(
            e.to_string(),
            "module 'torch.nn.utils.fusion' has no attribute 'fuse_modules'"
        );
    }

    #[test]
    fn refusals_are_torch_s() {
        let conv = Conv2d::new(1, 2, &[1]).unwrap();
        let mut bn = BatchNorm2d::new(2).unwrap();
        let relu = ReLU::new();
        let e = message(call("fuse_conv_bn_eval", &[Some(&conv), Some(&bn)], vec![]));
        assert_eq!(e, "Fusion only for eval!");
        bn.eval();
        let mut conv = conv;
        conv.eval();
        let e = message(call("fuse_conv_bn_eval", &[Some(&conv), None], vec![]));
        assert_eq!(
            e,
            "fuse_conv_bn_eval() missing 1 required positional argument: 'bn'"
        );
        let mut r = relu;
        r.eval();
        let e = message(call("fuse_conv_bn_eval", &[Some(&conv), Some(&r)], vec![]));
        assert_eq!(e, "'ReLU' object has no attribute 'running_mean'");
        let e = message(call(
            "fuse_linear_bn_eval",
            &[Some(&conv), Some(&bn)],
            vec![],
        ));
        assert_eq!(e, "'Conv2d' object has no attribute 'out_features'");
        let fused = call(
            "fuse_conv_bn_eval",
            &[Some(&conv), Some(&bn)],
            vec![Value::Bool(false)],
        );
        assert!(matches!(fused, Ok(Output::Module(m)) if m.name() == "Conv2d"));
        let mut model = crate::Sequential::new(vec![]);
        let f = find(functions(), MODULE, "fuse_for_eval").unwrap();
        let e = call_in_place(f, Some(&mut model), vec![], vec![])
            .err()
            .unwrap();
        assert_eq!(e.to_string(), "Fusion only for eval!");
    }

    #[test]
    fn a_none_bias_binds_but_a_missing_one_is_torch_s_type_error() {
        let w = borch_tensor::ones(&[2, 1, 1, 1], borch_tensor::DType::Float32).unwrap();
        let v = borch_tensor::ones(&[2], borch_tensor::DType::Float32).unwrap();
        let t = |t: &Tensor| Value::Tensor(t.clone());
        let args = vec![
            t(&w),
            Value::None,
            t(&v),
            t(&v),
            Value::Float(1e-5),
            Value::None,
            Value::None,
        ];
        let r = call("fuse_conv_bn_weights", &[], args);
        assert!(matches!(r, Ok(Output::Value(Value::List(ref items))) if items.len() == 2));
        let f = find(functions(), MODULE, "fuse_conv_bn_weights").unwrap();
        let keywords = vec![("conv_w".to_string(), t(&w))];
        let e = call_reading(f, &[], vec![], keywords).err().unwrap();
        assert_eq!(
            e.to_string(),
            "fuse_conv_bn_weights() missing 1 required positional argument: 'conv_b'"
        );
    }
}
