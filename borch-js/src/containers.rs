//! `nn.Sequential`, `nn.ModuleList` and `nn.ModuleDict`. Their elements come back as `nn.Module`
//! (`seq.at(0)`, `dict.get("head")`): a handle sharing the module inside the container, as
//! torch's `seq[0]` is the same object.

use borch_nn::{ModuleDict, ModuleList, Sequential, child_name, child_name_at};
use js_sys::{Array, Object};
use wasm_bindgen::prelude::*;

use crate::bind::{self, wrong_argument};
use crate::errors::{JsResult, to_js};
use crate::modules::{Node, named, own, state_dict_js, tensors};
use crate::nn::{JsModule, module_methods};
use crate::tensor::JsTensor;

/// The class names `namespaces()` adds to `nn`.
pub const CONTAINERS: &[&str] = &["Module", "Sequential", "ModuleList", "ModuleDict"];

/// Modules of an array, named `0`, `1`, … as torch names them.
fn numbered(modules: Vec<JsValue>) -> Vec<(String, JsValue)> {
    modules
        .into_iter()
        .enumerate()
        .map(|(i, m)| (i.to_string(), m))
        .collect()
}

/// The child at `index` (Python's negative indices), bound as torch's `__getitem__(idx)`.
fn child_at(node: &Node, index: &JsValue) -> JsResult<JsModule> {
    let args = bind::bind("__getitem__", "idx: Int", &Array::of1(index))?;
    let index = args.i64(0).map_err(to_js)?;
    let name = node.with(|m| child_name_at(m, index))?;
    Ok(JsModule(node.child(name)))
}

/// `len(container)`.
fn length(node: &Node) -> JsResult<usize> {
    node.with(|m| Ok(m.named_children().len()))
}

/// `at(index)` and `length` of the containers indexed by position.
macro_rules! indexed_methods {
    ($rust:ident, $js:ident) => {
        #[wasm_bindgen(js_class = $js)]
        impl $rust {
            /// torch's `container[index]` (negative counts from the end).
            pub fn at(
                &self,
                #[wasm_bindgen(unchecked_param_type = "number")] index: JsValue,
            ) -> JsResult<JsModule> {
                child_at(&self.0, &index)
            }

            /// torch's `len(container)`.
            #[wasm_bindgen(getter)]
            pub fn length(&self) -> JsResult<usize> {
                length(&self.0)
            }
        }
    };
}

/// torch's `nn.Sequential(*modules)`: the modules are applied in order. They move into the
/// container; their JavaScript objects keep working and share the container's module.
#[wasm_bindgen(js_name = Sequential)]
pub struct JsSequential(Node);

#[wasm_bindgen(js_class = Sequential)]
impl JsSequential {
    #[wasm_bindgen(constructor, variadic)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "Array<{ readonly __borchModule: number }>")]
        modules: Array,
    ) -> JsResult<JsSequential> {
        Node::container("Sequential", numbered(modules.to_vec()), |m| {
            Box::new(Sequential::from_named(m))
        })
        .map(JsSequential)
    }
}

module_methods!(JsSequential, Sequential);
indexed_methods!(JsSequential, Sequential);

/// torch's `nn.ModuleList(modules=None)`: modules held by index (no forward of its own).
#[wasm_bindgen(js_name = ModuleList)]
pub struct JsModuleList(Node);

#[wasm_bindgen(js_class = ModuleList)]
impl JsModuleList {
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "Array<{ readonly __borchModule: number }>")]
        modules: JsValue,
    ) -> JsResult<JsModuleList> {
        let modules = match modules.is_undefined() || modules.is_null() {
            true => Vec::new(),
            false => crate::js::elements(&modules)?
                .ok_or_else(|| wrong_argument("ModuleList", 1, "an array of Modules", &modules))?,
        };
        Node::container("ModuleList", numbered(modules), |m| {
            Box::new(ModuleList::new(m.into_iter().map(|(_, m)| m).collect()))
        })
        .map(JsModuleList)
    }
}

module_methods!(JsModuleList, ModuleList);
indexed_methods!(JsModuleList, ModuleList);

/// torch's `nn.ModuleDict(modules=None)`: modules by name, in insertion order (no forward).
#[wasm_bindgen(js_name = ModuleDict)]
pub struct JsModuleDict(Node);

#[wasm_bindgen(js_class = ModuleDict)]
impl JsModuleDict {
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(
            unchecked_param_type = "Record<string, { readonly __borchModule: number }>"
        )]
        modules: JsValue,
    ) -> JsResult<JsModuleDict> {
        let named = match modules.is_undefined() || modules.is_null() {
            true => Vec::new(),
            false if crate::call::is_options(&modules) => crate::js::entries(&modules)?,
            false => {
                return Err(wrong_argument(
                    "ModuleDict",
                    1,
                    "an object of name → Module",
                    &modules,
                ));
            }
        };
        Node::container("ModuleDict", named, |m| Box::new(ModuleDict::new(m))).map(JsModuleDict)
    }

    /// torch's `module_dict[key]`; a missing key throws torch's `KeyError`.
    pub fn get(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] key: JsValue,
    ) -> JsResult<JsModule> {
        let key = bind::bind("__getitem__", "key: Str", &Array::of1(&key))?;
        let name = self.0.with(|m| child_name(m, key.str(0)?))?;
        Ok(JsModule(self.0.child(name)))
    }

    /// torch's `keys()`, in insertion order.
    #[wasm_bindgen(unchecked_return_type = "string[]")]
    pub fn keys(&self) -> JsResult<Array> {
        self.0.with(|m| {
            Ok(m.named_children()
                .into_iter()
                .map(|(n, _)| JsValue::from_str(&n))
                .collect())
        })
    }

    /// torch's `len(module_dict)`.
    #[wasm_bindgen(getter)]
    pub fn length(&self) -> JsResult<usize> {
        length(&self.0)
    }
}

module_methods!(JsModuleDict, ModuleDict);
