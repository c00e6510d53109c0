//! A catalogue entry by URL, native only (feature `fetch`): an `http://` or `https://` manifest
//! and the weights file next to it fetched with `ureq` (rustls, webpki roots), a `file:` URL read
//! from disk; then the same steps as [`super::load`]. Nothing is cached: every load fetches both
//! files again and runs every step, as under Node (the browser's Cache API is borch-ts's).
//!
//! A file that cannot be fetched is `catalogue: manifest: could not read <url>: <why>` (for the
//! weights `catalogue '<name>': weights: could not read <url>: <why>`), as borch-ts words it; an
//! HTTP status other than 2xx is `HTTP <code> <reason>`.

use std::path::PathBuf;
use std::time::Duration;

use borch_tensor::{BorchError, Result};

use super::{Loaded, Manifest, load_from, read};

/// The largest manifest fetched (the shipped ones are a few KiB).
const MANIFEST_LIMIT: u64 = 16 << 20;
/// How long one fetch may take, connecting and reading included.
const TIMEOUT: Duration = Duration::from_secs(120);

/// Whether `location` is a URL that [`load_location`] fetches (`http://`, `https://`) rather
/// than a file it reads (`file:` or a path).
pub fn is_network(location: &str) -> bool {
    scheme(location).is_some_and(|s| s == "http" || s == "https")
}

/// Where an entry loaded from `location` came from, as borch-ts's `source` says it:
/// `"network"` for an http(s) URL, else `location` itself (the file read).
pub fn source(location: &str) -> String {
    if is_network(location) {
        "network".to_string()
    } else {
        location.to_string()
    }
}

/// The entry at `location`: an `http://` / `https://` URL ([`load_url`]), a `file:` URL or a
/// path ([`super::load`]).
pub fn load_location(location: &str) -> Result<Loaded> {
    let (manifest, weights) = read_location(location)?;
    load_from(manifest, &weights)
}

/// The manifest at `location` (parsed and checked: step `manifest`) and the weights' bytes, not
/// yet checked: the reading half of [`load_location`], which touches no model (a caller may run
/// it without Python's GIL, or on another thread).
pub fn read_location(location: &str) -> Result<(Manifest, Vec<u8>)> {
    match scheme(location).as_deref() {
        Some("http" | "https") => read_url(location),
        Some("file") => read(file_path(location)?),
        _ => read(location),
    }
}

/// Fetches the manifest at `url` (`http://` or `https://`) and the weights file next to it (the
/// manifest's `weights.file` in the same directory), then [`load_from`].
pub fn load_url(url: &str) -> Result<Loaded> {
    let (manifest, weights) = read_url(url)?;
    load_from(manifest, &weights)
}

/// The fetching half of [`load_url`].
pub fn read_url(url: &str) -> Result<(Manifest, Vec<u8>)> {
    let agent = agent();
    let text = fetch(&agent, url, MANIFEST_LIMIT)
        .map_err(|e| describe(&e))
        .and_then(|bytes| {
            String::from_utf8(bytes).map_err(|_| "the manifest is not UTF-8 text".to_string())
        })
        .map_err(|e| {
            BorchError::Runtime(format!("catalogue: manifest: could not read {url}: {e}"))
        })?;
    let manifest = Manifest::from_json(&text)?;
    let weights_url = next_to(url, &manifest.weights.file);
    let expected = manifest.weights.bytes;
    // One byte over the manifest's size still comes back, for step `weights size` to name it.
    let weights = fetch(&agent, &weights_url, expected.saturating_add(1)).map_err(|e| match e {
        ureq::Error::BodyExceedsLimit(_) => manifest.error(
            "weights size",
            format!("expected {expected} bytes, got more than {}", expected + 1),
        ),
        e => manifest.error(
            "weights",
            format!("could not read {weights_url}: {}", describe(&e)),
        ),
    })?;
    Ok((manifest, weights))
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .timeout_global(Some(TIMEOUT))
        .build()
        .into()
}

/// The body at `url`, at most `limit` bytes.
fn fetch(agent: &ureq::Agent, url: &str, limit: u64) -> std::result::Result<Vec<u8>, ureq::Error> {
    agent
        .get(url)
        .call()?
        .body_mut()
        .with_config()
        .limit(limit)
        .read_to_vec()
}

/// A fetch's failure in words: `HTTP 404 Not Found` for a status, else ureq's message.
fn describe(e: &ureq::Error) -> String {
    match e {
        ureq::Error::StatusCode(code) => {
            let reason = ureq::http::StatusCode::from_u16(*code)
                .ok()
                .and_then(|s| s.canonical_reason())
                .unwrap_or("");
            format!("HTTP {code} {reason}").trim_end().to_string()
        }
        other => other.to_string(),
    }
}

