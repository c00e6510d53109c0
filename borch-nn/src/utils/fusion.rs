//! `torch.nn.utils.fusion` (`fuse_conv_bn_eval`, `fuse_conv_bn_weights`, `fuse_linear_bn_eval`,
//! `fuse_linear_bn_weights`) with torch's formulas, order of operations and checks (torch's
//! AssertionErrors are RuntimeErrors with torch's messages), `torch.ao.quantization`'s
//! `fuse_modules(model, modules_to_fuse)` / `fuse_known_modules`, and borch's own
//! `fuse_for_eval(model)`, which finds the patterns itself (see `Module::fuse_for_eval`).

use borch_autograd::no_grad;
use borch_tensor::{BorchError, Result, Tensor, keep_alive};

use crate::intrinsic::{BnParts, ConvReLU1d, ConvReLU2d, ConvReLU3d, build_fused};
use crate::module::Module;
use crate::{
    BatchNorm1d, BatchNorm2d, BatchNorm3d, Conv1d, Conv2d, Conv3d, ConvTranspose1d,
    ConvTranspose2d, ConvTranspose3d, Identity, Linear, ReLU, SyncBatchNorm,
};

fn assertion(msg: impl Into<String>) -> BorchError {
    BorchError::Runtime(msg.into())
}

/// torch's fused conv weight and bias, recorded (the math of `fuse_conv_bn_weights`).
pub(crate) fn fold_conv_bn(
    conv_w: &Tensor,
    conv_b: Option<&Tensor>,
    bn: &BnParts,
    transpose: bool,
) -> Result<(Tensor, Tensor)> {
    let rm = bn.running_mean;
    let conv_b = match conv_b {
        Some(b) => b.clone(),
        None => rm.zeros_like()?,
    };
    let bn_w = match bn.weight {
        Some(w) => w.clone(),
        None => rm.ones_like()?,
    };
    let bn_b = match bn.bias {
        Some(b) => b.clone(),
        None => rm.zeros_like()?,
    };
    let rsqrt = bn.running_var.add(bn.eps)?.rsqrt()?;
    let mut shape: Vec<isize> = if transpose { vec![1, -1] } else { vec![-1, 1] };
    shape.extend(std::iter::repeat_n(1, conv_w.dim().saturating_sub(2)));
    let w = conv_w.mul(&bn_w.mul(&rsqrt)?.reshape(&shape)?)?;
    let b = conv_b.sub(rm)?.mul(&rsqrt)?.mul(&bn_w)?.add(&bn_b)?;
    Ok((w, b))
}

/// torch's fused linear weight and bias, recorded (the math of `fuse_linear_bn_weights`; a
/// BatchNorm without affine parameters folds as weight 1, bias 0).
pub(crate) fn fold_linear_bn(
    linear_w: &Tensor,
    linear_b: Option<&Tensor>,
    bn: &BnParts,
) -> Result<(Tensor, Tensor)> {
    let rm = bn.running_mean;
    let linear_b = match linear_b {
        Some(b) => b.clone(),
        None => rm.zeros_like()?,
    };
    let rsqrt = bn.running_var.add(bn.eps)?.rsqrt()?;
    let scale = match bn.weight {
        Some(w) => w.mul(&rsqrt)?,
        None => rsqrt,
    };
    let w = linear_w.mul(&scale.unsqueeze(-1)?)?;
    let mut b = linear_b.sub(rm)?.mul(&scale)?;
    if let Some(bb) = bn.bias {
        b = b.add(bb)?;
    }
    Ok((w, b))
}

/// `torch.nn.Parameter(t, requires_grad)`: a detached leaf kept alive.
fn parameter(t: &Tensor, requires_grad: bool) -> Result<Tensor> {
    let p = keep_alive(&t.detach());
    p.set_requires_grad(requires_grad)?;
    Ok(p)
}

