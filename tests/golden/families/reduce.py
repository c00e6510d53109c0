"""Reductions, softmax and scans against torch: dims as None / int / list (negative, empty),
keepdim, every dtype, non-contiguous inputs (transposed, stepped, expanded, permuted), rows long
enough for the workgroup path, NaN and infinities, empty and 0-d tensors, torch's errors.

Args read by the runner: `dim` (null, an int or a list), `keepdim`, `p`, `correction`."""
import warnings

import torch

from .common import In, case, floats, ints

warnings.simplefilter("ignore")  # var/std warn when the correction leaves no degrees of freedom

nan, inf = float("nan"), float("inf")

# Float inputs, all 3x4 (or 2x3x4) seen through different layouts.
F2 = {
    "contig": lambda: In(floats(12, seed=70), shape=[3, 4]),
    "transposed": lambda: In(floats(12, seed=71), shape=[4, 3], view=[["t"]]),
    "stepped": lambda: In(floats(24, seed=72), shape=[3, 8], view=[["slice", 1, 1, None, 2]]),
    "expanded": lambda: In(floats(4, seed=73), shape=[1, 4], view=[["expand", [3, 4]]]),
}
F3 = {
    "contig3": lambda: In(floats(24, seed=74), shape=[2, 3, 4]),
    "permuted3": lambda: In(floats(24, seed=75), shape=[4, 3, 2], view=[["permute", [2, 1, 0]]]),
}
# Rows of 100 go through one workgroup each; the transposed one reads them with stride 3.
WIDE = {
    "wide": lambda: In(floats(300, seed=77), shape=[3, 100]),
    "wide_t": lambda: In(floats(300, seed=78), shape=[100, 3], view=[["t"]]),
}
INT = lambda: In(ints(12, seed=76), "int64", [3, 4])
BOOL = lambda: In([x > 0 for x in ints(12, seed=79)], "bool", [3, 4])
SPECIAL = lambda: In([1.0, nan, -2.0, nan, inf, -inf, 0.5, 3.0, -inf, -inf, 2.0, 1.0], shape=[3, 4])
ZERO_D = lambda: In(2.5)
EMPTY = lambda: In([], shape=[0])
E03 = lambda: In([], shape=[0, 3])
E30 = lambda: In([], shape=[3, 0])

DIMS_2D = [("all", None), ("d0", 0), ("d1", 1), ("neg", -1), ("list", [0, 1]), ("empty_list", [])]
DIMS_3D = [("d02", [0, 2]), ("neg_list", [-1, 0]), ("d1", 1)]


def dims_kw(dim):
    return {} if dim is None else {"dim": dim}


# Each dims-list op: its torch call from (t, dim, keepdim, extra args).
def _sum(t, dim=None, keepdim=False):
    return t.sum(**dims_kw(dim), keepdim=keepdim) if dim is not None else t.sum()


def _mean(t, dim=None, keepdim=False):
    return t.mean(**dims_kw(dim), keepdim=keepdim) if dim is not None else t.mean()


def _amax(t, dim=None, keepdim=False):
    return t.amax(dim=() if dim is None else dim, keepdim=keepdim)


def _amin(t, dim=None, keepdim=False):
    return t.amin(dim=() if dim is None else dim, keepdim=keepdim)


def _all(t, dim=None, keepdim=False):
    return t.all(dim=tuple(dim) if isinstance(dim, list) else dim, keepdim=keepdim) if dim is not None else t.all()


def _any(t, dim=None, keepdim=False):
    return t.any(dim=tuple(dim) if isinstance(dim, list) else dim, keepdim=keepdim) if dim is not None else t.any()


def _lse(t, dim=None, keepdim=False):
    return t.logsumexp(dim, keepdim=keepdim)


def _norm(t, dim=None, keepdim=False, p=2.0):
    return t.norm(p=float(p), dim=dim, keepdim=keepdim)


def json_p(p):
    """JSON has no infinity: infinite p travels as "inf" / "-inf" (the runner reads both)."""
    return p if abs(p) != inf else ("inf" if p > 0 else "-inf")


def _var(t, dim=None, keepdim=False, correction=1):
    return t.var(dim=dim, correction=correction, keepdim=keepdim)


