//! borch for JavaScript: the wasm-bindgen bindings behind the npm package `borch-ts`. Every
//! binding forwards to the core (`borch-tensor`); this crate only converts values and errors.

mod autograd;
mod bind;
mod call;
mod catalogue;
mod checkpoints;
mod compiled;
mod containers;
mod convert;
mod data;
mod data_values;
mod device;
mod errors;
mod function_namespaces;
mod grad_checkpoint;
mod handles;
mod intrinsic;
mod js;
mod lambda;
mod module_functions;
mod modules;
mod namespaces;
mod nn;
mod onnx;
mod optim;
mod optimizers;
mod panic;
mod param_groups;
mod registry;
mod samplers;
mod scope;
mod selftest;
mod serialization;
mod stacks;
mod tensor;
mod transforms;
mod vision;
mod vision_datasets;

pub use autograd::no_grad;
pub use call::{
    call_function, call_function_async, call_functional, call_method, call_method_async,
};
pub use compiled::{JsCompiled, compiled};
pub use device::{
    bind_groups_created, dispatches, empty_cache, init, manual_seed, memory, pooled, probe, submits,
};
pub use errors::{IntoJs, JsResult, error_classes, kind_name, to_js, type_error};
pub use function_namespaces::{FunctionNamespace, call_in, function_namespaces};
pub use module_functions::{
    ModuleFunctionNamespace, call_with_modules, module_function_namespaces,
};
pub use namespaces::{namespace_lists, namespaces};
pub use onnx::export_onnx;
pub use scope::{JsScope, keep_alive, scope};
pub use selftest::{kernel_sources, self_test};
pub use tensor::{JsTensor, tensor};
pub use transforms::vision_transforms;
pub use vision::vision_models;
