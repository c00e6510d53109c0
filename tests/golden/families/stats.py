"""Order statistics and sequence ops: median / nanmedian, kthvalue, quantile / nanquantile, mode,
cummax / cummin, diff, rot90, searchsorted / bucketize, histc. Values are distinct where torch
leaves the index of ties unspecified."""
import torch

from .common import In, Num, case, floats

NAN = float("nan")


def x(shape, seed, view=()):
    n = 1
    for d in shape:
        n *= d
    return In(floats(n, -3, 3, seed), shape=list(shape), view=view)


def order_cases():
    med = lambda t, **k: torch.median(t, **k)
    yield case("median/all", "median", [x((3, 4), 1)], med)
    yield case("median/dim", "median", [x((3, 4), 2)], med, {"dim": 1})
    yield case("median/dim0_keepdim", "median", [x((3, 4), 3)], med, {"dim": 0, "keepdim": True})
    yield case("median/transposed", "median", [x((4, 3), 4, [["t"]])], med, {"dim": -1})
    yield case("median/nan_row", "median", [In([[1.0, NAN, 3.0], [2.0, 0.5, -1.0]])], med, {"dim": 1})
    yield case("median/0d", "median", [In(2.5)], med, {"dim": 0})
    yield case("median/int", "median", [In([5, 1, 4, 2], "int64")], med, {"dim": 0})
    nmed = lambda t, **k: torch.nanmedian(t, **k)
    yield case("nanmedian/all", "nanmedian", [In([1.0, NAN, 3.0, -2.0, 0.5])], nmed)
    yield case("nanmedian/dim", "nanmedian", [In([[1.0, NAN, 3.0, 2.0], [NAN, NAN, -1.0, 4.0], [NAN, 2.5, NAN, NAN]])], nmed, {"dim": 1})
    kth = lambda t, k, **kw: torch.kthvalue(t, k, **kw)
    yield case("kthvalue/last_dim", "kthvalue", [x((3, 4), 5)], kth, {"k": 2})
    yield case("kthvalue/dim0_keepdim", "kthvalue", [x((3, 4), 6)], kth, {"k": 3, "dim": 0, "keepdim": True})
    yield case("kthvalue/k_too_big", "kthvalue", [x((3, 4), 7)], kth, {"k": 5})
    q = lambda t, q, **k: torch.quantile(t, q, **k)
    for i, interp in enumerate(["linear", "lower", "higher", "midpoint", "nearest"]):
        yield case(f"quantile/{interp}", "quantile", [x((3, 5), 10 + i)], q, {"q": 0.3, "dim": 1, "interpolation": interp})
    yield case("quantile/all", "quantile", [x((3, 4), 20)], q, {"q": 0.75})
    yield case("quantile/all_keepdim", "quantile", [x((3, 4), 21)], q, {"q": 0.5, "keepdim": True})
    yield case("quantile/tensor_q", "quantile", [x((3, 4), 22), In([0.0, 0.25, 1.0])], q, {"dim": 0})
    yield case("quantile/tensor_q_keepdim", "quantile", [x((3, 4), 23), In([0.1, 0.9])], q, {"dim": 1, "keepdim": True})
    yield case("quantile/nan", "quantile", [In([[1.0, NAN, 3.0], [2.0, 0.5, -1.0]])], q, {"q": 0.5, "dim": 1})
    yield case("quantile/bad_q", "quantile", [x((3,), 24)], q, {"q": 1.5})
    yield case("quantile/int_error", "quantile", [In([1, 2], "int64")], q, {"q": 0.5})
    yield case("quantile/bad_interp", "quantile", [x((3,), 25)], q, {"q": 0.5, "interpolation": "cubic"})
    nq = lambda t, q, **k: torch.nanquantile(t, q, **k)
    yield case("nanquantile/dim", "nanquantile", [In([[1.0, NAN, 3.0, 2.0], [NAN, 4.0, -1.0, 0.0]])], nq, {"q": 0.4, "dim": 1})
    yield case("nanquantile/all_nan_row", "nanquantile", [In([[NAN, NAN], [1.0, 2.0]])], nq, {"q": 0.5, "dim": 1})
    mo = lambda t, **k: torch.mode(t, **k)
    yield case("mode/rows", "mode", [In([[1.0, 2.0, 2.0, 3.0, 3.0, 1.0], [4.0, 4.0, 5.0, 5.0, 6.0, 6.0]])], mo)
    yield case("mode/dim0", "mode", [In([[1.0, 2.0], [1.0, 3.0], [0.5, 3.0]])], mo, {"dim": 0, "keepdim": True})
    yield case("mode/int", "mode", [In([3, 1, 3, 1, 2], "int64")], mo)
    yield case("mode/distinct", "mode", [x((2, 4), 26)], mo)
    cmx = lambda t, dim: torch.cummax(t, dim)
    cmn = lambda t, dim: torch.cummin(t, dim)
    yield case("cummax/ties", "cummax", [In([1.0, 3.0, 3.0, 2.0, 5.0, 5.0])], cmx, {"dim": 0})
    yield case("cummax/dim1", "cummax", [x((3, 4), 27)], cmx, {"dim": 1})
    yield case("cummax/dim0", "cummax", [x((3, 4), 28)], cmx, {"dim": 0})
    yield case("cummax/nan", "cummax", [In([1.0, NAN, 3.0, 0.0])], cmx, {"dim": 0})
    yield case("cummax/int", "cummax", [In([2, 1, 4, 4, 3], "int64")], cmx, {"dim": 0})
    yield case("cummin/ties", "cummin", [In([3.0, 1.0, 1.0, 2.0, 0.0, 0.0])], cmn, {"dim": 0})
    yield case("cummin/dim1", "cummin", [x((3, 4), 29, [["t"], ["t"]])], cmn, {"dim": -1})