def _std(t, dim=None, keepdim=False, correction=1):
    return t.std(dim=dim, correction=correction, keepdim=keepdim)


LIST_OPS = {"sum": _sum, "mean": _mean, "amax": _amax, "amin": _amin, "all": _all, "any": _any,
            "logsumexp": _lse, "norm": _norm, "var": _var, "std": _std}


def _max(t, dim=None, keepdim=False):
    return t.max() if dim is None else t.max(dim, keepdim=keepdim)


def _min(t, dim=None, keepdim=False):
    return t.min() if dim is None else t.min(dim, keepdim=keepdim)


def _argmax(t, dim=None, keepdim=False):
    return t.argmax(dim=dim, keepdim=keepdim)


def _argmin(t, dim=None, keepdim=False):
    return t.argmin(dim=dim, keepdim=keepdim)


def _prod(t, dim=None, keepdim=False):
    return t.prod() if dim is None else t.prod(dim, keepdim=keepdim)


ONE_DIM_OPS = {"max": _max, "min": _min, "argmax": _argmax, "argmin": _argmin, "prod": _prod}

ROW_OPS = {"softmax": lambda t, dim: t.softmax(dim), "log_softmax": lambda t, dim: t.log_softmax(dim),
           "cumsum": lambda t, dim: t.cumsum(dim), "cumprod": lambda t, dim: t.cumprod(dim)}


def args(dim, keepdim=False, **extra):
    return {"dim": dim, "keepdim": keepdim, **extra}


def list_op_cases():
    for op, f in LIST_OPS.items():
        for label, x in F2.items():
            for dlabel, dim in DIMS_2D:
                # torch's logsumexp needs a dim, and fails on an empty list unless keepdim (a torch
                # bug: it reduces every dim, then cannot squeeze); borch reduces every dim.
                if op == "logsumexp" and (dim is None or dim == []):
                    continue
                yield case(f"{op}/{label}_{dlabel}", op, [x()], f, args(dim))
            yield case(f"{op}/{label}_keepdim", op, [x()], f, args(1, True))
        for label, x in F3.items():
            for dlabel, dim in DIMS_3D:
                yield case(f"{op}/{label}_{dlabel}", op, [x()], f, args(dim, dlabel == "d1"))
        for label, x in WIDE.items():
            yield case(f"{op}/{label}_rows", op, [x()], f, args(1))
            yield case(f"{op}/{label}_all", op, [x()], f, args([0, 1]))
        yield case(f"{op}/int", op, [INT()], f, args(1))
        yield case(f"{op}/bool", op, [BOOL()], f, args([0, 1]))
        yield case(f"{op}/special_rows", op, [SPECIAL()], f, args(1))
        yield case(f"{op}/0d", op, [ZERO_D()], f, args(0))
        yield case(f"{op}/0d_keepdim", op, [ZERO_D()], f, args([-1], True))
        if op != "logsumexp":
            yield case(f"{op}/empty_all", op, [EMPTY()], f, args(None))
        yield case(f"{op}/empty_rows_d0", op, [E03()], f, args(0))
        yield case(f"{op}/empty_rows_d1", op, [E03()], f, args(1, True))
        yield case(f"{op}/empty_cols_d1", op, [E30()], f, args(1))
        yield case(f"{op}/dim_out_of_range", op, [F2["contig"]()], f, args(2))
        yield case(f"{op}/dim_repeated", op, [F2["contig"]()], f, args([1, -1]))


def norm_cases():
    for p in [1.0, 2.0, inf, -inf, 0.0, 3.0, 0.5, -1.0]:
        pj = json_p(p)
        for label, x in [("contig", F2["contig"]), ("transposed", F2["transposed"]), ("wide_t", WIDE["wide_t"])]:
            yield case(f"norm/p{p}_{label}", "norm", [x()], _norm, args(1, p=pj))
        yield case(f"norm/p{p}_all", "norm", [F2["stepped"]()], _norm, args(None, p=pj))
        yield case(f"norm/p{p}_special", "norm", [SPECIAL()], _norm, args(1, p=pj))
        yield case(f"norm/p{p}_empty", "norm", [EMPTY()], _norm, args(None, p=pj))
        yield case(f"norm/p{p}_empty_dim", "norm", [E30()], _norm, args([0, 1], p=pj))
    yield case("norm/zeros_p0", "norm", [In([0.0, -0.0, 0.0])], _norm, args(None, p=0.0))


