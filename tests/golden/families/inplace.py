"""In-place ops (`add_`, `exp_`, `clamp_`, `masked_fill_`, `index_add_`, `scatter_`, `copy_`, …).

Forward cases write into a fresh input (also through a transposed view); backward cases write
into a `clone()` of a leaf that requires grad (the view step "clone"), so torch records the
in-place op and the gradient reaches the leaf through it. Predicates and integer-only ops have
forward cases only (their results carry no gradient).
"""
import torch

from .common import In, Num, case, floats, ints

UNARY = [
    ("abs", -3, 3), ("neg", -3, 3), ("exp", -3, 3), ("exp2", -3, 3), ("expm1", -3, 3),
    ("log", 0.1, 5), ("log2", 0.1, 5), ("log10", 0.1, 5), ("log1p", -0.9, 5), ("sqrt", 0.1, 5),
    ("rsqrt", 0.1, 5), ("sin", -3, 3), ("cos", -3, 3), ("tan", -1.4, 1.4), ("asin", -0.95, 0.95),
    ("acos", -0.95, 0.95), ("atan", -3, 3), ("sinh", -3, 3), ("cosh", -3, 3), ("tanh", -3, 3),
    ("asinh", -3, 3), ("acosh", 1.05, 5), ("atanh", -0.95, 0.95), ("sigmoid", -6, 6),
    ("relu", -3, 3), ("erf", -3, 3), ("erfc", -3, 3), ("floor", -3, 3), ("ceil", -3, 3),
    ("round", -3, 3), ("trunc", -3, 3), ("frac", -3, 3), ("sign", -3, 3),
    ("reciprocal", 0.2, 3), ("square", -3, 3),
]

# (name, low, high of self, low, high of other)
BINARY = [
    ("add", -3, 3, -3, 3), ("sub", -3, 3, -3, 3), ("mul", -3, 3, -3, 3),
    ("div", -3, 3, 0.5, 3), ("remainder", -3, 3, 0.5, 3), ("fmod", -3, 3, 0.5, 3),
    ("pow", 0.5, 3, -2, 2), ("atan2", -3, 3, -3, 3), ("clamp_min", -3, 3, -1, 1),
    ("clamp_max", -3, 3, -1, 1),
]
PREDICATES = ["eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor"]
BITWISE = ["bitwise_and", "bitwise_or", "bitwise_xor"]

CLONE = [["clone"]]


def m(name):
    return lambda t, *a, **k: getattr(t, name)(*a, **k)


def table_cases():
    for i, (name, lo, hi) in enumerate(UNARY):
        op = name + "_"
        yield case(f"{op}/f32", op, [In(floats(6, lo, hi, 300 + i), shape=[2, 3], view=CLONE)], m(op))
        yield case(f"{op}/transposed", op, [In(floats(6, lo, hi, 340 + i), shape=[3, 2], view=[["t"]])], m(op))
    yield case("neg_/int", "neg_", [In(ints(5, -4, 5, 1), "int64")], m("neg_"))
    yield case("abs_/int", "abs_", [In(ints(5, -4, 5, 2), "int64")], m("abs_"))
    yield case("exp_/int_error", "exp_", [In([1, 2], "int64")], m("exp_"))
    yield case("sqrt_/int_error", "sqrt_", [In([1, 4], "int64")], m("sqrt_"))
    yield case("logical_not_/f32", "logical_not_", [In([0.0, 1.5, -2.0])], m("logical_not_"))
    yield case("bitwise_not_/int", "bitwise_not_", [In([0, 5, -3], "int64")], m("bitwise_not_"))
    yield case("bitwise_not_/bool", "bitwise_not_", [In([True, False], "bool")], m("bitwise_not_"))
    for i, (name, lo, hi, lo2, hi2) in enumerate(BINARY):
        op = name + "_"
        x = lambda s, sh=(2, 3), view=CLONE: In(floats(6, lo, hi, 400 + i + s), shape=list(sh), view=view)
        y = In(floats(6, lo2, hi2, 450 + i), shape=[2, 3])
        yield case(f"{op}/f32", op, [x(0), y], m(op))
        yield case(f"{op}/broadcast", op, [x(1), In(floats(3, lo2, hi2, 470 + i))], m(op))
        if name != "atan2":  # torch's atan2_ takes a tensor only
            yield case(f"{op}/scalar", op, [x(2), Num(1.5)], m(op))
        yield case(f"{op}/transposed", op, [x(3, (3, 2), [["t"]]), y], m(op))
        yield case(f"{op}/shape_error", op, [In(floats(3, lo, hi, 490 + i)), y], m(op))
    yield case("add_/alpha", "add_", [In(floats(4, seed=1), view=CLONE), In(floats(4, seed=2))], m("add_"), {"alpha": 2.5})
    yield case("sub_/alpha", "sub_", [In(floats(4, seed=3), view=CLONE), In(floats(4, seed=4))], m("sub_"), {"alpha": -0.5})
    yield case("add_/int", "add_", [In([1, 2, 3], "int64"), In([4, 5, 6], "int64")], m("add_"))
    yield case("add_/int_float_error", "add_", [In([1, 2, 3], "int64"), In([0.5, 1.5, 2.5])], m("add_"))
    yield case("mul_/int_scalar", "mul_", [In([1, -2, 3], "int64"), Num(3)], m("mul_"))
    yield case("add_/float_int", "add_", [In([0.5, 1.5]), In([1, 2], "int64")], m("add_"))
    yield case("add_/bool_error", "add_", [In([True, False], "bool"), In([1, 2], "int64")], m("add_"))
    for name in PREDICATES:
        op = name + "_"
        yield case(f"{op}/f32", op, [In([0.0, 1.0, 2.0, -1.0]), In([0.0, 2.0, 1.0, -1.0])], m(op))
    for name in BITWISE:
        op = name + "_"
        yield case(f"{op}/int", op, [In([12, 5, -3], "int64"), In([10, 3, 6], "int64")], m(op))
        yield case(f"{op}/float_error", op, [In([1.0, 2.0]), In([1.0, 2.0])], m(op))


