//! One fused kernel per parameter and step: WGSL templates rendered for a set of flags, and their
//! launch over the parameter, its gradient and its state tensors.
//!
//! Templates are plain WGSL with four additions: lines between `//#if FLAG` (or `//#if !FLAG`)
//! and `//#endif` are kept only when the flag is set (unset); each `@binding(#)` is numbered in
//! order from 1, and for a binding of a variable `x` the constant `B_x` holds its number; a line
//! `//#use NAME` stands for the shared piece `NAME` (`SHARED`): `main` opens every kernel's entry
//! point the same way, `adam_moments` is the weight decay and moments of Adam, NAdam and RAdam. Every
//! kernel reads its parameter words through `n()`, `fresh(B_x)` (whether state tensor `x` is new
//! and unwritten: the kernel starts it from its initial value), `at(B_x)` (the element offset of
//! tensor `x`) and `s(k)` (the k-th f32 scalar).

use borch_tensor::raw::{self, Kernel, WGSL_INDEX, WGSL_MATH};
use borch_tensor::{BorchError, DType, Result, Tensor};

use crate::state::ParamState;

/// Parameter words before the scalars: n, the fresh mask, and one offset for each of up to 6
/// tensors.
const MAX_TENSORS: usize = 6;

const HEADER: &str = r#"
@group(0) @binding(0) var<storage, read> p: array<u32>;
fn n() -> u32 { return p[0]; }
fn fresh(b: u32) -> bool { return (p[1] & (1u << b)) != 0u; }
fn at(b: u32) -> u32 { return p[1u + b]; }
fn s(k: u32) -> f32 { return bitcast<f32>(p[8u + k]); }
"#;

/// One optimizer's fused kernel, declared once: its name, its WGSL template and the flags that
/// specialise it (in the pipeline key's order).
pub(crate) struct Fused {
    pub name: &'static str,
    pub source: &'static str,
    pub flags: &'static [&'static str],
}

impl Fused {
    /// Every specialisation's WGSL, for validation.
    pub fn sources(&self) -> Vec<(String, String)> {
        crate::kernel_variants(self.name, self.source, self.flags)
    }

    /// Launch the kernel specialised by `on` (one value per flag) over `param`, `grad` and the
    /// `state` slots (in binding order) with f32 `scalars`.
    pub fn run(
        &self,
        on: &[bool],
        param: &Tensor,
        grad: &Tensor,
        state: &[&Slot],
        scalars: &[f32],
    ) -> Result<()> {
        assert_eq!(
            on.len(),
            self.flags.len(),
            "kernel {}: one value per flag",
            self.name
        );
        let flags: Vec<(&'static str, bool)> =
            self.flags.iter().copied().zip(on.iter().copied()).collect();
        let template = Template {
            name: self.name,
            source: self.source,
            flags: &flags,
        };
        launch(&template, param, grad, state, scalars)
    }

    /// One step of `param`: the state tensors named `slots` taken from `state` (fresh ones for
    /// a new parameter), the kernel run, torch's `step` counted and the tensors kept.
    #[allow(clippy::too_many_arguments)]
    pub fn step(
        &self,
        on: &[bool],
        param: &Tensor,
        grad: &Tensor,
        state: &mut ParamState,
        slots: &[&'static str],
        scalars: &[f32],
    ) -> Result<()> {
        let taken = slots
            .iter()
            .map(|key| Slot::take(state, key, param))
            .collect::<Result<Vec<Slot>>>()?;
        let bound: Vec<&Slot> = taken.iter().collect();
        self.run(on, param, grad, &bound, scalars)?;
        state.set_step(state.step() + 1.0);
        for slot in taken {
            slot.store(state);
        }
        Ok(())
    }
}

/// The pieces `//#use NAME` stands for.
const SHARED: &[(&str, &str)] = &[("main", MAIN), ("adam_moments", ADAM_MOMENTS)];

/// Every kernel's entry point up to its own update: element `i`, the parameter `x` and its
/// gradient `g` (negated under `MAXIMIZE`).
const MAIN: &str = r#"@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if (i >= n()) { return; }
    var x = param[at(B_param) + i];
    var g = grad[at(B_grad) + i];
//#if MAXIMIZE
    g = -g;
//#endif
"#;

/// Adam's weight decay (L2, or decoupled under `DECOUPLED`) and moments `m` and `v`, stored:
/// s(0) = 1 - lr * weight_decay, s(1) = weight_decay, s(2) = 1 - beta1, s(3) = beta2,
/// s(4) = 1 - beta2.
const ADAM_MOMENTS: &str = r#"//#if WEIGHT_DECAY
//#if DECOUPLED
    x = x * s(0);
//#endif
//#if !DECOUPLED
    g = g + s(1) * x;
//#endif
//#endif
    var m = 0.0;
    if (!fresh(B_exp_avg)) { m = exp_avg[at(B_exp_avg) + i]; }
    var v = 0.0;
    if (!fresh(B_exp_avg_sq)) { v = exp_avg_sq[at(B_exp_avg_sq) + i]; }
    m = lerp_(m, g, s(2));
    v = v * s(3);
    v = v + s(4) * g * g;
    exp_avg[at(B_exp_avg) + i] = m;
    exp_avg_sq[at(B_exp_avg_sq) + i] = v;
"#;

/// A template and the flags that specialise it.
pub(crate) struct Template<'a> {
    pub name: &'static str,
    pub source: &'static str,
    pub flags: &'a [(&'static str, bool)],
}