def moment_cases():
    for op, f in [("var", _var), ("std", _std)]:
        for c in [0, 1, 2, 0.5, 4, 7]:
            yield case(f"{op}/correction{c}_rows", op, [F2["stepped"]()], f, args(1, correction=c))
            yield case(f"{op}/correction{c}_cols", op, [F2["transposed"]()], f, args(0, correction=c))
        yield case(f"{op}/constant_rows", op, [In([2.0] * 6, shape=[2, 3])], f, args(1, correction=3))
        yield case(f"{op}/wide_rows_c0", op, [WIDE["wide"]()], f, args(-1, correction=0))


def one_dim_cases():
    for op, f in ONE_DIM_OPS.items():
        for label, x in {**F2, **F3, **WIDE}.items():
            yield case(f"{op}/{label}_all", op, [x()], f, args(None))
            yield case(f"{op}/{label}_d1", op, [x()], f, args(1))
            yield case(f"{op}/{label}_neg_keepdim", op, [x()], f, args(-1, True))
            yield case(f"{op}/{label}_d0", op, [x()], f, args(0))
        yield case(f"{op}/int_d0", op, [INT()], f, args(0))
        yield case(f"{op}/int_all", op, [INT()], f, args(None))
        yield case(f"{op}/bool_d1", op, [BOOL()], f, args(1))
        yield case(f"{op}/bool_all", op, [BOOL()], f, args(None))
        yield case(f"{op}/special_rows", op, [SPECIAL()], f, args(1))
        yield case(f"{op}/special_cols", op, [SPECIAL()], f, args(0))
        yield case(f"{op}/special_all", op, [SPECIAL()], f, args(None))
        yield case(f"{op}/ties", op, [In([3, 1, 3, 1, 1, 3], "int64", [2, 3])], f, args(1))
        yield case(f"{op}/ties_all", op, [In([3, 1, 3, 1, 1, 3], "int64", [2, 3])], f, args(None))
        yield case(f"{op}/0d", op, [ZERO_D()], f, args(None))
        yield case(f"{op}/0d_dim", op, [ZERO_D()], f, args(-1, True))
        yield case(f"{op}/empty_all", op, [EMPTY()], f, args(None))
        yield case(f"{op}/empty_rows_d1", op, [E03()], f, args(1))
        yield case(f"{op}/empty_rows_d0", op, [E03()], f, args(0))
        yield case(f"{op}/empty_cols_neg", op, [E30()], f, args(-1))
        yield case(f"{op}/dim_out_of_range", op, [F2["contig"]()], f, args(-3))


def row_cases():
    for op, f in ROW_OPS.items():
        for label, x in {**F2, **F3, **WIDE}.items():
            if op == "cumprod" and label.startswith("wide"):
                continue
            yield case(f"{op}/{label}_d1", op, [x()], f, {"dim": 1})
            yield case(f"{op}/{label}_d0", op, [x()], f, {"dim": 0})
            yield case(f"{op}/{label}_neg", op, [x()], f, {"dim": -1})
        yield case(f"{op}/long_row", op, [In(floats(600, -1, 1, seed=80), shape=[2, 300], view=[["t"]])], f, {"dim": 0})
        yield case(f"{op}/int_d0", op, [INT()], f, {"dim": 0})
        yield case(f"{op}/int_d1", op, [INT()], f, {"dim": 1})
        yield case(f"{op}/bool", op, [BOOL()], f, {"dim": 1})
        yield case(f"{op}/special", op, [SPECIAL()], f, {"dim": 1})
        yield case(f"{op}/0d", op, [ZERO_D()], f, {"dim": 0})
        yield case(f"{op}/empty", op, [E03()], f, {"dim": 0})
        yield case(f"{op}/dim_out_of_range", op, [F2["contig"]()], f, {"dim": 2})


def cases():
    yield from list_op_cases()
    yield from norm_cases()
    yield from moment_cases()
    yield from one_dim_cases()
    yield from row_cases()
