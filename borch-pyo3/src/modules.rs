//! `Module`: an `nn` module of the core (`borch_nn::Module`), built by name through the module
//! catalog (`borch_nn::api::modules::build_module`), answering borch-ts's `Module` names
//! (`call`, `parameters`, `namedParameters`, `train`, `zeroGrad`, `stateDict`, …). As in borch-js,
//! a module handed to a container (`Sequential`) moves into it and its Python object becomes a
//! path to it, so both views share one module.

use std::cell::RefCell;
use std::rc::Rc;

use borch_nn::{Module, ModuleDict, ModuleList, Sequential, StateDict, child_name, child_name_at};
use borch_tensor::{BorchError, Result, Tensor};
use pyo3::IntoPyObjectExt;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use crate::convert::{arguments, raw_arguments, to_py, type_name, value};
use crate::errors::{err, guard, type_error};
use crate::tensor::PyTensor;
use crate::thread_bound::ThreadBound;

/// Where a module lives: owned by its Python object, or inside a container's module.
pub(crate) enum Place {
    Own(Box<dyn Module>),
    In {
        parent: Rc<RefCell<Place>>,
        name: String,
    },
}

fn busy() -> BorchError {
    BorchError::Runtime("this module is in use by a call that has not returned".into())
}

fn gone(name: &str) -> BorchError {
    BorchError::Runtime(format!("submodule '{name}' is gone"))
}

/// An `nn` module (borch-ts's `Module`).
#[pyclass(name = "Module", module = "borch._native")]
pub struct PyModule {
    place: ThreadBound<Rc<RefCell<Place>>>,
}

impl PyModule {
    fn handle(place: Rc<RefCell<Place>>) -> PyModule {
        PyModule {
            place: ThreadBound::new("module", place),
        }
    }

    pub(crate) fn own(module: Box<dyn Module>) -> PyModule {
        PyModule::handle(Rc::new(RefCell::new(Place::Own(module))))
    }

    /// Another handle on this module (a module argument kept by the core's call).
    pub(crate) fn share(&self) -> PyResult<PyModule> {
        Ok(PyModule::handle(self.place.get()?.clone()))
    }

    /// The owning place and the names leading from `place` to its module.
    fn locate(place: &Rc<RefCell<Place>>) -> Result<(Rc<RefCell<Place>>, Vec<String>)> {
        let mut path = Vec::new();
        let mut current = place.clone();
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
    pub(crate) fn with<R>(&self, f: impl FnOnce(&dyn Module) -> Result<R>) -> PyResult<R> {
        let place = self.place.get()?;
        let run = || {
            let (root, path) = PyModule::locate(place)?;
            let borrowed = root.try_borrow().map_err(|_| busy())?;
            let Place::Own(top) = &*borrowed else {
                return Err(busy());
            };
            let mut m: &dyn Module = top.as_ref();
            for name in &path {
                m = m
                    .named_children()
                    .into_iter()
                    .find(|(n, _)| n == name)
                    .map(|(_, c)| c)
                    .ok_or_else(|| gone(name))?;
            }
            f(m)
        };
        guard(|| run().map_err(err))
    }

    /// Run `f` on the module, mutably (`train`).
    pub(crate) fn with_mut<R>(&self, f: impl FnOnce(&mut dyn Module) -> R) -> PyResult<R> {
        let place = self.place.get()?;
        let run = || {
            let (root, path) = PyModule::locate(place)?;
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
                    .ok_or_else(|| gone(name))?;
            }
            Ok(f(m))
        };
        guard(|| run().map_err(err))
    }

    /// A handle on the child `name`, sharing it.
    fn child(&self, name: String) -> PyResult<PyModule> {
        Ok(PyModule::handle(Rc::new(RefCell::new(Place::In {
            parent: self.place.get()?.clone(),
            name,
        }))))
    }

