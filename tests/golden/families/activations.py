"""torch.nn.functional: the activations beyond the first set (prelu, rrelu in eval, celu, glu,
logsigmoid, hardsigmoid, hardshrink, softshrink, tanhshrink, softsign, softmin, threshold), on
contiguous and non-contiguous inputs, at their kinks, with NaN and infinities; each float graph
also freezes the input gradients. Op names are `F.<name>`.
"""
import torch.nn.functional as F

from .common import In, case, floats

nan, inf = float("nan"), float("inf")

X = {
    "contig": lambda: In(floats(12, seed=300), shape=[3, 4]),
    "transposed": lambda: In(floats(12, seed=301), shape=[4, 3], view=[["t"]]),
    "stepped": lambda: In(floats(24, seed=302), shape=[3, 8], view=[["slice", 1, 1, None, 2]]),
    "expanded": lambda: In(floats(4, seed=303), shape=[1, 4], view=[["expand", [3, 4]]]),
}
# The kinks: ±3 (hardsigmoid), ±0.5 and ±1 (the shrinks' lambdas), 0, and large values.
SPECIAL = lambda: In([-3.0, 0.0, 3.0, 0.5, -0.5, 1.0, -1.0, 25.0, -30.0, 0.25, 2.0, -6.0],
                     shape=[3, 4])
NANS = lambda: In([nan, inf, -inf, 1.0], shape=[4])


def activations():
    acts = [
        ("rrelu", F.rrelu, {"lower": 0.1, "upper": 0.3, "training": False}),
        ("celu", F.celu, {"alpha": 0.5}), ("celu/default", F.celu, {}),
        ("logsigmoid", F.logsigmoid, {}), ("hardsigmoid", F.hardsigmoid, {}),
        ("hardshrink", F.hardshrink, {}), ("hardshrink/lambd1", F.hardshrink, {"lambd": 1.0}),
        ("softshrink", F.softshrink, {}), ("softshrink/lambd1", F.softshrink, {"lambd": 1.0}),
        ("tanhshrink", F.tanhshrink, {}), ("softsign", F.softsign, {}),
        ("threshold", F.threshold, {"threshold": 0.5, "value": -2.0}),
        ("threshold/int_value", F.threshold, {"threshold": 1.0, "value": 20}),
    ]
    for name, fn, args in acts:
        base, _, variant = name.partition("/")
        op = "F." + base
        prefix = f"{op}/{variant + '_' if variant else ''}"
        for layout, make in list(X.items()) + [("special", SPECIAL)]:
            yield case(f"{prefix}{layout}", op, [make()], fn, args)
        yield case(f"{prefix}nan_inf", op, [NANS()], fn, args)
    for dim in [0, 1, -1]:
        for layout in ["contig", "transposed"]:
            yield case(f"F.softmin/dim{dim}_{layout}", "F.softmin", [X[layout]()], F.softmin,
                       {"dim": dim})
    yield case("F.softmin/implicit_3d", "F.softmin", [In(floats(24, seed=304), shape=[2, 3, 4])],
               F.softmin)
    G = lambda: In(floats(24, seed=305), shape=[2, 4, 3])
    for dim in [1, -2]:
        yield case(f"F.glu/dim{dim}", "F.glu", [G()], F.glu, {"dim": dim})
    yield case("F.glu/default_dim", "F.glu", [X["transposed"]()], F.glu)
    yield case("F.glu/stepped", "F.glu", [X["stepped"]()], F.glu, {"dim": 1})
    yield case("F.glu/odd", "F.glu", [G()], F.glu, {"dim": 2})
    yield case("F.glu/scalar", "F.glu", [In(1.0)], F.glu)
    # prelu: one slope, one per channel (dim 1), on 2-D and 3-D inputs.
    W1 = lambda: In([0.25])
    W4 = lambda: In([0.1, -0.2, 0.5, 2.0])
    yield case("F.prelu/one_weight", "F.prelu", [SPECIAL(), W1()], F.prelu)
    yield case("F.prelu/per_channel", "F.prelu", [X["transposed"](), W4()], F.prelu)
    yield case("F.prelu/per_channel_3d", "F.prelu", [In(floats(24, seed=306), shape=[2, 4, 3]), W4()],
               F.prelu)
    yield case("F.prelu/1d_one_weight", "F.prelu", [In(floats(5, seed=307)), W1()], F.prelu)
    yield case("F.prelu/mismatch", "F.prelu", [In(floats(9, seed=308), shape=[3, 3]), W4()], F.prelu)
    yield case("F.prelu/weight_2d", "F.prelu", [X["contig"](), In([0.1] * 4, shape=[2, 2])],
               F.prelu)
    yield case("F.celu/zero_alpha", "F.celu", [X["contig"]()], F.celu, {"alpha": 0.0})
    yield case("F.rrelu/bad_bounds", "F.rrelu", [X["contig"]()], F.rrelu,
               {"lower": 0.5, "upper": 0.1, "training": False})
    yield case("F.softshrink/negative_lambda", "F.softshrink", [X["contig"]()], F.softshrink,
               {"lambd": -1.0})
    yield case("F.hardsigmoid/int", "F.hardsigmoid", [In([1, -4, 2], "int64")], F.hardsigmoid)
    yield case("F.hardshrink/int", "F.hardshrink", [In([1, -4, 2], "int64")], F.hardshrink)
    yield case("F.logsigmoid/int", "F.logsigmoid", [In([1, -4, 2], "int64")], F.logsigmoid)


def cases():
    yield from activations()
