"""torch.nn.functional: channel-wise and alpha dropouts (masks from torch's CPU generator after
`manual_seed(seed)`), pairwise_distance, cosine_similarity and embedding_bag (sum, mean, max;
offsets, include_last_offset, padding_idx, per_sample_weights), forward and backward.

Optional tensors follow the required ones in `inputs`, flagged by `has_offsets` and
`has_per_sample_weights` (embedding_bag).
"""
import torch
import torch.nn.functional as F

from .common import In, case, floats

IX = lambda data, shape=None, view=(): In(data, "int64", shape, view)


def seeded(fn):
    def call(*inputs, seed, **args):
        torch.manual_seed(seed)
        return fn(*inputs, **args)
    return call


def dropouts():
    X3 = lambda: In(floats(24, seed=500), shape=[2, 4, 3])
    X4 = lambda: In(floats(48, seed=501), shape=[2, 4, 3, 2])
    X5 = lambda: In(floats(48, seed=502), shape=[2, 3, 2, 2, 2])
    XT = lambda: In(floats(24, seed=503), shape=[2, 3, 4], view=[["transpose", 1, 2]])
    for name, fn, inputs in [
        ("dropout1d", F.dropout1d, [("3d", X3), ("2d", lambda: In(floats(12, seed=504), shape=[4, 3])),
                                    ("transposed", XT)]),
        ("dropout2d", F.dropout2d, [("4d", X4), ("3d", X3)]),
        ("dropout3d", F.dropout3d, [("5d", X5), ("4d", X4)]),
        ("alpha_dropout", F.alpha_dropout, [("2d", lambda: In(floats(30, seed=505), shape=[5, 6])),
                                            ("transposed", XT)]),
        ("feature_alpha_dropout", F.feature_alpha_dropout, [("4d", X4), ("3d", X3)]),
    ]:
        op = "F." + name
        for layout, make in inputs:
            for p, seed in [(0.5, 10), (0.2, 11)]:
                yield case(f"{op}/{layout}_p{p}", op, [make()], seeded(fn),
                           {"p": p, "training": True, "seed": seed})
        yield case(f"{op}/eval", op, [inputs[0][1]()], seeded(fn),
                   {"p": 0.5, "training": False, "seed": 0})
        yield case(f"{op}/p1", op, [inputs[0][1]()], seeded(fn),
                   {"p": 1.0, "training": True, "seed": 0})
        yield case(f"{op}/bad_p", op, [inputs[0][1]()], seeded(fn),
                   {"p": 1.5, "training": True, "seed": 0})
    yield case("F.dropout1d/4d", "F.dropout1d", [X4()], seeded(F.dropout1d),
               {"p": 0.5, "training": True, "seed": 0})


def distances():
    A = lambda: In(floats(12, seed=510), shape=[3, 4])
    B = lambda: In(floats(12, seed=511), shape=[4, 3], view=[["t"]])
    R = lambda: In(floats(4, seed=512))
    for p in [2.0, 1.0, 3.0]:
        yield case(f"F.pairwise_distance/p{p}", "F.pairwise_distance", [A(), B()],
                   F.pairwise_distance, {"p": p})
    yield case("F.pairwise_distance/broadcast_keepdim", "F.pairwise_distance", [A(), R()],
               F.pairwise_distance, {"keepdim": True, "eps": 1e-3})
    yield case("F.pairwise_distance/1d", "F.pairwise_distance", [R(), In(floats(4, seed=513))],
               F.pairwise_distance)
    yield case("F.pairwise_distance/equal", "F.pairwise_distance", [A(), A()],
               F.pairwise_distance, {"eps": 0.0})
    yield case("F.pairwise_distance/mismatch", "F.pairwise_distance",
               [A(), In(floats(3, seed=514))], F.pairwise_distance)
    yield case("F.cosine_similarity/default", "F.cosine_similarity", [A(), B()],
               F.cosine_similarity)
    yield case("F.cosine_similarity/dim0", "F.cosine_similarity", [A(), B()],
               F.cosine_similarity, {"dim": 0})
    yield case("F.cosine_similarity/broadcast", "F.cosine_similarity", [A(), R()],
               F.cosine_similarity, {"dim": -1})
    yield case("F.cosine_similarity/3d", "F.cosine_similarity",
               [In(floats(24, seed=515), shape=[2, 3, 4]), In(floats(24, seed=516), shape=[2, 3, 4])],
               F.cosine_similarity)
    yield case("F.cosine_similarity/zero", "F.cosine_similarity",
               [In([0.0] * 4 + floats(8, seed=517), shape=[3, 4]), B()], F.cosine_similarity,
               {"dim": 1, "eps": 1e-3})
    yield case("F.cosine_similarity/1d", "F.cosine_similarity", [R(), In(floats(4, seed=518))],
               F.cosine_similarity, {"dim": 0})
    yield case("F.cosine_similarity/dim_out_of_range", "F.cosine_similarity",
               [R(), In(floats(4, seed=519))], F.cosine_similarity)


