//! borch for native Python: the extension module `borch._native` of the wheel `borch-wgpu`
//! (`import borch as torch`). Its objects answer the names borch-ts's do (`t.logSoftmax`,
//! `module.namedParameters`, `optimizer.zeroGrad`), so the Python layer shared with the Pyodide
//! package borch_webgpu runs on either (`borch/_native_bridge.py` is this side of its bridge).
//! Every call forwards into the core's catalogs; this crate only converts values and errors, and
//! a Rust panic becomes a Python exception.

mod convert;
mod data;
mod data_iterable;
mod errors;
mod fast_method;
mod functions;
mod grad_checkpoint;
mod module_calls;
mod modules;
mod names;
mod optim;
mod samplers;
mod tensor;
mod thread_bound;
mod vision;

use pyo3::prelude::*;

#[pymodule]
fn _native(m: &Bound<'_, pyo3::types::PyModule>) -> PyResult<()> {
    m.add("NativeError", m.py().get_type::<errors::NativeError>())?;
    m.add_function(wrap_pyfunction!(errors::_panic_for_test, m)?)?;
    m.add_class::<tensor::PyTensor>()?;
    m.add_class::<tensor::Method>()?;
    m.add_class::<tensor::TensorMethod>()?;
    m.add_function(wrap_pyfunction!(tensor::tensor_method, m)?)?;
    m.add_class::<fast_method::FastMethod>()?;
    m.add_function(wrap_pyfunction!(fast_method::install_fast_hooks, m)?)?;
    m.add_class::<functions::PyScope>()?;
    m.add_class::<modules::PyModule>()?;
    m.add_class::<optim::PyOptimizer>()?;
    m.add_class::<optim::PyParamGroup>()?;
    m.add_class::<optim::PyScheduler>()?;
    m.add_function(wrap_pyfunction!(functions::call_function, m)?)?;
    m.add_function(wrap_pyfunction!(functions::call_functional, m)?)?;
    m.add_function(wrap_pyfunction!(functions::call_in, m)?)?;
    m.add_function(wrap_pyfunction!(functions::function_names, m)?)?;
    m.add_function(wrap_pyfunction!(functions::set_grad_enabled, m)?)?;
    m.add_function(wrap_pyfunction!(functions::enter_scope, m)?)?;
    m.add_class::<functions::PyCompiled>()?;
    m.add_function(wrap_pyfunction!(functions::compiled, m)?)?;
    m.add_function(wrap_pyfunction!(grad_checkpoint::checkpoint, m)?)?;
    m.add_function(wrap_pyfunction!(functions::keep_alive, m)?)?;
    m.add_function(wrap_pyfunction!(functions::manual_seed, m)?)?;
    m.add_function(wrap_pyfunction!(functions::memory, m)?)?;
    m.add_function(wrap_pyfunction!(functions::pooled, m)?)?;
    m.add_function(wrap_pyfunction!(functions::empty_cache, m)?)?;
    m.add_function(wrap_pyfunction!(functions::dispatches, m)?)?;
    m.add_function(wrap_pyfunction!(functions::submits, m)?)?;
    m.add_function(wrap_pyfunction!(functions::adapter, m)?)?;
    m.add_function(wrap_pyfunction!(functions::adapter_is_software, m)?)?;
    m.add_function(wrap_pyfunction!(modules::new_module, m)?)?;
    m.add_function(wrap_pyfunction!(modules::new_sequential, m)?)?;
    m.add_function(wrap_pyfunction!(modules::new_module_list, m)?)?;
    m.add_function(wrap_pyfunction!(modules::new_module_dict, m)?)?;
    m.add_function(wrap_pyfunction!(modules::module_names, m)?)?;
    m.add_function(wrap_pyfunction!(modules::new_stack, m)?)?;
    m.add_function(wrap_pyfunction!(modules::new_model, m)?)?;
    m.add_function(wrap_pyfunction!(modules::model_names, m)?)?;
    m.add_function(wrap_pyfunction!(modules::new_fused, m)?)?;
    m.add_function(wrap_pyfunction!(module_calls::call_with_modules, m)?)?;
    m.add_function(wrap_pyfunction!(module_calls::export_onnx, m)?)?;
    m.add_function(wrap_pyfunction!(module_calls::save_checkpoint, m)?)?;
    m.add_function(wrap_pyfunction!(module_calls::load_checkpoint, m)?)?;
    m.add_function(wrap_pyfunction!(module_calls::module_function_names, m)?)?;
    m.add_function(wrap_pyfunction!(module_calls::save, m)?)?;
    m.add_function(wrap_pyfunction!(module_calls::load, m)?)?;
    m.add_class::<data::PyCoreDataset>()?;
    m.add_class::<data::PyDataLoader>()?;
    m.add_class::<data::PyPass>()?;
    m.add_function(wrap_pyfunction!(data::new_tensor_dataset, m)?)?;
    m.add_function(wrap_pyfunction!(data::new_subset, m)?)?;
    m.add_function(wrap_pyfunction!(data::new_concat_dataset, m)?)?;
    m.add_function(wrap_pyfunction!(data::new_data_loader, m)?)?;
    m.add_class::<data_iterable::PyChainDataset>()?;
    m.add_class::<data_iterable::PyDatasetPass>()?;
    m.add_function(wrap_pyfunction!(data_iterable::new_chain_dataset, m)?)?;
    m.add_class::<samplers::PyGenerator>()?;
    m.add_class::<samplers::PySampler>()?;
    m.add_class::<samplers::PySamplerPass>()?;
    m.add_function(wrap_pyfunction!(samplers::new_generator, m)?)?;
    m.add_function(wrap_pyfunction!(samplers::new_sequential_sampler, m)?)?;
    m.add_function(wrap_pyfunction!(samplers::new_random_sampler, m)?)?;
    m.add_function(wrap_pyfunction!(samplers::new_subset_random_sampler, m)?)?;
    m.add_function(wrap_pyfunction!(samplers::new_weighted_random_sampler, m)?)?;
    m.add_function(wrap_pyfunction!(samplers::new_batch_sampler, m)?)?;
    m.add_function(wrap_pyfunction!(samplers::random_split, m)?)?;
    m.add_function(wrap_pyfunction!(samplers::default_collate, m)?)?;
    m.add_class::<vision::PyTransform>()?;
    m.add_function(wrap_pyfunction!(vision::new_transform, m)?)?;
    m.add_function(wrap_pyfunction!(vision::transform_names, m)?)?;
    m.add_function(wrap_pyfunction!(vision::to_tensor_transform, m)?)?;
    m.add_function(wrap_pyfunction!(vision::pil_to_tensor_transform, m)?)?;
    m.add_function(wrap_pyfunction!(vision::compose_transforms, m)?)?;
    m.add_function(wrap_pyfunction!(vision::cifar10_from_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(vision::cifar100_from_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(vision::mnist_from_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(vision::fashion_mnist_from_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(vision::digits_from_bytes, m)?)?;
    m.add_class::<vision::PyLoaded>()?;
    m.add_function(wrap_pyfunction!(vision::catalogue_load, m)?)?;
    m.add_function(wrap_pyfunction!(vision::catalogue_load_from, m)?)?;
    m.add_function(wrap_pyfunction!(optim::new_optimizer, m)?)?;
    m.add_function(wrap_pyfunction!(optim::new_scheduler, m)?)?;
    m.add_function(wrap_pyfunction!(optim::optim_names, m)?)?;
    Ok(())
}
