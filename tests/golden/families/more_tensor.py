"""More tensor-op cases (issue 10's under-covered ops): floor_divide / true_divide / rsub,
expand_as / broadcast_to / clone / float / long / bool, addcmul / addcdiv, clamp_min /
clamp_max, argsort, bucketize, masked_fill, the `*_like` factories, index_put / index_fill /
masked_scatter, nanmedian / nanquantile / median / kthvalue, cummin / cummax: broadcasting,
non-contiguous views, int64 / bool inputs and torch's promotion, 0-d and empty tensors, NaN and
infinities, keepdim and dim variants, backward, and torch's errors."""
import torch

from .common import In, Num, case, floats, ints

NAN = float("nan")
INF = float("inf")


def x(shape, seed, lo=-3.0, hi=3.0, view=()):
    n = 1
    for d in shape:
        n *= d
    return In(floats(n, lo, hi, seed), shape=list(shape), view=view)


def fv(v):
    """Golden args spell NaN and infinities "nan" / "inf" / "-inf" (JSON has none)."""
    return float(v) if isinstance(v, str) else v


def ref(k):
    return {"input": k}


def divide_cases():
    for op, f in [("floor_divide", torch.floor_divide), ("true_divide", torch.true_divide)]:
        yield case(f"{op}/f32", op, [x((2, 3), 1200), x((2, 3), 1201, 0.5, 2.0)], f)
        yield case(f"{op}/broadcast", op, [x((2, 1, 3), 1202), x((4, 1), 1203, 0.5, 2.0)], f)
        yield case(f"{op}/scalar", op, [x((2, 3), 1204), Num(-1.25)], f)
        yield case(f"{op}/int64", op, [In([7, -7, 7, -7, 0, 9], "int64"), In([2, 2, -2, -2, 5, 4], "int64")], f)
        yield case(f"{op}/int_float", op, [In([7, -7, 3], "int64"), In([2.5, 2.0, -0.5])], f)
        yield case(f"{op}/int_scalar_float", op, [In([7, -7, 3], "int64"), Num(2.0)], f)
        yield case(f"{op}/bool_int", op, [In([True, False, True], "bool"), In([2, 3, -1], "int64")], f)
        yield case(f"{op}/transposed", op, [x((3, 2), 1205, view=[["t"]]), x((2, 3), 1206, 0.5, 2.0)], f)
        yield case(f"{op}/zero_divisor", op, [In([1.0, -1.0, 0.0, NAN]), In([0.0, 0.0, 0.0, 1.0])], f)
        yield case(f"{op}/0d", op, [In(5.5), In(-2.0)], f)
        yield case(f"{op}/empty", op, [In([], shape=[0, 2]), In([1.0, 2.0])], f)
        yield case(f"{op}/shape_error", op, [x((2, 3), 1207), x((2, 2), 1208)], f)
    rs = lambda t, o, **k: torch.rsub(t, o, **k)
    yield case("rsub/f32", "rsub", [x((2, 3), 1210), x((2, 3), 1211)], rs)
    yield case("rsub/scalar", "rsub", [x((2, 3), 1212), Num(2.5)], rs)
    yield case("rsub/broadcast", "rsub", [x((3, 1), 1213), x((4,), 1214)], rs)
    yield case("rsub/int64", "rsub", [In([1, 2, 3], "int64"), In([10, -4, 0], "int64")], rs)
    yield case("rsub/int_scalar", "rsub", [In([1, 2, 3], "int64"), Num(5)], rs)
    yield case("rsub/int_float_scalar", "rsub", [In([1, 2, 3], "int64"), Num(0.5)], rs)
    yield case("rsub/bool_error", "rsub", [In([True, False], "bool"), In([True, True], "bool")], rs)
    yield case("rsub/transposed", "rsub", [x((3, 2), 1215, view=[["t"]]), x((2, 3), 1216)], rs)


