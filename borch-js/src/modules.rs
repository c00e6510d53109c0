//! The JavaScript side of `nn` modules: where a module lives and JavaScript values to core values
//! and back (input tensors, state dicts, key lists). No module logic: every operation is the
//! core's `borch_nn::Module`.
//!
//! A module made in JavaScript owns its core module. Handing it to a container (`Sequential`)
//! moves the core module into the container and turns the JavaScript object into a path to it
//! (`container → "0"`), so both views share one module (parameters, training flag), as in torch.

use std::cell::RefCell;
use std::rc::{Rc, Weak};

use borch_nn::api::modules::stacks;
use borch_nn::intrinsic;
use borch_nn::{Identity, IncompatibleKeys, Module, StateDict};
use borch_tensor::{BorchError, Result, Tensor};
use js_sys::{Array, Object, Reflect};
use wasm_bindgen::prelude::*;

use crate::bind::wrong_argument;
use crate::call::{arguments, raw_arguments, result, value, values};
use crate::errors::{JsResult, to_js, type_error};
use crate::registry::{Live, Registry};
use crate::tensor::JsTensor;

/// The property a module object answers with its registry id.
pub const MODULE_ID: &str = "__borchModule";

/// Where a module lives: owned by its JavaScript object, or inside a container's module.
pub enum Place {
    Own(Box<dyn Module>),
    In {
        parent: Rc<RefCell<Place>>,
        name: String,
    },
}

thread_local! {
    static LIVE: RefCell<Registry<Weak<RefCell<Place>>>> = RefCell::default();
}

/// A JavaScript module object's handle on its module.
pub struct Node {
    pub id: u64,
    place: Rc<RefCell<Place>>,
}

impl Drop for Node {
    fn drop(&mut self) {
        LIVE.unregister(self.id);
    }
}

fn busy() -> BorchError {
    BorchError::Runtime("this module is in use by a call that has not returned".into())
}

impl Node {
    fn register(place: Rc<RefCell<Place>>) -> Node {
        let id = LIVE.insert(Rc::downgrade(&place));
        Node { id, place }
    }

    /// A node owning `module`.
    pub fn new(module: Box<dyn Module>) -> Node {
        Node::register(Rc::new(RefCell::new(Place::Own(module))))
    }

    /// Build a module with `f`, as a node.
    pub fn build(module: JsResult<Box<dyn Module>>) -> JsResult<Node> {
        module.map(Node::new)
    }

    /// The owning place at the top and the names leading from it to this module.
    pub(crate) fn locate(&self) -> Result<(Rc<RefCell<Place>>, Vec<String>)> {
        let mut path = Vec::new();
        let mut current = self.place.clone();
        loop {
            let next = match &*current.try_borrow().map_err(|_| busy())? {
                Place::Own(_) => None,
                Place::In { parent, name } => {
                    path.push(name.clone());
                    Some(parent.clone())
                }
            };
            match next {
                Some(parent) => current = parent,
                None => break,
            }
        }
        path.reverse();
        Ok((current, path))
    }

    /// Run `f` on the module.
    pub fn with<R>(&self, f: impl FnOnce(&dyn Module) -> Result<R>) -> JsResult<R> {
        let run = || {
            let (root, path) = self.locate()?;
            let borrowed = root.try_borrow().map_err(|_| busy())?;
            f(descend(&borrowed, &path)?)
        };
        run().map_err(to_js)
    }

    /// Run `f` on the module, mutably (`train`, `eval`).
    pub fn with_mut<R>(&self, f: impl FnOnce(&mut dyn Module) -> R) -> JsResult<R> {
        let run = || {
            let (root, path) = self.locate()?;
            let mut borrowed = root.try_borrow_mut().map_err(|_| busy())?;
            let Place::Own(top) = &mut *borrowed else {
                return Err(busy());
            };
            let mut m: &mut dyn Module = top.as_mut();
            for name in &path {
                m = m
                    .named_children_mut()
                    .into_iter()
                    .find(|(n, _)| n == name)
                    .map(|(_, c)| c)
                    .ok_or_else(|| BorchError::Runtime(format!("submodule '{name}' is gone")))?;
            }
            Ok(f(m))
        };
        run().map_err(to_js)
    }

    /// torch's `forward(*args, **kwargs)` on JavaScript arguments (keywords as a trailing plain
    /// object, camelCase keys, as functional ops take them): a `Tensor`, or an array (nested) for
    /// a tuple, `null` for a None item.
    pub fn forward(&self, args: &Array) -> JsResult<JsValue> {
        let (positional, keywords) = arguments(args)?;
        output(self.with(|m| m.forward_values(positional, keywords))?)
    }

    /// torch's `load_state_dict(state_dict, strict)` from a plain object name → `Tensor`.
    pub fn load_state_dict(&self, obj: &JsValue, strict: bool) -> JsResult<Object> {
        let sd = state_dict_from("load_state_dict", obj)?;
        self.with(|m| m.load_state_dict(&sd, strict).map(incompatible_keys))
    }