/// torch's `fuse_conv_bn_weights(conv_w, conv_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b,
/// transpose=False)`: the new conv weight `conv_w * (bn_w * rsqrt(bn_rv + eps))` (reshaped
/// `[-1, 1, …]`, `[1, -1, …]` with `transpose`) and bias `(conv_b - bn_rm) * rsqrt(bn_rv + eps)
/// * bn_w + bn_b`, as parameters (requiring grad as `conv_w` / `conv_b` do; a missing `conv_b`
/// is zeros, missing `bn_w` / `bn_b` ones / zeros).
#[allow(clippy::too_many_arguments)]
pub fn fuse_conv_bn_weights(
    conv_w: &Tensor,
    conv_b: Option<&Tensor>,
    bn_rm: &Tensor,
    bn_rv: &Tensor,
    bn_eps: f64,
    bn_w: Option<&Tensor>,
    bn_b: Option<&Tensor>,
    transpose: bool,
) -> Result<(Tensor, Tensor)> {
    let bn = BnParts {
        running_mean: bn_rm,
        running_var: bn_rv,
        eps: bn_eps,
        weight: bn_w,
        bias: bn_b,
    };
    let (w, b) = no_grad(|| fold_conv_bn(conv_w, conv_b, &bn, transpose))?;
    let b_grad = conv_b.is_some_and(Tensor::requires_grad);
    Ok((
        parameter(&w, conv_w.requires_grad())?,
        parameter(&b, b_grad)?,
    ))
}

/// torch's `fuse_linear_bn_weights(linear_w, linear_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b)`:
/// `linear_w * (bn_w * rsqrt(bn_rv + eps)).unsqueeze(-1)` and `(linear_b - bn_rm) * scale +
/// bn_b`, as parameters. torch requires `bn_w` and `bn_b` (its TypeError for None).
#[allow(clippy::too_many_arguments)]
pub fn fuse_linear_bn_weights(
    linear_w: &Tensor,
    linear_b: Option<&Tensor>,
    bn_rm: &Tensor,
    bn_rv: &Tensor,
    bn_eps: f64,
    bn_w: Option<&Tensor>,
    bn_b: Option<&Tensor>,
) -> Result<(Tensor, Tensor)> {
    if bn_w.is_none() {
        return Err(BorchError::Type(
            "unsupported operand type(s) for *: 'NoneType' and 'Tensor'".into(),
        ));
    }
    if bn_b.is_none() {
        return Err(BorchError::Type(
            "unsupported operand type(s) for +: 'Tensor' and 'NoneType'".into(),
        ));
    }
    let bn = BnParts {
        running_mean: bn_rm,
        running_var: bn_rv,
        eps: bn_eps,
        weight: bn_w,
        bias: bn_b,
    };
    let (w, b) = no_grad(|| fold_linear_bn(linear_w, linear_b, &bn))?;
    let b_grad = linear_b.is_some_and(Tensor::requires_grad);
    Ok((
        parameter(&w, linear_w.requires_grad())?,
        parameter(&b, b_grad)?,
    ))
}

/// A `_BatchNorm` (BatchNorm1d/2d/3d, SyncBatchNorm), as `fuse_*_bn_eval` reads it.
pub trait BatchNormLike: Module {
    /// torch's `num_features`.
    fn num_features(&self) -> usize;
    /// torch's `affine`.
    fn affine(&self) -> bool;
    /// Its parts, if it has running statistics.
    fn parts(&self) -> Option<BnParts<'_>>;
}

macro_rules! batch_norm_like {
    ($($t:ty),*) => {$(
        impl BatchNormLike for $t {
            fn num_features(&self) -> usize {
                self.num_features
            }
            fn affine(&self) -> bool {
                self.affine
            }
            fn parts(&self) -> Option<BnParts<'_>> {
                Some(BnParts {
                    running_mean: self.running_mean()?,
                    running_var: self.running_var()?,
                    eps: self.eps,
                    weight: self.weight(),
                    bias: self.bias(),
                })
            }
        }
    )*};
}
batch_norm_like!(BatchNorm1d, BatchNorm2d, BatchNorm3d, SyncBatchNorm);

/// A convolution module (`_ConvNd`, plain or transposed) whose weight and bias a fusion replaces.
pub trait FusableConv: Module + Sized {
    /// The convolution's `weight`.
    fn weight(&self) -> &Tensor;
    /// The convolution's `bias`, if any.
    fn bias(&self) -> Option<&Tensor>;
    /// The layer with these parameters instead (`copy.deepcopy` then assignment).
    fn with_parameters(&self, weight: Tensor, bias: Option<Tensor>) -> Self;
}

