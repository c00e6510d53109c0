"""Indexing with tensors and assignment by index: `t[idx]`, `t[mask]`, `t[...] = v`,
`index_put(_)`, `index_fill(_)`, `masked_scatter(_)`, and the ops whose output shape depends on
the values (`nonzero`, `masked_select`, `unique`, `repeat_interleave` with a repeats tensor).

Subscripts are encoded as the catalog's `indices` list: an int, None, "...", [start, stop, step],
or {"input": k} for the k-th input tensor (an input named in args is passed only there).
"""
import torch

from .common import In, case, floats

CLONE = [["clone"]]


def ref(k):
    return {"input": k}


def sub(items, tensors):
    """The Python subscript of an encoded `indices` list."""
    out = []
    for it in items:
        if isinstance(it, dict):
            out.append(tensors[it["input"]])
        elif isinstance(it, list):
            out.append(slice(*it))
        elif it == "...":
            out.append(Ellipsis)
        else:
            out.append(it)
    return tuple(out)


def getitem(items):
    return lambda *ts, indices: ts[0][sub(items, ts)]


def setitem(items, value_input=None):
    def f(*ts, indices, value=None):
        t = ts[0]
        t[sub(items, ts)] = ts[value_input] if value_input is not None else value
        return t
    return f


def index_cases():
    a = lambda s=0, view=(): In(floats(12, seed=700 + s), shape=[3, 4], view=view)
    IX = lambda d, shape=None: In(d, "int64", shape)
    mask = In([True, False, True], "bool")
    mask2 = In([True, False, True, False, False, True, True, False, False, False, True, True], "bool", [3, 4])
    cases = [
        ("int_1d", [a(0), IX([2, 0, 2])], [ref(1)]),
        ("int_2d", [a(1), IX([[0, 1], [2, 2]])], [ref(1)]),
        ("int_0d", [a(2), In(1, "int64")], [ref(1)]),
        ("int_negative", [a(3), IX([-1, 0])], [ref(1)]),
        ("int_after_slice", [a(4), IX([3, 1])], [[None, None, None], ref(1)]),
        ("two_ints", [a(5), IX([0, 2, 1]), IX([3, 0, 1])], [ref(1), ref(2)]),
        ("two_ints_broadcast", [a(6), IX([[0], [2]]), IX([1, 3])], [ref(1), ref(2)]),
        ("mask_rows", [a(7), mask], [ref(1)]),
        ("mask_all", [a(8), mask2], [ref(1)]),
        ("mask_none_true", [a(9), In([False, False, False], "bool")], [ref(1)]),
        ("mask_transposed_self", [a(10, [["t"]]), In([True, False, False, True], "bool")], [ref(1)]),
        ("mask_wrong_shape", [a(11), In([True, False], "bool")], [ref(1)]),
    ]
    for name, inputs, items in cases:
        # A boolean mask's result shape depends on its values: its own golden op, so browser
        # surfaces (which cannot read back inside a synchronous call) can mark just those.
        op = "index_mask" if name.startswith("mask") else "index"
        yield case(f"{op}/{name}", op, inputs, getitem(items), {"indices": items})


def setitem_cases():
    a = lambda s=0, view=CLONE: In(floats(12, seed=720 + s), shape=[3, 4], view=view)
    IX = lambda d, shape=None: In(d, "int64", shape)
    v = lambda shape, s=0: In(floats(max(1, int(torch.tensor(shape).prod())), seed=740 + s), shape=shape)
    mask = In([True, False, True], "bool")
    mask2 = In([True, False, True, False, False, True, True, False, False, False, True, True], "bool", [3, 4])
    scalar = [
        ("int", [1]), ("slice", [[0, 2, None]]), ("int_int", [2, 1]), ("slice_step", [[None, None, None], [0, None, 2]]),
        ("ellipsis", ["...", 3]), ("negative", [-1, [1, None, None]]),
    ]
    for i, (name, items) in enumerate(scalar):
        yield case(f"__setitem__/scalar_{name}", "__setitem__", [a(i)], setitem(items), {"indices": items, "value": 2.5})
    tensor_value = [
        ("row", [1], [4]), ("block", [[0, 2, None], [1, 3, None]], [2, 2]), ("broadcast_row", [[0, 2, None]], [4]),
        ("column", [[None, None, None], 2], [3]), ("leading_one", [0], [1, 4]),
    ]
    for i, (name, items, shape) in enumerate(tensor_value):
        yield case(f"__setitem__/tensor_{name}", "__setitem__", [a(10 + i), v(shape, i)], setitem(items, 1), {"indices": items, "value": ref(1)})
    yield case("__setitem__/shape_mismatch", "__setitem__", [a(20), v([3])], setitem([1], 1), {"indices": [1], "value": ref(1)})
    yield case("__setitem__/idx_scalar", "__setitem__", [a(21), IX([2, 0])], setitem([ref(1)]), {"indices": [ref(1)], "value": -1.0})
    yield case("__setitem__/idx_rows", "__setitem__", [a(22), IX([2, 0]), v([2, 4], 7)], setitem([ref(1)], 2), {"indices": [ref(1)], "value": ref(2)})
    yield case("__setitem__/two_idx", "__setitem__", [a(23), IX([0, 2]), IX([3, 1]), v([2], 8)], setitem([ref(1), ref(2)], 3), {"indices": [ref(1), ref(2)], "value": ref(3)})
    yield case("__setitem__/mask_scalar", "__setitem__", [a(24), mask], setitem([ref(1)]), {"indices": [ref(1)], "value": 0.0})
    yield case("__setitem__/mask_full_scalar", "__setitem__", [a(25), mask2], setitem([ref(1)]), {"indices": [ref(1)], "value": 7.0})
    yield case("__setitem__/mask_rows", "__setitem__", [a(26), mask, v([2, 4], 9)], setitem([ref(1)], 2), {"indices": [ref(1)], "value": ref(2)})
    yield case("__setitem__/mask_row_broadcast", "__setitem__", [a(27), mask, v([4], 10)], setitem([ref(1)], 2), {"indices": [ref(1)], "value": ref(2)})
    yield case("__setitem__/mask_elements", "__setitem__", [a(28), mask2, v([6], 11)], setitem([ref(1)], 2), {"indices": [ref(1)], "value": ref(2)})
    yield case("__setitem__/int_tensor", "__setitem__", [In([1, 2, 3, 4], "int64"), IX([0, 3])], setitem([ref(1)]), {"indices": [ref(1)], "value": 9})


