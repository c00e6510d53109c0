//! String literals of Rust and JavaScript sources, each marked as a message's template when it is
//! the first literal inside an error constructor's parentheses.

use super::lex::{Lang, Tok, lex};
use super::{JS_ERROR_HELPERS, Literal};

/// Variants whose argument is not a whole message, so not judged by the letter rule: Python's
/// `KeyError` message is the key itself (`'x'`), and `DeviceError::NoAdapter` takes a suffix to
/// its Display text (which is judged, in its `#[error]`).
const PARTS: &[&str] = &["Key", "NoAdapter"];

/// The error-making functions a Rust file defines: `fn f<T>(…) -> Result<T>` (always an error;
/// not when a parameter is a closure) and `fn f(…) -> BorchError` / `-> DeviceError`.
pub fn helpers(text: &str) -> Vec<String> {
    let toks = lex(text, Lang::Rust, 1);
    let mut out = Vec::new();
    for (k, t) in toks.iter().enumerate() {
        let (Tok::Ident(f), Some(Tok::Ident(name))) = (t, toks.get(k + 1)) else {
            continue;
        };
        if f != "fn" {
            continue;
        }
        let end = toks[k..]
            .iter()
            .position(|t| matches!(t, Tok::Open('{')) || *t == Tok::Punct(';'))
            .map_or(toks.len(), |p| k + p);
        let sig: Vec<&Tok> = toks[k + 2..end].iter().collect();
        let words: Vec<&str> = sig
            .iter()
            .filter_map(|t| match t {
                Tok::Ident(w) => Some(w.as_str()),
                _ => None,
            })
            .collect();
        let generic_t = words.first() == Some(&"T");
        let returns = words.last().copied().unwrap_or("");
        let closure = words.iter().any(|w| w.starts_with("Fn"));
        let result_t = generic_t && returns == "T" && words.iter().rev().nth(1) == Some(&"Result");
        if (result_t && !closure) || matches!(returns, "BorchError" | "DeviceError") {
            out.push(name.clone());
        }
    }
    out
}

/// Every string literal of a Rust file; `writes_js`: a multi-line literal is JavaScript source,
/// read for its own literals instead.
pub fn literals(file: &str, text: &str, helpers: &[String], writes_js: bool) -> Vec<Literal> {
    let toks = without_test_modules(lex(text, Lang::Rust, 1));
    let is_constructor = |toks: &[Tok], k: usize| -> bool {
        let mut j = k;
        if j > 0 && toks[j - 1] == Tok::Punct('!') {
            j -= 1;
        }
        let Some(Tok::Ident(name)) = j.checked_sub(1).map(|j| &toks[j]) else {
            return false;
        };
        let before = |n: usize| j.checked_sub(1 + n).map(|i| &toks[i]);
        let variant = before(1) == Some(&Tok::Punct(':'))
            && !PARTS.contains(&name.as_str())
            && matches!(before(3), Some(Tok::Ident(e)) if e == "BorchError" || e == "DeviceError");
        let attribute = name == "error"
            && before(1) == Some(&Tok::Open('['))
            && before(2) == Some(&Tok::Punct('#'));
        variant
            || attribute
            || helpers.iter().any(|h| h == name)
            || JS_ERROR_HELPERS.contains(&name.as_str())
    };
    let mut out = Vec::new();
    for (value, line, message) in marked(&toks, true, is_constructor) {
        if writes_js && value.contains('\n') {
            out.extend(js_literals(file, &value, line));
        } else {
            out.push(Literal {
                file: file.to_string(),
                line,
                text: value,
                message,
            });
        }
    }
    out
}

/// Every string literal of JavaScript source starting at `first_line` of `file`.
pub fn js_literals(file: &str, text: &str, first_line: usize) -> Vec<Literal> {
    let toks = lex(text, Lang::Js, first_line);
    let is_constructor = |toks: &[Tok], k: usize| -> bool {
        match (k.checked_sub(1).map(|j| &toks[j]), k.checked_sub(2)) {
            (Some(Tok::Ident(name)), _) if name == "makeError" => true,
            (Some(Tok::Ident(name)), Some(j)) if name.ends_with("Error") => {
                toks[j] == Tok::Ident("new".into())
            }
            _ => false,
        }
    };
    marked(&toks, false, is_constructor)
        .into_iter()
        .map(|(text, line, message)| Literal {
            file: file.to_string(),
            line,
            text,
            message,
        })
        .collect()
}

/// `(value, line, is a message)` of each literal: a message is inside parentheses that
/// `is_constructor` (given the tokens and the `(`'s index) says call an error constructor — the
/// first such literal only when `first_only` (Rust: the format string, not its arguments).
fn marked(
    toks: &[Tok],
    first_only: bool,
    is_constructor: impl Fn(&[Tok], usize) -> bool,
) -> Vec<(String, usize, bool)> {
    // For each open group: whether it is a constructor's, and whether it has had its message.
    let mut stack: Vec<(bool, bool)> = Vec::new();
    let mut out = Vec::new();
    for (k, t) in toks.iter().enumerate() {
        match t {
            Tok::Open(c) => stack.push((*c == '(' && is_constructor(toks, k), false)),
            Tok::Close(_) => {
                stack.pop();
            }
            Tok::Str { value, line } => {
                let group = stack.iter_mut().rev().find(|(ctor, _)| *ctor);
                let message = match group {
                    Some((_, seen)) if !(*seen && first_only) => {
                        *seen = true;
                        true
                    }
                    _ => false,
                };
                out.push((value.clone(), *line, message));
            }
            _ => {}
        }
    }
    out
}

/// The tokens without `#[cfg(test)] mod name { … }` blocks (test code raises nothing).
fn without_test_modules(toks: Vec<Tok>) -> Vec<Tok> {
    let head = |w: &str| Tok::Ident(w.to_string());
    let pattern = [
        Tok::Punct('#'),
        Tok::Open('['),
        head("cfg"),
        Tok::Open('('),
        head("test"),
        Tok::Close(')'),
        Tok::Close(']'),
        head("mod"),
    ];
    let mut out = Vec::new();
    let mut k = 0;
    while k < toks.len() {
        let is_test_mod = toks[k..].starts_with(&pattern)
            && matches!(toks.get(k + pattern.len() + 1), Some(Tok::Open('{')));
        if !is_test_mod {
            out.push(toks[k].clone());
            k += 1;
            continue;
        }
        k += pattern.len() + 1;
        let mut depth = 0;
        while k < toks.len() {
            match toks[k] {
                Tok::Open(_) => depth += 1,
                Tok::Close(_) => depth -= 1,
                _ => {}
            }
            k += 1;
            if depth == 0 {
                break;
            }
        }
    }
    out
}
