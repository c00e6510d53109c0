//! A small, tolerant lexer for Rust and JavaScript source: identifiers, brackets, punctuation and
//! string literals (decoded, with the line they start on). It never fails: what it does not
//! understand it skips, so the English check reads every file, whatever it contains. Comments are
//! skipped; Rust char literals and lifetimes are told apart; JavaScript template literals keep
//! their text with each `${…}` replaced by `{}` (a placeholder, like Rust's format strings).

#[derive(Debug, Clone, PartialEq)]
pub enum Tok {
    Ident(String),
    Open(char),
    Close(char),
    Punct(char),
    Str { value: String, line: usize },
}

#[derive(Clone, Copy, PartialEq)]
pub enum Lang {
    Rust,
    Js,
}

pub fn lex(text: &str, lang: Lang, first_line: usize) -> Vec<Tok> {
    let mut l = Lexer {
        s: text.chars().collect(),
        i: 0,
        line: first_line,
        toks: Vec::new(),
    };
    l.run(lang);
    l.toks
}

struct Lexer {
    s: Vec<char>,
    i: usize,
    line: usize,
    toks: Vec<Tok>,
}

impl Lexer {
    fn at(&self, k: usize) -> char {
        self.s.get(self.i + k).copied().unwrap_or('\0')
    }

    fn bump(&mut self) -> char {
        let c = self.at(0);
        self.i += 1;
        if c == '\n' {
            self.line += 1;
        }
        c
    }

    fn run(&mut self, lang: Lang) {
        while self.i < self.s.len() {
            let c = self.at(0);
            let line = self.line;
            match c {
                '/' if self.at(1) == '/' => self.skip_while(|c| c != '\n'),
                '/' if self.at(1) == '*' => self.block_comment(),
                '/' if lang == Lang::Js && self.regex_may_start() => self.regex(),
                '"' => {
                    self.bump();
                    let value = self.quoted('"');
                    self.toks.push(Tok::Str { value, line });
                }
                '\'' if lang == Lang::Js => {
                    self.bump();
                    let value = self.quoted('\'');
                    self.toks.push(Tok::Str { value, line });
                }
                '`' if lang == Lang::Js => {
                    self.bump();
                    let value = self.template();
                    self.toks.push(Tok::Str { value, line });
                }
                '\'' => self.char_or_lifetime(),
                'r' if lang == Lang::Rust && self.raw_string_starts(1) => {
                    self.bump();
                    let value = self.raw_string();
                    self.toks.push(Tok::Str { value, line });
                }
                'b' | 'c'
                    if lang == Lang::Rust && self.at(1) == 'r' && self.raw_string_starts(2) =>
                {
                    self.bump();
                    self.bump();
                    let value = self.raw_string();
                    self.toks.push(Tok::Str { value, line });
                }
                '(' | '[' | '{' => self.push(Tok::Open(c)),
                ')' | ']' | '}' => self.push(Tok::Close(c)),
                c if c.is_alphabetic() || c == '_' || c == '$' => {
                    let start = self.i;
                    self.skip_while(|c| c.is_alphanumeric() || c == '_' || c == '$');
                    let word: String = self.s[start..self.i].iter().collect();
                    self.toks.push(Tok::Ident(word));
                }
                c if c.is_whitespace() || c.is_numeric() => {
                    self.bump();
                }
                _ => self.push(Tok::Punct(c)),
            }
        }
    }

    /// Pushes a one-character token and steps over it.
    fn push(&mut self, t: Tok) {
        self.bump();
        self.toks.push(t);
    }

    fn skip_while(&mut self, keep: impl Fn(char) -> bool) {
        while self.i < self.s.len() && keep(self.at(0)) {
            self.bump();
        }
    }

    fn block_comment(&mut self) {
        let mut depth = 0;
        while self.i < self.s.len() {
            if self.at(0) == '/' && self.at(1) == '*' {
                depth += 1;
                self.i += 1;
            } else if self.at(0) == '*' && self.at(1) == '/' {
                depth -= 1;
                self.i += 1;
            }
            self.bump();
            if depth == 0 {
                return;
            }
        }
    }

