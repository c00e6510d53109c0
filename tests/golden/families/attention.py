"""torch.nn.functional.scaled_dot_product_attention: 2-D, 3-D and 4-D inputs, L != S, bool masks
(True takes part; a row with no key gives zeros) and float masks (with -inf) broadcast or full,
is_causal with L <, == and > S, scale (also negative), enable_gqa, non-contiguous inputs, dropout
drawn from torch's CPU generator after `manual_seed(seed)`, and torch's errors; forward and
backward (a float mask gets its gradient too).

The optional attn_mask follows query, key and value in `inputs`, flagged by `has_mask`.
"""
import torch
import torch.nn.functional as F

from .common import In, case, floats

OP = "F.scaled_dot_product_attention"
_seed = [700]


def X(*shape, view=()):
    n = 1
    for d in shape:
        n *= d
    _seed[0] += 1
    return In(floats(n, lo=-2.0, hi=2.0, seed=_seed[0]), shape=list(shape), view=view)


def B(rows, shape):
    """A bool mask from rows of 0/1."""
    flat = [bool(x) for r in rows for x in r]
    return In(flat, "bool", shape)


def sdpa(q, k, v, *mask, has_mask=False, seed=None, **args):
    if seed is not None:
        torch.manual_seed(seed)
    return F.scaled_dot_product_attention(q, k, v, *mask, **args)


def c(name, inputs, contains=None, **args):
    args = dict(args)
    args["has_mask"] = len(inputs) == 4
    return case(f"{OP}/{name}", OP, inputs, sdpa, args, contains=contains)


