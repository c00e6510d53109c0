"""Elementwise ops of borch's op table, against torch: every dtype, broadcasting, scalars,
non-contiguous views, empty and 0-d tensors, NaN and infinities."""
import torch
import torch.nn.functional as F

from .common import In, Num, case, floats, ints

TORCH = {
    "div_floor": lambda a, b: torch.div(a, b, rounding_mode="floor"),
    "div_trunc": lambda a, b: torch.div(a, b, rounding_mode="trunc"),
    "gelu": F.gelu,
    "gelu_tanh": lambda a: F.gelu(a, approximate="tanh"),
    "softplus": F.softplus,
    "silu": F.silu,
    "relu": torch.relu,
    "add": torch.add,
    "sub": torch.sub,
}


def fn(name):
    return TORCH.get(name) or getattr(torch, name)


# (name, low, high) of the float inputs to use: inside each function's domain, away from poles.
UNARY = [
    ("abs", -3, 3), ("neg", -3, 3), ("exp", -3, 3), ("exp2", -3, 3), ("expm1", -3, 3),
    ("log", 0.1, 5), ("log2", 0.1, 5), ("log10", 0.1, 5), ("log1p", -0.9, 5), ("sqrt", 0.1, 5),
    ("rsqrt", 0.1, 5), ("sin", -3, 3), ("cos", -3, 3), ("tan", -1.4, 1.4), ("asin", -0.95, 0.95),
    ("acos", -0.95, 0.95), ("atan", -3, 3), ("sinh", -3, 3), ("cosh", -3, 3), ("tanh", -3, 3),
    ("asinh", -3, 3), ("acosh", 1.05, 5), ("atanh", -0.95, 0.95), ("sigmoid", -6, 6),
    ("relu", -3, 3), ("gelu", -3, 3), ("gelu_tanh", -3, 3), ("silu", -3, 3), ("softplus", -3, 3),
    ("erf", -3, 3), ("erfc", -3, 3), ("floor", -3, 3), ("ceil", -3, 3), ("round", -3, 3),
    ("trunc", -3, 3), ("frac", -3, 3), ("sign", -3, 3), ("reciprocal", 0.2, 3),
    ("square", -3, 3), ("isnan", -3, 3), ("isinf", -3, 3), ("isfinite", -3, 3),
    ("logical_not", -3, 3), ("nan_to_num", -3, 3), ("bitwise_not", -3, 3),
]

SPECIALS = [float("nan"), float("inf"), float("-inf"), 0.0, -0.0, 1.0, -1.0, 0.5, 2.5, -2.5]

BINARY = ["add", "sub", "mul", "div", "div_floor", "div_trunc", "remainder", "fmod", "pow",
          "atan2", "maximum", "minimum", "eq", "ne", "lt", "le", "gt", "ge", "logical_and",
          "logical_or", "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor"]
SCALAR_OK = {"add", "sub", "mul", "div", "div_floor", "div_trunc", "remainder", "fmod", "pow",
             "eq", "ne", "lt", "le", "gt", "ge", "bitwise_and", "bitwise_or", "bitwise_xor"}


def unary_cases():
    for name, lo, hi in UNARY:
        f = fn(name)
        ilo, ihi = (max(int(lo), 1), max(int(hi), 2)) if lo > 0 else (int(lo), int(hi) + 1)
        yield case(f"{name}/f32", name, [In(floats(6, lo, hi, 1), shape=[2, 3])], f)
        yield case(f"{name}/int", name, [In(ints(6, ilo, ihi, 2), "int64", [2, 3])], f)
        yield case(f"{name}/bool", name, [In([True, False, True], "bool")], f)
        yield case(f"{name}/0d", name, [In(floats(1, lo, hi, 3)[0])], f)
        yield case(f"{name}/empty", name, [In([], shape=[0, 3])], f)
        yield case(f"{name}/transposed", name,
                   [In(floats(12, lo, hi, 4), shape=[3, 4], view=[["t"]])], f)
        yield case(f"{name}/stepped", name,
                   [In(floats(24, lo, hi, 5), shape=[4, 6], view=[["slice", 1, 1, None, 2]])], f)
        yield case(f"{name}/expanded", name,
                   [In(floats(3, lo, hi, 6), shape=[1, 3], view=[["expand", [4, 3]]])], f)
        yield case(f"{name}/specials", name, [In(SPECIALS)], f)
    big = floats(5000, -2, 2, 7)
    for name in ["exp", "sigmoid", "relu", "neg", "isnan"]:
        yield case(f"{name}/5000", name, [In(big)], fn(name))
    yield case("softplus/beta2_threshold1", "softplus", [In(floats(8, -3, 3, 8))], F.softplus,
               {"beta": 2.0, "threshold": 1.0})
    yield case("nan_to_num/custom", "nan_to_num", [In(SPECIALS)], torch.nan_to_num,
               {"nan": 7.0, "posinf": 100.0, "neginf": -100.0})


