//! `optim` and `optim.lrScheduler`, generated from borch-optim's catalogs: one JavaScript class
//! per optimizer and per scheduler, each a subclass of the wasm `Optimizer` / `LRScheduler` whose
//! constructor is one call of `newOptimizer` / `newScheduler` by torch's name (the object made
//! gets the subclass's prototype, so `instanceof optim.Adam` and `class Mine extends optim.Adam`
//! work), their TypeScript construct signatures, and their entries of `signatures.json`.
//! Nothing here is per optimizer or per scheduler.

use std::fmt::Write;

use borch_optim::OptionSpec;
use borch_optim::catalog::{OptimizerEntry, optimizers};
use borch_optim::lr_scheduler::{SchedulerEntry, SchedulerParam, parse_signature, schedulers};

use super::names::camel;

/// The class makers `optim` is written with (fixed text: the audit checks every other line is
/// one `Name: maker("Name"),` member).
const MAKERS: &str = r#"
// optim and optim.lrScheduler (generated from borch_optim's catalogs): each class is made by name
// in the core, with the subclass's prototype (instanceof optim.Adam; class Mine extends optim.Adam).
const optimizerClass = (name) => ({ [name]: class extends classes.Optimizer { constructor(params, options) { return Object.setPrototypeOf(wasm.newOptimizer(name, params, options), new.target.prototype); } } })[name];
const schedulerClass = (name) => ({ [name]: class extends classes.LRScheduler { constructor(optimizer, ...args) { return Object.setPrototypeOf(wasm.newScheduler(name, optimizer, args), new.target.prototype); } } })[name];
const chainedClass = (name) => ({ [name]: class extends classes.LRScheduler { constructor(...args) { return Object.setPrototypeOf(wasm.newScheduler(name, undefined, args), new.target.prototype); } } })[name];
export const optim = Object.freeze({"#;
const SCHEDULERS_OPEN: &str = "  lrScheduler: Object.freeze({";
const CLOSE: &str = "  }),\n});";

/// Whether a scheduler takes its optimizer after its schedulers (ChainedScheduler).
fn optimizer_last(e: &SchedulerEntry) -> bool {
    parse_signature(e.signature)
        .iter()
        .any(|p| p.kind == "Optimizer")
}

/// The JavaScript of `optim` (with `optim.lrScheduler` inside).
pub fn namespace_js() -> String {
    let mut out = String::from(MAKERS);
    out.push('\n');
    for e in optimizers() {
        writeln!(out, "  {}: optimizerClass({:?}),", e.name, e.name).unwrap();
    }
    out.push_str(SCHEDULERS_OPEN);
    out.push('\n');
    for e in schedulers() {
        let maker = if optimizer_last(e) {
            "chainedClass"
        } else {
            "schedulerClass"
        };
        writeln!(out, "    {}: {maker}({:?}),", e.name, e.name).unwrap();
    }
    out + CLOSE + "\n"
}

/// A keyword as JavaScript spells it: `weight_decay` → `weightDecay`, `T_max` → `tMax`.
fn js_key(name: &str) -> String {
    let c = camel(name);
    let mut chars = c.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => c,
    }
}

fn option_type(spec: &OptionSpec, nullable: bool) -> String {
    let optional_first = matches!(&spec.default, borch_optim::Value::List(items)
        if items.first() == Some(&borch_optim::Value::None));
    let ts = match spec.kind {
        "Float" | "Int" => "number",
        "Bool" => "boolean",
        "Str" => "string",
        "Floats" if optional_first => "[number | null, number]",
        "Floats" => "[number, number]",
        other => panic!("unknown option kind {other}"),
    };
    if nullable {
        format!("{ts} | null")
    } else {
        ts.to_string()
    }
}

fn optimizer_options(e: &OptimizerEntry) -> String {
    let specs: Vec<OptionSpec> = e.option_specs();
    let mut fields: Vec<String> = specs
        .iter()
        .map(|s| {
            let nullable = s.default == borch_optim::Value::None;
            format!("{}?: {}", js_key(s.name), option_type(s, nullable))
        })
        .collect();
    fields.extend(
        e.flags
            .iter()
            .map(|(f, _)| format!("{}?: boolean | null", js_key(f))),
    );
    format!("{{ {} }}", fields.join("; "))
}

fn scheduler_type(p: &SchedulerParam) -> String {
    let ts = match p.kind.as_str() {
        "Float" | "Int" => "number",
        "Bool" => "boolean",
        "Str" => "string",
        "Floats" => "number | number[]",
        "Ints" => "number[]",
        "Function" => "((epoch: number) => number) | Array<(epoch: number) => number>",
        "Schedulers" => "glue.LRScheduler[]",
        "Optimizer" => "glue.Optimizer",
        other => panic!("unknown scheduler parameter kind {other}"),
    };
    if p.default == Some(borch_optim::Value::None) {
        format!("{ts} | null")
    } else {
        ts.to_string()
    }
}

/// `[a: T, b?: U] | [{ a: T; b?: U }]`: positional, or all in one options object.
fn scheduler_rest(e: &SchedulerEntry) -> String {
    let params = parse_signature(e.signature);
    let positional: Vec<String> = params
        .iter()
        .map(|p| {
            let q = if p.default.is_some() { "?" } else { "" };
            format!("{}{q}: {}", js_key(&p.name), scheduler_type(p))
        })
        .collect();
    let object: Vec<String> = params
        .iter()
        .map(|p| {
            let q = if p.default.is_some() { "?" } else { "" };
            format!("{}{q}: {}", js_key(&p.name), scheduler_type(p))
        })
        .collect();
    format!(
        "[{}] | [{{ {} }}]",
        positional.join(", "),
        object.join("; ")
    )
}

/// The declaration of `optim` (to follow `import type * as glue from './borch_js.js'`).
pub fn namespace_dts() -> String {
    let mut out = String::from(
        "\n/** torch.optim and torch.optim.lr_scheduler (generated from borch_optim's catalogs). */\nexport declare const optim: {\n",
    );
    for e in optimizers() {
        writeln!(
            out,
            "  readonly {}: {{ new (params: Tensor[] | Array<{{ params: Tensor[]; [option: string]: unknown }}>, options?: {}): glue.Optimizer; readonly prototype: glue.Optimizer }};",
            e.name,
            optimizer_options(e)
        )
        .unwrap();
    }
    out.push_str("  readonly lrScheduler: {\n");
    for e in schedulers() {
        let head = if optimizer_last(e) {
            "...args: "
        } else {
            "optimizer: glue.Optimizer, ...args: "
        };
        writeln!(
            out,
            "    readonly {}: {{ new ({head}{}): glue.LRScheduler; readonly prototype: glue.LRScheduler }};",
            e.name,
            scheduler_rest(e)
        )
        .unwrap();
    }
    out + "  };\n};\n"
}

/// The classes of `optim` and `optim.lrScheduler` for `signatures.json`: torch's name, the
/// JavaScript path, the signature in the op catalog's syntax and its parameters.
pub fn signatures() -> Vec<serde_json::Value> {
    let optim = optimizers().iter().map(|e| {
        let params: Vec<serde_json::Value> = e
            .option_specs()
            .iter()
            .map(|s| {
                serde_json::json!({
                    "name": s.name,
                    "js": js_key(s.name),
                    "kind": s.kind,
                    "default": s.default.py_repr(),
                })
            })
            .collect();
        serde_json::json!({
            "name": e.name,
            "module": "torch.optim",
            "js": format!("optim.{}", e.name),
            "class": true,
            "signature": e.signature(),
            "params": params,
        })
    });
    let sched = schedulers().iter().map(|e| {
        let params: Vec<serde_json::Value> = parse_signature(e.signature)
            .iter()
            .map(|p| {
                serde_json::json!({
                    "name": p.name,
                    "js": js_key(&p.name),
                    "kind": p.kind,
                    "required": p.default.is_none(),
                    "default": p.default.as_ref().map(borch_optim::Value::py_repr),
                })
            })
            .collect();
        let signature = if optimizer_last(e) {
            e.signature.to_string()
        } else {
            format!("optimizer: Optimizer, {}", e.signature)
        };
        serde_json::json!({
            "name": e.name,
            "module": "torch.optim.lr_scheduler",
            "js": format!("optim.lrScheduler.{}", e.name),
            "class": true,
            "signature": signature,
            "params": params,
        })
    });
    optim.chain(sched).collect()
}

/// Lines of the generated `optim` that are not its fixed frame or one `Name: maker("Name"),`.
pub fn audit_generated() -> Vec<crate::audit::Finding> {
    let frame: Vec<&str> = MAKERS
        .lines()
        .chain([SCHEDULERS_OPEN])
        .chain(CLOSE.lines())
        .collect();
    namespace_js()
        .lines()
        .filter(|line| !frame.contains(line) && !is_member(line))
        .map(|line| crate::audit::Finding {
            place: "generated index.js (optim)".into(),
            what: format!("not a class line: {line}"),
        })
        .collect()
}

fn is_member(line: &str) -> bool {
    let line = line.trim_start();
    let Some((name, rest)) = line.split_once(": ") else {
        return false;
    };
    ["optimizerClass", "schedulerClass", "chainedClass"]
        .iter()
        .any(|maker| rest == format!("{maker}({name:?}),"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_optimizer_and_scheduler_is_one_generated_class() {
        let js = namespace_js();
        assert!(js.contains("  Adam: optimizerClass(\"Adam\"),"));
        assert!(js.contains("    StepLR: schedulerClass(\"StepLR\"),"));
        assert!(js.contains("    ChainedScheduler: chainedClass(\"ChainedScheduler\"),"));
        assert_eq!(optimizers().len(), 14);
        assert_eq!(schedulers().len(), 15);
        assert!(audit_generated().is_empty(), "{:?}", audit_generated());
        assert!(!is_member("  Adam: optimizerClass(\"SGD\"),"));
        let dts = namespace_dts();
        assert!(dts.contains("betas?: [number, number]"), "{dts}");
        assert!(dts.contains("eps?: [number | null, number]"), "{dts}");
        assert!(dts.contains("readonly CosineAnnealingLR: { new (optimizer: glue.Optimizer, ...args: [tMax: number, etaMin?: number, lastEpoch?: number] | [{ tMax: number; etaMin?: number; lastEpoch?: number }]): glue.LRScheduler"), "{dts}");
        assert!(!dts.contains("any"));
        assert_eq!(signatures().len(), 29);
    }
}
