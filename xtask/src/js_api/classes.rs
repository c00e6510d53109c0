//! `nn.<Class>` for every class of the module catalog (`borch_nn::api::modules`), generated: a
//! JavaScript class whose constructor is one call (`buildModule`: the core binds the arguments to
//! the class's torch signature and builds the module; the object gets the prototype of the class
//! `new` ran on, so `instanceof nn.Linear` and `class Mine extends nn.Linear` work), its `.d.ts`
//! construct signatures, and its `signatures.json` entry. Nothing here is kept by hand per class.

use std::fmt::Write;

use borch_nn::api::modules::stacks::{ModuleParam, StackClass, stack_classes};
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

/// A class taking modules (`TransformerEncoder`): one call, `buildStack`.
fn stack_line(c: &StackClass) -> String {
    format!(
        "class {0} extends Module {{ constructor(...args) {{ return buildStack(new.target, {0:?}, args); }} }}",
        c.name
    )
}

/// A class of `nn.intrinsic` (`ConvReLU2d`): one call, `buildFused`.
fn fused_line(name: &str) -> String {
    format!(
        "class {name} extends Module {{ constructor(...args) {{ return buildFused(new.target, {name:?}, args); }} }}"
    )
}

/// The `nn.intrinsic` object of index.js (the package's `nn` nests it).
pub const INTRINSIC_OBJECT: &str = "ns_nn_intrinsic";

fn intrinsic_object_line() -> String {
    format!(
        "const {INTRINSIC_OBJECT} = Object.freeze({{ {} }});",
        borch_nn::intrinsic::fused_names().join(", ")
    )
}

/// `Object.assign(Transformer, ns_nn_Transformer);`: a class's static methods, from the function
/// namespace `nn.<Class>`.
fn statics_line(class: &str, object: &str) -> String {
    format!("Object.assign({class}, {object});")
}

fn adopt_line() -> String {
    let mut names: Vec<&str> = borch_nn::api::modules::stacks::class_names();
    names.extend(borch_nn::intrinsic::fused_names());
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
    for c in stack_classes() {
        writeln!(out, "{}", stack_line(c)).unwrap();
    }
    for name in borch_nn::intrinsic::fused_names() {
        writeln!(out, "{}", fused_line(name)).unwrap();
    }
    writeln!(out, "{}", intrinsic_object_line()).unwrap();
    for (class, object, _) in super::namespaces::class_statics() {
        writeln!(out, "{}", statics_line(class, &object)).unwrap();
    }
    out + &adopt_line() + "\n"
}

/// Whether `line` of [`classes_js`] is a forwarding line (for the audit).
pub fn is_forwarding(line: &str) -> bool {
    let class = line.starts_with("class ")
        && (line.contains(
            " extends Module { constructor(...args) { return buildModule(new.target, \"",
        ) || line
            .contains(" extends Module { constructor(...args) { return buildStack(new.target, \"")
            || line.contains(
                " extends Module { constructor(...args) { return buildFused(new.target, \"",
            ))
        && line.ends_with("\", args); } }");
    let intrinsic = line == intrinsic_object_line();
    let statics = super::namespaces::class_statics()
        .iter()
        .any(|(class, object, _)| line == statics_line(class, object));
    let adopt = line.starts_with("adopt(Module, (m) => ({ ")
        && line.ends_with(" })[m.className]?.prototype);");
    class
        || statics
        || adopt
        || intrinsic
        || line == OPEN
        || line.is_empty()
        || line.starts_with("// ")
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
        out += &super::namespaces::static_declarations(c.name);
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
    for c in stack_classes() {
        out += &stack_dts(c);
    }
    out + &intrinsic_dts() + "}\n"
}

/// `nn.intrinsic`'s classes: constructed from modules (ConvAdd2d's `add` is borch-ts's `add`).
fn intrinsic_dts() -> String {
    let mut out = String::new();
    for c in borch_nn::intrinsic::fused_classes() {
        let mut params: Vec<String> = c
            .modules
            .iter()
            .map(|m| format!("{}: {MODULE_ARG}", super::camel(m)))
            .collect();
        for &(f, at) in c.functions {
            params.insert(at, format!("{f}: (...args: never[]) => unknown"));
        }
        let torch: Vec<&str> = c.modules.to_vec();
        writeln!(
            out,
            "  /** torch.ao.nn.intrinsic.{}({}) */\n  export class {} {{\n    constructor({});\n  }}",
            c.name,
            torch.join(", "),
            c.name,
            params.join(", ")
        )
        .unwrap();
        writeln!(out, "  export interface {} extends ModuleBase {{}}", c.name).unwrap();
    }
    out
}