def cases():
    # Shapes, no mask.
    yield c("3d_L3_S5", [X(2, 3, 4), X(2, 5, 4), X(2, 5, 6)])
    yield c("3d_square", [X(1, 4, 8), X(1, 4, 8), X(1, 4, 8)])
    yield c("4d_L3_S5", [X(2, 2, 3, 4), X(2, 2, 5, 4), X(2, 2, 5, 3)])
    yield c("4d_L5_S2", [X(1, 3, 5, 8), X(1, 3, 2, 8), X(1, 3, 2, 8)])
    yield c("2d", [X(3, 4), X(5, 4), X(5, 2)])
    yield c("5d", [X(2, 1, 2, 3, 4), X(2, 1, 2, 3, 4), X(2, 1, 2, 3, 4)])
    yield c("broadcast_batch", [X(2, 2, 3, 4), X(2, 5, 4), X(1, 5, 4)])
    yield c("key_transposed", [X(2, 3, 4), X(2, 4, 5, view=[["transpose", 1, 2]]), X(2, 5, 6)])
    yield c("query_permuted", [X(3, 2, 2, 4, view=[["permute", [1, 2, 0, 3]]]), X(2, 2, 5, 4), X(2, 2, 5, 4)])
    yield c("value_expanded", [X(2, 3, 4), X(2, 5, 4), X(1, 5, 6, view=[["expand", [2, 5, 6]]])])
    # Scale.
    for s in [0.5, 2.0, -0.3, 1.0]:
        yield c(f"scale_{s}", [X(2, 3, 4), X(2, 5, 4), X(2, 5, 6)], scale=s)
    # Bool masks (True: takes part).
    m35 = [[1, 1, 0, 1, 0], [0, 1, 1, 1, 1], [1, 0, 0, 0, 1]]
    yield c("bool_2d_mask", [X(2, 3, 4), X(2, 5, 4), X(2, 5, 6), B(m35, [3, 5])])
    yield c("bool_mask_4d_broadcast", [X(2, 2, 3, 4), X(2, 2, 5, 4), X(2, 2, 5, 3),
                                        B(m35 + [[1, 1, 1, 0, 0], [0, 0, 1, 1, 0], [1, 0, 1, 0, 1]], [2, 1, 3, 5])])
    yield c("bool_mask_row_empty", [X(2, 3, 4), X(2, 5, 4), X(2, 5, 6),
                                     B([[1, 1, 0, 1, 0], [0, 0, 0, 0, 0], [1, 0, 0, 0, 1]], [3, 5])])
    yield c("bool_mask_all_false", [X(1, 2, 4), X(1, 3, 4), X(1, 3, 4), B([[0, 0, 0], [0, 0, 0]], [2, 3])])
    yield c("bool_mask_full_shape", [X(2, 2, 4), X(2, 3, 4), X(2, 3, 2),
                                      B([[1, 0, 1], [0, 1, 1], [1, 1, 1], [0, 0, 1]], [2, 2, 3])])
    yield c("bool_mask_scale", [X(2, 3, 4), X(2, 5, 4), X(2, 5, 6), B(m35, [3, 5])], scale=0.7)
    yield c("bool_mask_column", [X(2, 3, 4), X(2, 5, 4), X(2, 5, 6), B([[1, 0, 1, 1, 0]], [1, 5])])
    # Float masks (added to the scores; also their gradient).
    yield c("float_mask_2d", [X(2, 3, 4), X(2, 5, 4), X(2, 5, 6), X(3, 5)])
    yield c("float_mask_4d", [X(2, 2, 3, 4), X(2, 2, 5, 4), X(2, 2, 5, 3), X(2, 2, 3, 5)])
    yield c("float_mask_broadcast_heads", [X(2, 2, 3, 4), X(2, 2, 5, 4), X(2, 2, 5, 3), X(2, 1, 1, 5)])
    ninf = float("-inf")
    yield c("float_mask_neg_inf", [X(2, 3, 4), X(2, 5, 4), X(2, 5, 6),
                                    In([0.0, ninf, 0.5, 0.0, ninf, -1.0, 0.0, 0.0, ninf, 0.0,
                                        0.0, 0.0, 0.0, 0.0, 0.0], shape=[3, 5])])
    yield c("float_mask_row_neg_inf", [X(2, 3, 4), X(2, 5, 4), X(2, 5, 6),
                                        In([0.0] * 5 + [ninf] * 5 + [0.1, 0.2, 0.3, 0.4, 0.5], shape=[3, 5])])
    yield c("float_mask_transposed", [X(2, 3, 4), X(2, 5, 4), X(2, 5, 6), X(5, 3, view=[["t"]])])
    yield c("float_mask_scale", [X(2, 3, 4), X(2, 5, 4), X(2, 5, 6), X(3, 5)], scale=0.25)
    # is_causal: L == S, L < S, L > S.
    yield c("causal_square", [X(2, 4, 4), X(2, 4, 4), X(2, 4, 3)], is_causal=True)
    yield c("causal_L3_S5", [X(2, 3, 4), X(2, 5, 4), X(2, 5, 6)], is_causal=True)
    yield c("causal_L5_S3", [X(2, 5, 4), X(2, 3, 4), X(2, 3, 6)], is_causal=True)
    yield c("causal_4d", [X(1, 2, 4, 8), X(1, 2, 4, 8), X(1, 2, 4, 8)], is_causal=True)
    yield c("causal_scale", [X(2, 4, 4), X(2, 4, 4), X(2, 4, 3)], is_causal=True, scale=0.9)
    # Grouped-query attention.
    yield c("gqa_4_2", [X(1, 4, 3, 4), X(1, 2, 5, 4), X(1, 2, 5, 4)], enable_gqa=True)
    yield c("gqa_6_3_1", [X(2, 6, 2, 4), X(2, 3, 3, 4), X(2, 1, 3, 2)], enable_gqa=True)
    yield c("gqa_causal", [X(1, 4, 3, 4), X(1, 1, 3, 4), X(1, 1, 3, 4)], enable_gqa=True, is_causal=True)
    yield c("gqa_same_heads", [X(1, 2, 3, 4), X(1, 2, 3, 4), X(1, 2, 3, 4)], enable_gqa=True)
    yield c("gqa_mask", [X(1, 4, 3, 4), X(1, 2, 5, 4), X(1, 2, 5, 4), B(m35, [3, 5])], enable_gqa=True)
    # Dropout: torch's CPU draw after manual_seed.
    for name, p, seed, inputs in [
        ("dropout_3d_p0.5", 0.5, 20, [X(2, 3, 4), X(2, 5, 4), X(2, 5, 6)]),
        ("dropout_4d_p0.2", 0.2, 21, [X(2, 2, 3, 4), X(2, 2, 5, 4), X(2, 2, 5, 3)]),
        ("dropout_mask_p0.3", 0.3, 22, [X(2, 3, 4), X(2, 5, 4), X(2, 5, 6), B(m35, [3, 5])]),
        ("dropout_causal_p0.5", 0.5, 23, [X(2, 4, 4), X(2, 4, 4), X(2, 4, 3)]),
        ("dropout_p1", 1.0, 24, [X(2, 3, 4), X(2, 5, 4), X(2, 5, 6)]),
    ]:
        extra = {"is_causal": True} if "causal" in name else {}
        yield c(name, inputs, dropout_p=p, seed=seed, **extra)
    # Errors.
    yield c("causal_and_mask", [X(2, 3, 4), X(2, 5, 4), X(2, 5, 6), B(m35, [3, 5])], is_causal=True)
    yield c("int_mask", [X(2, 3, 4), X(2, 5, 4), X(2, 5, 6), In([1] * 15, "int64", [3, 5])])
    yield c("query_1d", [X(4), X(2, 5, 4), X(2, 5, 6)])
    yield c("key_int", [X(2, 3, 4), In([1] * 40, "int64", [2, 5, 4]), X(2, 5, 6)])
    yield c("gqa_not_divisible", [X(1, 4, 3, 4), X(1, 3, 5, 4), X(1, 3, 5, 4)], enable_gqa=True)
    yield c("mask_grows_scores", [X(2, 3, 4), X(2, 5, 4), X(2, 5, 6), X(2, 2, 3, 5)],
            contains="doesn't match the broadcast shape [2, 2, 3, 5]")
    yield c("dropout_bad_p", [X(2, 3, 4), X(2, 5, 4), X(2, 5, 6)], dropout_p=1.5, seed=0)
