"""The Python examples (examples/python/*.py) and the textbook program
(tests/browser/pages/textbook.py) through the native wheel, with only the import changed
(``borch_webgpu`` -> ``borch``): each must print what tests/pynative/expected/<name>.txt holds,
the lines the same programs print in Pyodide (tests/browser/pages/python.html compares those with
borch-ts's). Run in a virtualenv where the wheel is installed, without numpy or pytest:

    python tests/pynative/examples.py [--write]

``--write`` records the outputs instead (after checking them against a Pyodide run: the python
page's ``py|js`` lines and the micropip page's ``textbook|`` lines in scripts/test's log; the
files were so checked on 2026-12-03).
"""

import pathlib
import re
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
PROGRAMS = {
    "tensors": ROOT / "examples/python/tensors.py",
    "autograd": ROOT / "examples/python/autograd.py",
    "linear_regression": ROOT / "examples/python/linear_regression.py",
    "mlp": ROOT / "examples/python/mlp.py",
    "textbook": ROOT / "tests/browser/pages/textbook.py",
}
EXPECTED = pathlib.Path(__file__).resolve().parent / "expected"


def run(path):
    source = path.read_text().replace("borch_webgpu", "borch")
    done = subprocess.run([sys.executable, "-c", source], capture_output=True, text=True,
                          timeout=600)
    out = done.stdout + (f"<exit {done.returncode}> {done.stderr}" if done.returncode else "")
    return re.sub(r" at 0x[0-9a-f]+>", " at 0x…>", out)  # repr(grad_fn)'s address


def main():
    write = "--write" in sys.argv[1:]
    failures = 0
    for name, path in PROGRAMS.items():
        started = time.perf_counter()
        out = run(path)
        took = time.perf_counter() - started
        expected = EXPECTED / f"{name}.txt"
        if write:
            expected.write_text(out)
            print(f"{name}: {len(out.splitlines())} lines written to {expected}")
            continue
        want = expected.read_text() if expected.exists() else "<no expected output>\n"
        same = out == want
        failures += not same
        print(f"example {name} ({took:.1f} s): {'same output as in Pyodide' if same else 'DIFFERS'}")
        if not same:
            for i, (a, b) in enumerate(zip(out.splitlines() + ["<missing>"] * 99,
                                           want.splitlines() + ["<missing>"] * 99)):
                if a != b:
                    print(f"  line {i + 1}: native {a!r}\n  line {i + 1}: Pyodide {b!r}")
                if a == b == "<missing>":
                    break
    if not write:
        print(f"pynative examples: {len(PROGRAMS) - failures} / {len(PROGRAMS)} print what they "
              "print in Pyodide")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
