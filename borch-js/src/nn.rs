//! `nn`: torch.nn's module classes as one JavaScript class, `Module`, built by name through the
//! core's module catalog (`borch_nn::api::modules`): `newModule(name, args)` binds the arguments
//! (positional, then a plain object of camelCase keyword arguments) to the class's torch signature
//! and builds the core module; every method forwards to `borch_nn::Module`. The package's
//! `nn.<Class>` classes are generated from the catalog (`cargo xtask build-js`) and give what
//! `newModule` makes their prototype.

use borch_nn::api::modules::build_module;
use js_sys::{Array, Object};
use wasm_bindgen::prelude::*;

use crate::bind;
use crate::call::arguments;
use crate::errors::{JsResult, to_js};
use crate::modules::{Node, named, own, state_dict_js, tensors};
use crate::tensor::JsTensor;

/// The methods every module class has (torch's `nn.Module`).
macro_rules! module_methods {
    ($rust:ident, $js:ident) => {
        #[wasm_bindgen(js_class = $js)]
        impl $rust {
            /// torch's `module(*args, **kwargs)`: `forward` (a loss takes `input, target`;
            /// keywords as a trailing plain object). A class whose forward returns a tuple
            /// (LSTM) returns an array, typed per class in the generated declarations.
            #[wasm_bindgen(variadic, unchecked_return_type = "Tensor")]
            pub fn call(
                &self,
                #[wasm_bindgen(unchecked_param_type = "Tensor[]")] inputs: Array,
            ) -> JsResult<JsValue> {
                self.0.forward(&inputs)
            }

            /// torch's `forward(*args, **kwargs)`, as `call`.
            #[wasm_bindgen(variadic, unchecked_return_type = "Tensor")]
            pub fn forward(
                &self,
                #[wasm_bindgen(unchecked_param_type = "Tensor[]")] inputs: Array,
            ) -> JsResult<JsValue> {
                self.0.forward(&inputs)
            }

            /// torch's `parameters()`: what an optimizer takes.
            #[wasm_bindgen(unchecked_return_type = "Tensor[]")]
            pub fn parameters(&self) -> JsResult<Array> {
                self.0.with(|m| Ok(tensors(m.parameters())))
            }

            /// torch's `named_parameters()`: `[name, Tensor]` pairs with dotted names.
            #[wasm_bindgen(js_name = namedParameters, unchecked_return_type = "[string, Tensor][]")]
            pub fn named_parameters(&self) -> JsResult<Array> {
                self.0.with(|m| Ok(named(m.named_parameters())))
            }

            /// torch's `buffers()`.
            #[wasm_bindgen(unchecked_return_type = "Tensor[]")]
            pub fn buffers(&self) -> JsResult<Array> {
                self.0.with(|m| Ok(tensors(m.buffers())))
            }

            /// torch's `named_buffers()`.
            #[wasm_bindgen(js_name = namedBuffers, unchecked_return_type = "[string, Tensor][]")]
            pub fn named_buffers(&self) -> JsResult<Array> {
                self.0.with(|m| Ok(named(m.named_buffers())))
            }

            /// torch's `train(mode=True)`, on this module and every submodule.
            pub fn train(
                &self,
                #[wasm_bindgen(unchecked_optional_param_type = "boolean")] mode: Option<JsValue>,
            ) -> JsResult<()> {
                let mode = bind::flag("train", "mode: Bool = True", mode)?;
                self.0.with_mut(|m| m.train(mode))
            }

            /// torch's `eval()`.
            pub fn eval(&self) -> JsResult<()> {
                self.0.with_mut(|m| m.eval())
            }

            /// torch's `training` flag.
            #[wasm_bindgen(getter)]
            pub fn training(&self) -> JsResult<bool> {
                self.0.with(|m| Ok(m.is_training()))
            }

            /// torch's `zero_grad(set_to_none=True)`.
            #[wasm_bindgen(js_name = zeroGrad)]
            pub fn zero_grad(
                &self,
                #[wasm_bindgen(js_name = setToNone, unchecked_optional_param_type = "boolean")]
                set_to_none: Option<JsValue>,
            ) -> JsResult<()> {
                let set_to_none = bind::flag("zero_grad", "set_to_none: Bool = True", set_to_none)?;
                self.0.with(|m| m.zero_grad(set_to_none))
            }

            /// torch's `requires_grad_(requires_grad=True)`: freeze or unfreeze every parameter.
            #[wasm_bindgen(js_name = requiresGrad_)]
            pub fn requires_grad_(
                &self,
                #[wasm_bindgen(js_name = requiresGrad, unchecked_optional_param_type = "boolean")]
                requires_grad: Option<JsValue>,
            ) -> JsResult<()> {
                let flag = bind::flag("requires_grad_", "requires_grad: Bool = True", requires_grad)?;
                self.0.with(|m| m.requires_grad_(flag))
            }

            /// torch's `state_dict()`: a plain object, dotted name → `Tensor` (detached, sharing
            /// storage with the parameters).
            #[wasm_bindgen(js_name = stateDict, unchecked_return_type = "Record<string, Tensor>")]
            pub fn state_dict(&self) -> JsResult<Object> {
                self.0.with(|m| Ok(state_dict_js(m.state_dict())))
            }

            /// torch's `load_state_dict(state_dict, strict=True)`: copies the values in;
            /// returns `{ missingKeys, unexpectedKeys }`.
            #[wasm_bindgen(
                js_name = loadStateDict,
                unchecked_return_type = "{ missingKeys: string[]; unexpectedKeys: string[] }"
            )]
            pub fn load_state_dict(
                &self,
                #[wasm_bindgen(js_name = stateDict, unchecked_param_type = "Record<string, Tensor>")]
                state_dict: JsValue,
                #[wasm_bindgen(unchecked_optional_param_type = "boolean")] strict: Option<JsValue>,
            ) -> JsResult<Object> {
                let strict = bind::flag("load_state_dict", "strict: Bool = True", strict)?;
                self.0.load_state_dict(&state_dict, strict)
            }

            /// torch's `repr(module)`.
            #[wasm_bindgen(js_name = toString)]
            pub fn to_string_js(&self) -> JsResult<String> {
                self.0.with(|m| Ok(m.repr()))
            }

            /// The module's own `weight`, or `undefined`.
            #[wasm_bindgen(getter)]
            pub fn weight(&self) -> JsResult<Option<JsTensor>> {
                self.0.with(|m| Ok(own(m, "weight")))
            }

            /// The module's own `bias`, or `undefined`.
            #[wasm_bindgen(getter)]
            pub fn bias(&self) -> JsResult<Option<JsTensor>> {
                self.0.with(|m| Ok(own(m, "bias")))
            }

            /// The registry id that `Sequential` finds this module by.
            #[wasm_bindgen(getter = __borchModule)]
            pub fn module_id(&self) -> f64 {
                self.0.id as f64
            }
        }
    };
}

