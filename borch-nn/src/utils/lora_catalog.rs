//! LoRA's model functions as a catalog that bindings forward to ([`ModuleFunction`]s, like
//! `torch.nn.utils.fusion`'s): loralib's `mark_only_lora_as_trainable(model, bias='none')` and
//! `lora_state_dict(model, bias='none')`, and borch's `apply_lora(model, r, lora_alpha=1,
//! target_modules=None)`, `merge_lora(model)` and `unmerge_lora(model)` (not loralib's: see
//! [`super::lora`]). The bindings offer them as `nn.utils.lora`.

use std::sync::OnceLock;

use borch_tensor::api::{Args, Returns};
use borch_tensor::{BorchError, Result};

use super::lora::{self, LoraBias};
use crate::api::module_functions::{ModuleBody, ModuleFunction, function};
use crate::module::Module;
use crate::state_dict::StateDict;

/// The module name in errors (borch's: torch has no LoRA; loralib's functions are `loralib.*`).
pub const MODULE: &str = "borch.nn.utils.lora";

fn bias(a: &Args, i: usize) -> Result<LoraBias> {
    a.str(i)?.parse()
}

fn apply(model: &mut dyn Module, a: &Args) -> Result<Vec<String>> {
    if a.get(2).is_none() {
        return Err(BorchError::Value(
            "apply_lora(): target_modules is required: the names of the Linear children to \
             adapt (e.g. ['q', 'v'])"
                .into(),
        ));
    }
    let targets = a.strs(2)?;
    let targets: Vec<&str> = targets.iter().map(String::as_str).collect();
    lora::apply_lora(model, a.usize(0)?, a.f64(1)?, &targets)
}

fn mark_only(model: &mut dyn Module, a: &Args) -> Result<()> {
    lora::mark_only_lora_as_trainable(model, bias(a, 0)?)
}

fn state_dict(model: &dyn Module, a: &Args) -> Result<StateDict> {
    Ok(lora::lora_state_dict(model, bias(a, 0)?))
}

fn merge(model: &mut dyn Module, _: &Args) -> Result<Vec<String>> {
    lora::merge_lora(model)
}

fn unmerge(model: &mut dyn Module, _: &Args) -> Result<Vec<String>> {
    lora::unmerge_lora(model)
}

/// The catalog, built once.
pub fn functions() -> &'static [ModuleFunction] {
    static FUNCTIONS: OnceLock<Vec<ModuleFunction>> = OnceLock::new();
    FUNCTIONS.get_or_init(|| {
        vec![
            function(
                "apply_lora",
                "model: Module, r: Int, lora_alpha: Float = 1, target_modules: Strs = None",
                Returns::Nothing,
                ModuleBody::InPlaceNames(apply),
            ),
            function(
                "mark_only_lora_as_trainable",
                "model: Module, bias: Str = 'none'",
                Returns::Nothing,
                ModuleBody::InPlace(mark_only),
            ),
            function(
                "lora_state_dict",
                "model: Module, bias: Str = 'none'",
                Returns::Nothing,
                ModuleBody::ReadStateDict(state_dict),
            ),
            function(
                "merge_lora",
                "model: Module",
                Returns::Nothing,
                ModuleBody::InPlaceNames(merge),
            ),
            function(
                "unmerge_lora",
                "model: Module",
                Returns::Nothing,
                ModuleBody::InPlaceNames(unmerge),
            ),
        ]
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::module_functions::{Output, call_in_place, call_reading, find};
    use crate::{Linear, ReLU, Sequential};
    use borch_tensor::api::Value;

    fn model() -> Sequential {
        let mut q = Sequential::new(vec![]);
        q.add_module("q", Box::new(Linear::new(3, 4).unwrap()));
        q.add_module("act", Box::new(ReLU::new()));
        q.add_module("v", Box::new(Linear::new(4, 2).unwrap()));
        q
    }

    fn names(o: Output) -> Vec<String> {
        match o {
            Output::Value(Value::List(items)) => items
                .into_iter()
                .map(|v| match v {
                    Value::Str(s) => s,
                    _ => panic!("not a str"),
                })
                .collect(),
            _ => panic!("not a list"),
        }
    }

    #[test]
    fn apply_mark_state_dict_merge() {
        let mut m = model();
        let f = |n| find(functions(), MODULE, n).unwrap();
        let kw = |k: &str, v: Value| vec![(k.to_string(), v)];
        let targets = Value::List(vec![Value::Str("q".into()), Value::Str("v".into())]);
        let out = call_in_place(
            f("apply_lora"),
            Some(&mut m),
            vec![Value::Int(2)],
            kw("target_modules", targets),
        )
        .unwrap();
        assert_eq!(names(out), ["q", "v"]);
        call_in_place(
            f("mark_only_lora_as_trainable"),
            Some(&mut m),
            vec![],
            vec![],
        )
        .unwrap();
        let trainable: Vec<_> = m
            .named_parameters()
            .into_iter()
            .filter(|(_, p)| p.requires_grad())
            .map(|(n, _)| n)
            .collect();
        assert_eq!(trainable, ["q.lora_A", "q.lora_B", "v.lora_A", "v.lora_B"]);
        let sd = call_reading(
            f("lora_state_dict"),
            &[Some(&m)],
            vec![Value::Str("all".into())],
            vec![],
        )
        .unwrap();
        let Output::StateDict(sd) = sd else {
            panic!("not a state dict")
        };
        assert_eq!(
            sd.keys(),
            [
                "q.bias", "q.lora_A", "q.lora_B", "v.bias", "v.lora_A", "v.lora_B"
            ]
        );
        let merged = call_in_place(f("merge_lora"), Some(&mut m), vec![], vec![]).unwrap();
        assert_eq!(names(merged), ["q", "v"]);
    }

    #[test]
    fn refusals() {
        let mut m = model();
        let f = |n| find(functions(), MODULE, n).unwrap();
        let e = call_in_place(f("apply_lora"), Some(&mut m), vec![Value::Int(2)], vec![])
            .err()
            .unwrap();
        assert!(e.to_string().contains("target_modules is required"), "{e}");
        let e = call_in_place(
            f("mark_only_lora_as_trainable"),
            Some(&mut m),
            vec![Value::Str("some".into())],
            vec![],
        )
        .err()
        .unwrap();
        assert!(matches!(e, BorchError::NotImplemented(_)), "{e}");
        let e = call_reading(f("lora_state_dict"), &[None], vec![], vec![])
            .err()
            .unwrap();
        assert_eq!(
            e.to_string(),
            "lora_state_dict() missing 1 required positional argument: 'model'"
        );
    }
}
