"""tests/browser/pages/python_api.py (borch_webgpu's containers, param groups, scheduler state,
errors, compile, fusion, ONNX export, checkpoints, vision models — 118 checks written as torch
code, run in Pyodide by the python page) through the native wheel, with only the import changed
and the values python.mjs hands it (torch's expected values, torch's checkpoint fixtures) read
from the files. One message differs by design: a dict given positionally reaches the core as
Python's ``dict`` (torch's own wording) where Pyodide's bridge says JavaScript's ``Object``.
Prints ``python api: N checks passed`` (the page's line)."""

import pathlib
import types

ROOT = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests/checkpoints/fixtures"


class Bytes:
    """What python.mjs hands the script: a Uint8Array, read with ``to_bytes()``."""

    def __init__(self, data):
        self.data = data

    def to_bytes(self):
        return self.data


source = (ROOT / "tests/browser/pages/python_api.py").read_text()
source = source.replace("borch_webgpu", "borch").replace('not Object"', 'not dict"')
scope = {
    "__name__": "__main__",
    "EXPECTED_JSON": (ROOT / "tests/browser/pages/python_expected.json").read_text(),
    "CHECKPOINT_FIXTURES": types.SimpleNamespace(
        mlp=Bytes((FIXTURES / "mlp.safetensors").read_bytes()),
        mlp_io=Bytes((FIXTURES / "mlp_io.safetensors").read_bytes()),
    ),
}
exec(compile(source, "tests/browser/pages/python_api.py", "exec"), scope)
