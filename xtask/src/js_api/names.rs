//! torch's snake_case names in JavaScript's camelCase, and back.

pub use borch_tensor::api::camel;

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
