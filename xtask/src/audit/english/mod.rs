//! The English check of `cargo xtask audit`: every error message borch can raise stays English.
//!
//! What is read: the Rust sources of the core and the bindings (string literals, found with a
//! small lexer), the package's JavaScript (`borch-js/js/*.js`, and the JavaScript that
//! xtask/src/build_js and xtask/src/js_api write into the package, read inside their Rust string
//! literals), and borch_webgpu's Python (read with Python's own `ast`).
//!
//! Two rules:
//! - **No other script** in any string literal of those sources (messages are built from
//!   fragments, so every literal counts): Latin letters (with diacritics), digits, ASCII
//!   punctuation and a few typographic signs ([`ALLOWED`]); Hangul, CJK, Cyrillic, Greek,
//!   Arabic, … fail.
//! - **Letters** in every message: the first string literal of an error constructor's arguments
//!   (Rust: `BorchError::X(…)`, `DeviceError::X(…)`, `#[error("…")]`, any function of the scanned
//!   crates shaped `fn f<T>(…) -> Result<T>` or `fn f(…) -> BorchError`, and the bindings'
//!   [`JS_ERROR_HELPERS`]; JavaScript: `throw …`, `new …Error(…)`, `makeError(…)`; Python:
//!   `raise X(…)`), with format placeholders (`{}`, `{name}`, `${…}`) taken out, must contain a
//!   letter. A message that is only placeholders forwards another message and is not judged.

mod lex;
mod python;
mod rust;

use std::path::Path;

/// Characters outside ASCII and Latin letters that messages may use.
pub const ALLOWED: &[char] = &['×', '→', '←', '…', '—', '–', '≤', '≥', '≠', '±', '·', '’'];

/// Functions of borch-js that make a thrown JavaScript error from a message.
pub const JS_ERROR_HELPERS: &[&str] = &[
    "type_error",
    "value_error",
    "wrong_argument",
    "malformed",
    "make_error",
    "panic",
    "expect",
    "unreachable",
];

/// Rust source folders whose literals are read, and the ones whose literals are JavaScript too.
const RUST_DIRS: &[&str] = &[
    "borch-device/src",
    "borch-tensor/src",
    "borch-autograd/src",
    "borch-nn/src",
    "borch-optim/src",
    "borch-data/src",
    "borch-js/src",
];
const RUST_WRITING_JS: &[&str] = &["xtask/src/build_js", "xtask/src/js_api"];

/// One string literal of the sources, where it is, and whether it is a message's template.
#[derive(Debug, Clone)]
pub struct Literal {
    pub file: String,
    pub line: usize,
    pub text: String,
    pub message: bool,
}

/// Why `text` is not an English message, if it is not.
pub fn problem(text: &str, message: bool) -> Option<String> {
    if let Some(c) = text.chars().find(|&c| !allowed(c)) {
        return Some(format!("{} (U+{:04X} '{c}')", script(c), c as u32));
    }
    let (rest, placeholders) = without_placeholders(text);
    if message && !rest.chars().any(char::is_alphabetic) {
        if placeholders > 0 && rest.trim().is_empty() {
            return None;
        }
        return Some("a message without any letters".into());
    }
    None
}

fn allowed(c: char) -> bool {
    c.is_ascii()
        || ALLOWED.contains(&c)
        || (c.is_alphabetic() && ('\u{c0}'..='\u{24f}').contains(&c))
}

/// The script a character belongs to, for the report.
fn script(c: char) -> &'static str {
    match c as u32 {
        0x0370..=0x03ff | 0x1f00..=0x1fff => "Greek",
        0x0400..=0x052f => "Cyrillic",
        0x0590..=0x05ff => "Hebrew",
        0x0600..=0x06ff | 0x0750..=0x077f => "Arabic",
        0x0900..=0x0dff => "Indic",
        0x0e00..=0x0e7f => "Thai",
        0x1100..=0x11ff | 0x3130..=0x318f | 0xac00..=0xd7af => "Hangul",
        0x3040..=0x30ff => "Kana",
        0x3400..=0x4dbf | 0x4e00..=0x9fff | 0xf900..=0xfaff => "CJK",
        0x1f000..=0x1faff => "emoji",
        _ if c.is_control() => "a control character",
        _ => "a character outside Latin script and the allowed signs",
    }
}

/// `text` without `{…}` placeholders (`{{` and `}}` are literal braces), and how many there were.
fn without_placeholders(text: &str) -> (String, usize) {
    let mut out = String::new();
    let mut count = 0;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '{' if chars.peek() == Some(&'{') => {
                chars.next();
                out.push('{');
            }
            '}' if chars.peek() == Some(&'}') => {
                chars.next();
                out.push('}');
            }
            '{' => {
                count += 1;
                for d in chars.by_ref() {
                    if d == '}' {
                        break;
                    }
                }
            }
            c => out.push(c),
        }
    }
    (out, count)
}

/// Every literal of the sources under `root`.
pub fn literals(root: &Path) -> Result<Vec<Literal>, String> {
    let mut rust_files = Vec::new();
    for dir in RUST_DIRS.iter().chain(RUST_WRITING_JS) {
        let writes_js = RUST_WRITING_JS.contains(dir);
        rust_files.extend(files(root, dir, "rs")?.into_iter().map(|f| (f, writes_js)));
    }
    let helpers: Vec<String> = rust_files
        .iter()
        .flat_map(|((_, text), _)| rust::helpers(text))
        .collect();
    let mut out = Vec::new();
    for ((rel, text), writes_js) in &rust_files {
        out.extend(rust::literals(rel, text, &helpers, *writes_js));
    }
    for (rel, text) in files(root, "borch-js/js", "js")? {
        out.extend(rust::js_literals(&rel, &text, 1));
    }
    out.extend(python::literals(&root.join("borch-py/borch_webgpu"))?);
    Ok(out)
}

/// `(path relative to root, text)` of every file ending in `.ext` under `root/dir`, sorted.
fn files(root: &Path, dir: &str, ext: &str) -> Result<Vec<(String, String)>, String> {
    let mut out = Vec::new();
    let mut stack = vec![root.join(dir)];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).map_err(|e| format!("{}: {e}", d.display()))? {
            let path = e.map_err(|e| e.to_string())?.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == ext) {
                let text = std::fs::read_to_string(&path).map_err(|e| e.to_string())?;
                let rel = path
                    .strip_prefix(root)
                    .unwrap_or(&path)
                    .display()
                    .to_string();
                out.push((rel, text));
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Prints every problem and a summary line; `Err` when there is a problem.
pub fn run(root: &Path) -> Result<(), String> {
    let all = literals(root)?;
    let mut bad = 0;
    for lit in &all {
        if let Some(why) = problem(&lit.text, lit.message) {
            bad += 1;
            println!(
                "NOT ENGLISH {}:{}: {:?}: {why}",
                lit.file, lit.line, lit.text
            );
        }
    }
    let messages = all.iter().filter(|l| l.message).count();
    println!(
        "audit: english: {messages} error messages and {} other string literals checked, {bad} not English",
        all.len() - messages
    );
    if bad == 0 {
        Ok(())
    } else {
        Err(format!(
            "audit failed: {bad} message strings are not English (see above)"
        ))
    }
}

#[cfg(test)]
mod tests;