/// The scheme of a URL (`http`, lowercased), or None for a path (a Windows drive letter `C:` is
/// a path).
fn scheme(location: &str) -> Option<String> {
    let (scheme, _) = location.split_once(':')?;
    let ok = scheme.len() > 1
        && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    ok.then(|| scheme.to_ascii_lowercase())
}

/// The URL of `file` in the directory of `url` (its query and fragment dropped).
fn next_to(url: &str, file: &str) -> String {
    let end = url.find(['?', '#']).unwrap_or(url.len());
    let path = &url[..end];
    let after_host = path.find("://").map_or(0, |i| i + 3);
    match path[after_host..].rfind('/') {
        Some(i) => format!("{}{file}", &path[..after_host + i + 1]),
        None => format!("{path}/{file}"),
    }
}

/// The path of a `file:` URL (`file:///dir/x.json`, `file://localhost/dir/x.json`,
/// `file:/dir/x.json`), percent-decoded.
fn file_path(url: &str) -> Result<PathBuf> {
    let bad = |why: &str| {
        BorchError::Runtime(format!("catalogue: manifest: could not read {url}: {why}"))
    };
    let rest = &url["file:".len()..];
    let path = match rest.strip_prefix("//") {
        Some(r) => {
            let (host, path) = r.split_at(r.find('/').unwrap_or(r.len()));
            if !host.is_empty() && !host.eq_ignore_ascii_case("localhost") {
                return Err(bad("a file: URL with a host other than localhost"));
            }
            path
        }
        None => rest,
    };
    let path = path.split(['?', '#']).next().unwrap_or("");
    let bytes = percent_decode(path).ok_or_else(|| bad("a malformed %-escape"))?;
    let path = String::from_utf8(bytes).map_err(|_| bad("a path that is not UTF-8"))?;
    // `file:///C:/dir/x.json` on Windows: the drive letter without the leading slash.
    #[cfg(windows)]
    let path = {
        let b = path.as_bytes();
        if b.len() >= 3 && b[0] == b'/' && b[1].is_ascii_alphabetic() && b[2] == b':' {
            path[1..].to_string()
        } else {
            path
        }
    };
    if path.is_empty() {
        return Err(bad("no path"));
    }
    Ok(PathBuf::from(path))
}

fn percent_decode(s: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(s.len());
    let mut bytes = s.bytes();
    while let Some(b) = bytes.next() {
        if b == b'%' {
            let hex = [bytes.next()?, bytes.next()?];
            out.push(u8::from_str_radix(std::str::from_utf8(&hex).ok()?, 16).ok()?);
        } else {
            out.push(b);
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_and_paths() {
        assert!(is_network("http://127.0.0.1:8000/catalogue/x.json"));
        assert!(is_network("HTTPS://example.org/x.json"));
        assert!(!is_network("file:///tmp/x.json"));
        assert!(!is_network("/tmp/x.json"));
        assert!(!is_network("C:\\models\\x.json"));
        assert!(!is_network("catalogue/x.json"));
        assert_eq!(
            next_to("http://h:1/a/b/x.json?v=2#top", "x.safetensors"),
            "http://h:1/a/b/x.safetensors"
        );
        assert_eq!(next_to("http://h/x.json", "w.bin"), "http://h/w.bin");
        assert_eq!(next_to("http://h", "w.bin"), "http://h/w.bin");
        assert_eq!(
            file_path("file:///tmp/a%20b/x.json").unwrap(),
            PathBuf::from("/tmp/a b/x.json")
        );
        assert_eq!(
            file_path("file://localhost/tmp/x.json").unwrap(),
            PathBuf::from("/tmp/x.json")
        );
        assert_eq!(
            file_path("file:/tmp/x.json").unwrap(),
            PathBuf::from("/tmp/x.json")
        );
        assert!(file_path("file://server/share/x.json").is_err());
        assert!(file_path("file:///tmp/%zz").is_err());
    }

    #[test]
    fn an_unreachable_url_names_itself() {
        // Port 9 (discard) on the loopback: nothing listens there on a test machine.
        let url = "http://127.0.0.1:9/catalogue/x.json";
        let e = load_location(url).unwrap_err().to_string();
        assert!(
            e.starts_with(&format!("catalogue: manifest: could not read {url}: ")),
            "{e}"
        );
    }
}
