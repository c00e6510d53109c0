"""Gradients of borch's shape and indexing ops, frozen from real torch (CPU).

Each case builds float leaves from flat data (a chain of views then makes non-contiguous
inputs), runs one op, and records the gradient of `(op(...) * w).sum()` with respect to every
leaf that requires grad. borch-autograd/tests/shape_grad.rs replays the cases.

Run: python3 tests/autograd/shape_grad_cases.py  (writes shape_grad_cases.json next to it)
"""

import json
import os

import torch

torch.manual_seed(0)


def leaf(shape, grad=True, view=(), data=None, dtype="float32"):
    n = 1
    for s in shape:
        n *= s
    if data is None:
        # distinct values (no ties, so sort/topk/max pick the same elements everywhere)
        data = (torch.randperm(n).float() * 0.5 - n / 4).tolist()
    return {
        "data": data,
        "shape": list(shape),
        "dtype": dtype,
        "view": [list(v) for v in view],
        "grad": grad,
    }


def ints(data, shape=None):
    return {"data": list(data), "shape": list(shape if shape is not None else [len(data)])}


def apply_view(t, view):
    for step in view:
        kind, *a = step
        if kind == "t":
            t = t.t()
        elif kind == "transpose":
            t = t.transpose(a[0], a[1])
        elif kind == "slice":
            dim, start, end, step_ = a
            idx = [slice(None)] * t.dim()
            idx[dim] = slice(start, end, step_)
            t = t[tuple(idx)]
        elif kind == "narrow":
            t = t.narrow(*a)
        else:
            raise ValueError(kind)
    return t


def index_tensor(ix):
    return torch.tensor(ix["data"], dtype=torch.int64).reshape(ix["shape"])


def run(op, xs, index, args):
    """torch's op on the (viewed) inputs; `pad` narrows src to the index's shape first."""
    d = args.get("dim")
    if op == "cat":
        return torch.cat(xs, d)
    if op == "stack":
        return torch.stack(xs, d)
    if op == "flip":
        return xs[0].flip(args["dims"])
    if op == "roll":
        return xs[0].roll(args["shifts"], args["dims"])
    if op == "repeat":
        return xs[0].repeat(*args["sizes"])
    if op == "tile":
        return xs[0].tile(args["sizes"])
    if op == "index_select":
        return xs[0].index_select(d, index)
    if op == "gather":
        return xs[0].gather(d, index)
    if op == "take":
        return xs[0].take(index)
    if op in ("scatter", "scatter_add"):
        src = xs[1]
        if args.get("pad"):
            src = src[tuple(slice(0, s) for s in index.shape)]
        fn = torch.Tensor.scatter if op == "scatter" else torch.Tensor.scatter_add
        return fn(xs[0], d, index, src)
    if op == "scatter_value":
        return xs[0].scatter(d, index, args["value"])
    if op == "index_add":
        return xs[0].index_add(d, index, xs[1], alpha=args["alpha"])
    if op == "tril":
        return xs[0].tril(args["diagonal"])
    if op == "triu":
        return xs[0].triu(args["diagonal"])
    if op == "sort":
        return xs[0].sort(d, descending=args["descending"]).values
    if op == "topk":
        return xs[0].topk(args["k"], d, largest=args["largest"]).values
    if op == "max_dim":
        return xs[0].max(d, keepdim=args["keepdim"]).values
    if op == "min_dim":
        return xs[0].min(d, keepdim=args["keepdim"]).values
    raise ValueError(op)


T = ("t",)