def conversion_cases():
    ea = lambda t, o: t.expand_as(o)
    yield case("expand_as/row", "expand_as", [x((1, 3), 1220), x((4, 3), 1221)], ea)
    yield case("expand_as/new_dims", "expand_as", [x((3,), 1222), x((2, 2, 3), 1223)], ea)
    yield case("expand_as/int_other", "expand_as", [x((2, 1), 1224), In([1, 2, 3, 4, 5, 6], "int64", [2, 3])], ea)
    yield case("expand_as/bool", "expand_as", [In([True, False], "bool", [2, 1]), x((2, 4), 1225)], ea)
    yield case("expand_as/error", "expand_as", [x((2, 3), 1226), x((4, 3), 1227)], ea)
    bt = lambda t, size: torch.broadcast_to(t, size)
    yield case("broadcast_to/row", "broadcast_to", [x((1, 3), 1230)], bt, {"size": [4, 3]})
    yield case("broadcast_to/keep_minus1", "broadcast_to", [x((2, 1), 1231)], bt, {"size": [3, -1, 4]})
    yield case("broadcast_to/0d", "broadcast_to", [In(1.5)], bt, {"size": [2, 2]})
    yield case("broadcast_to/transposed", "broadcast_to", [x((1, 3), 1232, view=[["t"]])], bt, {"size": [2, 3, 5]})
    yield case("broadcast_to/int", "broadcast_to", [In([4, 5], "int64")], bt, {"size": [3, 2]})
    yield case("broadcast_to/to_empty", "broadcast_to", [x((1, 2), 1233)], bt, {"size": [0, 2]})
    yield case("broadcast_to/error", "broadcast_to", [x((2, 3), 1234)], bt, {"size": [3, 3]})
    cl = lambda t: t.clone()
    yield case("clone/f32", "clone", [x((2, 3), 1240)], cl)
    yield case("clone/transposed", "clone", [x((3, 2), 1241, view=[["t"]])], cl)
    yield case("clone/expanded", "clone", [x((1, 3), 1242, view=[["expand", [2, 3]]])], cl)
    yield case("clone/int", "clone", [In([1, -2, 3], "int64")], cl)
    yield case("clone/bool_0d", "clone", [In(True, "bool")], cl)
    for op in ["float", "long", "bool"]:
        f = lambda t, op=op: getattr(t, op)()
        yield case(f"{op}/from_f32", op, [In([1.7, -1.7, 0.0, 2.5, -0.2, 3.0], shape=[2, 3], view=[["t"]])], f)
        yield case(f"{op}/from_int", op, [In([3, -4, 0], "int64")], f)
        yield case(f"{op}/from_bool", op, [In([True, False], "bool")], f)
        yield case(f"{op}/empty", op, [In([], shape=[0])], f)