    /// A container (`Sequential`, `ModuleList`, `ModuleDict`) made by `make` from the named
    /// modules: they move into it, and their JavaScript objects then reach them through it.
    pub fn container(
        kind: &str,
        named: Vec<(String, JsValue)>,
        make: impl Fn(Vec<(String, Box<dyn Module>)>) -> Box<dyn Module>,
    ) -> JsResult<Node> {
        Node::container_with(kind, named, make(Vec::new()), |m| Ok(make(m)))
    }

    /// [`Node::container`] whose module `make` builds from the moved modules and may refuse
    /// (`nn.intrinsic`'s classes, checked before); `placeholder` holds the place meanwhile.
    pub fn container_with(
        kind: &str,
        named: Vec<(String, JsValue)>,
        placeholder: Box<dyn Module>,
        make: impl FnOnce(Vec<(String, Box<dyn Module>)>) -> Result<Box<dyn Module>>,
    ) -> JsResult<Node> {
        let mut places: Vec<(String, Rc<RefCell<Place>>)> = Vec::new();
        for (i, (name, v)) in named.into_iter().enumerate() {
            let place = module_place(&v).ok_or_else(|| {
                wrong_argument(kind, i + 1, "a Module (nn.Linear, nn.ReLU, …)", &v)
            })?;
            let owned = matches!(
                &*place.try_borrow().map_err(|_| to_js(busy()))?,
                Place::Own(_)
            );
            if !owned || places.iter().any(|(_, p)| Rc::ptr_eq(p, &place)) {
                return Err(type_error(format!(
                    "{kind}(): module '{name}' is already part of a container (borch-ts does \
                     not share one module between containers)"
                )));
            }
            places.push((name, place));
        }
        let container = Rc::new(RefCell::new(Place::Own(placeholder)));
        let mut modules = Vec::new();
        for (name, place) in places {
            let moved = Place::In {
                parent: container.clone(),
                name: name.clone(),
            };
            if let Place::Own(m) = place.replace(moved) {
                modules.push((name, m));
            }
        }
        *container.borrow_mut() = Place::Own(make(modules).map_err(to_js)?);
        Ok(Node::register(container))
    }

    /// An `nn.intrinsic` class (`ConvReLU2d(conv, relu)`): the core checks and names the
    /// arguments (`borch_nn::intrinsic::bind_fused`), the modules move in as into a container,
    /// the core builds the fused module.
    pub fn fused(name: &str, args: Vec<JsValue>) -> JsResult<Node> {
        let class_of = |v: &JsValue| node_of(v).and_then(|n| n.with(|m| Ok(m.name())).ok());
        let named = intrinsic::bind_fused(name, args, function_name, class_of).map_err(to_js)?;
        Node::container_with(name, named, Box::new(Identity::new()), |modules| {
            intrinsic::build_fused_named(name, modules)
        })
    }

    /// A class taking modules (`TransformerEncoder`), built by the core: the core splits the
    /// module arguments from the others, they are lent to it and deep-copied (the JavaScript
    /// objects keep owning theirs), the others bound to the class's signature.
    pub fn stack(name: &str, args: &Array) -> JsResult<Node> {
        let (positional, keywords) = raw_arguments(args)?;
        let (modules, positional, keywords) =
            stacks::split_arguments(name, positional, keywords).map_err(to_js)?;
        let params = stacks::find_stack(name).map_or(&[][..], |c| c.modules);
        let mut nodes = Vec::new();
        for (v, p) in modules.iter().zip(params) {
            nodes.push(match v {
                Some(v) if !v.is_undefined() && !v.is_null() => {
                    Some(node_of(v).ok_or_else(|| {
                        wrong_argument(
                            name,
                            p.position + 1,
                            "a Module (nn.TransformerEncoderLayer, …)",
                            v,
                        )
                    })?)
                }
                _ => None,
            });
        }
        let (positional, keywords) = values(positional, keywords)?;
        let built = with_modules(&nodes, |ms| {
            stacks::build_stack(name, ms, positional, keywords)
        })?;
        Ok(Node::new(built))
    }

    /// The child module `name` of this container, as a node sharing it.
    pub fn child(&self, name: String) -> Node {
        Node::register(Rc::new(RefCell::new(Place::In {
            parent: self.place.clone(),
            name,
        })))
    }
}

/// A JavaScript function's name (`name`, or through Pyodide a Python function's `__name__`).
fn function_name(v: &JsValue) -> Option<String> {
    let get = |key: &str| Reflect::get(v, &JsValue::from_str(key)).ok()?.as_string();
    get("name")
        .filter(|n| !n.is_empty())
        .or_else(|| get("__name__"))
}

