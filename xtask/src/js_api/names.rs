//! torch's snake_case names in JavaScript's camelCase, and back.

/// `log_softmax` → `logSoftmax`; a trailing underscore (in-place) stays: `fill_` → `fill_`.
/// A Python dunder loses its underscores: `__setitem__` → `setitem` (`t.setitem(indices, v)`).
pub fn camel(name: &str) -> String {
    if let Some(inner) = name.strip_prefix("__").and_then(|n| n.strip_suffix("__")) {
        return camel(inner);
    }
    let (body, tail) = match name.strip_suffix('_') {
        Some(b) => (b, "_"),
        None => (name, ""),
    };
    // A leading underscore (torch's private `_stacklevel`) stays.
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

/// JavaScript's reserved words that a catalog name could be (they cannot name a function).
pub fn reserved(name: &str) -> bool {
    const RESERVED: &[&str] = &[
        "var", "new", "delete", "in", "typeof", "void", "with", "case", "default", "do", "else",
        "for", "if", "let", "return", "switch", "this", "throw", "try", "while", "class", "const",
        "enum", "export", "extends", "import", "super", "yield", "await", "static",
    ];
    RESERVED.contains(&name)
}

#[cfg(test)]
mod tests {
    use super::camel;

    #[test]
    fn camel_case_keeps_in_place_underscores_and_digits() {
        assert_eq!(camel("log_softmax"), "logSoftmax");
        assert_eq!(camel("requires_grad_"), "requiresGrad_");
        assert_eq!(camel("nan_to_num"), "nanToNum");
        assert_eq!(camel("log1p"), "log1p");
        assert_eq!(camel("mT"), "mT");
        assert_eq!(camel("_stacklevel"), "_stacklevel");
        assert_eq!(camel("__setitem__"), "setitem");
    }
}