macro_rules! fusable_conv {
    ($($t:ty),*) => {$(
        impl FusableConv for $t {
            fn weight(&self) -> &Tensor {
                &self.weight
            }
            fn bias(&self) -> Option<&Tensor> {
                self.bias.as_ref()
            }
            fn with_parameters(&self, weight: Tensor, bias: Option<Tensor>) -> Self {
                <$t>::with_parameters(self, weight, bias)
            }
        }
    )*};
}
fusable_conv!(
    Conv1d,
    Conv2d,
    Conv3d,
    ConvTranspose1d,
    ConvTranspose2d,
    ConvTranspose3d
);

/// torch's `fuse_conv_bn_eval(conv, bn, transpose=False)`: a new convolution (the conv's options
/// and training flag) with the BatchNorm folded into its weight and bias. Both must be in eval
/// mode (`Fusion only for eval!`) and `bn` must track running statistics.
pub fn fuse_conv_bn_eval<C: FusableConv>(
    conv: &C,
    bn: &dyn BatchNormLike,
    transpose: bool,
) -> Result<C> {
    if conv.is_training() || bn.is_training() {
        return Err(assertion("Fusion only for eval!"));
    }
    let p = bn
        .parts()
        .ok_or_else(|| assertion("bn.running_mean and bn.running_var must not be None"))?;
    let (w, b) = fuse_conv_bn_weights(
        conv.weight(),
        conv.bias(),
        p.running_mean,
        p.running_var,
        p.eps,
        p.weight,
        p.bias,
        transpose,
    )?;
    Ok(conv.with_parameters(w, Some(b)))
}

/// torch's `fuse_linear_bn_eval(linear, bn)`: a new Linear with the BatchNorm folded in; both in
/// eval mode, `linear.out_features == bn.num_features` or `bn.num_features == 1`.
pub fn fuse_linear_bn_eval(linear: &Linear, bn: &dyn BatchNormLike) -> Result<Linear> {
    if linear.is_training() || bn.is_training() {
        return Err(assertion("Fusion only for eval!"));
    }
    if linear.out_features != bn.num_features() && bn.num_features() != 1 {
        return Err(assertion(format!(
            "To fuse, linear.out_features == bn.num_features or bn.num_features == 1, got \
             linear.out_features={} and bn.num_features={}",
            linear.out_features,
            bn.num_features()
        )));
    }
    let p = bn
        .parts()
        .ok_or_else(|| assertion("bn.running_mean and bn.running_var must not be None"))?;
    let (w, b) = fuse_linear_bn_weights(
        &linear.weight,
        linear.bias.as_ref(),
        p.running_mean,
        p.running_var,
        p.eps,
        p.weight,
        p.bias,
    )?;
    let mut fused = Linear::from_tensors(w, Some(b))?;
    fused.set_training(linear.is_training());
    Ok(fused)
}

/// `m` as a `_BatchNorm`, if it is one.
pub(crate) fn as_batch_norm(m: &dyn Module) -> Option<&dyn BatchNormLike> {
    let a = m.as_any();
    if let Some(b) = a.downcast_ref::<BatchNorm1d>() {
        return Some(b);
    }
    if let Some(b) = a.downcast_ref::<BatchNorm2d>() {
        return Some(b);
    }
    if let Some(b) = a.downcast_ref::<BatchNorm3d>() {
        return Some(b);
    }
    a.downcast_ref::<SyncBatchNorm>()
        .map(|b| b as &dyn BatchNormLike)
}

/// `fuse_conv_bn_eval` of a conv and a BatchNorm given as modules.
fn conv_bn_eval(conv: &dyn Module, bn: &dyn Module) -> Result<Box<dyn Module>> {
    let bn = as_batch_norm(bn).ok_or_else(|| assertion("a BatchNorm was expected"))?;
    let a = conv.as_any();
    macro_rules! try_conv {
        ($($t:ty => $transpose:expr),*) => {$(
            if let Some(c) = a.downcast_ref::<$t>() {
                return Ok(Box::new(fuse_conv_bn_eval(c, bn, $transpose)?));
            }
        )*};
    }
    try_conv!(Conv1d => false, Conv2d => false, Conv3d => false, ConvTranspose1d => true,
              ConvTranspose2d => true, ConvTranspose3d => true);
    Err(assertion(format!("cannot fuse {}", conv.name())))
}