impl Template<'_> {
    /// The pipeline cache key: the kernel and every flag.
    pub fn key(&self) -> String {
        let mut key = format!("optim.{}", self.name);
        for (name, on) in self.flags {
            key.push_str(&format!("|{name}={}", u8::from(*on)));
        }
        key
    }

    /// The WGSL of this specialisation.
    pub fn render(&self) -> String {
        let mut out = String::from(HEADER);
        out.push_str(WGSL_INDEX);
        out.push_str(WGSL_MATH);
        let mut keep = vec![true];
        let mut binding = 0u32;
        let mut source = String::new();
        for line in self.source.lines() {
            match line.strip_prefix("//#use ") {
                Some(name) => source.push_str(shared(name)),
                None => {
                    source.push_str(line);
                    source.push('\n');
                }
            }
        }
        for line in source.lines() {
            let trimmed = line.trim();
            if let Some(cond) = trimmed.strip_prefix("//#if ") {
                let (negate, flag) = match cond.trim().strip_prefix('!') {
                    Some(f) => (true, f),
                    None => (false, cond.trim()),
                };
                let on = self.flag(flag);
                keep.push(*keep.last().unwrap_or(&true) && (on != negate));
                continue;
            }
            if trimmed == "//#endif" {
                keep.pop();
                continue;
            }
            if !*keep.last().unwrap_or(&true) {
                continue;
            }
            if line.contains("@binding(#)") {
                binding += 1;
                out.push_str(&line.replace("@binding(#)", &format!("@binding({binding})")));
                out.push('\n');
                if let Some(var) = var_name(line) {
                    out.push_str(&format!("const B_{var}: u32 = {binding}u;\n"));
                }
                continue;
            }
            out.push_str(line);
            out.push('\n');
        }
        out
    }

    fn flag(&self, name: &str) -> bool {
        self.flags
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, on)| *on)
            .unwrap_or_else(|| panic!("template {} uses unknown flag {name}", self.name))
    }
}

/// The shared piece `name` (a template naming another is a bug in borch, caught by the kernel
/// validation test).
fn shared(name: &str) -> &'static str {
    SHARED
        .iter()
        .find(|(n, _)| *n == name.trim())
        .map(|(_, piece)| *piece)
        .unwrap_or_else(|| panic!("unknown shared kernel piece {name}"))
}