def other_cases():
    a = lambda s=0, view=CLONE: In(floats(6, seed=500 + s), shape=[2, 3], view=view)
    b = lambda s=0: In(floats(6, seed=520 + s), shape=[2, 3])
    pos = lambda s=0: In(floats(6, 0.5, 2, seed=540 + s), shape=[2, 3])
    yield case("div_/positive", "div_", [a(0), pos(0)], m("div_"))
    for mode in ["floor", "trunc"]:
        yield case(f"div_/{mode}", "div_", [a(1), pos(1)], lambda t, o, rounding_mode: t.div_(o, rounding_mode=rounding_mode), {"rounding_mode": mode})
    yield case("div_/int_error", "div_", [In([1, 2], "int64"), In([2, 2], "int64")], m("div_"))
    yield case("div_/int_floor", "div_", [In([7, -7], "int64"), In([2, 2], "int64")], lambda t, o, rounding_mode: t.div_(o, rounding_mode=rounding_mode), {"rounding_mode": "floor"})
    yield case("true_divide_/f32", "true_divide_", [a(2), pos(2)], m("true_divide_"))
    yield case("floor_divide_/f32", "floor_divide_", [a(3), pos(3)], m("floor_divide_"))
    cl = lambda t, min=None, max=None: t.clamp_(min=min, max=max)
    yield case("clamp_/both", "clamp_", [a(4)], cl, {"min": -1.0, "max": 0.5})
    yield case("clamp_/min", "clamp_", [a(5)], cl, {"min": 0.0})
    yield case("clamp_/max", "clamp_", [a(6)], cl, {"max": 0.25})
    yield case("clamp_/tensors", "clamp_", [a(7), In([-0.5, 0.0, -1.0]), In([0.5, 1.0, 2.0])], lambda t, lo, hi: t.clamp_(lo, hi))
    yield case("clamp_/none", "clamp_", [a(8)], cl)
    yield case("lerp_/scalar", "lerp_", [a(9), b(9)], lambda t, e, weight: t.lerp_(e, weight), {"weight": 0.3})
    yield case("lerp_/tensor", "lerp_", [a(10), b(10), In(floats(6, 0, 1, 561), shape=[2, 3])], lambda t, e, w: t.lerp_(e, w))
    yield case("addcmul_/value", "addcmul_", [a(11), b(11), b(12)], lambda t, x, y, value: t.addcmul_(x, y, value=value), {"value": 0.5})
    yield case("addcdiv_/value", "addcdiv_", [a(12), b(13), pos(4)], lambda t, x, y, value: t.addcdiv_(x, y, value=value), {"value": -2.0})
    yield case("addcmul_/broadcast", "addcmul_", [a(13), In(floats(3, seed=570)), b(14)], lambda t, x, y: t.addcmul_(x, y))
    yield case("nan_to_num_/f32", "nan_to_num_", [In([float("nan"), float("inf"), -float("inf"), 1.0], view=CLONE)], m("nan_to_num_"), {"nan": 0.5, "posinf": 9.0})
    mask = In([True, False, True, False, False, True], "bool", [2, 3])
    mf = lambda t, mk, value: t.masked_fill_(mk, value)
    yield case("masked_fill_/scalar", "masked_fill_", [a(14), mask], mf, {"value": -7.5})
    yield case("masked_fill_/broadcast_mask", "masked_fill_", [a(15), In([False, True, True], "bool")], mf, {"value": 2.0})
    yield case("masked_fill_/tensor_value", "masked_fill_", [a(16), mask, In(0.25, view=CLONE)], lambda t, mk, v: t.masked_fill_(mk, v))
    yield case("masked_fill_/int", "masked_fill_", [In([1, 2, 3], "int64"), In([True, False, True], "bool")], mf, {"value": 9})
    yield case("masked_fill_/mask_too_big", "masked_fill_", [In(floats(3, seed=580), view=CLONE), mask], mf, {"value": 1.0})
    yield case("masked_fill_/float_mask", "masked_fill_", [a(17), In([1.0, 0.0, 1.0])], mf, {"value": 1.0})
    yield case("masked_fill_/transposed", "masked_fill_", [In(floats(6, seed=581), shape=[3, 2], view=[["t"]]), mask], mf, {"value": 3.0})
    ia = lambda t, i, s, dim, alpha=1: t.index_add_(dim, i, s, alpha=alpha)
    yield case("index_add_/dim0", "index_add_", [In(floats(8, seed=590), shape=[4, 2], view=CLONE), In([2, 0, 2], "int64"), In(floats(6, seed=591), shape=[3, 2])], ia, {"dim": 0})
    yield case("index_add_/dim1_alpha", "index_add_", [a(18), In([2, 0], "int64"), In(floats(4, seed=592), shape=[2, 2])], ia, {"dim": 1, "alpha": -1.5})
    yield case("index_add_/int", "index_add_", [In([0, 0, 0], "int64"), In([1, 1, 2], "int64"), In([5, 6, 7], "int64")], ia, {"dim": 0})
    yield case("index_add_/dtype_error", "index_add_", [In([0.0, 0.0]), In([1], "int64"), In([5], "int64")], ia, {"dim": 0})
    sc = lambda t, i, s, dim: t.scatter_(dim, i, s)
    yield case("scatter_/src", "scatter_", [In(floats(6, seed=600), shape=[2, 3], view=CLONE), In([[2, 0], [1, 2]], "int64"), In(floats(4, seed=601), shape=[2, 2])], sc, {"dim": 1})
    yield case("scatter_/dim0", "scatter_", [In(floats(6, seed=602), shape=[3, 2], view=CLONE), In([[2, 0]], "int64"), In(floats(2, seed=603), shape=[1, 2])], sc, {"dim": 0})
    yield case("scatter_/value", "scatter_", [In(floats(6, seed=604), shape=[2, 3], view=CLONE), In([[1], [0]], "int64")], lambda t, i, dim, value: t.scatter_(dim, i, value), {"dim": 1, "value": 9.5})
    yield case("scatter_add_/dup", "scatter_add_", [In(floats(6, seed=605), shape=[2, 3], view=CLONE), In([[0, 0, 2], [1, 1, 1]], "int64"), In(floats(6, seed=606), shape=[2, 3])], lambda t, i, s, dim: t.scatter_add_(dim, i, s), {"dim": 1})
    yield case("copy_/same", "copy_", [a(19), b(19)], lambda t, s: t.copy_(s))
    yield case("copy_/broadcast", "copy_", [a(20), In(floats(3, seed=610))], lambda t, s: t.copy_(s))
    yield case("copy_/int_src", "copy_", [a(21), In([1, 2, 3], "int64")], lambda t, s: t.copy_(s))
    yield case("copy_/to_int", "copy_", [In([0, 0, 0], "int64"), In([1.7, -2.2, 3.9])], lambda t, s: t.copy_(s))
    yield case("copy_/transposed_dest", "copy_", [In(floats(6, seed=611), shape=[3, 2], view=[["t"]]), b(22)], lambda t, s: t.copy_(s))
    yield case("copy_/shape_error", "copy_", [a(23), In(floats(4, seed=612))], lambda t, s: t.copy_(s))
    yield case("fill_/f32", "fill_", [a(24)], lambda t, value: t.fill_(value), {"value": 2.5})
    yield case("fill_/int", "fill_", [In([1, 2], "int64")], lambda t, value: t.fill_(value), {"value": 7})
    yield case("zero_/f32", "zero_", [a(25)], m("zero_"))
    yield case("zero_/transposed", "zero_", [In(floats(6, seed=613), shape=[3, 2], view=[["t"]])], m("zero_"))


def chained_cases():
    """Several in-place ops in a row on one tensor (one golden op each, so the runner's chain of
    view steps does the earlier ones)."""
    x = In(floats(6, seed=620), shape=[2, 3], view=[["clone"], ["mul_", 2.0], ["add_", 1.0]])
    yield case("exp_/after_inplace", "exp_", [x], m("exp_"))
    y = In(floats(6, 0.5, 2, seed=621), shape=[2, 3], view=[["clone"], ["sqrt_"]])
    yield case("mul_/after_sqrt_", "mul_", [y, In(floats(6, seed=622), shape=[2, 3])], m("mul_"))


def cases():
    yield from table_cases()
    yield from other_cases()
    yield from chained_cases()
