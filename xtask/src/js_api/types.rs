//! TypeScript types of catalog parameters and results.

use borch_tensor::api::{Default, Entry, Kind, Param, Returns};

use borch_nn::api::forward::ForwardType;

use super::names::camel;

fn ts_type(kind: Kind) -> &'static str {
    match kind {
        Kind::Tensor => "Tensor",
        Kind::Operand => "Tensor | number | boolean | FloatScalar",
        Kind::Scalar => "number | boolean | FloatScalar",
        Kind::Float => "number | FloatScalar",
        Kind::Int => "number",
        Kind::Bool => "boolean",
        Kind::Str => "string",
        Kind::DType => "DType",
        Kind::Dims => "number | number[] | null",
        Kind::Ints => "number[]",
        Kind::Padding => "number | number[] | 'valid' | 'same'",
        Kind::SizesOrNone => "number | (number | null)[]",
        Kind::Tensors => "Tensor[]",
        Kind::Indices => "(number | null | string | (number | null)[] | Tensor)[]",
        Kind::Data => "TensorData",
        Kind::NamedTensors => "[string, Tensor][]",
        Kind::Strs => "string[]",
    }
}

fn ts_returns(r: Returns) -> &'static str {
    match r {
        Returns::Tensor | Returns::MaybePair => "Tensor",
        Returns::MaybeTensors => "Tensor | Tensor[]",
        Returns::Tensors => "Tensor[]",
        Returns::Pair => "[Tensor, Tensor]",
        Returns::SelfInPlace => "this",
        Returns::Int => "number",
        Returns::Ints => "number[]",
        Returns::Bool => "boolean",
        Returns::Nothing => "void",
    }
}

fn ts_param(p: &Param, optional: bool) -> String {
    ts_param_as(p, optional, ts_type(p.kind))
}

/// Whether a parameter may be left out (a required one that None may fill, `conv_b: Tensor |
/// None`, may not: it is declared `convB: Tensor | null`).
pub fn optional(p: &Param) -> bool {
    !matches!(p.default, Default::Required | Default::RequiredOrNone)
}

fn ts_param_as(p: &Param, optional: bool, ty: &str) -> String {
    let name = match camel(p.name).as_str() {
        // reserved words in strict mode declarations
        n if n == "default" || n == "function" || super::names::reserved(n) => format!("{n}_"),
        n => n.to_string(),
    };
    let q = if optional { "?" } else { "" };
    let null = if p.default == Default::RequiredOrNone {
        " | null"
    } else {
        ""
    };
    format!("{name}{q}: {ty}{null}")
}

/// A constructor parameter: a list of ints may be one int (`kernel_size=3`), as the binder takes.
fn ctor_param(p: &Param, optional: bool) -> String {
    match p.kind {
        Kind::Ints => ts_param_as(p, optional, "number | number[]"),
        _ => ts_param(p, optional),
    }
}

/// The TypeScript type of a module forward's result (`"(Tensor, (Tensor, Tensor))"` →
/// `[Tensor, [Tensor, Tensor]]`, `T?` → `T | null`).
pub fn forward_result(returns: &str) -> String {
    fn ts(t: &ForwardType) -> String {
        match t {
            ForwardType::Tensor => "Tensor".into(),
            ForwardType::Optional(t) => format!("{} | null", ts(t)),
            ForwardType::Tuple(items) => {
                let items: Vec<String> = items.iter().map(ts).collect();
                format!("[{}]", items.join(", "))
            }
        }
    }
    match ForwardType::parse(returns) {
        Ok(t) => ts(&t),
        Err(e) => panic!("{e}"),
    }
}

