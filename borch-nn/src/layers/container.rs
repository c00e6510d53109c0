//! Sequential, ModuleList and ModuleDict.

use borch_tensor::{BorchError, Result, Tensor};

use crate::module::{Module, format_repr};
use crate::repr::add_indent;
use crate::{display_as_repr, training_flag};

/// torch's error for containers without a forward.
fn no_forward(name: &str) -> BorchError {
    BorchError::NotImplemented(format!(
        "Module [{name}] is missing the required \"forward\" function"
    ))
}

fn children_of(items: &[(String, Box<dyn Module>)]) -> Vec<(String, &dyn Module)> {
    items.iter().map(|(n, m)| (n.clone(), m.as_ref())).collect()
}

fn children_of_mut(items: &mut [(String, Box<dyn Module>)]) -> Vec<(String, &mut dyn Module)> {
    items
        .iter_mut()
        .map(|(n, m)| (n.clone(), m.as_mut() as &mut dyn Module))
        .collect()
}

/// The name of the child at `index` of an indexable container (`seq[i]`, `module_list[i]`),
/// with Python's negative indices and torch's `IndexError: index 5 is out of range`.
pub fn child_name_at(container: &dyn Module, index: i64) -> Result<String> {
    let children = container.named_children();
    let size = children.len() as i64;
    if !(-size..size).contains(&index) {
        return Err(BorchError::Index(format!("index {index} is out of range")));
    }
    let at = index.rem_euclid(size.max(1)) as usize;
    Ok(children[at].0.clone())
}

/// The name of `container`'s child `key` (`module_dict[key]`), or torch's `KeyError`.
pub fn child_name(container: &dyn Module, key: &str) -> Result<String> {
    match container.named_children().iter().any(|(n, _)| n == key) {
        true => Ok(key.to_string()),
        false => Err(BorchError::Key(format!("'{key}'"))),
    }
}

/// Set `name` to `module`, in place if present (as a Python dict assignment), else appended.
fn set(items: &mut Vec<(String, Box<dyn Module>)>, name: String, module: Box<dyn Module>) {
    match items.iter_mut().find(|(n, _)| *n == name) {
        Some(entry) => entry.1 = module,
        None => items.push((name, module)),
    }
}

/// Replace the child `name` of a container's items, returning the one replaced.
fn replace(
    items: &mut [(String, Box<dyn Module>)],
    kind: &str,
    name: &str,
    module: Box<dyn Module>,
) -> Result<Box<dyn Module>> {
    match items.iter_mut().find(|(n, _)| n == name) {
        Some(entry) => Ok(std::mem::replace(&mut entry.1, module)),
        None => Err(BorchError::Runtime(format!(
            "'{kind}' object has no attribute '{name}'"
        ))),
    }
}

/// torch's `nn.Sequential`: modules applied in order; children named `0`, `1`, … or by the
/// names given.
pub struct Sequential {
    modules: Vec<(String, Box<dyn Module>)>,
    training: bool,
}

/// `sequential![a, b, c]`: a `Sequential` of the given modules (each boxed).
#[macro_export]
macro_rules! sequential {
    ($($m:expr),* $(,)?) => {
        $crate::Sequential::new(vec![$(Box::new($m) as Box<dyn $crate::Module>),*])
    };
}

impl Sequential {
    /// `Sequential(*modules)`.
    pub fn new(modules: Vec<Box<dyn Module>>) -> Sequential {
        let modules = modules
            .into_iter()
            .enumerate()
            .map(|(i, m)| (i.to_string(), m))
            .collect();
        Sequential {
            modules,
            training: true,
        }
    }

    /// `Sequential(OrderedDict(...))`: named children.
    pub fn from_named(modules: Vec<(String, Box<dyn Module>)>) -> Sequential {
        let mut seq = Sequential::new(Vec::new());
        for (name, m) in modules {
            set(&mut seq.modules, name, m);
        }
        seq
    }

    /// torch's `append(module)`: named by its position.
    pub fn append(&mut self, module: impl Module + 'static) -> &mut Self {
        self.push(Box::new(module))
    }

    /// `append` of a boxed module.
    pub fn push(&mut self, module: Box<dyn Module>) -> &mut Self {
        let name = self.modules.len().to_string();
        set(&mut self.modules, name, module);
        self
    }

