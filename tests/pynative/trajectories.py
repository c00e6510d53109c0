"""The training trajectories the Pyodide pages replay (tests/browser/pages/gpt_trajectory.py:
nanoGPT's torch code, 20 AdamW steps against tests/trajectories/char_gpt.json; and, with
``--resnet``, resnet_trajectory.py: the CIFAR ResNet-18 of width 8, 20 SGD steps) through the
native wheel, with only the imports changed, judged as those pages judge them. Prints the pages'
``trajectory[py]`` lines; exits 1 when one fails."""

import pathlib
import sys
import types

ROOT = pathlib.Path(__file__).resolve().parents[2]
PAGES = ROOT / "tests/browser/pages"


def load(name):
    """The page's module, ``borch_webgpu`` read as ``borch``."""
    source = (PAGES / f"{name}.py").read_text().replace("borch_webgpu", "borch")
    module = types.ModuleType(name)
    exec(compile(source, str(PAGES / f"{name}.py"), "exec"), module.__dict__)
    return module


def main():
    import borch as torch

    adapter = torch.adapter()
    results = []
    gpt = load("gpt_trajectory")
    results.append(gpt.run((ROOT / "tests/trajectories/char_gpt.json").read_text(),
                           (ROOT / "data/sonnets/sonnets.txt").read_text(), adapter, print))
    if "--resnet" in sys.argv[1:]:
        resnet = load("resnet_trajectory")
        recipe = (ROOT / "tests/trajectories/cifar_resnet18_w8.json").read_text()
        results.append(resnet.run(recipe, adapter, print))
    return 0 if all(r["ok"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
