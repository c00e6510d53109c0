//! `nn.<Class>` for every class of the module catalog (`borch_nn::api::modules`), generated: a
//! JavaScript class whose constructor is one call (`buildModule`: the core binds the arguments to
//! the class's torch signature and builds the module; the object gets the prototype of the class
//! `new` ran on, so `instanceof nn.Linear` and `class Mine extends nn.Linear` work), its `.d.ts`
//! construct signatures, and its `signatures.json` entry. Nothing here is kept by hand per class.

use std::fmt::Write;

use borch_nn::api::modules::{self, ModuleClass};

use super::types;

/// The first line of the generated block: the base class of every catalog class.
const OPEN: &str = "const Module = classes.Module;";

fn class_line(c: &ModuleClass) -> String {
    format!(
        "class {0} extends Module {{ constructor(...args) {{ return buildModule(new.target, {0:?}, args); }} }}",
        c.name
    )
}

fn adopt_line() -> String {
    let names: Vec<&str> = modules::names();
    format!(
        "adopt(Module, (m) => ({{ {} }})[m.className]?.prototype);",
        names.join(", ")
    )
}

/// The classes, then the call that gives modules Rust returns (`seq.at(0)`) their class.
pub fn classes_js() -> String {
    let mut out =
        format!("\n// nn classes generated from borch_nn::api::modules; do not edit.\n{OPEN}\n");
    for c in modules::classes() {
        writeln!(out, "{}", class_line(c)).unwrap();
    }
    out + &adopt_line() + "\n"
}

/// Whether `line` of [`classes_js`] is a forwarding line (for the audit).
pub fn is_forwarding(line: &str) -> bool {
    let class = line.starts_with("class ")
        && line
            .contains(" extends Module { constructor(...args) { return buildModule(new.target, \"")
        && line.ends_with("\", args); } }");
    let adopt = line.starts_with("adopt(Module, (m) => ({ ")
        && line.ends_with(" })[m.className]?.prototype);");
    class || adopt || line == OPEN || line.is_empty() || line.starts_with("// ")
}

/// The declarations: `declare namespace catalog { export class Linear { constructor(…); } }` with
/// a construct signature per form (positional; required then an options object), each merged
/// with an interface extending wasm-bindgen's `Module` (whose constructor is private, so it
/// cannot be extended as a class).
pub fn classes_dts() -> String {
    let mut out = String::from(
        "\n// nn classes generated from borch_nn::api::modules.\n\
         import type { Module as ModuleBase } from './borch_js.js';\n\
         declare namespace catalog {\n",
    );
    for c in modules::classes() {
        writeln!(out, "  /** torch.nn.{}({}) */", c.name, c.signature).unwrap();
        writeln!(out, "  export class {} {{", c.name).unwrap();
        for form in types::constructor_forms(c.params()) {
            writeln!(out, "    constructor({form});").unwrap();
        }
        writeln!(out, "  }}").unwrap();
        match c.forward {
            None => writeln!(out, "  export interface {} extends ModuleBase {{}}", c.name),
            Some(f) => {
                let ret = types::forward_result(f.returns());
                writeln!(
                    out,
                    "  export interface {} extends Omit<ModuleBase, 'call' | 'forward'> {{",
                    c.name
                )
                .unwrap();
                for form in types::constructor_forms(f.params()) {
                    writeln!(out, "    /** torch.nn.{}.forward({}) */", c.name, f.text()).unwrap();
                    writeln!(out, "    call({form}): {ret};").unwrap();
                    writeln!(out, "    forward({form}): {ret};").unwrap();
                }
                writeln!(out, "  }}")
            }
        }
        .unwrap();
    }
    out + "}\n"
}

/// Whether `name` is a catalog class (declared in `catalog`, generated in index.js).
pub fn is_catalog(name: &str) -> bool {
    modules::find(name).is_some()
}

/// The classes as `signatures.json` entries.
pub fn signatures() -> Vec<serde_json::Value> {
    modules::classes()
        .iter()
        .map(|c| {
            serde_json::json!({
                "name": c.name,
                "module": modules::MODULE,
                "js": c.name,
                "class": true,
                "method": false,
                "function": false,
                "signature": c.signature,
                "params": super::params_json(c.params()),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_class_is_one_forwarding_line_and_a_declaration() {
        let js = classes_js();
        assert!(js.lines().all(is_forwarding), "{js}");
        assert!(js.contains(
            "class Linear extends Module { constructor(...args) { return buildModule(new.target, \"Linear\", args); } }"
        ));
        assert_eq!(
            js.lines().filter(|l| l.starts_with("class ")).count(),
            modules::classes().len()
        );
        assert!(!is_forwarding(
            "class Linear extends Module { constructor(...args) { return 1 + buildModule(new.target, \"Linear\", args); } }x"
        ));
        let d = classes_dts();
        assert!(
            d.contains("    constructor(inFeatures: number, outFeatures: number, options: { bias?: boolean; device?: string; dtype?: DType });"),
            "{d}"
        );
        assert!(
            d.contains("    constructor(kernelSize: number | number[], stride?: number | number[]")
        );
        assert!(d.contains("  export class ReLU {\n    constructor(inplace?: boolean);"));
        assert!(d.contains(
            "  export class Tanh {\n    constructor();\n  }\n  export interface Tanh extends ModuleBase {}"
        ));
        assert!(
            d.contains(
                "  export interface LSTMCell extends Omit<ModuleBase, 'call' | 'forward'> {\n    \
                 /** torch.nn.LSTMCell.forward(input: Tensor, hx: Tensors = None) */\n    \
                 call(input: Tensor, hx?: Tensor[]): [Tensor, Tensor];"
            ),
            "{d}"
        );
        assert!(d.contains("  export interface Linear extends ModuleBase {}"));
        assert!(!d.contains("any"));
    }
}