/// What a known pattern becomes.
enum Plan {
    /// Eval mode: the fused conv or linear (and a ReLU after it: `ConvReLU{n}d`).
    Folded(Box<dyn Module>, bool),
    /// A `nn.intrinsic` container of the modules themselves (`ConvReLU2d(conv, relu)`, or with
    /// `is_qat` `ConvBn2d(conv, bn)`).
    Wrap(&'static str),
}

/// torch's `_DEFAULT_OP_LIST_TO_FUSER_METHOD` (what `fuse_known_modules` fuses), as class names:
/// the `nn.intrinsic` class of a pattern without BatchNorm, or of its QAT form.
fn fused_class(types: &[&str]) -> Option<&'static str> {
    Some(match types {
        ["Conv1d", "BatchNorm1d"] => "ConvBn1d",
        ["Conv2d", "BatchNorm2d"] => "ConvBn2d",
        ["Conv3d", "BatchNorm3d"] => "ConvBn3d",
        ["Conv1d", "BatchNorm1d", "ReLU"] => "ConvBnReLU1d",
        ["Conv2d", "BatchNorm2d", "ReLU"] => "ConvBnReLU2d",
        ["Conv3d", "BatchNorm3d", "ReLU"] => "ConvBnReLU3d",
        ["Conv1d", "ReLU"] => "ConvReLU1d",
        ["Conv2d", "ReLU"] => "ConvReLU2d",
        ["Conv3d", "ReLU"] => "ConvReLU3d",
        ["Linear", "BatchNorm1d"] => "LinearBn1d",
        ["Linear", "ReLU"] => "LinearReLU",
        ["BatchNorm2d", "ReLU"] => "BNReLU2d",
        ["BatchNorm3d", "ReLU"] => "BNReLU3d",
        ["ConvTranspose1d", "BatchNorm1d"]
        | ["ConvTranspose2d", "BatchNorm2d"]
        | ["ConvTranspose3d", "BatchNorm3d"] => "",
        _ => return None,
    })
}

/// How torch prints a module class in `did not find fuser method for: (...)`.
fn torch_class(name: &str) -> String {
    let file = if name.starts_with("Conv") {
        "conv"
    } else if name.contains("BatchNorm") {
        "batchnorm"
    } else if ["Linear", "Identity", "Bilinear"].contains(&name) {
        "linear"
    } else if ["Flatten", "Unflatten"].contains(&name) {
        "flatten"
    } else if name.contains("Pool") {
        "pooling"
    } else if name.contains("Dropout") {
        "dropout"
    } else if ["Sequential", "ModuleList", "ModuleDict"].contains(&name) {
        "container"
    } else {
        "activation"
    };
    format!("<class 'torch.nn.modules.{file}.{name}'>")
}

/// `out_channels` of a Conv1d/2d/3d.
fn out_channels(m: &dyn Module) -> Option<usize> {
    let a = m.as_any();
    a.downcast_ref::<Conv1d>()
        .map(|c| c.out_channels)
        .or_else(|| a.downcast_ref::<Conv2d>().map(|c| c.out_channels))
        .or_else(|| a.downcast_ref::<Conv3d>().map(|c| c.out_channels))
}

