"""golden[pynative]: the golden suite (tests/golden/golden.json) through the native wheel
borch-wgpu (``import borch as torch``), with the runner golden[py] runs in Pyodide
(tests/golden/golden_runner.py: the same cases, bindings, semantics and tolerances). Prints

    golden[pynative]: N agreeing / M cases, K not implemented, D disagreeing (...) [adapter]

then the data family (tests/data/data_runner.py, its vision transforms and datasets too, as
golden[py] runs it), and exits 1 when any case disagrees. Run in a virtualenv where the wheel is installed:

    python tests/golden/golden_native.py [--filter sum] [--every 10] [--verbose]
"""

import argparse
import pathlib
import sys

import borch as torch

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import golden_runner  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--filter", default="", help="only cases whose name contains this")
    parser.add_argument("--every", type=int, default=1, help="every k-th case of each op")
    parser.add_argument("--verbose", action="store_true", help="print every case's verdict")
    args = parser.parse_args()
    golden = (HERE / "golden.json").read_text()
    bindings = (HERE / "bindings.json").read_text()
    result = golden_runner.run(golden, bindings, adapter=torch.adapter(), filter=args.filter,
                               verbose=args.verbose, every=args.every, label="golden[pynative]")
    # The data family (tests/data/data_runner.py: torch.utils.data against tests/data/cases.json),
    # as golden[py] runs it after the op cases.
    sys.path.insert(0, str(HERE.parent / "data"))
    import data_runner

    cases = (HERE.parent / "data" / "cases.json").read_text()
    data = data_runner.run(cases, adapter=torch.adapter(), label="golden[pynative]")
    vision_cases = (HERE.parent / "vision" / "cases.json").read_text()
    vision = data_runner.run_vision(vision_cases, adapter=torch.adapter(), label="golden[pynative]")
    datasets = data_runner.run_vision_datasets(str(HERE.parent / "vision" / "files"), vision_cases,
                                               runner="golden[pynative]")
    ok = all(r["ok"] for r in (result, data, vision, datasets))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