def put_cases():
    a = lambda s=0, view=CLONE: In(floats(12, seed=760 + s), shape=[3, 4], view=view)
    IX = lambda d, shape=None: In(d, "int64", shape)
    v = lambda n, s=0, shape=None: In(floats(n, seed=780 + s), shape=shape)
    ip_ = lambda t, i, j, vals, indices=None, values=None, accumulate=False: t.index_put_((i, j), vals, accumulate=accumulate)
    ip1_ = lambda t, i, vals, indices=None, values=None, accumulate=False: t.index_put_((i,), vals, accumulate=accumulate)
    yield case("index_put_/two", "index_put_", [a(0), IX([0, 2]), IX([1, 3]), v(2, 0)], ip_, {"indices": [ref(1), ref(2)], "values": ref(3)})
    yield case("index_put_/accumulate_dup", "index_put_", [a(1), IX([0, 0, 2]), IX([1, 1, 3]), v(3, 1)], ip_, {"indices": [ref(1), ref(2)], "values": ref(3), "accumulate": True})
    yield case("index_put_/rows", "index_put_", [a(2), IX([2, 0]), v(8, 2, [2, 4])], ip1_, {"indices": [ref(1)], "values": ref(2)})
    yield case("index_put_/rows_broadcast", "index_put_", [a(3), IX([1]), v(4, 3)], ip1_, {"indices": [ref(1)], "values": ref(2)})
    yield case("index_put_/accumulate_rows", "index_put_", [a(4), IX([1, 1]), v(8, 4, [2, 4])], ip1_, {"indices": [ref(1)], "values": ref(2), "accumulate": True})
    yield case("index_put_/int", "index_put_", [In([1, 2, 3], "int64"), IX([2]), In([9], "int64")], ip1_, {"indices": [ref(1)], "values": ref(2)})
    yield case("index_put/two", "index_put", [a(5, ()), IX([1, 2]), IX([0, 0]), v(2, 5)], lambda t, i, j, vals, indices=None, values=None: torch.index_put(t, (i, j), vals), {"indices": [ref(1), ref(2)], "values": ref(3)})
    ifl = lambda t, i, dim, value: t.index_fill(dim, i, value)
    ifl_ = lambda t, i, dim, value: t.index_fill_(dim, i, value)
    yield case("index_fill/dim1", "index_fill", [a(6, ()), IX([0, 3])], ifl, {"dim": 1, "value": -2.0})
    yield case("index_fill_/dim0", "index_fill_", [a(7), IX([2])], ifl_, {"dim": 0, "value": 4.5})
    yield case("index_fill_/dup", "index_fill_", [a(8), IX([1, 1, 3])], ifl_, {"dim": -1, "value": 0.0})
    yield case("index_fill_/tensor_value", "index_fill_", [a(9), IX([0]), In(1.25, view=CLONE)], lambda t, i, val, dim, value=None: t.index_fill_(dim, i, val), {"dim": 0, "value": ref(2)})
    yield case("index_fill_/int", "index_fill_", [In([1, 2, 3], "int64"), IX([0, 2])], ifl_, {"dim": 0, "value": 7})
    mask = In([True, False, True, False, False, True, True, False, False, False, True, True], "bool", [3, 4])
    ms = lambda t, mk, src: t.masked_scatter(mk, src)
    ms_ = lambda t, mk, src: t.masked_scatter_(mk, src)
    yield case("masked_scatter/full", "masked_scatter", [a(10, ()), mask, v(12, 10, [3, 4])], ms)
    yield case("masked_scatter_/exact", "masked_scatter_", [a(11), mask, v(6, 11)], ms_)
    yield case("masked_scatter_/broadcast_mask", "masked_scatter_", [a(12), In([True, False, False, True], "bool"), v(6, 12)], ms_)
    yield case("masked_scatter_/float_mask", "masked_scatter_", [a(13), In([1.0, 0.0, 1.0, 0.0]), v(6, 13)], ms_)