def specs():
    yield "cat/dim0", "cat", [leaf([2, 3]), leaf([1, 3])], None, {"dim": 0}
    yield "cat/neg_dim_transposed", "cat", [leaf([3, 2], view=[T]), leaf([2, 1])], None, {"dim": -1}
    yield "cat/skips_empty_1d", "cat", [leaf([0]), leaf([2, 2]), leaf([2, 1])], None, {"dim": 1}
    yield "cat/with_int", "cat", [leaf([2]), leaf([3], grad=False, data=[1, 2, 3], dtype="int64")], None, {"dim": 0}
    yield "stack/dim0", "stack", [leaf([2, 3]), leaf([2, 3])], None, {"dim": 0}
    yield "stack/neg_dim_stepped", "stack", [leaf([2, 4], view=[("slice", 1, 0, None, 2)]), leaf([2, 2])], None, {"dim": -1}
    yield "flip/dim0", "flip", [leaf([3, 2])], None, {"dims": [0]}
    yield "flip/two_dims_transposed", "flip", [leaf([2, 3, 2], view=[("transpose", 0, 2)])], None, {"dims": [-1, 0]}
    yield "roll/flat", "roll", [leaf([2, 3])], None, {"shifts": [2], "dims": []}
    yield "roll/two_dims_transposed", "roll", [leaf([3, 4], view=[T])], None, {"shifts": [1, -3], "dims": [0, -1]}
    yield "repeat/extra_dim", "repeat", [leaf([2, 3])], None, {"sizes": [2, 1, 3]}
    yield "repeat/transposed", "repeat", [leaf([3, 2], view=[T])], None, {"sizes": [2, 2]}
    yield "tile/short", "tile", [leaf([2, 2])], None, {"sizes": [3]}
    yield "index_select/dim0_repeats", "index_select", [leaf([3, 2])], ints([2, 0, 2]), {"dim": 0}
    yield "index_select/neg_dim_transposed", "index_select", [leaf([4, 3], view=[T])], ints([3, 1, 1, 0]), {"dim": -1}
    yield "gather/dim1", "gather", [leaf([2, 3])], ints([0, 0, 2, 1, 2, 2], [2, 3]), {"dim": 1}
    yield "gather/neg_dim_smaller_index", "gather", [leaf([3, 4], view=[T])], ints([2, 0, 2, 1, 1, 1], [2, 3]), {"dim": -2}
    yield "take/negative_and_repeats", "take", [leaf([2, 3])], ints([0, -1, 5, 2, -6, 0], [2, 3]), {}
    yield "take/transposed", "take", [leaf([3, 2], view=[T])], ints([1, 3, 3, -2]), {}
    yield "scatter/dim0", "scatter", [leaf([3, 3]), leaf([2, 3])], ints([0, 2, 1, 2, 0, 0], [2, 3]), {"dim": 0}
    yield "scatter/neg_dim_src_larger", "scatter", [leaf([2, 4]), leaf([3, 3])], ints([3, 0, 1, 2], [2, 2]), {"dim": -1, "pad": True}
    yield "scatter/self_only_transposed", "scatter", [leaf([3, 2], view=[T]), leaf([2, 2], grad=False)], ints([0, 2, 1, 0], [2, 2]), {"dim": 1}
    yield "scatter/value", "scatter_value", [leaf([2, 3])], ints([1, 0, 2, 2], [2, 2]), {"dim": 1, "value": 2.5}
    yield "scatter_add/dim1_repeats", "scatter_add", [leaf([2, 3]), leaf([2, 4])], ints([0, 0, 2, 1, 2, 2, 2, 0], [2, 4]), {"dim": 1}
    yield "scatter_add/neg_dim_src_larger", "scatter_add", [leaf([3, 2]), leaf([3, 3], view=[T])], ints([2, 2, 0, 1], [2, 2]), {"dim": -2, "pad": True}
    yield "index_add/dim0", "index_add", [leaf([3, 2]), leaf([4, 2])], ints([0, 2, 0, 1]), {"dim": 0, "alpha": 1.0}
    yield "index_add/neg_dim_alpha_transposed", "index_add", [leaf([3, 2], view=[T]), leaf([2, 2])], ints([2, 2]), {"dim": -1, "alpha": 2.5}
    yield "tril/diag0", "tril", [leaf([3, 4])], None, {"diagonal": 0}
    yield "tril/batched_transposed", "tril", [leaf([2, 3, 3], view=[("transpose", 1, 2)])], None, {"diagonal": -1}
    yield "triu/diag1", "triu", [leaf([4, 3])], None, {"diagonal": 1}
    yield "triu/batched_stepped", "triu", [leaf([2, 3, 4], view=[("slice", 2, 0, None, 2)])], None, {"diagonal": 0}
    yield "sort/last_desc", "sort", [leaf([2, 4])], None, {"dim": -1, "descending": True}
    yield "sort/dim0_transposed", "sort", [leaf([3, 3], view=[T])], None, {"dim": 0, "descending": False}
    yield "topk/largest", "topk", [leaf([2, 5])], None, {"dim": -1, "k": 2, "largest": True}
    yield "topk/smallest_dim0_transposed", "topk", [leaf([3, 4], view=[T])], None, {"dim": 0, "k": 3, "largest": False}
    yield "max_dim/keepdim", "max_dim", [leaf([3, 4])], None, {"dim": 1, "keepdim": True}
    yield "max_dim/drop_dim_transposed", "max_dim", [leaf([3, 4], view=[T])], None, {"dim": -1, "keepdim": False}
    yield "min_dim/dim0", "min_dim", [leaf([2, 3])], None, {"dim": 0, "keepdim": False}


def main():
    cases = []
    for name, op, inputs, ix, args in specs():
        leaves = [
            torch.tensor(i["data"], dtype=getattr(torch, i["dtype"]))
            .reshape(i["shape"])
            .requires_grad_(i["grad"])
            for i in inputs
        ]
        xs = [apply_view(t, i["view"]) for t, i in zip(leaves, inputs)]
        index = index_tensor(ix) if ix is not None else None
        out = run(op, xs, index, args)
        w = torch.randint(-20, 21, out.shape).float() / 4
        (out * w).sum().backward()
        cases.append(
            {
                "name": name,
                "op": op,
                "args": args,
                "inputs": inputs,
                "index": ix,
                "w": {"data": w.flatten().tolist(), "shape": list(w.shape)},
                "grads": [
                    {"data": t.grad.flatten().tolist(), "shape": list(t.grad.shape)} if i["grad"] else None
                    for t, i in zip(leaves, inputs)
                ],
            }
        )
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "shape_grad_cases.json")
    with open(path, "w") as f:
        f.write('{"torch": %s, "cases": [\n' % json.dumps(torch.__version__))
        f.write(",\n".join(json.dumps(c) for c in cases))
        f.write("\n]}\n")
    print(f"{len(cases)} cases -> {path}")


if __name__ == "__main__":
    main()