def divisor(n, seed):
    return [v if abs(v) > 0.3 else 0.7 for v in floats(n, -3, 3, seed)]


def int_divisor(n, seed):
    return [v if v != 0 else 3 for v in ints(n, -5, 6, seed)]


def binary_inputs(name):
    """(label, inputs) pairs for a binary op."""
    div_like = name in {"div", "div_floor", "div_trunc", "remainder", "fmod"}
    rhs = divisor if div_like else (lambda n, s: floats(n, -3, 3, s))
    irhs = int_divisor if div_like else (lambda n, s: ints(n, -5, 6, s))
    lhs_f = (lambda n, s: floats(n, 0.1, 3, s)) if name == "pow" else (lambda n, s: floats(n, -3, 3, s))
    if name == "pow":
        irhs = lambda n, s: ints(n, 0, 4, s)
    yield "same", [In(lhs_f(6, 10), shape=[2, 3]), In(rhs(6, 11), shape=[2, 3])]
    yield "row", [In(lhs_f(6, 12), shape=[2, 3]), In(rhs(3, 13))]
    yield "col_row", [In(lhs_f(2, 14), shape=[2, 1]), In(rhs(3, 15), shape=[1, 3])]
    yield "missing_dims", [In(lhs_f(12, 16), shape=[4, 1, 3]), In(rhs(6, 17), shape=[2, 3])]
    yield "int_int", [In(ints(6, -5, 6, 18), "int64", [2, 3]), In(irhs(6, 19), "int64", [2, 3])]
    yield "int_float", [In(ints(6, 1, 6, 20), "int64", [2, 3]), In(rhs(6, 21), shape=[2, 3])]
    yield "bool_bool", [In([True, False, True, False], "bool"), In([True, True, False, False], "bool")]
    yield "bool_int", [In([True, False, True], "bool"), In(irhs(3, 22), "int64")]
    yield "zero_dim", [In(lhs_f(1, 23)[0]), In(irhs(3, 24), "int64")]
    yield "zero_dim_int_vs_float", [In(ints(1, 1, 4, 25)[0], "int64"), In(rhs(3, 26))]
    yield "noncontig", [In(lhs_f(12, 27), shape=[3, 4], view=[["t"]]),
                        In(rhs(24, 28), shape=[4, 6], view=[["slice", 1, 0, None, 2]])]
    yield "expanded", [In(lhs_f(4, 29), shape=[4, 1], view=[["expand", [4, 3]]]), In(rhs(3, 30))]
    yield "mismatch", [In(lhs_f(3, 31)), In(rhs(4, 32))]
    yield "empty", [In([], shape=[0, 3]), In(rhs(3, 33))]
    yield "specials", [In(SPECIALS), In(list(reversed(SPECIALS)))]
    if name in SCALAR_OK:
        yield "float_scalar", [In(lhs_f(6, 34), shape=[2, 3]), Num(2.5 if name != "pow" else 2.0)]
        yield "float_int_scalar", [In(lhs_f(6, 35), shape=[2, 3]), Num(3)]
        yield "int_float_scalar", [In(ints(6, 1, 6, 36), "int64", [2, 3]), Num(1.5)]
        yield "int_int_scalar", [In(ints(6, -5, 6, 37), "int64", [2, 3]), Num(2)]
        yield "bool_int_scalar", [In([True, False, True], "bool"), Num(2)]