def data_dependent_cases():
    x = lambda s=0, view=(): In(floats(12, seed=800 + s), shape=[3, 4], view=view)
    mask = In([True, False, True, False, False, True, True, False, False, False, True, True], "bool", [3, 4])
    yield case("nonzero/f32", "nonzero", [In([[0.0, 1.5, 0.0], [2.0, 0.0, -1.0]])], torch.nonzero)
    yield case("nonzero/bool", "nonzero", [mask], torch.nonzero)
    yield case("nonzero/int_1d", "nonzero", [In([0, 3, 0, 4], "int64")], torch.nonzero)
    yield case("nonzero/none", "nonzero", [In([0.0, 0.0])], torch.nonzero)
    yield case("nonzero/0d", "nonzero", [In(2.0)], torch.nonzero)
    yield case("nonzero/as_tuple", "nonzero", [mask], lambda t, as_tuple: torch.nonzero(t, as_tuple=as_tuple), {"as_tuple": True})
    yield case("masked_select/same", "masked_select", [x(0), mask], torch.masked_select)
    yield case("masked_select/broadcast", "masked_select", [x(1), In([True, False, False, True], "bool")], torch.masked_select)
    yield case("masked_select/transposed", "masked_select", [x(2, [["t"]]), In([True, False, True], "bool")], torch.masked_select)
    yield case("masked_select/float_mask", "masked_select", [x(3), In([1.0, 0.0, 1.0, 0.0])], torch.masked_select)
    u = lambda t, **k: torch.unique(t, **k)
    data = In([3.0, 1.0, 2.0, 3.0, 1.0, -0.5, 2.0, 2.0], shape=[2, 4])
    yield case("unique/sorted", "unique", [data], u)
    yield case("unique/inverse", "unique", [data], u, {"return_inverse": True})
    yield case("unique/counts", "unique", [data], u, {"return_counts": True})
    yield case("unique/both", "unique", [data], u, {"return_inverse": True, "return_counts": True})
    yield case("unique/int", "unique", [In([5, 1, 5, 5, -2], "int64")], u, {"return_counts": True})
    yield case("unique/bool", "unique", [In([True, True, False], "bool")], u)
    yield case("unique/unsorted_arg", "unique", [In([2.0, 1.0, 2.0])], u, {"sorted": False})
    yield case("unique/empty", "unique", [In([], shape=[0])], u, {"return_counts": True})
    ri = lambda t, r, **k: torch.repeat_interleave(t, r, **k)
    yield case("repeat_interleave_tensor/flat", "repeat_interleave_tensor", [x(4), In([1, 0, 2] * 4, "int64")], ri)
    yield case("repeat_interleave_tensor/dim0", "repeat_interleave_tensor", [x(5), In([2, 0, 1], "int64")], ri, {"dim": 0})
    yield case("repeat_interleave_tensor/dim1", "repeat_interleave_tensor", [x(6), In([1, 3, 0, 1], "int64")], ri, {"dim": 1})
    yield case("repeat_interleave_tensor/one", "repeat_interleave_tensor", [x(7), In([2], "int64")], ri, {"dim": 1})
    yield case("repeat_interleave_tensor/bad_size", "repeat_interleave_tensor", [x(8), In([2, 1], "int64")], ri, {"dim": 0})
    yield case("repeat_interleave_tensor/negative", "repeat_interleave_tensor", [x(9), In([2, -1, 1], "int64")], ri, {"dim": 0})
    rii = lambda t, repeats, **k: torch.repeat_interleave(t, repeats, **k)
    yield case("repeat_interleave/int_flat", "repeat_interleave", [x(10)], rii, {"repeats": 2})
    yield case("repeat_interleave/int_dim1", "repeat_interleave", [x(11)], rii, {"repeats": 3, "dim": 1})
    yield case("repeat_interleave/int_dim_neg", "repeat_interleave", [x(12, [["t"]])], rii, {"repeats": 2, "dim": -1})
    yield case("repeat_interleave/int_zero", "repeat_interleave", [x(13)], rii, {"repeats": 0, "dim": 0})
    yield case("repeat_interleave/int_0d", "repeat_interleave", [In(1.5)], rii, {"repeats": 3})


def cases():
    yield from index_cases()
    yield from setitem_cases()
    yield from put_cases()
    yield from data_dependent_cases()
