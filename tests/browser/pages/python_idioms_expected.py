"""Writes python_idioms_expected.json: what torch prints and raises for what the micropip page
runs: README.md's Python quick start and textbook.py run with `import torch` in place of
`import borch_webgpu as torch` (their whole output), torch.device reprs, grad_fn class names, and
the messages python_idioms.py compares. Run with real torch:
    python3 tests/browser/pages/python_idioms_expected.py"""

import contextlib
import io
import json
import re
from pathlib import Path

import torch

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]


def python_quickstart():
    """The first ```python block under "## Python" in README.md (as micropip.mjs takes it)."""
    readme = (REPO / "README.md").read_text()
    section = readme[readme.index("\n## Python"):]
    return re.search(r"\n```python\n(.*?)\n```\n", section, re.S).group(1)


def as_torch(source):
    """The program's printed lines with torch imported instead of borch_webgpu."""
    source = source.replace("import borch_webgpu as torch", "import torch")
    source = source.replace("from borch_webgpu import nn", "from torch import nn")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(source, "<program>", "exec"), {"__name__": "__main__"})
    # An object's address differs run to run: written as 0x….
    return [re.sub(r" at 0x[0-9a-f]+>$", " at 0x…>", line) for line in out.getvalue().splitlines()]


def message(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        return f"{type(e).__name__}: {e}"
    raise AssertionError("nothing raised")


a = torch.ones(2, requires_grad=True)
b = torch.ones(2, requires_grad=True)
expected = {
    "torch": torch.__version__,
    "quickstart": as_torch(python_quickstart()),
    "textbook": as_torch((HERE / "textbook.py").read_text()),
    "devices": {name: repr(torch.device(name)) for name in ["cpu", "cuda", "cuda:0"]},
    "device_str": {name: str(torch.device(name)) for name in ["cpu", "cuda:1"]},
    "device_error_class": message(lambda: torch.device("foo")).split(":")[0],
    "grad_fn": {
        "add": type((a + b).grad_fn).__name__,
        "mul": type((a * b).grad_fn).__name__,
        "sum": type(a.sum().grad_fn).__name__,
    },
    "numpy_requires_grad": message(lambda: a.numpy()),
    "keys_matched": repr(torch.nn.Linear(2, 1).load_state_dict(torch.nn.Linear(2, 1).state_dict())),
    "module_to_int64": message(lambda: torch.nn.Linear(2, 1).to(torch.int64)),
}
(HERE / "python_idioms_expected.json").write_text(json.dumps(expected, indent=1) + "\n")
print(f"wrote python_idioms_expected.json (torch {torch.__version__})")