def binary_cases():
    for name in BINARY:
        f = fn(name)
        for label, inputs in binary_inputs(name):
            yield case(f"{name}/{label}", name, inputs, f)
    a, b = In(floats(6, -3, 3, 40), shape=[2, 3]), In(floats(3, -3, 3, 41))
    yield case("add/alpha", "add", [a, b], torch.add, {"alpha": 2.5})
    yield case("sub/alpha", "sub", [a, b], torch.sub, {"alpha": -0.5})
    yield case("add/int_alpha_float", "add", [In([1, 2], "int64"), In([3, 4], "int64")], torch.add,
               {"alpha": 1.5})
    yield case("pow/negative_base_int_exponent", "pow",
               [In([-2.0, -1.5, -3.0, 2.0]), In([2.0, 3.0, 0.5, -1.0])], torch.pow)
    yield case("pow/int_tensor_exponent", "pow", [In([2, 3, -2], "int64"), In([3, 2, 3], "int64")],
               torch.pow)


def ternary_cases():
    x = In(floats(6, -3, 3, 50), shape=[2, 3])
    y = In(floats(6, -3, 3, 51), shape=[2, 3])
    z = In(divisor(3, 52))
    cond = In([True, False, True, False, False, True], "bool", [2, 3])
    yield case("where/basic", "where", [cond, x, y], torch.where)
    yield case("where/broadcast", "where", [In([True, False, True], "bool"), x, In(floats(2, -1, 1, 53), shape=[2, 1])], torch.where)
    yield case("where/promote_int_float", "where", [In([True, False], "bool"), In([1, 2], "int64"), In([0.5, 1.5])], torch.where)
    yield case("where/scalar_other", "where", [cond, x, Num(0.0)], torch.where)
    yield case("where/int_cond", "where", [In([1, 0], "int64"), In([1.0, 2.0]), In([3.0, 4.0])], torch.where)
    yield case("lerp/tensor_weight", "lerp", [x, y, In(floats(6, 0, 1, 54), shape=[2, 3])], torch.lerp)
    yield case("lerp/scalar_weight", "lerp", [x, y, Num(0.3)], torch.lerp)
    yield case("lerp/scalar_weight_high", "lerp", [x, y, Num(0.8)], torch.lerp)
    yield case("lerp/broadcast", "lerp", [x, In(floats(3, -1, 1, 55)), Num(0.5)], torch.lerp)
    yield case("addcmul/basic", "addcmul", [x, y, z], torch.addcmul, {"value": 0.5})
    yield case("addcmul/int", "addcmul", [In([1, 2], "int64"), In([3, 4], "int64"), In([5, 6], "int64")], torch.addcmul, {"value": 2})
    yield case("addcdiv/basic", "addcdiv", [x, y, z], torch.addcdiv, {"value": -1.5})
    yield case("addcdiv/int", "addcdiv", [In([1, 2], "int64"), In([3, 4], "int64"), In([5, 6], "int64")], torch.addcdiv)
    for label, lo, hi in [("tensors", In([-1.0, 0.0, -0.5]), In([1.0, 0.5, 0.0])),
                          ("scalars", Num(-1.0), Num(1.5))]:
        yield case(f"clamp/{label}", "clamp", [x, lo, hi], torch.clamp)
    yield case("clamp/int", "clamp", [In(ints(6, -9, 9, 56), "int64"), Num(-2), Num(3)], torch.clamp)
    yield case("clamp/nan", "clamp", [In(SPECIALS), Num(-1.0), Num(1.0)], torch.clamp)
    yield case("clamp_min/basic", "clamp_min", [x, Num(0.0)], torch.clamp_min)
    yield case("clamp_max/basic", "clamp_max", [x, In([0.0, 1.0, -1.0])], torch.clamp_max)


def cases():
    yield from unary_cases()
    yield from binary_cases()
    yield from ternary_cases()
