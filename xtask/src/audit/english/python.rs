//! borch_webgpu's string literals, read with Python's own `ast` (python3, as the forwarding audit
//! does): every string constant, and as a message the first argument of each `raise X(…)`
//! (a string, an f-string with `{}` for each replacement field, or a module-level string constant
//! named there).

use std::path::Path;

use super::Literal;

const SCRIPT: &str = r##"
import ast, json, pathlib, sys
root = pathlib.Path(sys.argv[1])
def text(node, consts):
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)
    if isinstance(node, ast.Name):
        return consts.get(node.id)
    return None
for file in sorted(root.rglob("*.py")):
    path = "borch-py/" + file.relative_to(root.parent).as_posix()
    tree = ast.parse(file.read_text(), str(file))
    consts = {}
    for n in tree.body:
        if isinstance(n, ast.Assign) and isinstance(n.value, ast.Constant) and isinstance(n.value.value, str):
            for t in n.targets:
                if isinstance(t, ast.Name):
                    consts[t.id] = n.value.value
    messages = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Raise) and isinstance(n.exc, ast.Call) and n.exc.args:
            m = text(n.exc.args[0], consts)
            if m is not None:
                messages.add(id(n.exc.args[0]))
                print(json.dumps([path, n.exc.args[0].lineno, m, True]))
    for n in ast.walk(tree):
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in messages:
            print(json.dumps([path, n.lineno, n.value, False]))
"##;

/// Every string literal of the Python package in `dir`.
pub fn literals(dir: &Path) -> Result<Vec<Literal>, String> {
    let stdout = crate::audit::python::run_script(SCRIPT, dir)?;
    let mut out = Vec::new();
    for line in stdout.lines() {
        let v: serde_json::Value = serde_json::from_str(line).map_err(|e| e.to_string())?;
        out.push(Literal {
            file: v[0].as_str().unwrap_or_default().to_string(),
            line: v[1].as_u64().unwrap_or(0) as usize,
            text: v[2].as_str().unwrap_or_default().to_string(),
            message: v[3].as_bool().unwrap_or(false),
        });
    }
    Ok(out)
}