/// The plan for `mods`: torch's fuser methods' checks, and in eval mode the folding, done by
/// reference, so that a failure leaves the model as it was.
fn plan(mods: &[&dyn Module], is_qat: bool) -> Result<Plan> {
    let names: Vec<String> = mods.iter().map(|m| m.name()).collect();
    let types: Vec<&str> = names.iter().map(String::as_str).collect();
    let Some(class) = fused_class(&types) else {
        let listed: Vec<String> = types.iter().map(|t| torch_class(t)).collect();
        return Err(assertion(format!(
            "did not find fuser method for: ({}) ",
            listed.join(", ")
        )));
    };
    let Some(bn) = mods.get(1).and_then(|m| as_batch_norm(*m)) else {
        return Ok(Plan::Wrap(class));
    };
    let first = match types[0] {
        "Linear" => "Linear",
        t if t.starts_with("ConvTranspose") => "ConvTranspose",
        _ => "Conv",
    };
    if mods
        .iter()
        .any(|m| m.is_training() != mods[0].is_training())
    {
        return Err(assertion(format!(
            "{first} and BN both must be in the same mode (train or eval)."
        )));
    }
    let relu = types.len() == 3;
    if is_qat {
        let (what, kind) = match first {
            "ConvTranspose" => {
                return Err(BorchError::Runtime(
                    "Fusing ConvTranspose+BatchNorm not yet supported in QAT.".into(),
                ));
            }
            "Linear" => ("Output features of Linear", "BatchNorm1d"),
            _ => ("Output channel of Conv2d", "BatchNorm2d"),
        };
        let features = match first {
            "Linear" => mods[0]
                .as_any()
                .downcast_ref::<Linear>()
                .map(|l| l.out_features),
            _ => out_channels(mods[0]),
        };
        if features != Some(bn.num_features()) {
            let end = if relu { "" } else { "." };
            return Err(assertion(format!(
                "{what} must match num_features of {kind}{end}"
            )));
        }
        if !bn.affine() {
            return Err(assertion(format!(
                "Only support fusing {kind} with affine set to True"
            )));
        }
        if bn.parts().is_none() {
            return Err(assertion(format!(
                "Only support fusing {kind} with tracking_running_stats set to True"
            )));
        }
        return Ok(Plan::Wrap(class));
    }
    if first == "Linear" {
        let linear = mods[0].as_any().downcast_ref::<Linear>();
        let linear = linear.ok_or_else(|| assertion("a Linear was expected"))?;
        return Ok(Plan::Folded(
            Box::new(fuse_linear_bn_eval(linear, bn)?),
            false,
        ));
    }
    Ok(Plan::Folded(conv_bn_eval(mods[0], mods[1])?, relu))
}

/// torch's `fuse_known_modules(mod_list, is_qat)`: the fused module first, then an Identity (in
/// the first module's training mode) for each other.
pub fn fuse_known_modules(
    mods: Vec<Box<dyn Module>>,
    is_qat: bool,
) -> Result<Vec<Box<dyn Module>>> {
    let refs: Vec<&dyn Module> = mods.iter().map(|m| m.as_ref()).collect();
    let plan = plan(&refs, is_qat)?;
    assemble(plan, mods)
}

fn identity(training: bool) -> Box<dyn Module> {
    let mut i = Identity::new();
    i.set_training(training);
    Box::new(i)
}

fn assemble(plan: Plan, mods: Vec<Box<dyn Module>>) -> Result<Vec<Box<dyn Module>>> {
    let training = mods[0].is_training();
    let n = mods.len();
    let fused: Box<dyn Module> = match plan {
        Plan::Wrap(name) => build_fused(name, mods)?,
        Plan::Folded(m, false) => m,
        Plan::Folded(conv, true) => {
            let mut relu = ReLU::new();
            relu.set_training(mods[2].is_training());
            with_relu(conv, relu)?
        }
    };
    let mut out = vec![fused];
    out.extend((1..n).map(|_| identity(training)));
    Ok(out)
}

/// `ConvReLU{n}d(conv, relu)` of a fused conv.
fn with_relu(conv: Box<dyn Module>, relu: ReLU) -> Result<Box<dyn Module>> {
    let name = conv.name();
    let any = conv.into_any();
    let any = match any.downcast::<Conv2d>() {
        Ok(c) => return Ok(Box::new(ConvReLU2d::new(*c, relu))),
        Err(a) => a,
    };
    let any = match any.downcast::<Conv1d>() {
        Ok(c) => return Ok(Box::new(ConvReLU1d::new(*c, relu))),
        Err(a) => a,
    };
    match any.downcast::<Conv3d>() {
        Ok(c) => Ok(Box::new(ConvReLU3d::new(*c, relu))),
        Err(_) => Err(BorchError::NotImplemented(format!(
            "Cannot fuse eval modules: ({name}, BatchNorm, ReLU)"
        ))),
    }
}

