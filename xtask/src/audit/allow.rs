//! The audit's allow-list: `place  # reason` per line (a place is `file.rs::function` or a whole
//! `file.rs`), `#` lines are comments.

use std::collections::BTreeMap;
use std::path::Path;

use super::Finding;

pub struct Allow(BTreeMap<String, String>);

pub fn load(path: &Path) -> Result<Allow, String> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let mut entries = BTreeMap::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let Some((place, reason)) = line.split_once('#') else {
            return Err(format!(
                "{}:{}: an allow entry needs a reason after '#'",
                path.display(),
                n + 1
            ));
        };
        entries.insert(place.trim().to_string(), reason.trim().to_string());
    }
    Ok(Allow(entries))
}

impl Allow {
    /// The entry for `place`: the function itself, or its whole file (`path.rs`).
    fn entry(&self, place: &str) -> Option<(&String, &String)> {
        self.0
            .iter()
            .find(|(k, _)| place == k.as_str() || place.starts_with(&format!("{k}::")))
    }

    pub fn covers(&self, place: &str) -> bool {
        self.entry(place).is_some()
    }

    pub fn reason(&self, place: &str) -> &str {
        self.entry(place).map_or("", |(_, r)| r.as_str())
    }

    pub fn unused(&self, allowed: &[Finding]) -> Vec<String> {
        self.0
            .keys()
            .filter(|k| {
                !allowed
                    .iter()
                    .any(|f| self.entry(&f.place).is_some_and(|(e, _)| e == *k))
            })
            .cloned()
            .collect()
    }
}
