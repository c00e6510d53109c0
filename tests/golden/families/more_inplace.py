"""More in-place cases (issue 10's under-covered ops): every unary in-place op on stepped views of
a clone (backward through the in-place op on a view), 0-d and empty tensors, int64 inputs (where
torch either keeps the dtype or refuses to cast the result back), NaN, infinities and signed zeros;
the binary in-place ops with int64 / 0-d / stepped others; the comparison, logical and bitwise
in-place ops with broadcasting, scalars, int64 and bool selves; floor_divide_ / true_divide_.
"""
import torch

from .common import In, Num, case, floats, ints
from .inplace import BINARY, UNARY

CLONE = [["clone"]]
SPECIALS = [float("nan"), float("inf"), float("-inf"), 0.0, -0.0, 1.0, -1.0, 0.5, 2.5, -2.5]


def forward(c):
    """Only the forward record: borch refuses an in-place op on a view of a tensor that requires
    grad (torch's CopySlices), with a clear error, so these views get no backward case."""
    return c[0] if isinstance(c, list) else c


def m(name):
    return lambda t, *a, **k: getattr(t, name)(*a, **k)


def unary_cases():
    for i, (name, lo, hi) in enumerate(UNARY):
        op = name + "_"
        f = m(op)
        # Columns 0 and 2 of a clone: the in-place write lands in a strided view.
        sliced = In(floats(8, lo, hi, 900 + i), shape=[2, 4], view=[["clone"], ["slice", 1, 0, None, 2]])
        yield forward(case(f"{op}/stepped_view", op, [sliced], f))
        yield case(f"{op}/0d", op, [In(floats(1, lo, hi, 940 + i)[0], view=CLONE)], f)
        yield case(f"{op}/empty", op, [In([], shape=[0, 2])], f)
        ilo, ihi = (max(int(lo), 1), max(int(hi), 2)) if lo > 0 else (int(lo), int(hi) + 1)
        yield case(f"{op}/int64", op, [In(ints(5, ilo, ihi, 980 + i), "int64")], f)
        yield case(f"{op}/specials", op, [In(SPECIALS)], f)
    for op in ["floor_", "ceil_", "round_", "trunc_", "sign_", "abs_", "neg_", "relu_"]:
        yield case(f"{op}/bool", op, [In([True, False, True], "bool")], m(op))
    yield case("round_/half_even", "round_", [In([0.5, 1.5, 2.5, -0.5, -1.5, 3.5])], m("round_"))


