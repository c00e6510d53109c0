//! Python's spelling of values in module reprs: floats, bools, tuples, and torch's indentation.

/// torch's `_addindent`: indent every line but the first by `spaces`.
pub(crate) fn add_indent(s: &str, spaces: usize) -> String {
    let mut lines = s.split('\n');
    let first = lines.next().unwrap_or_default();
    let pad = " ".repeat(spaces);
    let rest: Vec<String> = lines.map(|l| format!("{pad}{l}")).collect();
    if rest.is_empty() {
        first.to_string()
    } else {
        format!("{first}\n{}", rest.join("\n"))
    }
}

/// Python's `repr(float)`: the shortest round-trip digits, positional for exponents in
/// [-4, 16), else scientific with a signed two-digit exponent (`1e-05`, `1.0`, `0.5`).
pub fn py_float(v: f64) -> String {
    if v.is_nan() {
        return "nan".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "inf" } else { "-inf" }.into();
    }
    let sci = format!("{v:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if (-4..16).contains(&exp) {
        let s = format!("{v}");
        if s.contains('.') { s } else { format!("{s}.0") }
    } else {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{mantissa}e{sign}{:02}", exp.abs())
    }
}

/// A double as C++'s `ostream << double` writes it in torch's messages: `%g`, six digits.
pub fn cpp_double(v: f64) -> String {
    if !v.is_finite() {
        return py_float(v);
    }
    if v == 0.0 {
        return if v.is_sign_negative() { "-0" } else { "0" }.into();
    }
    let sci = format!("{v:.5e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let trim = |s: String| {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    };
    if (-4..6).contains(&exp) {
        trim(format!("{v:.*}", (5 - exp) as usize))
    } else {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", trim(mantissa.to_string()), exp.abs())
    }
}

/// Python's `True` / `False`.
pub fn py_bool(b: bool) -> &'static str {
    if b { "True" } else { "False" }
}

/// A Python tuple of integers: `(4,)`, `(2, 3)`.
pub fn py_tuple<T: ToString>(items: &[T]) -> String {
    match items {
        [one] => format!("({},)", one.to_string()),
        _ => {
            let parts: Vec<String> = items.iter().map(ToString::to_string).collect();
            format!("({})", parts.join(", "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_as_python() {
        for (v, s) in [
            (1e-5, "1e-05"),
            (1.0, "1.0"),
            (0.5, "0.5"),
            (20.0, "20.0"),
            (0.01, "0.01"),
            (1e-12, "1e-12"),
            (-2.0, "-2.0"),
            (0.0001, "0.0001"),
            (1e16, "1e+16"),
            (123456789.0, "123456789.0"),
            (1.5e-7, "1.5e-07"),
        ] {
            assert_eq!(py_float(v), s);
        }
        assert_eq!(add_indent("a(\n  b\n)", 2), "a(\n    b\n  )");
        assert_eq!(py_tuple(&[4]), "(4,)");
        assert_eq!(py_tuple(&[2, 3]), "(2, 3)");
    }
}
