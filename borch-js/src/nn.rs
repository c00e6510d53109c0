//! `nn`: torch.nn's layers, activations, containers and losses as JavaScript classes. Each
//! constructor binds its arguments (positional, then a plain object of camelCase keyword
//! arguments) to torch's signature and builds the core module; every method forwards to
//! `borch_nn::Module`. The package groups these classes under `nn` (see `namespaces()`).

use borch_nn::{
    AdaptiveAvgPool2d, AvgPool2d, BCELoss, BCEWithLogitsLoss, Bilinear, Conv1d, Conv2d,
    ConvOptions, CrossEntropyLoss, ELU, Embedding, Flatten, GELU, Hardswish, Hardtanh, HuberLoss,
    Identity, KLDivLoss, L1Loss, LayerNorm, LeakyReLU, LogSoftmax, MSELoss, MaxPool2d, Mish,
    Module, NLLLoss, RMSNorm, ReLU, ReLU6, SELU, SiLU, Sigmoid, SmoothL1Loss, Softmax, Softplus,
    Tanh, Unflatten,
};
use js_sys::{Array, Object};
use wasm_bindgen::prelude::*;

use crate::bind::{self, opt_i64, opt_tensor, reduction, sizes};
use crate::errors::JsResult;
use crate::modules::{Node, named, own, state_dict_js, tensors};
use crate::tensor::JsTensor;