def binary_cases():
    for i, (name, lo, hi, lo2, hi2) in enumerate(BINARY):
        op = name + "_"
        f = m(op)
        x = lambda s, view=CLONE: In(floats(6, lo, hi, 1000 + 10 * i + s), shape=[2, 3], view=view)
        if name != "pow":
            ilo2 = int(lo2) if lo2 < 0 else 1
            other = [v if v != 0 else 1 for v in ints(6, ilo2, int(hi2) + 1, 1050 + i)]
            yield case(f"{op}/int_other", op, [x(0), In(other, "int64", [2, 3])], f)
        else:
            yield case(f"{op}/int_other", op, [x(0), In([2, -1, 0, 1, 3, 2], "int64", [2, 3])], f)
        yield case(f"{op}/0d_other", op, [x(1), In(floats(1, lo2, hi2, 1060 + i)[0])], f)
        stepped = In(floats(12, lo, hi, 1070 + i), shape=[2, 6], view=[["clone"], ["slice", 1, 1, None, 2]])
        yield forward(case(f"{op}/stepped_self", op, [stepped, In(floats(3, lo2, hi2, 1080 + i))], f))
        yield case(f"{op}/empty", op, [In([], shape=[0, 3]), In(floats(3, lo2, hi2, 1090 + i))], f)
        yield case(f"{op}/expanded_other", op,
                   [x(2), In(floats(2, lo2, hi2, 1100 + i), shape=[2, 1], view=[["expand", [2, 3]]])], f)
    ints_a = In([7, -7, 9, -3, 0, 5], "int64", [2, 3])
    ints_b = In([2, 2, -4, 5, 3, -2], "int64", [2, 3])
    for name in ["add_", "sub_", "mul_", "remainder_", "fmod_", "clamp_min_", "clamp_max_"]:
        yield case(f"{name}/int64", name, [ints_a, ints_b], m(name))
    yield case("pow_/int64", "pow_", [In([2, -3, 4, 0], "int64"), In([3, 2, 0, 5], "int64")], m("pow_"))
    yield case("pow_/int_negative_exponent", "pow_", [In([2, 3], "int64"), In([-1, 2], "int64")], m("pow_"))
    yield case("mul_/int_self_float_scalar", "mul_", [In([1, 2, 3], "int64"), Num(1.5)], m("mul_"))
    yield case("add_/int_self_bool", "add_", [In([1, 2, 3], "int64"), In([True, False, True], "bool")], m("add_"))
    yield case("sub_/bool_error", "sub_", [In([True, False], "bool"), In([True, True], "bool")], m("sub_"))
    yield case("div_/zero", "div_", [In([1.0, -1.0, 0.0, 2.0]), In([0.0, 0.0, 0.0, -0.0])], m("div_"))
    yield case("remainder_/negative_divisor", "remainder_", [In([5.0, -5.0, 5.5, -0.5], view=CLONE), In([-3.0, 3.0, -2.0, -2.0])], m("remainder_"))
    yield case("fmod_/negative_divisor", "fmod_", [In([5.0, -5.0, 5.5, -0.5], view=CLONE), In([-3.0, 3.0, -2.0, -2.0])], m("fmod_"))
    yield case("pow_/scalar_tensor_exp", "pow_", [In([0.5, 1.5, 2.0, 3.0], view=CLONE), In(2.0)], m("pow_"))
    yield case("atan2_/signed_zeros", "atan2_", [In([0.0, -0.0, 0.0, -0.0, 1.0]), In([0.0, 0.0, -0.0, -0.0, float("inf")])], m("atan2_"))


PREDICATES = ["eq", "ne", "lt", "le", "gt", "ge"]


def predicate_cases():
    a = lambda s, view=(): In([0.0, 1.0, 2.0, -1.0, 2.0, float("nan")], shape=[2, 3], view=view)
    for i, name in enumerate(PREDICATES):
        op = name + "_"
        f = m(op)
        yield case(f"{op}/broadcast", op, [a(0), In([1.0, 2.0, -1.0])], f)
        yield case(f"{op}/scalar", op, [a(1), Num(1.0)], f)
        yield case(f"{op}/int_scalar", op, [a(2), Num(2)], f)
        yield case(f"{op}/transposed", op, [In(floats(6, seed=1110 + i), shape=[3, 2], view=[["t"]]), In(floats(6, seed=1120 + i), shape=[2, 3])], f)
        yield case(f"{op}/int64", op, [In([1, 5, -2, 3], "int64"), In([1, 4, 0, 3], "int64")], f)
        yield case(f"{op}/int_self_float_other", op, [In([1, 2, 3], "int64"), In([1.5, 2.0, 2.5])], f)
        yield case(f"{op}/bool", op, [In([True, False, True, False], "bool"), In([True, True, False, False], "bool")], f)
        yield case(f"{op}/shape_error", op, [In([1.0, 2.0, 3.0]), In(floats(6, seed=1130 + i), shape=[2, 3])], f)
        yield case(f"{op}/0d_self", op, [In(1.0), In(1.0)], f)
    for name in ["logical_and", "logical_or", "logical_xor"]:
        op = name + "_"
        f = m(op)
        yield case(f"{op}/broadcast", op, [In([0.0, 1.0, -2.0, 0.0, 3.0, 0.0], shape=[2, 3]), In([1.0, 0.0, 2.0])], f)
        yield case(f"{op}/int64", op, [In([0, 3, -1, 0], "int64"), In([2, 0, 0, 0], "int64")], f)
        yield case(f"{op}/bool", op, [In([True, False, True, False], "bool"), In([True, True, False, False], "bool")], f)
        yield case(f"{op}/float_self_bool_other", op, [In([0.0, 2.5, float("nan"), 0.0]), In([True, False, True, True], "bool")], f)
    for name in ["bitwise_and", "bitwise_or", "bitwise_xor"]:
        op = name + "_"
        f = m(op)
        yield case(f"{op}/scalar", op, [In([12, 5, -3, 0], "int64"), Num(6)], f)
        yield case(f"{op}/bool", op, [In([True, False, True, False], "bool"), In([True, True, False, False], "bool")], f)
        yield case(f"{op}/broadcast", op, [In([12, 5, -3, 0, 7, 9], "int64", [2, 3]), In([1, 2, 4], "int64")], f)
        yield case(f"{op}/bool_self_int_error", op, [In([True, False], "bool"), In([1, 2], "int64")], f)
    yield case("logical_not_/int64", "logical_not_", [In([0, 3, -1], "int64")], m("logical_not_"))
    yield case("logical_not_/bool", "logical_not_", [In([True, False], "bool")], m("logical_not_"))