    /// A container made by `make` from the named module objects: the modules move in.
    fn container(
        kind: &str,
        named: Vec<(String, Bound<'_, PyAny>)>,
        make: impl FnOnce(Vec<(String, Box<dyn Module>)>) -> Box<dyn Module>,
    ) -> PyResult<PyModule> {
        PyModule::container_with(kind, named, |m| Ok(make(m)))
    }

    /// [`PyModule::container`] whose module `make` builds from the moved modules and may refuse
    /// (`nn.intrinsic`'s classes, checked before by the core).
    fn container_with(
        kind: &str,
        named: Vec<(String, Bound<'_, PyAny>)>,
        make: impl FnOnce(Vec<(String, Box<dyn Module>)>) -> Result<Box<dyn Module>>,
    ) -> PyResult<PyModule> {
        let mut places: Vec<(String, Rc<RefCell<Place>>)> = Vec::new();
        for (i, (name, v)) in named.into_iter().enumerate() {
            let m = v.cast::<PyModule>().map_err(|_| {
                type_error(format!(
                    "{kind}(): argument {} must be a Module (nn.Linear, nn.ReLU, …), not {}",
                    i + 1,
                    type_name(&v)
                ))
            })?;
            let place = m.borrow().place.get()?.clone();
            let owned = matches!(
                &*place.try_borrow().map_err(|_| err(busy()))?,
                Place::Own(_)
            );
            if !owned || places.iter().any(|(_, p)| Rc::ptr_eq(p, &place)) {
                return Err(type_error(format!(
                    "{kind}(): module '{name}' is already part of a container (borch does not \
                     share one module between containers)"
                )));
            }
            places.push((name, place));
        }
        let container = Rc::new(RefCell::new(Place::Own(
            Box::new(borch_nn::Identity::new()),
        )));
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
        *container.borrow_mut() = Place::Own(guard(|| make(modules).map_err(err))?);
        Ok(PyModule::handle(container))
    }
}

fn tensors(py: Python<'_>, ts: Vec<Tensor>) -> PyResult<Py<PyAny>> {
    PyTuple::new(py, ts.into_iter().map(PyTensor))?.into_py_any(py)
}

fn named(py: Python<'_>, ts: Vec<(String, Tensor)>) -> PyResult<Py<PyAny>> {
    PyTuple::new(py, ts.into_iter().map(|(n, t)| (n, PyTensor(t))))?.into_py_any(py)
}

fn flag(name: &str, v: Option<&Bound<'_, PyAny>>, default: bool) -> PyResult<bool> {
    match v.map(value).transpose()? {
        None | Some(borch_tensor::api::Value::None) => Ok(default),
        Some(borch_tensor::api::Value::Bool(b)) => Ok(b),
        Some(other) => Err(type_error(format!(
            "{name}(): argument must be bool, not {}",
            other.type_name()
        ))),
    }
}

/// A dict name → Tensor as a state dict.
/// A state dict as torch's: a dict, dotted name → Tensor, in order.
pub(crate) fn state_dict_py(py: Python<'_>, sd: StateDict) -> PyResult<Py<PyAny>> {
    let out = PyDict::new(py);
    for (k, t) in sd {
        out.set_item(k, PyTensor(t))?;
    }
    out.into_py_any(py)
}

pub(crate) fn state_dict_from(obj: &Bound<'_, PyAny>) -> PyResult<StateDict> {
    let dict = obj.cast::<PyDict>().map_err(|_| {
        type_error(format!(
            "load_state_dict(): argument 'state_dict' (position 1) must be a dict of name → \
             Tensor, not {}",
            type_name(obj)
        ))
    })?;
    let mut sd = StateDict::new();
    for (k, v) in dict.iter() {
        let key: String = k.extract()?;
        match value(&v)? {
            borch_tensor::api::Value::Tensor(t) => sd.insert(key, t),
            other => {
                return Err(type_error(format!(
                    "load_state_dict(): the value of '{key}' must be a Tensor, not {}",
                    other.type_name()
                )));
            }
        }
    }
    Ok(sd)
}

#[pymethods]
impl PyModule {
    /// torch's `module(*args, **kwargs)`: a Tensor, or a tuple for a forward returning one.
    #[pyo3(signature = (*args))]
    fn call(&self, py: Python<'_>, args: &Bound<'_, PyTuple>) -> PyResult<Py<PyAny>> {
        let (positional, keywords) = arguments(args)?;
        let out = self.with(|m| m.forward_values(positional, keywords))?;
        to_py(py, out)
    }

    #[pyo3(signature = (*args))]
    fn forward(&self, py: Python<'_>, args: &Bound<'_, PyTuple>) -> PyResult<Py<PyAny>> {
        self.call(py, args)
    }

    fn parameters(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        tensors(py, self.with(|m| Ok(m.parameters()))?)
    }

    #[pyo3(name = "namedParameters")]
    fn named_parameters(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        named(py, self.with(|m| Ok(m.named_parameters()))?)
    }

    fn buffers(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        tensors(py, self.with(|m| Ok(m.buffers()))?)
    }

    #[pyo3(name = "namedBuffers")]
    fn named_buffers(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        named(py, self.with(|m| Ok(m.named_buffers()))?)
    }

    #[pyo3(signature = (mode=None))]
    fn train(&self, mode: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        let mode = flag("train", mode, true)?;
        self.with_mut(|m| m.train(mode))
    }

    fn eval(&self) -> PyResult<()> {
        self.with_mut(|m| m.eval())
    }

    #[getter]
    fn training(&self) -> PyResult<bool> {
        self.with(|m| Ok(m.is_training()))
    }

    #[pyo3(name = "zeroGrad", signature = (set_to_none=None))]
    fn zero_grad(&self, set_to_none: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        let set_to_none = flag("zero_grad", set_to_none, true)?;
        self.with(|m| m.zero_grad(set_to_none))
    }

    #[pyo3(name = "requiresGrad_", signature = (requires_grad=None))]
    fn requires_grad_(&self, requires_grad: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        let flag = flag("requires_grad_", requires_grad, true)?;
        self.with(|m| m.requires_grad_(flag))
    }

    /// torch's `state_dict()`: a dict, dotted name → Tensor, in torch's order.
    #[pyo3(name = "stateDict")]
    fn state_dict(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        state_dict_py(py, self.with(|m| Ok(m.state_dict()))?)
    }

    /// torch's `load_state_dict(state_dict, strict=True)`: `{missingKeys, unexpectedKeys}`.
    #[pyo3(name = "loadStateDict", signature = (state_dict, strict=None))]
    fn load_state_dict(
        &self,
        py: Python<'_>,
        state_dict: &Bound<'_, PyAny>,
        strict: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let strict = flag("load_state_dict", strict, true)?;
        let sd = state_dict_from(state_dict)?;
        let keys = self.with(|m| m.load_state_dict(&sd, strict))?;
        let out = PyDict::new(py);
        out.set_item("missingKeys", keys.missing_keys)?;
        out.set_item("unexpectedKeys", keys.unexpected_keys)?;
        out.into_py_any(py)
    }

    /// torch's `repr(module)`.
    #[pyo3(name = "toString")]
    fn to_string_py(&self) -> PyResult<String> {
        self.with(|m| Ok(m.repr()))
    }

    /// torch's class name (`Linear`).
    #[getter(className)]
    fn class_name(&self) -> PyResult<String> {
        self.with(|m| Ok(m.name()))
    }

    /// The module's own `weight`, or None.
    #[getter]
    fn weight(&self) -> PyResult<Option<PyTensor>> {
        self.own_tensor("weight")
    }

    /// The module's own `bias`, or None.
    #[getter]
    fn bias(&self) -> PyResult<Option<PyTensor>> {
        self.own_tensor("bias")
    }

    /// The child at `index` (`seq[i]`, `module_list[i]`; negative indices as Python's), or the
    /// child `key` for a str (`module_dict[key]`: the Python layer subscripts with `at` first).
    fn at(&self, index: &Bound<'_, PyAny>) -> PyResult<PyModule> {
        if let Ok(key) = index.extract::<String>() {
            return self.get(&key);
        }
        let index: i64 = index.extract()?;
        let name = self.with(|m| child_name_at(m, index))?;
        self.child(name)
    }

    /// The child `key` (`module_dict[key]`).
    fn get(&self, key: &str) -> PyResult<PyModule> {
        let name = self.with(|m| child_name(m, key))?;
        self.child(name)
    }

    /// The number of children (`len(seq)`).
    #[getter]
    fn length(&self) -> PyResult<usize> {
        self.with(|m| Ok(m.named_children().len()))
    }

    fn __repr__(&self) -> PyResult<String> {
        self.to_string_py()
    }
}

impl PyModule {
    fn own_tensor(&self, name: &str) -> PyResult<Option<PyTensor>> {
        self.with(|m| {
            Ok(m.own_parameters()
                .into_iter()
                .chain(m.own_buffers())
                .find(|(n, _)| n == name)
                .map(|(_, t)| PyTensor(t)))
        })
    }
}

/// torch's `nn.<name>(*args, **kwargs)` for a class of the module catalog.
#[pyfunction]
#[pyo3(signature = (name, *args))]
pub fn new_module(name: &str, args: &Bound<'_, PyTuple>) -> PyResult<PyModule> {
    guard(|| {
        let (positional, keywords) = arguments(args)?;
        let built = borch_nn::api::modules::build_module(name, positional, keywords);
        built.map(PyModule::own).map_err(err)
    })
}

/// torchvision's `models.<name>(**kwargs)` (`resnet18`, …, borch's `cifar_resnet18`), built by
/// borch-vision's model catalog.
#[pyfunction]
#[pyo3(signature = (name, *args))]
pub fn new_model(name: &str, args: &Bound<'_, PyTuple>) -> PyResult<PyModule> {
    guard(|| {
        let (positional, keywords) = arguments(args)?;
        let built = borch_vision::models::catalog::build_model(name, positional, keywords);
        built.map(PyModule::own).map_err(err)
    })
}

/// `(borch-ts name, torch name)` of borch-vision's models.
#[pyfunction]
pub fn model_names() -> Vec<(String, &'static str)> {
    borch_vision::models::catalog::models()
        .iter()
        .map(|c| (crate::names::camel(c.name), c.name))
        .collect()
}

/// torch's `nn.Sequential(*modules)` (a trailing dict: `Sequential(OrderedDict)`'s names).
#[pyfunction]
#[pyo3(signature = (*modules))]
pub fn new_sequential(modules: &Bound<'_, PyTuple>) -> PyResult<PyModule> {
    let (items, named) = raw_arguments(modules)?;
    let named = if items.is_empty() && !named.is_empty() {
        named
    } else {
        items
            .into_iter()
            .enumerate()
            .map(|(i, m)| (i.to_string(), m))
            .collect()
    };
    PyModule::container("Sequential", named, |m| Box::new(Sequential::from_named(m)))
}

/// torch's `nn.ModuleList(modules)`.
#[pyfunction]
#[pyo3(signature = (modules=None))]
pub fn new_module_list(modules: Option<&Bound<'_, PyAny>>) -> PyResult<PyModule> {
    let named = match modules {
        None => Vec::new(),
        Some(list) if list.is_none() => Vec::new(),
        Some(list) => list
            .try_iter()?
            .enumerate()
            .map(|(i, m)| Ok((i.to_string(), m?)))
            .collect::<PyResult<Vec<_>>>()?,
    };
    PyModule::container("ModuleList", named, |m| {
        Box::new(ModuleList::new(m.into_iter().map(|(_, m)| m).collect()))
    })
}

/// torch's `nn.ModuleDict(modules)`.
#[pyfunction]
#[pyo3(signature = (modules=None))]
pub fn new_module_dict(modules: Option<&Bound<'_, PyAny>>) -> PyResult<PyModule> {
    let named = match modules {
        None => Vec::new(),
        Some(d) if d.is_none() => Vec::new(),
        Some(d) => d
            .cast::<PyDict>()
            .map_err(|_| type_error("ModuleDict(): argument 1 must be a dict of name → Module"))?
            .iter()
            .map(|(k, v)| Ok((k.extract::<String>()?, v)))
            .collect::<PyResult<Vec<_>>>()?,
    };
    PyModule::container("ModuleDict", named, |m| Box::new(ModuleDict::new(m)))
}

/// The catalog's module class names (layers, activations, losses; not the containers), the
/// classes taking modules (`TransformerEncoder`) and `nn.intrinsic`'s fused classes.
#[pyfunction]
pub fn module_names() -> (Vec<&'static str>, Vec<&'static str>, Vec<&'static str>) {
    let stacks = borch_nn::api::modules::stacks::stack_classes();
    (
        borch_nn::api::modules::names(),
        stacks.iter().map(|c| c.name).collect(),
        borch_nn::intrinsic::fused_names(),
    )
}

/// An `nn.intrinsic` class (`ConvReLU2d(conv, relu)`, `ConvAdd2d(conv, torch.add)`): the core
/// checks and names the arguments (`borch_nn::intrinsic::bind_fused`), the modules move in as
/// into a container, the core builds the fused module.
#[pyfunction]
#[pyo3(signature = (name, *args))]
pub fn new_fused(name: &str, args: &Bound<'_, PyTuple>) -> PyResult<PyModule> {
    let (items, _) = raw_arguments(args)?;
    let function_name = |v: &Bound<'_, PyAny>| -> Option<String> {
        v.getattr("__name__").ok()?.extract::<String>().ok()
    };
    let class_of = |v: &Bound<'_, PyAny>| -> Option<String> {
        let m = v.cast::<PyModule>().ok()?;
        m.borrow().with(|m| Ok(m.name())).ok()
    };
    let named =
        borch_nn::intrinsic::bind_fused(name, items, function_name, class_of).map_err(err)?;
    PyModule::container_with(name, named, |modules| {
        borch_nn::intrinsic::build_fused_named(name, modules)
    })
}

