"""Writes cases.json: what real torch gives for .float() / .long() / .bool() / .to(dtype) on the
inputs below (tests/convert.rs builds the same inputs and compares exactly).

Run from this folder: python3 cases.py  (needs torch; the tests do not).
NaN and values outside int64 are left out of the float -> long cases: torch calls that
undefined behaviour of the C++ cast (its result differs between CPUs).
"""
import json
import math

import torch

INPUTS = {
    "float": torch.tensor([-2.7, -1.5, -0.5, -0.0, 0.0, 0.25, 1.0, 2.9, 100.99, -7.0, 123456.75]),
    "float_special": torch.tensor([float("nan"), float("inf"), float("-inf"), 1e-30, -1e-30]),
    "long": torch.tensor([-3, -1, 0, 1, 7, 16777217, 2147483647, -2147483648]),
    "bool": torch.tensor([True, False, True, False]),
}
CONVERSIONS = {
    "float": ["long", "bool", "float"],
    "float_special": ["bool", "float"],
    "long": ["float", "bool", "long"],
    "bool": ["float", "long", "bool"],
}


def values(t):
    out = []
    for v in t.tolist():
        if isinstance(v, float) and math.isnan(v):
            out.append("nan")
        elif isinstance(v, float) and math.isinf(v):
            out.append("inf" if v > 0 else "-inf")
        else:
            out.append(v)
    return out


cases = []
for name, x in INPUTS.items():
    for method in CONVERSIONS[name]:
        y = getattr(x, method)()
        z = x.to({"float": torch.float32, "long": torch.int64, "bool": torch.bool}[method])
        assert torch.equal(y, z) or (y.is_floating_point() and torch.equal(y.isnan(), z.isnan()))
        cases.append({
            "input": name,
            "input_dtype": str(x.dtype),
            "values": values(x),
            "method": method,
            "dtype": str(y.dtype),
            "expected": values(y),
        })

with open("cases.json", "w") as f:
    json.dump({"torch": torch.__version__, "cases": cases}, f, indent=1)
    f.write("\n")
print(f"wrote {len(cases)} cases")