def divide_cases():
    a = lambda s, view=CLONE: In(floats(6, seed=1140 + s), shape=[2, 3], view=view)
    for op in ["floor_divide_", "true_divide_"]:
        f = m(op)
        yield case(f"{op}/broadcast", op, [a(0), In([0.5, -1.5, 2.0])], f)
        yield case(f"{op}/scalar", op, [a(1), Num(-0.75)], f)
        yield case(f"{op}/int_other", op, [a(2), In([2, -3, 1], "int64")], f)
        yield case(f"{op}/transposed", op, [In(floats(6, seed=1150), shape=[3, 2], view=[["t"]]), In([1.5, -2.0, 0.5])], f)
        yield case(f"{op}/zero_divisor", op, [In([1.0, -1.0, 0.0]), In([0.0, 0.0, 0.0])], f)
    yield case("floor_divide_/int64", "floor_divide_", [In([7, -7, 7, -7, 0], "int64"), In([2, 2, -2, -2, 3], "int64")], m("floor_divide_"))
    yield case("floor_divide_/int_scalar", "floor_divide_", [In([7, -7, 8], "int64"), Num(3)], m("floor_divide_"))
    yield case("floor_divide_/int_float_error", "floor_divide_", [In([7, -7], "int64"), In([2.5, 2.0])], m("floor_divide_"))
    yield case("true_divide_/int_error", "true_divide_", [In([7, -7], "int64"), In([2, 2], "int64")], m("true_divide_"))
    yield case("div_/trunc_int", "div_", [In([7, -7, 9], "int64"), In([2, 2, -4], "int64")],
               lambda t, o, rounding_mode: t.div_(o, rounding_mode=rounding_mode), {"rounding_mode": "trunc"})
    yield case("div_/floor_scalar", "div_", [a(3), Num(0.4)],
               lambda t, o, rounding_mode: t.div_(o, rounding_mode=rounding_mode), {"rounding_mode": "floor"})


