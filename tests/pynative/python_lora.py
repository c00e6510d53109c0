"""tests/browser/pages/python_lora.py (LoRA and activation checkpointing written as torch +
loralib code, run in Pyodide by the python page, against tests/nn/lora_cases.json) through the
native wheel, with only the import changed and the fixture read from the file (python.mjs hands
it to the page as LORA_JSON). Prints the page's line, ``python lora: N checks passed``."""

import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]

source = (ROOT / "tests/browser/pages/python_lora.py").read_text()
source = source.replace("borch_webgpu", "borch")
scope = {
    "__name__": "__main__",
    "LORA_JSON": (ROOT / "tests/nn/lora_cases.json").read_text(),
}
exec(compile(source, "tests/browser/pages/python_lora.py (native)", "exec"), scope)