def ternary_cases():
    acm = lambda t, a, b, **k: torch.addcmul(t, a, b, **k)
    acd = lambda t, a, b, **k: torch.addcdiv(t, a, b, **k)
    pos = lambda shape, seed: x(shape, seed, 0.5, 2.0)
    for op, f in [("addcmul", acm), ("addcdiv", acd)]:
        yield case(f"{op}/default_value", op, [x((2, 3), 1250), x((2, 3), 1251), pos((2, 3), 1252)], f)
        yield case(f"{op}/broadcast3", op, [x((3,), 1253), x((2, 1), 1254), pos((2, 3), 1255)], f, {"value": 0.25})
        yield case(f"{op}/transposed", op, [x((3, 2), 1256, view=[["t"]]), x((2, 3), 1257), pos((2, 3), 1258)], f, {"value": 2.0})
        yield case(f"{op}/0d", op, [In(1.0), In(2.0), In(4.0)], f, {"value": -0.5})
        yield case(f"{op}/empty", op, [In([], shape=[0, 3]), In([], shape=[0, 3]), pos((3,), 1259)], f)
        yield case(f"{op}/value_zero", op, [x((4,), 1260), x((4,), 1261), pos((4,), 1262)], f, {"value": 0.0})
        yield case(f"{op}/shape_error", op, [x((2, 3), 1263), x((2, 2), 1264), pos((2, 3), 1265)], f)
        yield case(f"{op}/int_float_value_error", op, [In([1, 2], "int64"), In([3, 4], "int64"), In([5, 6], "int64")], f, {"value": 0.5})
        yield case(f"{op}/int_tensor_float_self", op, [x((3,), 1266), In([1, 2, 3], "int64"), In([2, -1, 4], "int64")], f)
    yield case("addcdiv/zero_divisor", "addcdiv", [In([1.0, 1.0, 1.0]), In([1.0, -1.0, 0.0]), In([0.0, 0.0, 0.0])], acd)
    yield case("addcmul/inf", "addcmul", [In([1.0, INF, 0.0]), In([INF, 0.0, NAN]), In([0.0, 2.0, 1.0])], acm)
    for op in ["clamp_min", "clamp_max"]:
        f = getattr(torch, op)
        yield case(f"{op}/tensor_broadcast", op, [x((2, 3), 1270), x((3,), 1271, -1, 1)], f)
        yield case(f"{op}/scalar_int", op, [x((2, 3), 1272), Num(1)], f)
        yield case(f"{op}/int64", op, [In([5, -3, 0, 2], "int64"), Num(1)], f)
        yield case(f"{op}/int_float_scalar", op, [In([5, -3, 0, 2], "int64"), Num(0.5)], f)
        yield case(f"{op}/int_self_float_tensor", op, [In([5, -3, 0, 2], "int64"), In([0.5, 0.5, -0.5, 2.0])], f)
        yield case(f"{op}/nan", op, [In([NAN, 1.0, -1.0, INF, -INF]), Num(0.0)], f)
        yield case(f"{op}/nan_bound", op, [In([2.0, 1.0, -1.0]), In([NAN, 0.0, 0.0])], f)
        yield case(f"{op}/transposed", op, [x((3, 2), 1273, view=[["t"]]), Num(0.5)], f)
        yield case(f"{op}/0d", op, [In(-2.0), In(0.0)], f)
        yield case(f"{op}/ties", op, [In([0.5, 1.0, 1.5]), Num(1.0)], f)


def sort_search_cases():
    asr = lambda t, **k: torch.argsort(t, **k)
    ties = In([3.0, 1.0, 3.0, 2.0, 1.0, 3.0, 0.0, 2.0], shape=[2, 4])
    yield case("argsort/default", "argsort", [x((3, 5), 1280)], asr)
    yield case("argsort/descending", "argsort", [x((3, 5), 1281)], asr, {"dim": 1, "descending": True})
    yield case("argsort/dim0", "argsort", [x((4, 3), 1282)], asr, {"dim": 0})
    yield case("argsort/stable_ties", "argsort", [ties], asr, {"stable": True})
    yield case("argsort/stable_ties_desc", "argsort", [ties], asr, {"stable": True, "descending": True})
    yield case("argsort/int", "argsort", [In([5, -1, 3, 3, 0, 9], "int64")], asr, {"stable": True})
    yield case("argsort/bool", "argsort", [In([True, False, True, False], "bool")], asr, {"stable": True})
    yield case("argsort/transposed", "argsort", [x((3, 4), 1283, view=[["t"]])], asr, {"dim": -1})
    yield case("argsort/nan_inf", "argsort", [In([NAN, 1.0, -INF, INF, 0.0])], asr)
    yield case("argsort/0d", "argsort", [In(2.0)], asr)
    yield case("argsort/empty", "argsort", [In([], shape=[0, 3])], asr, {"dim": 0})
    yield case("argsort/3d_middle", "argsort", [x((2, 3, 2), 1284)], asr, {"dim": 1})
    yield case("argsort/dim_error", "argsort", [x((2, 3), 1285)], asr, {"dim": 2})
    bz = lambda t, b, **k: torch.bucketize(t, b, **k)
    bounds = In([-1.0, 0.5, 2.0, 2.0, 3.0])
    yield case("bucketize/ties_left", "bucketize", [In([-1.0, 2.0, 3.0, 0.5]), bounds], bz)
    yield case("bucketize/ties_right", "bucketize", [In([-1.0, 2.0, 3.0, 0.5]), bounds], bz, {"right": True})
    yield case("bucketize/int", "bucketize", [In([0, 3, 8, -2], "int64"), In([1, 3, 5, 7], "int64")], bz)
    yield case("bucketize/float_in_int_bounds", "bucketize", [In([0.5, 3.0, 7.5]), In([1, 3, 5, 7], "int64")], bz)
    yield case("bucketize/0d", "bucketize", [In(2.5), bounds], bz)
    yield case("bucketize/transposed", "bucketize", [x((3, 2), 1290, view=[["t"]]), bounds], bz)
    yield case("bucketize/empty", "bucketize", [In([], shape=[0]), bounds], bz)
    yield case("bucketize/nan_inf", "bucketize", [In([NAN, INF, -INF]), bounds], bz)
    ss = lambda s, v, **k: torch.searchsorted(s, v, **k)
    yield case("searchsorted/nan_value", "searchsorted", [bounds, In([NAN, 0.0, INF])], ss)
    yield case("searchsorted/nan_value_right", "searchsorted", [bounds, In([NAN, 2.0, -INF])], ss, {"right": True})
    yield case("bucketize/2d_bounds_error", "bucketize", [In([1.0]), In([[0.0, 1.0]])], bz)


