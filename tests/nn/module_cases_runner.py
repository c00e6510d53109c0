"""Replays forward cases of tests/nn/*.json (recurrent_cases.py's format: a module spec, a state
dict, inputs that may be lists or null, optional forward keywords, an output tree with a gout per
tensor output) through a torch-like module: `borch_webgpu` in Pyodide (pages/sequence_py.html),
or real torch as a check of this runner itself:

    python3 tests/nn/module_cases_runner.py tests/nn/sequence_sweep.json   # needs torch

The rules are tests/browser/pages/module_cases.mjs's (the JavaScript runner, Chromium and Node)
and borch-nn/tests/forward.rs's: each module is built by name from `torch.nn` (a module argument
from its own spec), loaded (strict), put in train or eval mode, called after `manual_seed(seed)`
as `m(*inputs, **forward_kwargs)` (a list input as a tuple), then the outputs are compared and
`torch.autograd.backward` of every tensor output with its gout gives the input and parameter
gradients, compared too. atol 1e-4, rtol 1e-4, NaN equal to NaN.
"""
import json
import math
import sys

ATOL = 1e-4
RTOL = 1e-4


def number(x):
    return float(x) if isinstance(x, str) else x


def is_spec(v):
    return isinstance(v, dict) and isinstance(v.get("type"), str)


def is_tensor(v):
    return isinstance(v, dict) and "data" in v and "shape" in v


def tree_cases(cases):
    """The forward cases of cases.json that need the tree rules (a tuple output or keywords)."""
    return [c for c in cases["forward"] if isinstance(c["output"], list) or c.get("forward_kwargs")]


def run(torch, cases, log=print):
    """Runs every case; returns {"count", "agreeing", "failures"} (one line per disagreement)."""

    def tensor(spec):
        data = [number(x) for x in spec["data"]]
        return torch.tensor(data, dtype=getattr(torch, spec["dtype"])).reshape(spec["shape"])

    def keyword(v):
        if is_tensor(v):
            return tensor(v)
        if isinstance(v, list):
            return tuple(keyword(x) for x in v)
        return v

    def build(spec):
        arg = lambda v: build(v) if is_spec(v) else (tensor(v) if is_tensor(v) else v)  # noqa: E731
        return getattr(torch.nn, spec["type"])(*[arg(v) for v in spec["args"]],
                                               **{k: arg(v) for k, v in spec["kwargs"].items()})

    def argument(spec, leaves):
        if spec is None:
            leaves.append(None)
            return None
        if isinstance(spec, list):
            return tuple(argument(s, leaves) for s in spec)
        leaf = tensor(spec).detach()
        if spec.get("requires_grad"):
            leaf.requires_grad_(True)
        leaves.append(leaf)
        return leaf.transpose(-2, -1) if spec.get("transpose") else leaf

    def flat(tree):
        if isinstance(tree, list):
            return [x for t in tree for x in flat(t)]
        return [tree]

    def compare(what, actual, expected, out):
        if list(actual.shape) != expected["shape"]:
            out.append(f"{what}: shape {list(actual.shape)}, expected {expected['shape']}")
            return
        got = actual.detach().reshape(-1).tolist()
        want = [number(x) for x in expected["data"]]
        for i, (a, b) in enumerate(zip(got, want)):
            a, b = float(a), float(b)
            if math.isnan(a) and math.isnan(b):
                continue
            if not (a == b or abs(a - b) <= ATOL + RTOL * abs(b)):
                out.append(f"{what}: element {i}: got {a}, expected {b}")
                return

    def outputs(what, y, expected, gout, roots, out):
        if expected is None:
            if y is not None:
                out.append(f"{what}: got {type(y).__name__}, expected None")
            return
        if isinstance(expected, list):
            if not isinstance(y, (list, tuple)) or len(y) != len(expected):
                out.append(f"{what}: got {type(y).__name__}, expected {len(expected)} items")
                return
            for i, (yi, ei) in enumerate(zip(y, expected)):
                outputs(f"{what}[{i}]", yi, ei, gout[i] if gout else None, roots, out)
            return
        if not isinstance(y, torch.Tensor):
            out.append(f"{what}: not a Tensor ({type(y).__name__})")
            return
        compare(what, y, expected, out)
        if y.requires_grad and gout:
            roots.append((y, tensor(gout)))

    failures = []
    agreeing = 0
    for c in cases:
        out = []
        try:
            torch.manual_seed(c["seed"])
            m = build(c["module"])
            m.load_state_dict({k: tensor(v) for k, v in c["state_dict"]}, strict=True)
            m.train(c["train"])
            leaves = []
            args = [argument(s, leaves) for s in c["inputs"]]
            kwargs = {k: keyword(v) for k, v in (c.get("forward_kwargs") or {}).items()}
            torch.manual_seed(c["seed"])
            y = m(*args, **kwargs)
            roots = []
            outputs("output", y, c["output"], c["gout"], roots, out)
            if roots:
                torch.autograd.backward([r[0] for r in roots], [r[1] for r in roots])
            expected = flat(c["input_grads"])
            for i, leaf in enumerate(leaves):
                g = leaf.grad if leaf is not None else None
                e = expected[i] if i < len(expected) else None
                if g is not None and e is not None:
                    compare(f"input {i} grad", g, e, out)
                elif g is not None or e is not None:
                    out.append(f"input {i}: {'a grad torch does not have' if g is not None else 'no grad'}")
            params = dict(m.named_parameters())
            for k, e in c["param_grads"]:
                g = params[k].grad if k in params else None
                if g is not None:
                    compare(f"{k} grad", g, e, out)
                else:
                    out.append(f"{k}: no grad")
        except Exception as e:  # a refusal or a bug: reported by name, never skipped
            out.append(f"threw {type(e).__name__}: {e}")
        if not out:
            agreeing += 1
        failures += [f"{c['name']}: {line}" for line in out]
    return {"count": len(cases), "agreeing": agreeing, "failures": failures}


def main():
    import torch

    path = sys.argv[1]
    with open(path) as f:
        cases = json.load(f)
    picked = tree_cases(cases) if path.endswith("/cases.json") else cases["forward"]
    r = run(torch, picked)
    print(f"torch {torch.__version__} on {path}: {r['agreeing']} agreeing / {r['count']} cases")
    for line in r["failures"][:30]:
        print(f"  {line}")
    sys.exit(1 if r["failures"] else 0)


if __name__ == "__main__":
    main()
