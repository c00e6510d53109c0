//! The package's namespaces of functions taking modules (`nn.utils.fusion`), generated from the
//! catalogs borch-js lists (`borch_js::module_function_namespaces`): one frozen object per
//! namespace whose members each make one call into `callWithModules`, nested in its parent
//! namespace's object (`nn.utils.fusion`), and their declarations.

use std::fmt::Write;

use borch_nn::api::module_functions::{ModuleBody, ModuleFunction};
use borch_tensor::api::parse_params;

use super::namespaces::{ident, interface, split};
use super::{camel, types};

/// What a function returns, in TypeScript.
fn returns(f: &ModuleFunction) -> String {
    match f.body {
        ModuleBody::Make(_) => "import('./borch_js.js').Module".into(),
        ModuleBody::InPlace(_) => "void".into(),
        ModuleBody::InPlaceNames(_) => "string[]".into(),
        ModuleBody::ReadStateDict(_) => "Record<string, Tensor>".into(),
        ModuleBody::Values(_) => {
            let e = &f.entry;
            let line = types::overloads(e, "f", true).remove(0);
            line.rsplit_once("): ")
                .map(|(_, r)| r.trim_end_matches(';').to_string())
                .unwrap_or_default()
        }
    }
}

/// The declarations of `f`: the positional form and the form with trailing keyword options,
/// module parameters typed as modules.
fn overloads(f: &ModuleFunction) -> Vec<String> {
    let params = parse_params(&f.signature.replace(": Module", ": Tensor"));
    let ret = returns(f);
    types::constructor_forms(&params)
        .into_iter()
        .map(|form| {
            let form = super::classes::with_module_types(form, &f.modules);
            format!("{}({form}): {ret};", camel(f.name))
        })
        .collect()
}

fn member_line(path: &str, f: &ModuleFunction) -> String {
    format!(
        "  {}: function (...args) {{ return callWithModules({path:?}, {:?}, args); }},",
        camel(f.name),
        f.name
    )
}

/// Each namespace's object (before its parent's, which nests it).
pub fn objects_js() -> String {
    let mut out = String::new();
    for ns in borch_js::module_function_namespaces() {
        writeln!(out, "const {} = Object.freeze({{", ident(ns.path)).unwrap();
        for f in (ns.functions)() {
            writeln!(out, "{}", member_line(ns.path, f)).unwrap();
        }
        out.push_str("});\n");
    }
    out
}

/// The interfaces of the namespaces.
pub fn declarations() -> String {
    let mut out = String::new();
    for ns in borch_js::module_function_namespaces() {
        writeln!(
            out,
            "\n/** {} (generated from its catalog). */\nexport interface {} {{",
            ns.module,
            interface(ns.path)
        )
        .unwrap();
        for f in (ns.functions)() {
            writeln!(out, "  /** {}.{}({}) */", ns.module, f.name, f.signature).unwrap();
            for line in overloads(f) {
                writeln!(out, "  {line}").unwrap();
            }
        }
        out.push_str("}\n");
    }
    out
}

/// The members the namespace at `parent` (`nn.utils`) gets for these namespaces nested in it
/// (`fusion`): `  fusion: ns_nn_utils_fusion,` in index.js, `  readonly fusion:
/// NnUtilsFusionNamespace;` in index.d.ts.
pub fn nested_members(parent: &str, dts: bool) -> String {
    let mut out = String::new();
    for ns in borch_js::module_function_namespaces() {
        if let (Some(p), name) = split(ns.path)
            && p == parent
        {
            if dts {
                writeln!(out, "  readonly {name}: {};", interface(ns.path)).unwrap();
            } else {
                writeln!(out, "  {name}: {},", ident(ns.path)).unwrap();
            }
        }
    }
    out
}

/// Lines of [`objects_js`] that are not forwarding lines (for the audit).
pub fn audit_generated() -> Vec<crate::audit::Finding> {
    let members: Vec<String> = borch_js::module_function_namespaces()
        .iter()
        .flat_map(|ns| (ns.functions)().iter().map(|f| member_line(ns.path, f)))
        .collect();
    let frames: Vec<String> = borch_js::module_function_namespaces()
        .iter()
        .map(|ns| format!("const {} = Object.freeze({{", ident(ns.path)))
        .collect();
    objects_js()
        .lines()
        .filter(|l| {
            *l != "});" && !members.iter().any(|m| m == l) && !frames.iter().any(|m| m == l)
        })
        .map(|line| crate::audit::Finding {
            place: "generated index.js (module functions)".into(),
            what: format!("not a forwarding line: {line}"),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fusion_is_generated_from_its_catalog() {
        let js = objects_js();
        assert!(js.contains(
            "  fuseConvBnEval: function (...args) { return callWithModules(\"nn.utils.fusion\", \"fuse_conv_bn_eval\", args); },"
        ), "{js}");
        assert!(js.contains("  fuseForEval: function (...args) {"), "{js}");
        let d = declarations();
        let m = "{ readonly __borchModule: number }";
        assert!(d.contains(&format!(
            "  fuseConvBnEval(conv: {m}, bn: {m}, transpose?: boolean): import('./borch_js.js').Module;"
        )), "{d}");
        assert!(d.contains(
            "  fuseConvBnWeights(convW: Tensor, convB: Tensor | null, bnRm: Tensor, bnRv: Tensor, bnEps: number | FloatScalar, bnW: Tensor | null, bnB: Tensor | null, transpose?: boolean): [Tensor, Tensor];"
        ), "{d}");
        assert!(
            d.contains(&format!("  fuseForEval(model: {m}): void;")),
            "{d}"
        );
        assert_eq!(
            nested_members("nn.utils", false),
            "  fusion: ns_nn_utils_fusion,\n  lora: ns_nn_utils_lora,\n"
        );
        assert!(js.contains(
            "  applyLora: function (...args) { return callWithModules(\"nn.utils.lora\", \"apply_lora\", args); },"
        ), "{js}");
        assert!(d.contains(&format!(
            "  applyLora(model: {m}, r: number, options: {{ loraAlpha?: number | FloatScalar; targetModules?: string[] }}): string[];"
        )), "{d}");
        assert!(
            d.contains(&format!(
                "  loraStateDict(model: {m}, bias?: string): Record<string, Tensor>;"
            )),
            "{d}"
        );
        assert!(audit_generated().is_empty());
    }
}