def masked_fill_cases():
    mf = lambda t, mk, value: t.masked_fill(mk, fv(value))
    mask = In([True, False, True, False, False, True], "bool", [2, 3])
    yield case("masked_fill/broadcast_mask", "masked_fill", [x((2, 3), 1300), In([True, False, True], "bool")], mf, {"value": 2.0})
    yield case("masked_fill/mask_column", "masked_fill", [x((2, 3), 1301), In([False, True], "bool", [2, 1])], mf, {"value": -3.0})
    yield case("masked_fill/transposed", "masked_fill", [x((3, 2), 1302, view=[["t"]]), mask], mf, {"value": 0.5})
    yield case("masked_fill/nan_value", "masked_fill", [x((2, 3), 1303), mask], mf, {"value": "nan"})
    yield case("masked_fill/inf_value", "masked_fill", [x((2, 3), 1304), mask], mf, {"value": "-inf"})
    yield case("masked_fill/tensor_value", "masked_fill", [x((2, 3), 1305), mask, In(1.25)], lambda t, mk, v: t.masked_fill(mk, v))
    yield case("masked_fill/bool_self", "masked_fill", [In([True, False, True], "bool"), In([True, True, False], "bool")], mf, {"value": False})
    yield case("masked_fill/int_float_value", "masked_fill", [In([1, 2, 3], "int64"), In([True, False, True], "bool")], mf, {"value": 2.7})
    yield case("masked_fill/0d", "masked_fill", [In(1.5), In(True, "bool")], mf, {"value": 0.0})
    yield case("masked_fill/empty", "masked_fill", [In([], shape=[0, 3]), In([True, False, True], "bool")], mf, {"value": 1.0})
    yield case("masked_fill/mask_broadcasts_self", "masked_fill", [x((3,), 1306), mask], mf, {"value": 1.0})
    yield case("masked_fill/all_true", "masked_fill", [x((2, 3), 1307), In(True, "bool")], mf, {"value": 4.0})


