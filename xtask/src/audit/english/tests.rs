use super::lex::{Lang, Tok, lex};
use super::{problem, rust};

fn messages(file: &str, text: &str) -> Vec<(usize, String, Option<String>)> {
    let helpers = rust::helpers(text);
    let lits = if file.ends_with(".js") {
        rust::js_literals(file, text, 1)
    } else {
        rust::literals(file, text, &helpers, false)
    };
    lits.into_iter()
        .filter(|l| l.message)
        .map(|l| (l.line, l.text.clone(), problem(&l.text, true)))
        .collect()
}

#[test]
fn catches_hangul_cyrillic_and_letterless_messages_and_accepts_english() {
    let hangul = problem("텐서의 크기가 맞지 않습니다", true).expect("Hangul is refused");
    assert!(hangul.starts_with("Hangul"), "{hangul}");
    let cyrillic = problem("размер тензора {} не совпадает", true).expect("Cyrillic is refused");
    assert!(cyrillic.starts_with("Cyrillic"), "{cyrillic}");
    assert_eq!(
        problem("{}: (3) != (4)", true).as_deref(),
        Some("a message without any letters")
    );
    assert_eq!(
        problem("", true).as_deref(),
        Some("a message without any letters")
    );
    assert!(
        problem("σ must be positive", false).is_some(),
        "Greek anywhere is refused"
    );
    assert_eq!(
        problem(
            "mat1 and mat2 shapes cannot be multiplied ({}x{} and {}x{})",
            true
        ),
        None
    );
    assert_eq!(
        problem("an object of name → Module, e.g. 2×3 — café…", true),
        None
    );
    // A message that is only placeholders forwards another message.
    assert_eq!(problem("{0}", true), None);
    // Non-message literals may be letterless (separators, format pieces).
    assert_eq!(problem(", ", false), None);
}

#[test]
fn finds_messages_by_their_constructors_with_lines() {
    let src = r##"
pub(crate) fn runtime<T>(msg: impl Into<String>) -> Result<T> { Err(BorchError::Runtime(msg.into())) }
fn f(x: usize) -> Result<()> {
    let sep = ", ";
    runtime(format!(
        "размер {x}{}", sep))?;
    Err(BorchError::Value("한국어".into()))
}
#[derive(Error)]
enum E { #[error("{0}")] A(String), #[error("...!")] B }
fn g() { let s = 'a'; let r = r#"raw "quote" text"#; let _lt: &'static str = "no message"; }
#[cfg(test)]
mod tests { fn t() { runtime::<()>("テスト").unwrap_err(); } }
"##;
    let found = messages("x.rs", src);
    let lines: Vec<(usize, &str, bool)> = found
        .iter()
        .map(|(l, t, p)| (*l, t.as_str(), p.is_some()))
        .collect();
    assert_eq!(
        lines,
        vec![
            (6, "размер {x}{}", true),
            (7, "한국어", true),
            (10, "{0}", false),
            (10, "...!", true),
        ]
    );
}

#[test]
fn reads_javascript_throws_and_templates() {
    let js = "function ready(name) {\n  if (!loaded) throw new BorchError('DeviceError',\n    `не ${name}()`);\n  const re = /[\"']/g;\n  return makeError('TypeError', '');\n}\n";
    let found = messages("a.js", js);
    let judged: Vec<(usize, bool)> = found.iter().map(|(l, _, p)| (*l, p.is_some())).collect();
    // The kind, the Cyrillic template, the kind, the empty message.
    assert_eq!(
        judged,
        vec![(2, false), (3, true), (5, false), (5, true)],
        "{found:?}"
    );
    let toks = lex(js, Lang::Js, 1);
    let strings: Vec<&str> = toks
        .iter()
        .filter_map(|t| match t {
            Tok::Str { value, .. } => Some(value.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(strings, vec!["DeviceError", "не {}()", "TypeError", ""]);
}