fn attribute_error(m: &dyn Module, name: &str) -> BorchError {
    BorchError::Runtime(format!("'{}' object has no attribute '{name}'", m.name()))
}

/// torch's `_get_module(model, "a.b.c")`.
fn get<'a>(model: &'a dyn Module, path: &str) -> Result<&'a dyn Module> {
    let mut m = model;
    for token in path.split('.') {
        m = m
            .named_children()
            .into_iter()
            .find(|(n, _)| n == token)
            .map(|(_, c)| c)
            .ok_or_else(|| attribute_error(m, token))?;
    }
    Ok(m)
}

/// torch's `_set_module(model, "a.b.c", module)`, returning the module replaced.
fn set(model: &mut dyn Module, path: &str, module: Box<dyn Module>) -> Result<Box<dyn Module>> {
    let tokens: Vec<&str> = path.split('.').collect();
    let (last, parents) = tokens.split_last().expect("split gives one token");
    let mut m = model;
    for token in parents {
        let name = m.name();
        m = m
            .named_children_mut()
            .into_iter()
            .find(|(n, _)| n == token)
            .map(|(_, c)| c)
            .ok_or_else(|| {
                BorchError::Runtime(format!("'{name}' object has no attribute '{token}'"))
            })?;
    }
    m.replace_child(last, module)
}

/// Fuse the modules at `paths` (one list of `modules_to_fuse`).
fn fuse_group(model: &mut dyn Module, paths: &[&str], is_qat: bool) -> Result<()> {
    let plan = {
        let mods = paths
            .iter()
            .map(|p| get(model, p))
            .collect::<Result<Vec<_>>>()?;
        plan(&mods, is_qat)?
    };
    let training = get(model, paths[0])?.is_training();
    let mut taken = Vec::new();
    for p in paths {
        taken.push(set(model, p, identity(training))?);
    }
    for (p, m) in paths.iter().zip(assemble(plan, taken)?) {
        set(model, p, m)?;
    }
    Ok(())
}

/// torch's `torch.ao.quantization.fuse_modules(model, modules_to_fuse, inplace=True)`: each list
/// of dotted module names (`[["conv1", "bn1", "relu1"], ["layer1.0.conv", "layer1.0.relu"]]`)
/// fused by `fuse_known_modules`: the first name gets the fused module, the others `Identity`.
/// Conv-BN(-ReLU) and Linear-BN (eval mode only: `Fusion only for eval!`) fold into the conv
/// (`ConvReLU2d(fused_conv, relu)`); Conv-ReLU, Linear-ReLU and BN-ReLU become `ConvReLU*d`,
/// `LinearReLU`, `BNReLU*d`.
///
/// Rust owns the model, so this is torch's `inplace=True`; torch's default `inplace=False`
/// deep-copies the model first (borch has no generic module copy: fuse a model you own).
/// The modules' parents must be containers (Sequential, ModuleList, ModuleDict): a module whose
/// children are typed fields cannot take another module in their place.
pub fn fuse_modules(model: &mut dyn Module, modules_to_fuse: &[Vec<&str>]) -> Result<()> {
    for group in modules_to_fuse {
        fuse_group(model, group, false)?;
    }
    Ok(())
}

/// torch's `torch.ao.quantization.fuse_modules_qat(model, modules_to_fuse, inplace=True)`: as
/// [`fuse_modules`], but Conv-BN(-ReLU) and Linear-BN become `ConvBn*d` / `ConvBnReLU*d` /
/// `LinearBn1d` (BatchNorm kept: trainable), with torch's QAT checks.
pub fn fuse_modules_qat(model: &mut dyn Module, modules_to_fuse: &[Vec<&str>]) -> Result<()> {
    for group in modules_to_fuse {
        fuse_group(model, group, true)?;
    }
    Ok(())
}

/// The patterns `fuse_for_eval` looks for in a Sequential, longest first: those that save work
/// in eval mode.
fn worth_fusing(types: &[&str]) -> bool {
    matches!(
        types,
        ["Conv1d", "BatchNorm1d", "ReLU"]
            | ["Conv2d", "BatchNorm2d", "ReLU"]
            | ["Conv3d", "BatchNorm3d", "ReLU"]
            | ["Conv1d", "BatchNorm1d"]
            | ["Conv2d", "BatchNorm2d"]
            | ["Conv3d", "BatchNorm3d"]
            | ["ConvTranspose1d", "BatchNorm1d"]
            | ["ConvTranspose2d", "BatchNorm2d"]
            | ["ConvTranspose3d", "BatchNorm3d"]
            | ["Conv2d", "ReLU"]
            | ["Linear", "BatchNorm1d"]
            | ["Linear", "ReLU"]
    )
}