def like_cases():
    for op, f, args in [("zeros_like", torch.zeros_like, {}), ("ones_like", torch.ones_like, {}),
                        ("full_like", lambda t, fill_value: torch.full_like(t, fill_value), {"fill_value": -1.5})]:
        yield case(f"{op}/0d", op, [In(2.0)], f, args)
        yield case(f"{op}/empty", op, [In([], shape=[0, 3])], f, args)
        yield case(f"{op}/transposed", op, [x((3, 2), 1310, view=[["t"]])], f, args)
        yield case(f"{op}/bool", op, [In([True, False], "bool")], f, args)
        yield case(f"{op}/expanded", op, [x((1, 3), 1311, view=[["expand", [2, 3]]])], f, args)
    fl = lambda t, fill_value: torch.full_like(t, fv(fill_value))
    yield case("full_like/int_float_fill", "full_like", [In([1, 2, 3], "int64")], fl, {"fill_value": 2.9})
    yield case("full_like/inf", "full_like", [In([1.0, 2.0])], fl, {"fill_value": "inf"})
    yield case("full_like/nan", "full_like", [In([1.0, 2.0])], fl, {"fill_value": "nan"})
    yield case("full_like/bool_fill", "full_like", [In([1.0, 2.0])], fl, {"fill_value": True})


def put_cases():
    IX = lambda d, shape=None: In(d, "int64", shape)
    ip = lambda t, *rest, indices=None, values=None, accumulate=False: torch.index_put(t, tuple(rest[:-1]), rest[-1], accumulate=accumulate)
    yield case("index_put/accumulate", "index_put", [x((3, 4), 1320), IX([0, 0, 2]), IX([1, 1, 3]), x((3,), 1321)], ip,
               {"indices": [ref(1), ref(2)], "values": ref(3), "accumulate": True})
    yield case("index_put/rows_broadcast", "index_put", [x((3, 4), 1322), IX([2, 0]), x((4,), 1323)], ip,
               {"indices": [ref(1)], "values": ref(2)})
    yield case("index_put/negative", "index_put", [x((3, 4), 1324), IX([-1, 0]), IX([-2, 3]), x((2,), 1325)], ip,
               {"indices": [ref(1), ref(2)], "values": ref(3)})
    yield case("index_put/broadcast_index", "index_put", [x((3, 4), 1326), IX([[0], [2]]), IX([1, 3]), x((2, 2), 1327)], ip,
               {"indices": [ref(1), ref(2)], "values": ref(3)})
    yield case("index_put/int", "index_put", [In([1, 2, 3, 4], "int64"), IX([3, 1]), In([9, 8], "int64")], ip,
               {"indices": [ref(1)], "values": ref(2)})
    yield case("index_put/transposed", "index_put", [x((4, 3), 1328, view=[["t"]]), IX([1]), x((4,), 1329)], ip,
               {"indices": [ref(1)], "values": ref(2)})
    yield case("index_put/0d_value", "index_put", [x((3, 4), 1330), IX([0, 2]), In(7.0)], ip,
               {"indices": [ref(1)], "values": ref(2)})
    yield case("index_put/3d_middle", "index_put", [x((2, 3, 2), 1333), IX([0, 1]), IX([2, 0]), x((2, 2), 1334)], ip,
               {"indices": [ref(1), ref(2)], "values": ref(3)})
    ifl = lambda t, i, dim, value: t.index_fill(dim, i, fv(value))
    yield case("index_fill/dim0", "index_fill", [x((3, 4), 1340), IX([2, 0])], ifl, {"dim": 0, "value": 1.5})
    yield case("index_fill/negative_dim", "index_fill", [x((2, 3, 4), 1341), IX([1, 3])], ifl, {"dim": -1, "value": -1.0})
    yield case("index_fill/0d_index", "index_fill", [x((3, 4), 1342), In(1, "int64")], ifl, {"dim": 1, "value": 0.0})
    yield case("index_fill/int", "index_fill", [In([1, 2, 3, 4], "int64", [2, 2]), IX([1])], ifl, {"dim": 1, "value": -7})
    yield case("index_fill/bool", "index_fill", [In([True, False, True, False], "bool"), IX([0, 1])], ifl, {"dim": 0, "value": False})
    yield case("index_fill/transposed", "index_fill", [x((4, 3), 1343, view=[["t"]]), IX([0, 3])], ifl, {"dim": 1, "value": 9.0})
    yield case("index_fill/negative_index", "index_fill", [x((3, 4), 1344), IX([-1])], ifl, {"dim": 0, "value": 2.0})
    yield case("index_fill/nan", "index_fill", [x((2, 3), 1345), IX([1])], ifl, {"dim": 1, "value": "nan"})
    yield case("index_fill/float_index_error", "index_fill", [x((2, 3), 1347), In([1.0])], ifl, {"dim": 1, "value": 0.0})
    ms = lambda t, mk, src: t.masked_scatter(mk, src)
    mask = In([True, False, True, False, False, True, True, False, False, False, True, True], "bool", [3, 4])
    yield case("masked_scatter/exact", "masked_scatter", [x((3, 4), 1350), mask, x((6,), 1351)], ms)
    yield case("masked_scatter/broadcast_mask", "masked_scatter", [x((3, 4), 1352), In([False, True, True, False], "bool"), x((2, 4), 1353)], ms)
    yield case("masked_scatter/transposed", "masked_scatter", [x((4, 3), 1354, view=[["t"]]), mask, x((12,), 1355)], ms)
    yield case("masked_scatter/int", "masked_scatter", [In([1, 2, 3, 4], "int64"), In([True, False, False, True], "bool"), In([7, 8, 9], "int64")], ms)
    yield case("masked_scatter/none_true", "masked_scatter", [x((2, 2), 1356), In([False, False], "bool"), x((2,), 1357)], ms)
    yield case("masked_scatter/dtype_error", "masked_scatter", [x((2, 2), 1358), In([True, False], "bool"), In([1, 2], "int64")], ms,
               contains="expected self and source to have same dtypes but got")