/// The methods every module class has (torch's `nn.Module`).
macro_rules! module_methods {
    ($rust:ident, $js:ident) => {
        #[wasm_bindgen(js_class = $js)]
        impl $rust {
            /// torch's `module(*inputs)`: `forward` (a loss takes `input, target`).
            #[wasm_bindgen(variadic)]
            pub fn call(
                &self,
                #[wasm_bindgen(unchecked_param_type = "Tensor[]")] inputs: Array,
            ) -> JsResult<JsTensor> {
                self.0.forward(&inputs)
            }

            /// torch's `forward(*inputs)`, as `call`.
            #[wasm_bindgen(variadic)]
            pub fn forward(
                &self,
                #[wasm_bindgen(unchecked_param_type = "Tensor[]")] inputs: Array,
            ) -> JsResult<JsTensor> {
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
                #[wasm_bindgen(unchecked_param_type = "boolean")] mode: Option<JsValue>,
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
                #[wasm_bindgen(js_name = setToNone, unchecked_param_type = "boolean")]
                set_to_none: Option<JsValue>,
            ) -> JsResult<()> {
                let set_to_none = bind::flag("zero_grad", "set_to_none: Bool = True", set_to_none)?;
                self.0.with(|m| m.zero_grad(set_to_none))
            }

            /// torch's `requires_grad_(requires_grad=True)`: freeze or unfreeze every parameter.
            #[wasm_bindgen(js_name = requiresGrad_)]
            pub fn requires_grad_(
                &self,
                #[wasm_bindgen(js_name = requiresGrad, unchecked_param_type = "boolean")]
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
                #[wasm_bindgen(unchecked_param_type = "boolean")] strict: Option<JsValue>,
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

/// Module classes built from torch's signature: `Rust as JsName("TS rest type", "signature") =
/// |args| core constructor;`.
macro_rules! module_classes {
    ($(
        $(#[$doc:meta])*
        $rust:ident as $js:ident($ts:tt, $sig:tt) = |$a:ident| $build:expr;
    )*) => {
        $(
            $(#[$doc])*
            #[wasm_bindgen(js_name = $js)]
            pub struct $rust(Node);

            #[wasm_bindgen(js_class = $js)]
            impl $rust {
                #[wasm_bindgen(constructor, variadic)]
                pub fn new(
                    #[wasm_bindgen(unchecked_param_type = $ts)] args: Array,
                ) -> JsResult<$rust> {
                    Node::build(bind::build(stringify!($js), $sig, &args, |$a| {
                        $build.map(|m| Box::new(m) as Box<dyn Module>)
                    }))
                    .map($rust)
                }
            }

            module_methods!($rust, $js);
        )*

        /// The class names of `nn` (besides the containers), for `namespaces()`.
        pub const CLASSES: &[&str] = &[$(stringify!($js)),*];
    };
}

fn ok<T>(x: T) -> borch_tensor::Result<T> {
    Ok(x)
}

/// torch's signature of `Conv1d` and `Conv2d`.
const CONV: &str = "in_channels: Int, out_channels: Int, kernel_size: Ints, stride: Ints = 1, \
                    padding: Ints = 0, dilation: Ints = 1, groups: Int = 1, bias: Bool = True, \
                    padding_mode: Str = 'zeros'";

/// Arguments 3.. of `CONV` as the core's options.
fn conv_options(a: &borch_tensor::api::Args) -> borch_tensor::Result<ConvOptions> {
    Ok(ConvOptions::default()
        .stride(&sizes(a, 3)?)
        .padding(a.padding(4)?)
        .dilation(&sizes(a, 5)?)
        .groups(a.usize(6)?)
        .bias(a.bool(7)?)
        .padding_mode(a.str(8)?))
}

module_classes! {
    /// torch's `nn.Linear(in_features, out_features, bias=True)`.
    JsLinear as Linear(
        "[inFeatures: number, outFeatures: number, bias?: boolean | { bias?: boolean }] | [inFeatures: number, outFeatures: number, bias: boolean, options: {}]",
        "in_features: Int, out_features: Int, bias: Bool = True"
    ) = |a| borch_nn::Linear::with_bias(a.usize(0)?, a.usize(1)?, a.bool(2)?);
    /// torch's `nn.Bilinear(in1_features, in2_features, out_features, bias=True)`.
    JsBilinear as Bilinear(
        "[in1Features: number, in2Features: number, outFeatures: number, bias?: boolean | { bias?: boolean }]",
        "in1_features: Int, in2_features: Int, out_features: Int, bias: Bool = True"
    ) = |a| Bilinear::with_bias(a.usize(0)?, a.usize(1)?, a.usize(2)?, a.bool(3)?);
    /// torch's `nn.Identity()`.
    JsIdentity as Identity("[]", "") = |_a| ok(Identity::new());
    /// torch's `nn.ReLU()`.
    JsReLU as ReLU("[]", "") = |_a| ok(ReLU::new());
    /// torch's `nn.ReLU6()`.
    JsReLU6 as ReLU6("[]", "") = |_a| ok(ReLU6::new());
    /// torch's `nn.SELU()`.
    JsSELU as SELU("[]", "") = |_a| ok(SELU::new());
    /// torch's `nn.SiLU()`.
    JsSiLU as SiLU("[]", "") = |_a| ok(SiLU::new());
    /// torch's `nn.Mish()`.
    JsMish as Mish("[]", "") = |_a| ok(Mish::new());
    /// torch's `nn.Tanh()`.
    JsTanh as Tanh("[]", "") = |_a| ok(Tanh::new());
    /// torch's `nn.Sigmoid()`.
    JsSigmoid as Sigmoid("[]", "") = |_a| ok(Sigmoid::new());
    /// torch's `nn.Hardswish()`.
    JsHardswish as Hardswish("[]", "") = |_a| ok(Hardswish::new());
    /// torch's `nn.LeakyReLU(negative_slope=0.01)`.
    JsLeakyReLU as LeakyReLU(
        "[negativeSlope?: number | { negativeSlope?: number }]",
        "negative_slope: Float = 0.01"
    ) = |a| ok(LeakyReLU::new(a.f64(0)?));
    /// torch's `nn.ELU(alpha=1.0)`.
    JsELU as ELU("[alpha?: number | { alpha?: number }]", "alpha: Float = 1.0")
        = |a| ok(ELU::new(a.f64(0)?));
    /// torch's `nn.GELU(approximate='none')`.
    JsGELU as GELU(
        "[approximate?: 'none' | 'tanh' | { approximate?: 'none' | 'tanh' }]",
        "approximate: Str = 'none'"
    ) = |a| ok(GELU::new(a.str(0)?));
    /// torch's `nn.Hardtanh(min_val=-1.0, max_val=1.0)`.
    JsHardtanh as Hardtanh(
        "[minVal?: number, maxVal?: number] | [{ minVal?: number; maxVal?: number }]",
        "min_val: Float = -1.0, max_val: Float = 1.0"
    ) = |a| ok(Hardtanh::new(a.f64(0)?, a.f64(1)?));
    /// torch's `nn.Softplus(beta=1.0, threshold=20.0)`.
    JsSoftplus as Softplus(
        "[beta?: number, threshold?: number] | [{ beta?: number; threshold?: number }]",
        "beta: Float = 1.0, threshold: Float = 20.0"
    ) = |a| ok(Softplus::new(a.f64(0)?, a.f64(1)?));
    /// torch's `nn.Softmax(dim=None)`.
    JsSoftmax as Softmax("[dim?: number | { dim?: number }]", "dim: Int = None")
        = |a| ok(Softmax::new(a.opt_int(0)?));
    /// torch's `nn.LogSoftmax(dim=None)`.
    JsLogSoftmax as LogSoftmax("[dim?: number | { dim?: number }]", "dim: Int = None")
        = |a| ok(LogSoftmax::new(a.opt_int(0)?));
    /// torch's `nn.Dropout(p=0.5)`.
    JsDropout as Dropout("[p?: number | { p?: number }]", "p: Float = 0.5")
        = |a| borch_nn::Dropout::new(a.f64(0)?);
    /// torch's `nn.Conv1d(in_channels, out_channels, kernel_size, stride=1, padding=0,
    /// dilation=1, groups=1, bias=True, padding_mode='zeros')`.
    JsConv1d as Conv1d(
        "[inChannels: number, outChannels: number, kernelSize: number | number[], options?: { stride?: number | number[]; padding?: number | number[] | 'valid' | 'same'; dilation?: number | number[]; groups?: number; bias?: boolean; paddingMode?: 'zeros' }]",
        CONV
    )
        = |a| Conv1d::with_options(a.usize(0)?, a.usize(1)?, &sizes(a, 2)?, conv_options(a)?);
    /// torch's `nn.Conv2d(in_channels, out_channels, kernel_size, stride=1, padding=0,
    /// dilation=1, groups=1, bias=True, padding_mode='zeros')`.
    JsConv2d as Conv2d(
        "[inChannels: number, outChannels: number, kernelSize: number | number[], options?: { stride?: number | number[]; padding?: number | number[] | 'valid' | 'same'; dilation?: number | number[]; groups?: number; bias?: boolean; paddingMode?: 'zeros' }]",
        CONV
    )
        = |a| Conv2d::with_options(a.usize(0)?, a.usize(1)?, &sizes(a, 2)?, conv_options(a)?);
    /// torch's `nn.MaxPool2d(kernel_size, stride=None, padding=0, dilation=1,
    /// return_indices=False, ceil_mode=False)`.
    JsMaxPool2d as MaxPool2d(
        "[kernelSize: number | number[], options?: { stride?: number | number[]; padding?: number | number[]; dilation?: number | number[]; returnIndices?: boolean; ceilMode?: boolean }]",
        "kernel_size: Ints, stride: Ints = None, padding: Ints = 0, dilation: Ints = 1, \
         return_indices: Bool = False, ceil_mode: Bool = False"
    ) = |a| ok(MaxPool2d::with_options(&sizes(a, 0)?, a.opt_sizes(1)?.as_deref(), &sizes(a, 2)?,
        &sizes(a, 3)?, a.bool(4)?, a.bool(5)?));
    /// torch's `nn.AvgPool2d(kernel_size, stride=None, padding=0, ceil_mode=False,
    /// count_include_pad=True, divisor_override=None)`.
    JsAvgPool2d as AvgPool2d(
        "[kernelSize: number | number[], options?: { stride?: number | number[]; padding?: number | number[]; ceilMode?: boolean; countIncludePad?: boolean; divisorOverride?: number }]",
        "kernel_size: Ints, stride: Ints = None, padding: Ints = 0, ceil_mode: Bool = False, \
         count_include_pad: Bool = True, divisor_override: Int = None"
    ) = |a| ok(AvgPool2d::with_options(&sizes(a, 0)?, a.opt_sizes(1)?.as_deref(), &sizes(a, 2)?,
        a.bool(3)?, a.bool(4)?, a.opt_int(5)?));
    /// torch's `nn.AdaptiveAvgPool2d(output_size)` (`null` keeps that input size).
    JsAdaptiveAvgPool2d as AdaptiveAvgPool2d(
        "[outputSize: number | (number | null)[]]",
        "output_size: Ints"
    ) = |a| ok(AdaptiveAvgPool2d::new(&a.sizes_or_none(0)?));
    /// torch's `nn.Flatten(start_dim=1, end_dim=-1)`.
    JsFlatten as Flatten(
        "[startDim?: number, endDim?: number] | [{ startDim?: number; endDim?: number }]",
        "start_dim: Int = 1, end_dim: Int = -1"
    ) = |a| ok(Flatten::with_dims(a.int(0)?, a.int(1)?));
    /// torch's `nn.Unflatten(dim, unflattened_size)`.
    JsUnflatten as Unflatten(
        "[dim: number, unflattenedSize: number[]]",
        "dim: Int, unflattened_size: Ints"
    ) = |a| ok(Unflatten::new(a.int(0)?, &a.ints(1)?));
    /// torch's `nn.LayerNorm(normalized_shape, eps=1e-5, elementwise_affine=True, bias=True)`.
    JsLayerNorm as LayerNorm(
        "[normalizedShape: number | number[], options?: { eps?: number; elementwiseAffine?: boolean; bias?: boolean }] | [normalizedShape: number | number[], eps?: number, elementwiseAffine?: boolean, bias?: boolean]",
        "normalized_shape: Ints, eps: Float = 1e-05, elementwise_affine: Bool = True, bias: Bool = True"
    ) = |a| LayerNorm::with_options(&sizes(a, 0)?, a.f64(1)?, a.bool(2)?, a.bool(3)?);
    /// torch's `nn.RMSNorm(normalized_shape, eps=None, elementwise_affine=True)`.
    JsRMSNorm as RMSNorm(
        "[normalizedShape: number | number[], options?: { eps?: number; elementwiseAffine?: boolean }] | [normalizedShape: number | number[], eps?: number, elementwiseAffine?: boolean]",
        "normalized_shape: Ints, eps: Float = None, elementwise_affine: Bool = True"
    ) = |a| RMSNorm::with_options(&sizes(a, 0)?, a.opt_f64(1)?, a.bool(2)?);
    /// torch's `nn.Embedding(num_embeddings, embedding_dim, padding_idx=None)`.
    JsEmbedding as Embedding(
        "[numEmbeddings: number, embeddingDim: number, paddingIdx?: number | { paddingIdx?: number }]",
        "num_embeddings: Int, embedding_dim: Int, padding_idx: Int = None"
    ) = |a| Embedding::with_padding_idx(a.usize(0)?, a.usize(1)?, opt_i64(a, 2)?);
    /// torch's `nn.MSELoss(reduction='mean')`.
    JsMSELoss as MSELoss("[options?: { reduction?: 'none' | 'mean' | 'sum' }]", "reduction: Str = 'mean'")
        = |a| ok(MSELoss::new().reduction(reduction(a, 0)?));
    /// torch's `nn.L1Loss(reduction='mean')`.
    JsL1Loss as L1Loss("[options?: { reduction?: 'none' | 'mean' | 'sum' }]", "reduction: Str = 'mean'")
        = |a| ok(L1Loss::new().reduction(reduction(a, 0)?));
    /// torch's `nn.SmoothL1Loss(reduction='mean', beta=1.0)`.
    JsSmoothL1Loss as SmoothL1Loss(
        "[options?: { reduction?: 'none' | 'mean' | 'sum'; beta?: number }]",
        "reduction: Str = 'mean', beta: Float = 1.0"
    ) = |a| ok(SmoothL1Loss::new().reduction(reduction(a, 0)?).beta(a.f64(1)?));
    /// torch's `nn.HuberLoss(reduction='mean', delta=1.0)`.
    JsHuberLoss as HuberLoss(
        "[options?: { reduction?: 'none' | 'mean' | 'sum'; delta?: number }]",
        "reduction: Str = 'mean', delta: Float = 1.0"
    ) = |a| ok(HuberLoss::new().reduction(reduction(a, 0)?).delta(a.f64(1)?));
    /// torch's `nn.BCELoss(weight=None, reduction='mean')`.
    JsBCELoss as BCELoss(
        "[options?: { weight?: Tensor; reduction?: 'none' | 'mean' | 'sum' }]",
        "weight: Tensor = None, reduction: Str = 'mean'"
    ) = |a| {
        let mut l = BCELoss::new().reduction(reduction(a, 1)?);
        l.weight = opt_tensor(a, 0)?;
        ok(l)
    };
    /// torch's `nn.BCEWithLogitsLoss(weight=None, reduction='mean', pos_weight=None)`.
    JsBCEWithLogitsLoss as BCEWithLogitsLoss(
        "[options?: { weight?: Tensor; reduction?: 'none' | 'mean' | 'sum'; posWeight?: Tensor }]",
        "weight: Tensor = None, reduction: Str = 'mean', pos_weight: Tensor = None"
    ) = |a| {
        let mut l = BCEWithLogitsLoss::new().reduction(reduction(a, 1)?);
        l.weight = opt_tensor(a, 0)?;
        l.pos_weight = opt_tensor(a, 2)?;
        ok(l)
    };
    /// torch's `nn.CrossEntropyLoss(weight=None, ignore_index=-100, reduction='mean',
    /// label_smoothing=0.0)`.
    JsCrossEntropyLoss as CrossEntropyLoss(
        "[options?: { weight?: Tensor; ignoreIndex?: number; reduction?: 'none' | 'mean' | 'sum'; labelSmoothing?: number }]",
        "weight: Tensor = None, ignore_index: Int = -100, reduction: Str = 'mean', label_smoothing: Float = 0.0"
    ) = |a| {
        let mut l = CrossEntropyLoss::new()
            .ignore_index(a.i64(1)?)
            .reduction(reduction(a, 2)?)
            .label_smoothing(a.f64(3)?);
        l.weight = opt_tensor(a, 0)?;
        ok(l)
    };
    /// torch's `nn.NLLLoss(weight=None, ignore_index=-100, reduction='mean')`.
    JsNLLLoss as NLLLoss(
        "[options?: { weight?: Tensor; ignoreIndex?: number; reduction?: 'none' | 'mean' | 'sum' }]",
        "weight: Tensor = None, ignore_index: Int = -100, reduction: Str = 'mean'"
    ) = |a| {
        let mut l = NLLLoss::new().ignore_index(a.i64(1)?).reduction(reduction(a, 2)?);
        l.weight = opt_tensor(a, 0)?;
        ok(l)
    };
    /// torch's `nn.KLDivLoss(reduction='mean', log_target=False)`.
    JsKLDivLoss as KLDivLoss(
        "[options?: { reduction?: 'none' | 'mean' | 'sum' | 'batchmean'; logTarget?: boolean }]",
        "reduction: Str = 'mean', log_target: Bool = False"
    ) = |a| ok(KLDivLoss::new().reduction(reduction(a, 0)?).log_target(a.bool(1)?));
}