    /// torch's `add_module(name, module)`.
    pub fn add_module(&mut self, name: &str, module: Box<dyn Module>) -> &mut Self {
        set(&mut self.modules, name.to_string(), module);
        self
    }

    /// `seq[i]`.
    pub fn get(&self, index: usize) -> Option<&dyn Module> {
        self.modules.get(index).map(|(_, m)| m.as_ref())
    }

    /// `seq[i]`, mutably.
    pub fn get_mut(&mut self, index: usize) -> Option<&mut dyn Module> {
        match self.modules.get_mut(index) {
            Some((_, m)) => Some(m.as_mut()),
            None => None,
        }
    }

    /// `len(seq)`: the number of modules.
    pub fn len(&self) -> usize {
        self.modules.len()
    }

    /// Whether there are no modules.
    pub fn is_empty(&self) -> bool {
        self.modules.is_empty()
    }

    /// The modules in order.
    pub fn iter(&self) -> impl Iterator<Item = &dyn Module> {
        self.modules.iter().map(|(_, m)| m.as_ref())
    }
}

impl Module for Sequential {
    fn forward(&self, input: &Tensor) -> Result<Tensor> {
        let mut x = input.clone();
        for (_, m) in &self.modules {
            let _scope = borch_tensor::op_trace::enter_module(module_id(m.as_ref()));
            x = m.forward(&x)?;
        }
        Ok(x)
    }
    fn name(&self) -> String {
        "Sequential".into()
    }
    fn named_children(&self) -> Vec<(String, &dyn Module)> {
        children_of(&self.modules)
    }
    fn named_children_mut(&mut self) -> Vec<(String, &mut dyn Module)> {
        children_of_mut(&mut self.modules)
    }
    fn replace_child(&mut self, name: &str, module: Box<dyn Module>) -> Result<Box<dyn Module>> {
        replace(&mut self.modules, "Sequential", name, module)
    }
    /// Runs of children that `nn.intrinsic` fuses (Conv-BN-ReLU, Conv-BN, Conv-ReLU,
    /// Linear-BN, Linear-ReLU, ConvTranspose-BN, ConvBn*/ConvBnReLU*) fused as
    /// `fuse_modules` would, then every child's own patterns.
    fn fuse_for_eval(&mut self) -> Result<()> {
        crate::utils::fusion::fuse_sequence(self)
    }
    training_flag!();
}

/// torch's `nn.ModuleList`: modules held by index, with no forward of its own.
pub struct ModuleList {
    modules: Vec<(String, Box<dyn Module>)>,
    training: bool,
}

impl ModuleList {
    /// `ModuleList(modules)`.
    pub fn new(modules: Vec<Box<dyn Module>>) -> ModuleList {
        let mut list = ModuleList {
            modules: Vec::new(),
            training: true,
        };
        for m in modules {
            list.push(m);
        }
        list
    }

    /// torch's `append(module)`.
    pub fn append(&mut self, module: impl Module + 'static) -> &mut Self {
        self.push(Box::new(module))
    }

    /// `append` of a boxed module.
    pub fn push(&mut self, module: Box<dyn Module>) -> &mut Self {
        let name = self.modules.len().to_string();
        self.modules.push((name, module));
        self
    }

    /// `list[i]`.
    pub fn get(&self, index: usize) -> Option<&dyn Module> {
        self.modules.get(index).map(|(_, m)| m.as_ref())
    }

    /// `list[i]`, mutably.
    pub fn get_mut(&mut self, index: usize) -> Option<&mut dyn Module> {
        match self.modules.get_mut(index) {
            Some((_, m)) => Some(m.as_mut()),
            None => None,
        }
    }

    /// `len(list)`: the number of modules.
    pub fn len(&self) -> usize {
        self.modules.len()
    }

    /// Whether there are no modules.
    pub fn is_empty(&self) -> bool {
        self.modules.is_empty()
    }

    /// The modules in order.
    pub fn iter(&self) -> impl Iterator<Item = &dyn Module> {
        self.modules.iter().map(|(_, m)| m.as_ref())
    }
}