def stats_cases():
    nmed = lambda t, **k: torch.nanmedian(t, **k)
    # No all-NaN row along a dim: torch's index there is whatever its partial sort left.
    rows = In([[1.0, NAN, 3.0, 2.0], [NAN, NAN, -1.0, 4.0], [NAN, 0.5, NAN, NAN]])
    yield case("nanmedian/dim0_keepdim", "nanmedian", [rows], nmed, {"dim": 0, "keepdim": True})
    yield case("nanmedian/rows_with_nan", "nanmedian", [rows], nmed, {"dim": -1})
    yield case("nanmedian/no_nan", "nanmedian", [x((3, 5), 1360)], nmed, {"dim": 1})
    yield case("nanmedian/no_nan_all", "nanmedian", [x((3, 5), 1361)], nmed)
    yield case("nanmedian/all_nan", "nanmedian", [In([NAN, NAN])], nmed)
    yield case("nanmedian/all_ties", "nanmedian", [In([2.0, NAN, 1.0, 2.0, 3.0, 2.0])], nmed)
    yield case("nanmedian/int", "nanmedian", [In([5, 1, 4, 2, 3], "int64")], nmed, {"dim": 0})
    yield case("nanmedian/transposed", "nanmedian", [x((4, 3), 1362, view=[["t"]])], nmed, {"dim": 1})
    yield case("nanmedian/0d", "nanmedian", [In(2.5)], nmed, {"dim": 0})
    yield case("nanmedian/even_count", "nanmedian", [In([4.0, NAN, 1.0, 3.0, 2.0])], nmed, {"dim": 0})
    med = lambda t, **k: torch.median(t, **k)
    yield case("median/even_count", "median", [In([4.0, 1.0, 3.0, 2.0])], med)
    yield case("median/3d_middle", "median", [x((2, 3, 2), 1363)], med, {"dim": 1, "keepdim": True})
    yield case("median/int_all", "median", [In([5, 1, 4, 2], "int64")], med)
    yield case("median/nan_all", "median", [In([1.0, NAN, 2.0, NAN])], med)
    yield case("median/all_ties", "median", [In([1.0, 2.0, 1.0, 2.0, 3.0], shape=[5])], med)
    yield case("median/all_ties_2d", "median", [In([1.0, 1.0, 0.0, 5.0, 1.0, 7.0], shape=[2, 3], view=[["t"]])], med)
    nq = lambda t, q, **k: torch.nanquantile(t, q, **k)
    data = In([[1.0, NAN, 3.0, 2.0, 5.0], [NAN, 4.0, -1.0, 0.0, NAN]])
    for i, interp in enumerate(["linear", "lower", "higher", "midpoint", "nearest"]):
        yield case(f"nanquantile/{interp}", "nanquantile", [data], nq, {"q": 0.35, "dim": 1, "interpolation": interp})
    yield case("nanquantile/all", "nanquantile", [data], nq, {"q": 0.5})
    yield case("nanquantile/keepdim", "nanquantile", [data], nq, {"q": 0.25, "dim": 1, "keepdim": True})
    yield case("nanquantile/tensor_q", "nanquantile", [data, In([0.0, 0.5, 1.0])], nq, {"dim": 1})
    yield case("nanquantile/no_nan_grad", "nanquantile", [x((3, 4), 1364)], nq, {"q": 0.6, "dim": 0})
    yield case("nanquantile/dim0", "nanquantile", [data], nq, {"q": 0.5, "dim": 0})
    yield case("nanquantile/bad_q", "nanquantile", [data], nq, {"q": -0.1})
    yield case("nanquantile/int_error", "nanquantile", [In([1, 2], "int64")], nq, {"q": 0.5})
    q = lambda t, q, **k: torch.quantile(t, q, **k)
    yield case("quantile/transposed", "quantile", [x((4, 3), 1365, view=[["t"]])], q, {"q": 0.2, "dim": 1})
    yield case("quantile/0d_q_tensor", "quantile", [x((5,), 1366), In(0.4)], q)
    kth = lambda t, k, **kw: torch.kthvalue(t, k, **kw)
    yield case("kthvalue/1d", "kthvalue", [x((6,), 1370)], kth, {"k": 1})
    yield case("kthvalue/last", "kthvalue", [x((2, 5), 1371)], kth, {"k": 5, "dim": 1})
    yield case("kthvalue/int", "kthvalue", [In([5, 1, 4, 2, 3], "int64")], kth, {"k": 2})
    yield case("kthvalue/transposed", "kthvalue", [x((4, 3), 1372, view=[["t"]])], kth, {"k": 2, "dim": 0})
    yield case("kthvalue/0d", "kthvalue", [In(3.0)], kth, {"k": 1})
    yield case("kthvalue/k0_error", "kthvalue", [x((4,), 1373)], kth, {"k": 0})
    cmn = lambda t, dim: torch.cummin(t, dim)
    cmx = lambda t, dim: torch.cummax(t, dim)
    for op, f in [("cummin", cmn), ("cummax", cmx)]:
        yield case(f"{op}/dim0_grad", op, [x((4, 3), 1380)], f, {"dim": 0})
        yield case(f"{op}/int_repeats", op, [In([3, 1, 4, 1, 5, 0], "int64")], f, {"dim": 0})
        yield case(f"{op}/bool", op, [In([True, False, True, True], "bool")], f, {"dim": 0})
        yield case(f"{op}/nan_middle", op, [In([1.0, NAN, -1.0, 3.0])], f, {"dim": 0})
        yield case(f"{op}/inf", op, [In([INF, -INF, 0.0, INF])], f, {"dim": 0})
        yield case(f"{op}/0d", op, [In(1.5)], f, {"dim": 0})
        yield case(f"{op}/empty", op, [In([], shape=[0, 2])], f, {"dim": 0})
        yield case(f"{op}/3d", op, [x((2, 3, 2), 1381)], f, {"dim": 1})
        yield case(f"{op}/stepped", op, [x((3, 6), 1382, view=[["slice", 1, 0, None, 2]])], f, {"dim": 1})
        yield case(f"{op}/dim_error", op, [x((2, 2), 1383)], f, {"dim": 2})


def cases():
    yield from divide_cases()
    yield from conversion_cases()
    yield from ternary_cases()
    yield from sort_search_cases()
    yield from masked_fill_cases()
    yield from like_cases()
    yield from put_cases()
    yield from stats_cases()
