"""Expected values for borch's random ops, frozen from real torch on the CPU.

Run `python3 borch-tensor/tests/random/cases.py` to rewrite cases.json next to this
file; tests/random.rs replays every case. Each case seeds a generator and runs steps in order, so
state carried from one call to the next (including torch's cached second normal sample) is
checked too. Floats are stored as exact doubles of the float32 results.
"""
import json
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../tests"))
import json_lines  # noqa: E402 (tests/json_lines.py)

cases = []


def values(t):
    return t.reshape(-1).tolist()


def view(base_shape, kind, dtype=torch.float32):
    t = torch.empty(base_shape, dtype=dtype)
    if kind == "t":
        return t.t()
    if kind == "step":
        return t[:, ::2]
    if kind == "perm":
        return t.permute(2, 0, 1)
    if kind == "cols":
        return t[:, 1:3]
    return t


def run(step, gen):
    op = step["op"]
    if op == "rand":
        return torch.rand(step["shape"], generator=gen)
    if op == "randn":
        return torch.randn(step["shape"], generator=gen)
    if op == "normal":
        return torch.normal(step["mean"], step["std"], step["shape"], generator=gen)
    if op == "randint":
        return torch.randint(step["low"], step["high"], step["shape"], generator=gen)
    if op == "randperm":
        return torch.randperm(step["n"], generator=gen)
    dtype = {"float32": torch.float32, "int64": torch.int64, "bool": torch.bool}[
        step.get("dtype", "float32")
    ]
    t = view(step["shape"], step.get("view", "none"), dtype)
    if op == "uniform_":
        t.uniform_(step["from"], step["to"], generator=gen)
    elif op == "normal_":
        t.normal_(step["mean"], step["std"], generator=gen)
    elif op == "random_":
        t.random_(step["from"], step["to"], generator=gen)
    elif op == "bernoulli_":
        t.bernoulli_(step["p"], generator=gen)
    elif op == "rand_like":
        return torch.rand_like(t)
    elif op == "randn_like":
        return torch.randn_like(t)
    else:
        raise ValueError(op)
    return t


def case(name, seed, steps, generator=False):
    """Seed the default generator (or a fresh torch.Generator) and record every step."""
    if generator:
        gen = torch.Generator()
        gen.manual_seed(seed)
    else:
        gen = None
        torch.manual_seed(seed)
    for step in steps:
        out = run(step, gen)
        step["expect"] = values(out)
        step["expect_dtype"] = str(out.dtype).replace("torch.", "")
    cases.append({"name": name, "seed": seed, "generator": generator, "steps": steps})


for n in [1, 7, 15, 16, 17, 100]:
    case(f"rand_{n}", 0, [{"op": "rand", "shape": [n]}])
    case(f"randn_{n}", 0, [{"op": "randn", "shape": [n]}])
case("rand_2x3_seed42", 42, [{"op": "rand", "shape": [2, 3]}])
case("randn_4x5_seed42", 42, [{"op": "randn", "shape": [4, 5]}])
case("randn_33_seed7", 7, [{"op": "randn", "shape": [33]}])
case("randn_empty", 0, [{"op": "randn", "shape": [0, 3]}, {"op": "rand", "shape": [2]}])
case("rand_big_seed", 2**40 + 5, [{"op": "rand", "shape": [4]}])
case(
    "randn_cache_carries",
    0,
    [
        {"op": "randn", "shape": [1]},
        {"op": "randn", "shape": [1]},
        {"op": "randn", "shape": [3]},
        {"op": "randn", "shape": [16]},
        {"op": "randn", "shape": [1]},
        {"op": "rand", "shape": [2]},
        {"op": "randn", "shape": [1]},
    ],
)
case(
    "sequence_mixed",
    3,
    [
        {"op": "rand", "shape": [5]},
        {"op": "randn", "shape": [7]},
        {"op": "randint", "low": 0, "high": 10, "shape": [6]},
        {"op": "randperm", "n": 10},
        {"op": "randn", "shape": [20]},
        {"op": "rand", "shape": [3]},
    ],
)
for n in [1, 7, 16, 17, 100]:
    case(f"randint_0_10_{n}", 0, [{"op": "randint", "low": 0, "high": 10, "shape": [n]}])
case("randint_neg", 1, [{"op": "randint", "low": -50, "high": 50, "shape": [2, 5]}])
case("randint_2pow28_minus1", 0, [{"op": "randint", "low": 0, "high": 2**28 - 1, "shape": [5]}])
case("randint_2pow28", 0, [{"op": "randint", "low": 0, "high": 2**28, "shape": [5]}])
case("randint_wide", 0, [{"op": "randint", "low": -(2**31), "high": 2**31 - 1, "shape": [6]}])
for n in [0, 1, 2, 10, 100]:
    case(f"randperm_{n}", 0, [{"op": "randperm", "n": n}])