    /// A string body up to `quote`, escapes decoded (`\u{…}`, `\uXXXX`, `\xNN`, the usual ones).
    fn quoted(&mut self, quote: char) -> String {
        let mut out = String::new();
        while self.i < self.s.len() {
            match self.bump() {
                c if c == quote => break,
                '\\' => out.extend(self.escape()),
                c => out.push(c),
            }
        }
        out
    }

    fn escape(&mut self) -> Option<char> {
        let c = self.bump();
        let hex = |l: &mut Lexer, n: usize| {
            let start = l.i;
            for _ in 0..n {
                l.bump();
            }
            let digits: String = l.s[start..l.i.min(l.s.len())].iter().collect();
            u32::from_str_radix(&digits, 16)
                .ok()
                .and_then(char::from_u32)
        };
        match c {
            'n' => Some('\n'),
            't' => Some('\t'),
            'r' => Some('\r'),
            '0' => Some('\0'),
            '\n' => {
                self.skip_while(char::is_whitespace);
                None
            }
            'x' => hex(self, 2),
            'u' if self.at(0) == '{' => {
                self.bump();
                let start = self.i;
                self.skip_while(|c| c != '}');
                let digits: String = self.s[start..self.i].iter().collect();
                self.bump();
                u32::from_str_radix(&digits, 16)
                    .ok()
                    .and_then(char::from_u32)
            }
            'u' => hex(self, 4),
            other => Some(other),
        }
    }

    /// A JavaScript template literal's text, each `${…}` as `{}`.
    fn template(&mut self) -> String {
        let mut out = String::new();
        while self.i < self.s.len() {
            match self.bump() {
                '`' => break,
                '\\' => out.extend(self.escape()),
                '$' if self.at(0) == '{' => {
                    let mut depth = 0;
                    while self.i < self.s.len() {
                        match self.bump() {
                            '{' => depth += 1,
                            '}' if depth == 1 => break,
                            '}' => depth -= 1,
                            _ => {}
                        }
                    }
                    out.push_str("{}");
                }
                c => out.push(c),
            }
        }
        out
    }

    fn raw_string_starts(&self, k: usize) -> bool {
        let mut k = k;
        while self.at(k) == '#' {
            k += 1;
        }
        self.at(k) == '"'
    }

    /// `#…#"…"#…#` after the `r`.
    fn raw_string(&mut self) -> String {
        let mut hashes = 0;
        while self.at(0) == '#' {
            hashes += 1;
            self.bump();
        }
        self.bump();
        let mut out = String::new();
        while self.i < self.s.len() {
            if self.at(0) == '"' && (1..=hashes).all(|k| self.at(k) == '#') {
                for _ in 0..=hashes {
                    self.bump();
                }
                break;
            }
            out.push(self.bump());
        }
        out
    }

    fn char_or_lifetime(&mut self) {
        self.bump();
        if self.at(0) == '\\' {
            self.skip_while(|c| c != '\'');
            self.bump();
        } else if self.at(1) == '\'' {
            self.bump();
            self.bump();
        }
    }

    /// Whether a `/` here starts a regular expression rather than dividing.
    fn regex_may_start(&self) -> bool {
        match self.toks.last() {
            None => true,
            Some(Tok::Punct(c)) => "=(,:[!&|?;{}+-*%<>~^".contains(*c),
            Some(Tok::Open(_)) => true,
            Some(Tok::Ident(w)) => matches!(w.as_str(), "return" | "typeof" | "case"),
            _ => false,
        }
    }

    fn regex(&mut self) {
        self.bump();
        let mut class = false;
        while self.i < self.s.len() {
            match self.bump() {
                '\\' => {
                    self.bump();
                }
                '[' => class = true,
                ']' => class = false,
                '/' if !class => break,
                '\n' => break,
                _ => {}
            }
        }
        self.skip_while(char::is_alphabetic);
    }
}