def sequence_cases():
    df = lambda t, *extra, **k: torch.diff(t, **k)
    yield case("diff/default", "diff", [x((3, 4), 40)], df)
    yield case("diff/n2_dim0", "diff", [x((4, 3), 41)], df, {"n": 2, "dim": 0})
    yield case("diff/n_large", "diff", [x((3,), 42)], df, {"n": 4})
    yield case("diff/bool", "diff", [In([True, False, False, True], "bool")], df)
    yield case("diff/int", "diff", [In([1, 4, 9, 16], "int64")], df)
    yield case("diff/prepend_append", "diff", [x((2, 3), 43), x((2, 1), 44), x((2, 2), 45)],
               lambda t, p, a, prepend=None, append=None: torch.diff(t, prepend=p, append=a), {"prepend": {"input": 1}, "append": {"input": 2}})
    yield case("diff/0d_error", "diff", [In(1.0)], df)
    r90 = lambda t, **k: torch.rot90(t, **k)
    for k in [1, 2, 3, -1, 4]:
        yield case(f"rot90/k{k}", "rot90", [x((2, 3), 50 + k)], r90, {"k": k})
    yield case("rot90/dims", "rot90", [x((2, 3, 2), 56)], r90, {"k": 1, "dims": [2, 0]})
    yield case("rot90/same_dims", "rot90", [x((2, 3), 57)], r90, {"dims": [1, 1]})
    yield case("rot90/1d", "rot90", [x((3,), 58)], r90)
    seq = In([-1.0, 0.5, 2.0, 2.0, 3.0])
    ss = lambda s, v, **k: torch.searchsorted(s, v, **k)
    vals = In([[-2.0, 0.5, 2.0], [2.5, 3.0, 9.0]])
    yield case("searchsorted/left", "searchsorted", [seq, vals], ss)
    yield case("searchsorted/right", "searchsorted", [seq, vals], ss, {"right": True})
    yield case("searchsorted/side_right", "searchsorted", [seq, vals], ss, {"side": "right"})
    yield case("searchsorted/batched", "searchsorted", [In([[0.0, 1.0, 2.0], [-1.0, 5.0, 6.0]]), In([[1.5, -3.0], [5.0, 7.0]])], ss)
    yield case("searchsorted/int", "searchsorted", [In([1, 3, 5, 7], "int64"), In([0, 3, 8], "int64")], ss)
    yield case("searchsorted/scalar", "searchsorted", [seq, Num(2.0)], ss)
    yield case("searchsorted/bad_batch", "searchsorted", [In([[0.0, 1.0], [2.0, 3.0]]), In([1.0, 2.0])], ss)
    bz = lambda t, b, **k: torch.bucketize(t, b, **k)
    yield case("bucketize/left", "bucketize", [vals, seq], bz)
    yield case("bucketize/right", "bucketize", [vals, seq], bz, {"right": True})
    yield case("bucketize/scalar", "bucketize", [Num(0.7), seq], bz)
    hc = lambda t, **k: torch.histc(t, **k)
    data = In([0.1, 0.4, 0.45, 1.2, 2.7, -0.6, 3.3, 1.9, 2.05, 0.0])
    yield case("histc/range", "histc", [data], hc, {"bins": 4, "min": 0.0, "max": 3.0})
    yield case("histc/auto_range", "histc", [data], hc, {"bins": 5})
    yield case("histc/default_bins", "histc", [In([0.25, 0.75, 0.75])], hc)
    yield case("histc/same_values", "histc", [In([2.0, 2.0])], hc, {"bins": 4})
    yield case("histc/int_error", "histc", [In([1, 2], "int64")], hc, {"bins": 2})
    yield case("histc/bad_range", "histc", [data], hc, {"bins": 3, "min": 2.0, "max": 1.0})


def cases():
    yield from order_cases()
    yield from sequence_cases()
