"""F.scaled_dot_product_attention at shapes that cross the fused kernels' block edges (64 query
rows a workgroup, 4 to 32 keys a staged block): L and S of 65/66 and 33/34, head dims 3 to 128
(and 160, above the fused limit, which takes the math path), every option the fused path takes
(bool and float masks broadcast, an all-masked row, is_causal with L <, == and > S, scale, GQA,
broadcast batches, strided inputs); forward and backward. A float mask gets a gradient in the
backward cases, so those run the math path; the fused backward with a float mask is checked
against it in borch-nn/tests/sdpa_fused.rs.

Same conventions as attention.py (the optional attn_mask follows q, k, v, flagged by has_mask).
"""
import torch

from .attention import OP, sdpa
from .common import In, case, floats

_seed = [900]


def X(*shape, view=()):
    n = 1
    for d in shape:
        n *= d
    _seed[0] += 1
    return In(floats(n, lo=-2.0, hi=2.0, seed=_seed[0]), shape=list(shape), view=view)


def B(shape, p=0.7, empty_row=None):
    """A bool mask drawn with P(True) = p; row `empty_row` (of the last two dims) all False."""
    _seed[0] += 1
    g = torch.Generator().manual_seed(_seed[0])
    m = torch.rand(shape, generator=g) < p
    if empty_row is not None:
        m[..., empty_row, :] = False
    return In(m.reshape(-1).tolist(), "bool", list(shape))


def c(name, inputs, **args):
    args = dict(args)
    args["has_mask"] = len(inputs) == 4
    return case(f"{OP}/fused/{name}", OP, inputs, sdpa, args)


def cases():
    yield c("edges_L66_S34", [X(1, 2, 66, 4), X(1, 2, 34, 4), X(1, 2, 34, 6)])
    yield c("edges_L65_S65_E5_Ev3", [X(2, 65, 5), X(2, 65, 5), X(2, 65, 3)])
    yield c("L1_S1", [X(1, 1, 1, 4), X(1, 1, 1, 4), X(1, 1, 1, 4)])
    yield c("E64", [X(1, 1, 5, 64), X(1, 1, 9, 64), X(1, 1, 9, 64)])
    yield c("E128", [X(1, 1, 3, 128), X(1, 1, 5, 128), X(1, 1, 5, 128)])
    yield c("E96_Ev128", [X(1, 2, 3, 96), X(1, 2, 4, 96), X(1, 2, 4, 128)])
    yield c("E160_math_path", [X(1, 1, 3, 160), X(1, 1, 4, 160), X(1, 1, 4, 8)])
    yield c("2d_L66", [X(66, 4), X(34, 4), X(34, 2)])
    yield c("5d_broadcast", [X(2, 1, 2, 33, 4), X(1, 3, 2, 34, 4), X(1, 3, 2, 34, 4)])
    yield c("key_transposed", [X(1, 2, 66, 4), X(1, 2, 4, 34, view=[["transpose", 2, 3]]), X(1, 2, 34, 4)])
    yield c("query_permuted", [X(66, 2, 4, view=[["permute", [1, 0, 2]]]), X(2, 34, 4), X(2, 34, 4)])
    yield c("value_expanded", [X(2, 66, 4), X(2, 34, 4), X(1, 34, 3, view=[["expand", [2, 34, 3]]])])
    for s in [0.3, -0.8]:
        yield c(f"scale_{s}", [X(1, 2, 66, 4), X(1, 2, 34, 4), X(1, 2, 34, 4)], scale=s)
    yield c("causal_L66_S66", [X(1, 2, 66, 4), X(1, 2, 66, 4), X(1, 2, 66, 4)], is_causal=True)
    yield c("causal_L66_S34", [X(1, 1, 66, 4), X(1, 1, 34, 4), X(1, 1, 34, 4)], is_causal=True)
    yield c("causal_L34_S66", [X(1, 1, 34, 4), X(1, 1, 66, 4), X(1, 1, 66, 4)], is_causal=True)
    yield c("causal_E16_L66", [X(1, 1, 66, 16), X(1, 1, 66, 16), X(1, 1, 66, 16)], is_causal=True, scale=0.2)
    yield c("bool_mask_L66_S34", [X(1, 2, 66, 4), X(1, 2, 34, 4), X(1, 2, 34, 4), B([66, 34], empty_row=65)])
    yield c("bool_mask_per_head", [X(2, 2, 66, 4), X(2, 2, 34, 4), X(2, 2, 34, 4), B([2, 1, 66, 34], p=0.4)])
    yield c("bool_mask_keys", [X(2, 66, 4), X(2, 34, 4), X(2, 34, 4), B([1, 34], p=0.5)])
    yield c("float_mask_L66_S34", [X(1, 2, 66, 4), X(1, 2, 34, 4), X(1, 2, 34, 4), X(66, 34)])
    yield c("float_mask_heads", [X(2, 2, 33, 4), X(2, 2, 34, 4), X(2, 2, 34, 4), X(2, 1, 1, 34)])
    yield c("gqa_8_2_causal", [X(1, 8, 66, 4), X(1, 2, 34, 4), X(1, 2, 34, 4)], enable_gqa=True, is_causal=True)
    yield c("gqa_4_2_1_mask", [X(2, 4, 66, 4), X(2, 2, 34, 4), X(2, 1, 34, 3), B([66, 34])], enable_gqa=True)
    yield c("gqa_E64", [X(1, 4, 5, 64), X(1, 1, 9, 64), X(1, 1, 9, 64)], enable_gqa=True, scale=0.5)