pub(crate) use module_methods;

/// An `nn` module: one built by name (`nn.Linear(3, 2)` is `newModule("Linear", [3, 2])`), or one
/// reached through its container (`seq.at(0)`). Every `nn.Module` method.
#[wasm_bindgen(js_name = Module)]
pub struct JsModule(pub(crate) Node);

module_methods!(JsModule, Module);

#[wasm_bindgen(js_class = Module)]
impl JsModule {
    /// torch's class name (`_get_name()`): the package gives the object that class's prototype.
    #[wasm_bindgen(getter = className)]
    pub fn class_name(&self) -> JsResult<String> {
        self.0.with(|m| Ok(m.name()))
    }
}

/// torch's `nn.<name>(*args, **kwargs)` for a class of the module catalog: the arguments bound to
/// its signature by the core (torch's TypeErrors), the module built by the core.
#[wasm_bindgen(js_name = newModule)]
pub fn new_module(
    name: &str,
    #[wasm_bindgen(unchecked_param_type = "unknown[]")] args: Array,
) -> JsResult<JsModule> {
    let (positional, keywords) = arguments(&args)?;
    Node::build(build_module(name, positional, keywords).map_err(to_js)).map(JsModule)
}

/// The catalog's class names and those of the classes taking modules, for `namespaces()`.
pub fn classes() -> Vec<&'static str> {
    borch_nn::api::modules::stacks::class_names()
}
