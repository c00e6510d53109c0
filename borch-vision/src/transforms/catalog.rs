//! torchvision's tensor transforms as a catalog the bindings forward to: each transform by its
//! torchvision name with torchvision's signature (argument order, defaults), built by one
//! function. [`build_transform`] binds with the core's binder (torch's TypeErrors), so borch-ts's
//! `vision.transforms.RandomCrop(32, { padding: 4 })`, borch_webgpu's
//! `vision.transforms.RandomCrop(32, padding=4)` and native callers construct through this one
//! definition.

use std::rc::Rc;
use std::sync::OnceLock;

use borch_tensor::api::{self, Args, Call, Entry, Form, Returns, Value};
use borch_tensor::{BorchError, Result, Tensor};

use super::{
    CenterCrop, Compose, Normalize, RandomCrop, RandomHorizontalFlip, RandomResizedCrop,
    RandomVerticalFlip, Resize, Transform,
};

/// The module named in errors.
pub const MODULE: &str = "torchvision.transforms";

/// One transform: its torchvision name, signature, and builder.
pub struct TransformClass {
    /// torchvision's class name.
    pub name: &'static str,
    /// The signature, as the op catalog writes one.
    pub signature: &'static str,
    build: fn(&Args) -> Result<Box<dyn Transform>>,
    entry: Entry,
}

fn unused(_: &Args) -> Result<Value> {
    Ok(Value::None)
}

fn class(
    name: &'static str,
    signature: &'static str,
    build: fn(&Args) -> Result<Box<dyn Transform>>,
) -> TransformClass {
    TransformClass {
        name,
        signature,
        build,
        entry: Entry {
            name,
            form: Form::Function,
            params: api::parse_params(signature),
            returns: Returns::Tensor,
            call: Call::Fn(unused),
        },
    }
}

/// A list of numbers (`mean`, `std`, `scale`, `ratio`), or torch's TypeError naming it.
fn floats(a: &Args, i: usize, what: &str) -> Result<Vec<f64>> {
    let items = match a.get(i) {
        Value::List(items) => items.clone(),
        v @ (Value::Int(_) | Value::Float(_)) => vec![v.clone()],
        _ => {
            return Err(BorchError::Type(format!(
                "{what} should be a sequence of numbers"
            )));
        }
    };
    items
        .iter()
        .map(|v| match v {
            Value::Int(x) => Ok(*x as f64),
            Value::Float(x) => Ok(*x),
            _ => Err(BorchError::Type(format!(
                "{what} should be a sequence of numbers"
            ))),
        })
        .collect()
}

fn pair(a: &Args, i: usize, what: &str) -> Result<(f64, f64)> {
    match floats(a, i, what)?.as_slice() {
        [lo, hi] => Ok((*lo, *hi)),
        _ => Err(BorchError::Value(format!(
            "{what} should be a sequence of length 2"
        ))),
    }
}

/// The transforms of the catalog.
pub fn transforms() -> &'static [TransformClass] {
    static ALL: OnceLock<Vec<TransformClass>> = OnceLock::new();
    ALL.get_or_init(|| {
        vec![
            class(
                "Normalize",
                "mean: Data, std: Data, inplace: Bool = False",
                |a| {
                    let t = Normalize::new(&floats(a, 0, "mean")?, &floats(a, 1, "std")?);
                    Ok(Box::new(t.inplace(a.bool(2)?)))
                },
            ),
            class(
                "Resize",
                "size: Ints, interpolation: Str = 'bilinear', max_size: Int = None, \
                 antialias: Bool = True",
                |a| {
                    let mut t = Resize::new(&a.sizes(0)?).interpolation(a.str(1)?);
                    if let Some(m) = a.opt_int(2)? {
                        t = t.max_size(m.max(0) as usize);
                    }
                    Ok(Box::new(t.antialias(a.bool(3)?)))
                },
            ),
            class("CenterCrop", "size: Ints", |a| {
                Ok(Box::new(CenterCrop::new(&a.sizes(0)?)))
            }),
            class(
                "RandomCrop",
                "size: Ints, padding: Ints = None, pad_if_needed: Bool = False, fill: Float = 0, \
                 padding_mode: Str = 'constant'",
                |a| {
                    let mut t = RandomCrop::new(&a.sizes(0)?);
                    if let Some(p) = a.opt_sizes(1)? {
                        t = t.padding(&p);
                    }
                    let t = t.pad_if_needed(a.bool(2)?).fill(a.f64(3)?);
                    Ok(Box::new(t.padding_mode(a.str(4)?)))
                },
            ),
            class("RandomHorizontalFlip", "p: Float = 0.5", |a| {
                Ok(Box::new(RandomHorizontalFlip::new(a.f64(0)?)))
            }),
            class("RandomVerticalFlip", "p: Float = 0.5", |a| {
                Ok(Box::new(RandomVerticalFlip::new(a.f64(0)?)))
            }),
            class(
                "RandomResizedCrop",
                "size: Ints, scale: Data = None, ratio: Data = None, \
                 interpolation: Str = 'bilinear', antialias: Bool = True",
                |a| {
                    let mut t = RandomResizedCrop::new(&a.sizes(0)?);
                    if !matches!(a.get(1), Value::None) {
                        let (lo, hi) = pair(a, 1, "scale")?;
                        t = t.scale(lo, hi);
                    }
                    if !matches!(a.get(2), Value::None) {
                        let (lo, hi) = pair(a, 2, "ratio")?;
                        t = t.ratio(lo, hi);
                    }
                    Ok(Box::new(t.interpolation(a.str(3)?).antialias(a.bool(4)?)))
                },
            ),
        ]
    })
}

/// `torchvision.transforms.<name>(*positional, **keywords)`.
pub fn build_transform(
    name: &str,
    positional: Vec<Value>,
    keywords: Vec<(String, Value)>,
) -> Result<Rc<dyn Transform>> {
    let class = transforms()
        .iter()
        .find(|c| c.name == name)
        .ok_or_else(|| {
            BorchError::NotImplemented(format!(
                "module '{MODULE}' has no attribute '{name}' in borch (it has {})",
                transforms()
                    .iter()
                    .map(|c| c.name)
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        })?;
    let args = api::bind(&class.entry, positional, keywords)?;
    Ok(Rc::from((class.build)(&args)?))
}

/// A transform shared between handles (a binding's object and the `Compose` holding it).
struct Shared(Rc<dyn Transform>);

impl Transform for Shared {
    fn forward(&self, img: &Tensor) -> Result<Tensor> {
        self.0.forward(img)
    }
}

/// A shared transform as the owned one a dataset's `transform=` takes.
pub fn shared(t: Rc<dyn Transform>) -> Box<dyn Transform> {
    Box::new(Shared(t))
}

/// `Compose(transforms)` of shared transforms.
pub fn compose(transforms: Vec<Rc<dyn Transform>>) -> Rc<dyn Transform> {
    Rc::new(Compose::new(
        transforms
            .into_iter()
            .map(|t| Box::new(Shared(t)) as Box<dyn Transform>)
            .collect(),
    ))
}
