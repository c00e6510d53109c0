//! The bindings' spelling of the catalogs' torch names: borch-ts's camelCase, which borch-js's
//! generated package and borch-pyo3's native objects both answer.

/// `log_softmax` → `logSoftmax`; a trailing underscore (in-place) stays: `fill_` → `fill_`.
/// A Python dunder loses its underscores: `__setitem__` → `setitem` (`t.setitem(indices, v)`).
/// A leading underscore (torch's private `_stacklevel`) stays.
pub fn camel(name: &str) -> String {
    if let Some(inner) = name.strip_prefix("__").and_then(|n| n.strip_suffix("__")) {
        return camel(inner);
    }
    let (body, tail) = match name.strip_suffix('_') {
        Some(b) => (b, "_"),
        None => (name, ""),
    };
    let lead = body.len() - body.trim_start_matches('_').len();
    let mut out = String::from(&body[..lead]);
    let mut upper = false;
    for c in body[lead..].chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out + tail
}