def other_cases():
    a = lambda s, view=CLONE: In(floats(6, seed=1160 + s), shape=[2, 3], view=view)
    pos = lambda s: In(floats(6, 0.5, 2, seed=1180 + s), shape=[2, 3])
    yield case("bitwise_not_/transposed", "bitwise_not_", [In([1, -2, 0, 7, 5, -9], "int64", [3, 2], view=[["t"]])], m("bitwise_not_"))
    yield case("bitwise_not_/float_error", "bitwise_not_", [In([1.0, 2.0])], m("bitwise_not_"))
    yield case("addcdiv_/broadcast", "addcdiv_", [a(0), In(floats(3, seed=1190)), pos(0)], lambda t, x, y, value: t.addcdiv_(x, y, value=value), {"value": 0.5})
    yield case("addcdiv_/transposed_self", "addcdiv_", [In(floats(6, seed=1191), shape=[3, 2], view=[["t"]]), a(1, ()), pos(1)], lambda t, x, y: t.addcdiv_(x, y))
    yield case("addcdiv_/int_error", "addcdiv_", [In([1, 2], "int64"), In([3, 4], "int64"), In([5, 6], "int64")], lambda t, x, y: t.addcdiv_(x, y))
    yield case("addcmul_/int", "addcmul_", [In([1, 2], "int64"), In([3, 4], "int64"), In([5, 6], "int64")], lambda t, x, y, value: t.addcmul_(x, y, value=value), {"value": 2})
    yield case("addcmul_/self_broadcast_error", "addcmul_", [In(floats(3, seed=1192)), a(2, ()), a(3, ())], lambda t, x, y: t.addcmul_(x, y))
    yield case("nan_to_num_/defaults", "nan_to_num_", [In([float("nan"), float("inf"), -float("inf"), -2.0], view=CLONE)], m("nan_to_num_"))
    yield case("nan_to_num_/int", "nan_to_num_", [In([1, -2, 3], "int64")], m("nan_to_num_"))
    yield case("nan_to_num_/neginf", "nan_to_num_", [In([float("nan"), -float("inf"), 1.5], view=CLONE)], m("nan_to_num_"), {"neginf": -5.0})
    sa = lambda t, i, s, dim: t.scatter_add_(dim, i, s)
    yield case("scatter_add_/dim0", "scatter_add_", [In(floats(6, seed=1193), shape=[3, 2], view=CLONE), In([[2, 0], [2, 2]], "int64"), In(floats(4, seed=1194), shape=[2, 2])], sa, {"dim": 0})
    yield case("scatter_add_/int", "scatter_add_", [In([0, 0, 0], "int64"), In([1, 1, 0], "int64"), In([5, 6, 7], "int64")], sa, {"dim": 0})
    yield case("scatter_add_/smaller_index", "scatter_add_", [In(floats(6, seed=1195), shape=[2, 3], view=CLONE), In([[1]], "int64"), In(floats(6, seed=1196), shape=[2, 3])], sa, {"dim": 1})
    fl = lambda t, value: t.fill_(value)
    yield case("fill_/bool", "fill_", [In([True, False], "bool")], fl, {"value": True})
    yield case("fill_/int_float_value", "fill_", [In([1, 2], "int64")], fl, {"value": 2.7})
    yield case("fill_/transposed", "fill_", [In(floats(6, seed=1197), shape=[3, 2], view=[["t"]])], fl, {"value": -1.5})
    yield case("fill_/0d_grad", "fill_", [In(1.0, view=CLONE)], fl, {"value": 3.0})
    yield case("zero_/int", "zero_", [In([1, -2, 3], "int64")], m("zero_"))
    yield case("zero_/bool", "zero_", [In([True, True], "bool")], m("zero_"))
    yield case("zero_/empty", "zero_", [In([], shape=[0, 2])], m("zero_"))
    lp = lambda t, e, weight: t.lerp_(e, weight)
    yield case("lerp_/broadcast_end", "lerp_", [a(4), In(floats(3, seed=1198)), In(floats(6, 0, 1, seed=1199), shape=[2, 3])], lambda t, e, w: t.lerp_(e, w))
    yield case("lerp_/weight_above_half", "lerp_", [a(5), a(6, ())], lp, {"weight": 0.75})
    yield case("lerp_/transposed", "lerp_", [In(floats(6, seed=1200), shape=[3, 2], view=[["t"]]), a(7, ())], lp, {"weight": 0.5})


def cases():
    yield from other_cases()
    yield from unary_cases()
    yield from binary_cases()
    yield from predicate_cases()
    yield from divide_cases()