case("randperm_10_seed5_twice", 5, [{"op": "randperm", "n": 10}, {"op": "randperm", "n": 10}])
for n in [1, 7, 16, 17, 100]:
    case(f"normal_m2_s3_{n}", 0, [{"op": "normal", "mean": 2.0, "std": 3.0, "shape": [n]}])
case("normal_m-1.5_s0.25_40", 9, [{"op": "normal", "mean": -1.5, "std": 0.25, "shape": [40]}])
case("normal_std0", 0, [{"op": "normal", "mean": 1.0, "std": 0.0, "shape": [20]}])
case("uniform_m3_7", 0, [{"op": "uniform_", "shape": [10], "from": -3.0, "to": 7.0}])
case("uniform_odd", 4, [{"op": "uniform_", "shape": [2, 9], "from": 0.1234567891, "to": 0.2}])
case("uniform_big", 4, [{"op": "uniform_", "shape": [50], "from": -1e30, "to": 1e30}])
case("uniform_transposed", 0, [{"op": "uniform_", "shape": [3, 4], "view": "t", "from": 0.0, "to": 1.0}])
case("uniform_stepped", 0, [{"op": "uniform_", "shape": [3, 8], "view": "step", "from": 0.0, "to": 1.0}])
case("uniform_permuted", 5, [{"op": "uniform_", "shape": [2, 3, 4], "view": "perm", "from": 0.0, "to": 1.0}])
case("uniform_cols", 5, [{"op": "uniform_", "shape": [3, 4, 1], "view": "cols", "from": 0.0, "to": 1.0}])
case("normal__permuted_24", 6, [{"op": "normal_", "shape": [2, 3, 4], "view": "perm", "mean": 0.0, "std": 1.0}])
case("random__int_cols", 6, [{"op": "random_", "shape": [4, 6], "view": "cols", "dtype": "int64", "from": 0, "to": 1000}])
case("normal__contig_20", 0, [{"op": "normal_", "shape": [4, 5], "mean": 0.5, "std": 2.0}])
case("normal__transposed_20", 0, [{"op": "normal_", "shape": [4, 5], "view": "t", "mean": 0.5, "std": 2.0}])
case("normal__stepped_small", 0, [{"op": "normal_", "shape": [3, 4], "view": "step", "mean": 0.0, "std": 1.0}])
case("random__float", 0, [{"op": "random_", "shape": [8], "from": -5, "to": 5}])
case("random__int", 0, [{"op": "random_", "shape": [8], "dtype": "int64", "from": 100, "to": 200}])
case("random__bool", 0, [{"op": "random_", "shape": [8], "dtype": "bool", "from": 0, "to": 2}])
for p in [0.0, 0.3, 0.5, 1.0]:
    case(f"bernoulli__{p}", 0, [{"op": "bernoulli_", "shape": [20], "p": p}])
case("bernoulli__int", 0, [{"op": "bernoulli_", "shape": [2, 6], "dtype": "int64", "p": 0.7}])
case("bernoulli__bool_t", 0, [{"op": "bernoulli_", "shape": [3, 4], "view": "t", "dtype": "bool", "p": 0.5}])
case("rand_like", 0, [{"op": "rand_like", "shape": [2, 3]}, {"op": "randn_like", "shape": [4, 5]}])
case(
    "explicit_generator",
    123,
    [
        {"op": "rand", "shape": [4]},
        {"op": "randn", "shape": [3]},
        {"op": "randn", "shape": [18]},
        {"op": "randint", "low": 3, "high": 9, "shape": [4]},
        {"op": "randperm", "n": 10},
    ],
    generator=True,
)
# Many draws, so every uniform and both polynomials of the AVX2 sincos are exercised.
case("randn_4096", 11, [{"op": "randn", "shape": [4096]}])
case("normal_4096_m1_s0.5", 12, [{"op": "normal", "mean": 1.0, "std": 0.5, "shape": [4096]}])
case("randn_small_many", 13, [{"op": "randn", "shape": [15]} for _ in range(40)])

out = {
    "torch_version": torch.__version__,
    "cpu_capability": torch.backends.cpu.get_cpu_capability(),
    "cases": cases,
}
path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cases.json")
json_lines.write(path, out)  # one case a line: a regeneration's diff is what changed
print(f"wrote {len(cases)} cases to {path}")