impl Module for ModuleList {
    fn forward(&self, _input: &Tensor) -> Result<Tensor> {
        Err(no_forward("ModuleList"))
    }
    fn forward_args(&self, _inputs: &[&Tensor]) -> Result<Tensor> {
        Err(no_forward("ModuleList"))
    }
    fn name(&self) -> String {
        "ModuleList".into()
    }
    fn named_children(&self) -> Vec<(String, &dyn Module)> {
        children_of(&self.modules)
    }
    fn named_children_mut(&mut self) -> Vec<(String, &mut dyn Module)> {
        children_of_mut(&mut self.modules)
    }
    fn replace_child(&mut self, name: &str, module: Box<dyn Module>) -> Result<Box<dyn Module>> {
        replace(&mut self.modules, "ModuleList", name, module)
    }
    /// torch's `ModuleList.__repr__`: runs of modules with the same repr are shown once, as
    /// `(0-1): 2 x Linear(...)`.
    fn repr(&self) -> String {
        let reprs: Vec<String> = self.modules.iter().map(|(_, m)| m.repr()).collect();
        let mut lines = Vec::new();
        let mut start = 0;
        while start < reprs.len() {
            let mut end = start;
            while end + 1 < reprs.len() && reprs[end + 1] == reprs[start] {
                end += 1;
            }
            let body = add_indent(&reprs[start], 2);
            if end == start {
                lines.push(format!("({start}): {body}"));
            } else {
                let n = end - start + 1;
                lines.push(format!("({start}-{end}): {n} x {body}"));
            }
            start = end + 1;
        }
        format_repr("ModuleList", &[], &lines)
    }
    training_flag!();
}

/// torch's `nn.ModuleDict`: modules by name in insertion order, with no forward of its own.
pub struct ModuleDict {
    modules: Vec<(String, Box<dyn Module>)>,
    training: bool,
}

impl ModuleDict {
    /// `ModuleDict(OrderedDict(...))`.
    pub fn new(modules: Vec<(String, Box<dyn Module>)>) -> ModuleDict {
        let mut dict = ModuleDict {
            modules: Vec::new(),
            training: true,
        };
        for (name, m) in modules {
            set(&mut dict.modules, name, m);
        }
        dict
    }

    /// `dict[name] = module`.
    pub fn insert(&mut self, name: &str, module: Box<dyn Module>) -> &mut Self {
        set(&mut self.modules, name.to_string(), module);
        self
    }

    /// `dict[name]`.
    pub fn get(&self, name: &str) -> Option<&dyn Module> {
        self.modules
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, m)| m.as_ref())
    }

    /// `dict[name]`, mutably.
    pub fn get_mut(&mut self, name: &str) -> Option<&mut dyn Module> {
        match self.modules.iter_mut().find(|(n, _)| n == name) {
            Some((_, m)) => Some(m.as_mut()),
            None => None,
        }
    }

    /// torch's `pop(name)`.
    pub fn remove(&mut self, name: &str) -> Option<Box<dyn Module>> {
        let i = self.modules.iter().position(|(n, _)| n == name)?;
        Some(self.modules.remove(i).1)
    }

    /// The names in order.
    pub fn keys(&self) -> Vec<&str> {
        self.modules.iter().map(|(n, _)| n.as_str()).collect()
    }

    /// `len(dict)`: the number of modules.
    pub fn len(&self) -> usize {
        self.modules.len()
    }

    /// Whether there are no modules.
    pub fn is_empty(&self) -> bool {
        self.modules.is_empty()
    }
}

impl Module for ModuleDict {
    fn forward(&self, _input: &Tensor) -> Result<Tensor> {
        Err(no_forward("ModuleDict"))
    }
    fn forward_args(&self, _inputs: &[&Tensor]) -> Result<Tensor> {
        Err(no_forward("ModuleDict"))
    }
    fn name(&self) -> String {
        "ModuleDict".into()
    }
    fn named_children(&self) -> Vec<(String, &dyn Module)> {
        children_of(&self.modules)
    }
    fn named_children_mut(&mut self) -> Vec<(String, &mut dyn Module)> {
        children_of_mut(&mut self.modules)
    }
    fn replace_child(&mut self, name: &str, module: Box<dyn Module>) -> Result<Box<dyn Module>> {
        replace(&mut self.modules, "ModuleDict", name, module)
    }
    training_flag!();
}

display_as_repr!(Sequential, ModuleList, ModuleDict);

/// A module's identity for `op_trace` (the address of its data), as exporters match it against
/// `named_modules()`.
pub fn module_id(m: &dyn Module) -> usize {
    m as *const dyn Module as *const () as usize
}
