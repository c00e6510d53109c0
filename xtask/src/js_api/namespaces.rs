//! The package's function namespaces other than `torch` and `nn.functional` (`nn.utils`,
//! `autograd`), generated from the catalogs borch-js lists (`borch_js::function_namespaces`):
//! one frozen object per namespace whose members each make one call into `callIn`.

use std::fmt::Write;

use super::{camel, types};

/// `nn.utils` → `ns_nn_utils`, the object's name inside index.js.
pub(super) fn ident(path: &str) -> String {
    format!("ns_{}", path.replace('.', "_"))
}

/// `nn.utils` → `NnUtils`, its interface in index.d.ts.
pub(super) fn interface(path: &str) -> String {
    path.split('.')
        .map(|part| {
            let mut c = part.chars();
            c.next()
                .map_or(String::new(), |f| f.to_uppercase().chain(c).collect())
        })
        .collect::<String>()
        + "Namespace"
}

pub(super) fn split(path: &str) -> (Option<&str>, &str) {
    match path.rsplit_once('.') {
        Some((parent, name)) => (Some(parent), name),
        None => (None, path),
    }
}

/// The namespaces that are a catalog class's static methods (`nn.Transformer`): `(class, object,
/// path)`. The class gets them (`Object.assign`), not its parent namespace.
pub fn class_statics() -> Vec<(&'static str, String, &'static str)> {
    borch_js::function_namespaces()
        .into_iter()
        .filter_map(|ns| match split(ns.path) {
            (Some(_), name) if super::classes::is_catalog(name) => {
                Some((name, ident(ns.path), ns.path))
            }
            _ => None,
        })
        .collect()
}

/// `static generateSquareSubsequentMask(…): Tensor;` lines of `class`'s static methods.
pub fn static_declarations(class: &str) -> String {
    let mut out = String::new();
    for ns in borch_js::function_namespaces() {
        if let (Some(_), name) = split(ns.path)
            && name == class
        {
            for e in (ns.entries)() {
                for line in types::overloads(e, &camel(e.name), true) {
                    writeln!(out, "    static {line}").unwrap();
                }
            }
        }
    }
    out
}

/// Each namespace's object; top-level ones are exported under their name.
pub fn objects_js() -> String {
    let mut out = String::new();
    for ns in borch_js::function_namespaces() {
        writeln!(out, "const {} = Object.freeze({{", ident(ns.path)).unwrap();
        for e in (ns.entries)() {
            writeln!(
                out,
                "  {}: function (...args) {{ return callIn({:?}, {:?}, args); }},",
                camel(e.name),
                ns.path,
                e.name
            )
            .unwrap();
        }
        out += &super::module_functions::nested_members(ns.path, false);
        out.push_str("});\n");
        if let (None, name) = split(ns.path) {
            writeln!(out, "export {{ {} as {name} }};", ident(ns.path)).unwrap();
        }
    }
    out
}

/// The interfaces of the namespaces; top-level ones declared as exported constants.
pub fn declarations() -> String {
    let mut out = String::new();
    for ns in borch_js::function_namespaces() {
        writeln!(
            out,
            "\n/** {} (generated from its catalog). */\nexport interface {} {{",
            ns.module,
            interface(ns.path)
        )
        .unwrap();
        for e in (ns.entries)() {
            for line in types::overloads(e, &camel(e.name), true) {
                writeln!(out, "  {line}").unwrap();
            }
        }
        out += &super::module_functions::nested_members(ns.path, true);
        out.push_str("}\n");
        if let (None, name) = split(ns.path) {
            writeln!(out, "export declare const {name}: {};", interface(ns.path)).unwrap();
        }
    }
    out
}

/// The members a parent object (`nn`) gets for its nested namespaces (`utils`): `  utils:
/// ns_nn_utils,` in index.js, `  readonly utils: NnUtilsNamespace;` in index.d.ts.
pub fn nested_members(parent: &str, dts: bool) -> String {
    let mut out = String::new();
    for ns in borch_js::function_namespaces() {
        if let (Some(p), name) = split(ns.path)
            && p == parent
            && !super::classes::is_catalog(name)
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