/// A class taking modules (`TransformerEncoder(encoder_layer, num_layers, norm=None)`), built by
/// the core: the module arguments are lent to it (and deep-copied there: the Python objects keep
/// theirs), the others bound to the class's signature.
#[pyfunction]
#[pyo3(signature = (name, *args))]
pub fn new_stack(name: &str, args: &Bound<'_, PyTuple>) -> PyResult<PyModule> {
    let (positional, keywords) = raw_arguments(args)?;
    let (modules, positional, keywords) =
        borch_nn::api::modules::stacks::split_arguments(name, positional, keywords).map_err(err)?;
    let mut nodes = Vec::new();
    for m in modules {
        nodes.push(match m {
            Some(m) if !m.is_none() => Some(
                m.cast::<PyModule>()
                    .map(|m| m.borrow().share())
                    .map_err(|_| {
                        type_error(format!(
                            "{name}(): a module argument must be a Module (nn.TransformerEncoderLayer, \
                             …), not {}",
                            type_name(&m)
                        ))
                    })??,
            ),
            _ => None,
        });
    }
    let positional = positional.iter().map(value).collect::<PyResult<Vec<_>>>()?;
    let keywords = keywords
        .into_iter()
        .map(|(k, v)| Ok((k, value(&v)?)))
        .collect::<PyResult<Vec<_>>>()?;
    let built = with_modules(&nodes, Vec::new(), |ms| {
        borch_nn::api::modules::stacks::build_stack(name, ms, positional, keywords)
    })?;
    Ok(PyModule::own(built))
}

/// Run `f` on the modules of `nodes` (`None` stays `None`), all borrowed at once.
pub(crate) fn with_modules<R>(
    nodes: &[Option<PyModule>],
    mut done: Vec<Option<&dyn Module>>,
    f: impl FnOnce(&[Option<&dyn Module>]) -> Result<R>,
) -> PyResult<R> {
    match nodes.split_first() {
        None => guard(|| f(&done).map_err(err)),
        Some((None, rest)) => {
            done.push(None);
            with_modules(rest, done, f)
        }
        Some((Some(node), rest)) => node.with(|m| {
            let mut done: Vec<Option<&dyn Module>> = done;
            done.push(Some(m));
            Ok(with_modules(rest, done, f))
        })?,
    }
}
