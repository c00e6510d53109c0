//! The Python side of the audit: every function, method and module body of `borch-py/`, read with
//! Python's own `ast` (python3, run from here), and every construct in them that computes: loops
//! and comprehensions, arithmetic, `if`/conditional expressions, comparisons other than
//! `is`/`is not`. Argument conversion needs some of these, so such places are listed with a
//! reason in xtask/audit-allow.txt like the Rust ones; everything else must only forward.

use std::path::Path;
use std::process::Command;

use super::Finding;

const SCRIPT: &str = r##"
import ast, pathlib, sys
root = pathlib.Path(sys.argv[1])
checked = 0
KINDS = {
    ast.For: "a loop", ast.While: "a loop", ast.AsyncFor: "a loop",
    ast.ListComp: "a comprehension", ast.SetComp: "a comprehension",
    ast.DictComp: "a comprehension", ast.GeneratorExp: "a comprehension",
    ast.BinOp: "arithmetic", ast.AugAssign: "arithmetic",
    ast.If: "a branch", ast.IfExp: "a branch", ast.BoolOp: "a branch",
}
def own(node):
    # The nodes of `node`'s body, not descending into nested functions or classes.
    stack = list(ast.iter_child_nodes(node))
    while stack:
        n = stack.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        yield n
        stack.extend(ast.iter_child_nodes(n))
def report(place, node):
    global checked
    checked += 1
    found = {}
    for n in own(node):
        what = KINDS.get(type(n))
        if isinstance(n, ast.UnaryOp) and not isinstance(n.op, ast.Not):
            what = "arithmetic"
        if isinstance(n, ast.Compare) and not all(isinstance(o, (ast.Is, ast.IsNot)) for o in n.ops):
            what = "a comparison"
        if what:
            found.setdefault(what, n.lineno)
    if found:
        print(place + "\t" + ", ".join(f"{w} (line {l})" for w, l in sorted(found.items(), key=lambda x: x[1])))
def walk(node, prefix, path):
    for n in ast.iter_child_nodes(node):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            report(f"{path}::{prefix}{n.name}", n)
            walk(n, f"{prefix}{n.name}.", path)
        elif isinstance(n, ast.ClassDef):
            report(f"{path}::{prefix}{n.name}", n)
            walk(n, f"{prefix}{n.name}.", path)
for file in sorted(root.rglob("*.py")):
    path = "borch-py/" + file.relative_to(root.parent).as_posix()
    tree = ast.parse(file.read_text(), str(file))
    report(f"{path}::<module>", tree)
    walk(tree, "", path)
print(f"#checked\t{checked}")
"##;

/// Findings for every Python function of `dir`, and how many functions (and module and class
/// bodies) were checked.
pub fn audit_dir(dir: &Path) -> Result<(Vec<Finding>, usize), String> {
    let stdout = run_script(SCRIPT, dir)?;
    let mut findings = Vec::new();
    let mut checked = 0;
    for line in stdout.lines() {
        let Some((place, what)) = line.split_once('\t') else {
            continue;
        };
        if place == "#checked" {
            checked = what.parse().unwrap_or(0);
        } else {
            findings.push(Finding {
                place: place.to_string(),
                what: what.to_string(),
            });
        }
    }
    Ok((findings, checked))
}

/// What a Python `script` reading `dir` with `ast` prints (python3, run from here).
pub fn run_script(script: &str, dir: &Path) -> Result<String, String> {
    let output = Command::new("python3")
        .arg("-c")
        .arg(script)
        .arg(dir)
        .output()
        .map_err(|e| format!("python3 (needed to read borch-py with ast): {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "python3 ast read of {} failed: {}",
            dir.display(),
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}