def embedding_bags():
    W = lambda: In(floats(18, seed=520), shape=[6, 3])
    WT = lambda: In(floats(18, seed=521), shape=[3, 6], view=[["t"]])
    I = lambda: IX([1, 2, 4, 5, 4, 3, 2, 0])
    O = lambda: IX([0, 3, 3, 6])
    PSW = lambda: In(floats(8, seed=522))

    def bag(i, w, *rest, has_offsets=False, has_per_sample_weights=False, **kw):
        rest = list(rest)
        o = rest.pop(0) if has_offsets else None
        psw = rest.pop(0) if has_per_sample_weights else None
        return F.embedding_bag(i, w, o, per_sample_weights=psw, **kw)

    for mode in ["sum", "mean", "max"]:
        yield case(f"F.embedding_bag/{mode}", "F.embedding_bag", [I(), W(), O()], bag,
                   {"mode": mode, "has_offsets": True})
        yield case(f"F.embedding_bag/{mode}_2d", "F.embedding_bag",
                   [IX([1, 2, 4, 5, 4, 3], [2, 3]), WT()], bag, {"mode": mode})
        # include_last_offset: the last offset is the number of indices (torch's CSR form).
        yield case(f"F.embedding_bag/{mode}_last_offset", "F.embedding_bag",
                   [I(), W(), IX([0, 3, 3, 8])], bag,
                   {"mode": mode, "has_offsets": True, "include_last_offset": True})
        yield case(f"F.embedding_bag/{mode}_padding", "F.embedding_bag", [I(), W(), O()], bag,
                   {"mode": mode, "has_offsets": True, "padding_idx": 2})
    yield case("F.embedding_bag/padding_negative", "F.embedding_bag", [I(), W(), O()], bag,
               {"has_offsets": True, "padding_idx": -1})
    yield case("F.embedding_bag/per_sample_weights", "F.embedding_bag", [I(), W(), O(), PSW()], bag,
               {"mode": "sum", "has_offsets": True, "has_per_sample_weights": True})
    yield case("F.embedding_bag/per_sample_weights_2d", "F.embedding_bag",
               [IX([1, 2, 4, 5], [2, 2]), W(), In(floats(4, seed=523), shape=[2, 2])], bag,
               {"mode": "sum", "has_per_sample_weights": True})
    yield case("F.embedding_bag/per_sample_weights_mean", "F.embedding_bag",
               [I(), W(), O(), PSW()], bag,
               {"mode": "mean", "has_offsets": True, "has_per_sample_weights": True})
    yield case("F.embedding_bag/bad_mode", "F.embedding_bag", [I(), W(), O()], bag,
               {"mode": "min", "has_offsets": True})
    yield case("F.embedding_bag/no_offsets", "F.embedding_bag", [I(), W()], bag)
    yield case("F.embedding_bag/offsets_2d_input", "F.embedding_bag",
               [IX([1, 2, 4, 5], [2, 2]), W(), O()], bag, {"has_offsets": True})
    yield case("F.embedding_bag/float_input", "F.embedding_bag",
               [In([1.0, 2.0]), W(), IX([0])], bag, {"has_offsets": True})
    yield case("F.embedding_bag/padding_out_of_range", "F.embedding_bag", [I(), W(), O()], bag,
               {"has_offsets": True, "padding_idx": 6})


def cases():
    yield from dropouts()
    yield from distances()
    yield from embedding_bags()