/// `x` of `... var<storage, ...> x: array<f32>;`.
fn var_name(line: &str) -> Option<&str> {
    let after = line.split('>').nth(1)?;
    Some(after.split(':').next()?.trim())
}

/// Launch `template` over `param`, `grad` and `state` (in binding order) with f32 `scalars`.
pub(crate) fn launch(
    template: &Template<'_>,
    param: &Tensor,
    grad: &Tensor,
    state: &[&Slot],
    scalars: &[f32],
) -> Result<()> {
    let mut tensors = vec![param, grad];
    tensors.extend(state.iter().map(|s| &s.tensor));
    assert!(
        tensors.len() <= MAX_TENSORS,
        "fused kernels bind at most 6 tensors"
    );
    let n = tensors[0].numel();
    let mut words = vec![0u32; 2 + MAX_TENSORS];
    words[0] = n as u32;
    for (i, slot) in state.iter().enumerate() {
        if slot.fresh {
            words[1] |= 1 << (i + 3);
        }
    }
    for (i, t) in tensors.iter().enumerate() {
        words[2 + i] = t.storage_offset() as u32;
    }
    words.extend(scalars.iter().map(|x| x.to_bits()));
    let key = template.key();
    let source = || template.render();
    let kernel = Kernel {
        key: &key,
        source: &source,
        bounds_checked: true,
    };
    raw::launch(&kernel, &tensors, &words, raw::groups_for(n))
}

/// The f32 a host scalar (computed in f64 as torch's Python does) becomes in the kernel.
pub(crate) fn f(x: f64) -> f32 {
    x as f32
}

/// Refuse parameters the fused kernels cannot update in place.
pub(crate) fn check_param(param: &Tensor) -> Result<()> {
    if !param.is_leaf() {
        return Err(BorchError::Value("can't optimize a non-leaf Tensor".into()));
    }
    if param.dtype() != DType::Float32 {
        return Err(BorchError::Type(format!(
            "borch optimizers update float32 parameters, got a parameter of dtype {}",
            param.dtype().name()
        )));
    }
    if !param.is_contiguous() {
        return Err(BorchError::Runtime(format!(
            "borch optimizers update each parameter in place with one fused kernel and need \
             contiguous parameters, got one of shape {:?} with strides {:?}; give the model and \
             the optimizer `param.contiguous()` instead",
            param.shape(),
            param.stride()
        )));
    }
    Ok(())
}

/// The gradient of `param` ready for a fused kernel: same shape, float32, contiguous.
pub(crate) fn check_grad(param: &Tensor, grad: &Tensor) -> Result<Tensor> {
    if grad.shape() != param.shape() {
        return Err(BorchError::Runtime(format!(
            "assigned grad has data of a different size: grad {:?}, parameter {:?}",
            grad.shape(),
            param.shape()
        )));
    }
    if grad.dtype() != DType::Float32 {
        return Err(BorchError::Runtime(
            "assigned grad has data of a different type".into(),
        ));
    }
    if param.shares_storage(grad) {
        return Err(BorchError::Runtime(
            "a parameter's grad must not share storage with the parameter".into(),
        ));
    }
    grad.contiguous()
}

/// A state tensor for a kernel: the one kept in `state`, or a new one shaped like `param` that the
/// kernel fills from its initial value.
pub(crate) struct Slot {
    pub key: &'static str,
    pub tensor: Tensor,
    pub fresh: bool,
}

impl Slot {
    /// `state[key]`, or a fresh tensor for it.
    pub fn take(state: &ParamState, key: &'static str, param: &Tensor) -> Result<Slot> {
        Ok(match state.tensor(key) {
            Some(t) => Slot {
                key,
                tensor: t.clone(),
                fresh: false,
            },
            None => Slot {
                key,
                tensor: param.empty_like()?,
                fresh: true,
            },
        })
    }

    /// Keep the tensor in `state` (after the kernel that fills it was recorded).
    pub fn store(self, state: &mut ParamState) {
        state.set_tensor(self.key, self.tensor);
    }
}
