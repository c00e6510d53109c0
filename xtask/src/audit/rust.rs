//! The Rust side of the audit: every function and method of the binding crate, read with syn,
//! and every expression in them that computes. Exported or not: a helper that computes is as much
//! the binding's logic as the method that calls it.

use std::cell::Cell;
use std::path::Path;

use syn::visit::{self, Visit};
use syn::{BinOp, Block, Expr, ImplItem, Item};

use super::Finding;

thread_local! {
    static CHECKED: Cell<usize> = const { Cell::new(0) };
}

pub fn checked_count() -> usize {
    CHECKED.with(Cell::get)
}

/// Iterator steps that walk data.
const WALKS: &[&str] = &[
    "iter",
    "into_iter",
    "iter_mut",
    "fold",
    "sum",
    "product",
    "zip",
    "filter",
    "rev",
    "chunks",
    "windows",
    "enumerate",
];

pub fn audit_dir(root: &Path, dir: &Path) -> Result<Vec<Finding>, String> {
    let mut findings = Vec::new();
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            findings.extend(audit_dir(root, &path)?);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).map_err(|e| e.to_string())?;
            let file = syn::parse_file(&text).map_err(|e| format!("{}: {e}", path.display()))?;
            let rel = path
                .strip_prefix(root)
                .unwrap_or(&path)
                .display()
                .to_string();
            audit_items(&rel, &file.items, &mut findings);
        }
    }
    Ok(findings)
}

fn audit_items(file: &str, items: &[Item], findings: &mut Vec<Finding>) {
    for item in items {
        match item {
            Item::Fn(f) => audit_body(&format!("{file}::{}", f.sig.ident), &f.block, findings),
            Item::Impl(i) => {
                for it in &i.items {
                    if let ImplItem::Fn(m) = it {
                        audit_body(&format!("{file}::{}", m.sig.ident), &m.block, findings);
                    }
                }
            }
            Item::Mod(m) => {
                if let Some((_, items)) = &m.content {
                    audit_items(file, items, findings);
                }
            }
            _ => {}
        }
    }
}

fn audit_body(place: &str, block: &Block, findings: &mut Vec<Finding>) {
    CHECKED.with(|c| c.set(c.get() + 1));
    let mut v = Computes(Vec::new());
    v.visit_block(block);
    if block.stmts.len() > 3 {
        v.0.push(format!("{} statements", block.stmts.len()));
    }
    if !v.0.is_empty() {
        v.0.dedup();
        findings.push(Finding {
            place: place.to_string(),
            what: v.0.join(", "),
        });
    }
}

struct Computes(Vec<String>);

impl<'ast> Visit<'ast> for Computes {
    fn visit_expr(&mut self, e: &'ast Expr) {
        match e {
            Expr::Binary(b) if computes(&b.op) => self.0.push("arithmetic or comparison".into()),
            Expr::ForLoop(_) | Expr::While(_) | Expr::Loop(_) => self.0.push("a loop".into()),
            Expr::Index(_) => self.0.push("indexing".into()),
            Expr::If(_) | Expr::Match(_) => self.0.push("branching".into()),
            Expr::MethodCall(m) if WALKS.contains(&m.method.to_string().as_str()) => {
                self.0.push(format!("walks data (.{}())", m.method))
            }
            _ => {}
        }
        visit::visit_expr(self, e);
    }
}

fn computes(op: &BinOp) -> bool {
    !matches!(op, BinOp::And(_) | BinOp::Or(_))
}
