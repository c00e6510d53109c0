//! TypeScript types of catalog parameters and results.

use borch_tensor::api::{Default, Entry, Kind, Param, Returns};

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
    }
}

fn ts_returns(r: Returns) -> &'static str {
    match r {
        Returns::Tensor | Returns::MaybePair => "Tensor",
        Returns::Tensors => "Tensor[]",
        Returns::Pair => "[Tensor, Tensor]",
        Returns::SelfInPlace => "this",
        Returns::Int => "number",
        Returns::Ints => "number[]",
        Returns::Bool => "boolean",
    }
}

fn ts_param(p: &Param, optional: bool) -> String {
    let name = match camel(p.name).as_str() {
        // reserved words in strict mode declarations
        "default" | "function" => format!("{}_", camel(p.name)),
        n => n.to_string(),
    };
    let q = if optional { "?" } else { "" };
    format!("{name}{q}: {}", ts_type(p.kind))
}

fn positional(params: &[Param], input: bool) -> String {
    let mut parts = Vec::new();
    if input {
        parts.push("input: Tensor".to_string());
    }
    parts.extend(
        params
            .iter()
            .map(|p| ts_param(p, p.default != Default::Required)),
    );
    parts.join(", ")
}

fn options(params: &[Param], input: bool) -> Option<String> {
    let (required, optional): (Vec<&Param>, Vec<&Param>) =
        params.iter().partition(|p| p.default == Default::Required);
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