/// An eval-mode `ConvBn*d` / `ConvBnReLU*d` / `LinearBn1d` child folded as `fuse_modules` folds
/// its parts (`ConvBnReLU2d` → `ConvReLU2d(fused_conv, relu)`), or `None`.
fn fold_intrinsic(m: &dyn Module) -> Result<Option<Box<dyn Module>>> {
    use crate::intrinsic::*;
    let a = m.as_any();
    macro_rules! fold {
        ($($t:ty => $relu:expr),*) => {$(
            if let Some(f) = a.downcast_ref::<$t>() {
                if f.conv.is_training() || f.bn.is_training() || as_batch_norm(&f.bn as &dyn Module).and_then(|b| b.parts()).is_none() {
                    return Ok(None);
                }
                let conv = conv_bn_eval(&f.conv, &f.bn)?;
                let mut relu = ReLU::new();
                relu.set_training(false);
                return Ok(Some(if $relu { with_relu(conv, relu)? } else { conv }));
            }
        )*};
    }
    fold!(ConvBn1d => false, ConvBn2d => false, ConvBn3d => false,
          ConvBnReLU1d => true, ConvBnReLU2d => true, ConvBnReLU3d => true);
    if let Some(f) = a.downcast_ref::<LinearBn1d>()
        && !f.linear.is_training()
        && !f.bn.is_training()
        && f.bn.running_mean().is_some()
    {
        return Ok(Some(Box::new(fuse_linear_bn_eval(&f.linear, &f.bn)?)));
    }
    Ok(None)
}

/// A container's children fused where they form a pattern (all in eval mode, BatchNorm with
/// running statistics), then each child's own `fuse_for_eval`. What `Sequential::fuse_for_eval`
/// runs.
pub fn fuse_sequence(container: &mut dyn Module) -> Result<()> {
    let names: Vec<String> = container
        .named_children()
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    let mut i = 0;
    while i < names.len() {
        let mut step = 1;
        for len in [3, 2] {
            if i + len > names.len() {
                continue;
            }
            let group: Vec<&str> = names[i..i + len].iter().map(String::as_str).collect();
            let ok = {
                let mods: Vec<&dyn Module> = group
                    .iter()
                    .map(|p| get(container, p))
                    .collect::<Result<_>>()?;
                let types: Vec<String> = mods.iter().map(|m| m.name()).collect();
                let types: Vec<&str> = types.iter().map(String::as_str).collect();
                worth_fusing(&types)
                    && mods.iter().all(|m| !m.is_training())
                    && mods
                        .get(1)
                        .and_then(|m| as_batch_norm(*m))
                        .is_none_or(|b| b.parts().is_some())
            };
            if ok {
                fuse_group(container, &group, false)?;
                step = len;
                break;
            }
        }
        if step == 1
            && let Some(folded) = fold_intrinsic(get(container, &names[i])?)?
        {
            container.replace_child(&names[i], folded)?;
        }
        i += step;
    }
    for (_, child) in container.named_children_mut() {
        child.fuse_for_eval()?;
    }
    Ok(())
}

/// borch's `fuse_for_eval(model)` (not a torch function): an eval-mode model's Conv-BN(-ReLU),
/// Conv-ReLU, Linear-BN and Linear-ReLU runs inside every Sequential fused as `fuse_modules`
/// fuses them (found, not named), eval `nn.intrinsic` Conv-BN modules folded, and modules with
/// their own `Module::fuse_for_eval` (ResNet blocks: Conv-BN-Add-ReLU) switched to their fused
/// eval forward. In place; the model must be in eval mode.
pub fn fuse_for_eval(model: &mut dyn Module) -> Result<()> {
    if model.is_training() {
        return Err(assertion("Fusion only for eval!"));
    }
    model.fuse_for_eval()
}