/// The parameter lists of a constructor's declarations: every parameter positionally, and the
/// required ones followed by an options object of the rest (when there are any).
pub fn constructor_forms(params: &[Param]) -> Vec<String> {
    let positional: Vec<String> = params.iter().map(|p| ctor_param(p, optional(p))).collect();
    let mut out = vec![positional.join(", ")];
    let (required, optional): (Vec<&Param>, Vec<&Param>) =
        params.iter().partition(|p| !optional(p));
    if !optional.is_empty() {
        let mut parts: Vec<String> = required.iter().map(|p| ctor_param(p, false)).collect();
        let fields: Vec<String> = optional.iter().map(|p| ctor_param(p, true)).collect();
        parts.push(format!("options: {{ {} }}", fields.join("; ")));
        out.push(parts.join(", "));
    }
    out
}

fn positional(params: &[Param], input: bool) -> String {
    let mut parts = Vec::new();
    if input {
        parts.push("input: Tensor".to_string());
    }
    parts.extend(params.iter().map(|p| ts_param(p, optional(p))));
    parts.join(", ")
}

fn options(params: &[Param], input: bool) -> Option<String> {
    let (required, optional): (Vec<&Param>, Vec<&Param>) =
        params.iter().partition(|p| !optional(p));
    if optional.is_empty() {
        return None;
    }
    let mut parts = Vec::new();
    if input {
        parts.push("input: Tensor".to_string());
    }
    parts.extend(required.iter().map(|p| ts_param(p, false)));
    let fields: Vec<String> = optional.iter().map(|p| ts_param(p, true)).collect();
    parts.push(format!("options: {{ {} }}", fields.join("; ")));
    Some(parts.join(", "))
}

/// The declarations of `entry` as `js`: the positional form, the form with trailing keyword
/// options, a varargs form for `*size` parameters, and split forms for results that depend on
/// whether a dim is given (`max()` vs `max(dim)`, `size()` vs `size(dim)`).
pub fn overloads(entry: &Entry, js: &str, function: bool) -> Vec<String> {
    let lines = sync_overloads(entry, js, function);
    if !entry.is_async() {
        return lines;
    }
    // An async entry's forms resolve to what the synchronous ones return.
    lines
        .into_iter()
        .map(|l| match l.rsplit_once("): ") {
            Some((head, ret)) => format!("{head}): Promise<{}>;", ret.trim_end_matches(';')),
            None => l,
        })
        .collect()
}

fn sync_overloads(entry: &Entry, js: &str, function: bool) -> Vec<String> {
    let input = function && entry.is_method();
    let params = &entry.params;
    let ret = ts_returns(entry.returns);
    match entry.returns {
        Returns::MaybePair | Returns::Ints => {
            let all = if input { "input: Tensor" } else { "" };
            let rest: Vec<Param> = params
                .iter()
                .enumerate()
                .map(|(i, p)| Param {
                    default: if i == 0 { Default::Required } else { p.default },
                    ..*p
                })
                .collect();
            let split_ret = if entry.returns == Returns::Ints {
                "number"
            } else {
                "[Tensor, Tensor]"
            };
            return vec![
                format!("{js}({all}): {ret};"),
                format!("{js}({}): {split_ret};", positional(&rest, input)),
            ];
        }
        _ => {}
    }
    let mut out = vec![format!("{js}({}): {ret};", positional(params, input))];
    if entry.returns == Returns::MaybeTensors {
        // Without the flags that ask for more, one tensor.
        let only = if input { "input: Tensor" } else { "" };
        out.insert(0, format!("{js}({only}): Tensor;"));
    }
    if let Some(opts) = options(params, input) {
        out.push(format!("{js}({opts}): {ret};"));
    }
    if let Some(v) = params.iter().position(|p| p.varargs) {
        let mut parts: Vec<String> = Vec::new();
        if input {
            parts.push("input: Tensor".into());
        }
        parts.extend(params[..v].iter().map(|p| ts_param(p, false)));
        parts.push(format!("...{}: number[]", camel(params[v].name)));
        out.push(format!("{js}({}): {ret};", parts.join(", ")));
    }
    out
}