/// The module `path` leads to from the owning place `top` (what `Node::locate` gives).
pub(crate) fn descend<'a>(top: &'a Place, path: &[String]) -> Result<&'a dyn Module> {
    let Place::Own(top) = top else {
        return Err(busy());
    };
    let mut m: &dyn Module = top.as_ref();
    for name in path {
        m = m
            .named_children()
            .into_iter()
            .find(|(n, _)| n == name)
            .map(|(_, c)| c)
            .ok_or_else(|| BorchError::Runtime(format!("submodule '{name}' is gone")))?;
    }
    Ok(m)
}

/// A new handle on the module of a JavaScript module object, if `v` is one.
pub fn node_of(v: &JsValue) -> Option<Node> {
    module_place(v).map(Node::register)
}

/// Run `f` on the modules of `nodes` (`None` stays `None`), all borrowed at once.
pub fn with_modules<R>(
    nodes: &[Option<Node>],
    f: impl FnOnce(&[Option<&dyn Module>]) -> Result<R>,
) -> JsResult<R> {
    fn go<R>(
        nodes: &[Option<Node>],
        mut done: Vec<Option<&dyn Module>>,
        f: impl FnOnce(&[Option<&dyn Module>]) -> Result<R>,
    ) -> JsResult<R> {
        match nodes.split_first() {
            None => f(&done).map_err(to_js),
            Some((None, rest)) => {
                done.push(None);
                go(rest, done, f)
            }
            Some((Some(node), rest)) => node.with(|m| {
                let mut done: Vec<Option<&dyn Module>> = done;
                done.push(Some(m));
                Ok(go(rest, done, f))
            })?,
        }
    }
    go(nodes, Vec::new(), f)
}

/// The place of a JavaScript module object, if `v` is one.
fn module_place(v: &JsValue) -> Option<Rc<RefCell<Place>>> {
    LIVE.branded(v, MODULE_ID)?.upgrade()
}

/// A forward's result as JavaScript: a tuple as an array (nested), None as `null`.
fn output(v: borch_tensor::api::Value) -> JsResult<JsValue> {
    use borch_tensor::api::Value;
    match v {
        Value::None => Ok(JsValue::NULL),
        Value::List(items) => Ok(items
            .into_iter()
            .map(output)
            .collect::<JsResult<Array>>()?
            .into()),
        other => result(other),
    }
}

/// Tensors as a JavaScript array of `Tensor`s.
pub fn tensors(ts: Vec<Tensor>) -> Array {
    ts.into_iter()
        .map(|t| JsValue::from(JsTensor::from(t)))
        .collect()
}

/// Named tensors as `[name, Tensor]` pairs (torch's `named_parameters()`).
pub fn named(ts: Vec<(String, Tensor)>) -> Array {
    ts.into_iter()
        .map(|(n, t)| {
            let pair = Array::of2(&JsValue::from_str(&n), &JsTensor::from(t).into());
            JsValue::from(pair)
        })
        .collect()
}

/// A state dict as a plain object, name → `Tensor`, in torch's order.
pub fn state_dict_js(sd: StateDict) -> Object {
    let out = Object::new();
    for (k, t) in sd {
        let _ = Reflect::set(&out, &JsValue::from_str(&k), &JsTensor::from(t).into());
    }
    out
}

/// A plain object name → `Tensor` as a state dict (`name` is the function it is an argument of).
pub(crate) fn state_dict_from(name: &str, obj: &JsValue) -> JsResult<StateDict> {
    if !obj.is_object() || crate::js::is_array(obj)? {
        return Err(wrong_argument(name, 1, "an object of name → Tensor", obj));
    }
    let mut sd = StateDict::new();
    for (key, v) in crate::js::entries(obj)? {
        match value(&v)? {
            borch_tensor::api::Value::Tensor(t) => sd.insert(key, t),
            other => {
                return Err(type_error(format!(
                    "{name}(): the value of '{key}' must be a Tensor, not {}",
                    other.type_name()
                )));
            }
        }
    }
    Ok(sd)
}

/// `{ missingKeys, unexpectedKeys }` (torch's `_IncompatibleKeys`).
fn incompatible_keys(keys: IncompatibleKeys) -> Object {
    let list = |v: Vec<String>| -> Array { v.iter().map(|s| JsValue::from_str(s)).collect() };
    let out = Object::new();
    let _ = Reflect::set(&out, &"missingKeys".into(), &list(keys.missing_keys));
    let _ = Reflect::set(&out, &"unexpectedKeys".into(), &list(keys.unexpected_keys));
    out
}

/// A named parameter or buffer of the module itself (`weight`, `bias`), if present.
pub fn own(m: &dyn Module, name: &str) -> Option<JsTensor> {
    m.own_parameters()
        .into_iter()
        .chain(m.own_buffers())
        .find(|(n, _)| n == name)
        .map(|(_, t)| JsTensor::from(t))
}
