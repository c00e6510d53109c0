//! `cargo xtask audit`: bindings forward, they do not compute. Every function of borch-js must be
//! one forwarding call into the core: no arithmetic, no loops over data, no branching. The places
//! that must compute (converting JavaScript values, settling promises) are listed with a reason
//! each in xtask/audit-allow.txt, so the list is the whole inventory of logic in the binding; an
//! entry that no longer matches anything fails too. The generated JavaScript must be forwarding
//! lines only. And every error message the core, the bindings and borch_webgpu can raise stays
//! English (`english`).

mod allow;
mod english;
mod python;
mod rust;

use std::path::{Path, PathBuf};

pub fn run(args: &[&str]) -> Result<(), String> {
    if !args.is_empty() {
        return Err("usage: cargo xtask audit".into());
    }
    let root = workspace_root();
    let allow = allow::load(&root.join("xtask/audit-allow.txt"))?;
    let mut findings = rust::audit_dir(&root, &root.join("borch-js/src"))?;
    findings.extend(rust::audit_dir(&root, &root.join("borch-pyo3/src"))?);
    findings.extend(crate::js_api::audit_generated());
    findings.extend(crate::js_api::optim_classes::audit_generated());
    findings.extend(crate::js_api::vision::audit_generated());
    findings.extend(crate::js_api::module_functions::audit_generated());
    let (python_findings, python_checked) = python::audit_dir(&root.join("borch-py/borch_webgpu"))?;
    findings.extend(python_findings);
    let (allowed, failing): (Vec<_>, Vec<_>) =
        findings.into_iter().partition(|f| allow.covers(&f.place));
    for f in &allowed {
        println!(
            "allowed  {}: {} ({})",
            f.place,
            f.what,
            allow.reason(&f.place)
        );
    }
    let unused = allow.unused(&allowed);
    for place in &unused {
        println!("stale    {place}: listed in xtask/audit-allow.txt but nothing there computes");
    }
    for f in &failing {
        println!("COMPUTES {}: {}", f.place, f.what);
    }
    println!(
        "audit: {} borch-js and borch-pyo3 Rust functions and {python_checked} borch-py Python functions/bodies checked",
        rust::checked_count()
    );
    println!(
        "audit: {} binding functions checked, {} allowed with a reason, {} computing, {} stale allow entries",
        rust::checked_count() + python_checked,
        allowed.len(),
        failing.len(),
        unused.len()
    );
    let english = english::run(&root);
    if !(failing.is_empty() && unused.is_empty()) {
        return Err("audit failed: bindings must forward, not compute".into());
    }
    english
}

/// One place where a binding computes: `file::function` and what it does there.
#[derive(Debug, Clone)]
pub struct Finding {
    pub place: String,
    pub what: String,
}

pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}
