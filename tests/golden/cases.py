"""Freeze expected values from real torch into golden.json (run: python3 tests/golden/cases.py).

The test suite never needs torch: it reads the committed golden.json. Each family module under
families/ yields cases; a runner in each implementation (Rust, JS, Python) executes them by name.
"""
import json
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from families import elementwise, views, creation, shape, random, reduce  # noqa: E402
from families import nn  # noqa: E402

FAMILIES = [elementwise, views, creation, shape, random, reduce]
from families import matmul  # noqa: E402
FAMILIES.append(matmul)
FAMILIES.append(nn)
from families import conv  # noqa: E402
FAMILIES.append(conv)
from families import inplace, indexing, linalg, stats, factories  # noqa: E402
FAMILIES.extend([inplace, indexing, linalg, stats, factories])
from families import convpool  # noqa: E402
FAMILIES.append(convpool)
from families import norm  # noqa: E402
FAMILIES.append(norm)
from families import activations, losses, nn_more  # noqa: E402
FAMILIES += [activations, losses, nn_more]
from families import more_inplace, more_tensor, more_nn  # noqa: E402
FAMILIES += [more_inplace, more_tensor, more_nn]
from families import fractional  # noqa: E402
FAMILIES.append(fractional)
from families import attention  # noqa: E402
FAMILIES.append(attention)
from families import conv_gemm  # noqa: E402
FAMILIES.append(conv_gemm)
from families import attention_fused  # noqa: E402
FAMILIES.append(attention_fused)
from families import attention_sweep  # noqa: E402
FAMILIES.append(attention_sweep)


def main():
    torch.set_default_dtype(torch.float32)
    cases = []
    for family in FAMILIES:
        for produced in family.cases():
            for c in produced if isinstance(produced, list) else [produced]:
                c["family"] = family.__name__.split(".")[-1]
                cases.append(c)
    names = [c["name"] for c in cases]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        raise SystemExit(f"duplicate case names: {sorted(dup)[:10]}")
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden.json")
    # One case a line: regenerating changes only the lines of cases that changed, so a commit's
    # diff stays the size of what it adds (a one-line file is rewritten whole every time).
    with open(out, "w") as f:
        f.write('{"torch_version":%s,"cases":[\n' % json.dumps(torch.__version__))
        f.write(",\n".join(json.dumps(c, separators=(",", ":")) for c in cases))
        f.write("\n]}\n")
    backward = sum(c.get("kind") == "backward" for c in cases)
    print(f"wrote {len(cases)} cases ({len(cases) - backward} forward, {backward} backward) "
          f"from torch {torch.__version__} to {out}")


if __name__ == "__main__":
    main()