/// `readonly intrinsic: { … }`: the `nn.intrinsic` member of the `nn` declaration.
pub fn intrinsic_member_dts() -> String {
    let members: Vec<String> = borch_nn::intrinsic::fused_names()
        .iter()
        .map(|c| format!("readonly {c}: typeof catalog.{c}"))
        .collect();
    format!("  readonly intrinsic: {{ {} }};\n", members.join("; "))
}

/// What a module parameter accepts: any borch-ts module (as `Sequential` takes them).
const MODULE_ARG: &str = "{ readonly __borchModule: number }";

/// A parameter list declared from a signature whose `Module` parameters were read as `Tensor`:
/// those parameters typed as modules.
pub fn with_module_types(mut form: String, modules: &[ModuleParam]) -> String {
    for p in modules {
        let js = super::camel(p.name);
        form = form
            .replace(&format!("{js}: Tensor"), &format!("{js}: {MODULE_ARG}"))
            .replace(
                &format!("{js}?: Tensor | null"),
                &format!("{js}?: {MODULE_ARG} | null"),
            )
            .replace(
                &format!("{js}?: Tensor"),
                &format!("{js}?: {MODULE_ARG} | null"),
            );
    }
    form
}

/// A class taking modules: its module parameters typed as modules, the others as the catalog's.
fn stack_dts(c: &StackClass) -> String {
    let params = borch_tensor::api::parse_params(&c.signature.replace(": Module", ": Tensor"));
    let mut out = format!(
        "  /** torch.nn.{}({}) */\n  export class {} {{\n",
        c.name, c.signature, c.name
    );
    for form in types::constructor_forms(&params) {
        let form = with_module_types(form, c.modules);
        writeln!(out, "    constructor({form});").unwrap();
    }
    let ret = types::forward_result(c.forward.returns());
    writeln!(
        out,
        "  }}\n  export interface {} extends Omit<ModuleBase, 'call' | 'forward'> {{",
        c.name
    )
    .unwrap();
    for form in types::constructor_forms(c.forward.params()) {
        writeln!(
            out,
            "    /** torch.nn.{}.forward({}) */",
            c.name,
            c.forward.text()
        )
        .unwrap();
        writeln!(out, "    call({form}): {ret};").unwrap();
        writeln!(out, "    forward({form}): {ret};").unwrap();
    }
    out + "  }\n"
}

/// Whether `name` is a catalog class (declared in `catalog`, generated in index.js).
pub fn is_catalog(name: &str) -> bool {
    modules::find(name).is_some() || stack_classes().iter().any(|c| c.name == name)
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
                + stack_classes().len()
                + borch_nn::intrinsic::fused_names().len()
        );
        assert!(js.contains(
            "class ConvReLU2d extends Module { constructor(...args) { return buildFused(new.target, \"ConvReLU2d\", args); } }"
        ));
        assert!(js.contains("const ns_nn_intrinsic = Object.freeze({ ConvReLU1d, ConvReLU2d, "));
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
        assert!(d.contains(
            "    call(input: Tensor, hx?: Tensor[]): [Tensor, [Tensor, Tensor]];\n    \
             forward(input: Tensor, hx?: Tensor[]): [Tensor, [Tensor, Tensor]];"
        ));
        assert!(d.contains("  export interface Linear extends ModuleBase {}"));
        assert!(js.contains(
            "class TransformerEncoder extends Module { constructor(...args) { return buildStack(new.target, \"TransformerEncoder\", args); } }"
        ));
        assert!(js.contains("Object.assign(Transformer, ns_nn_Transformer);"));
        assert!(d.contains(
            "    constructor(encoderLayer: { readonly __borchModule: number }, numLayers: number, norm?: { readonly __borchModule: number } | null, enableNestedTensor?: boolean, maskCheck?: boolean);"
        ), "{d}");
        assert!(d.contains(
            "    call(src: Tensor, options: { mask?: Tensor; srcKeyPaddingMask?: Tensor; isCausal?: boolean }): Tensor;"
        ));
        assert!(d.contains("    static generateSquareSubsequentMask(sz: number, device?: string, dtype?: DType): Tensor;"));
        assert!(!d.contains("any"));
    }
}
