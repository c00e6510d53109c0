"""F.scaled_dot_product_attention over a grid of sizes around the fused kernels' block edges
(64 query rows a workgroup, up to 32 keys a staged block): query lengths L in {1, 17, 65}, key
lengths S in {1, 33, 66}, head dims E in {4, 16}, one head; each of the 18 shapes in each of six
variants (plain, is_causal, a bool mask, a float mask, a scale, GQA with 2 query heads on one
key head); forward and backward. Small on purpose: golden.json holds every input and gradient
(wider heads are in attention_fused.py). Same conventions as attention.py."""
from .attention_fused import B, X, c

VARIANTS = ["plain", "causal", "bool_mask", "float_mask", "scale", "gqa"]


def one(L, S, E, variant):
    name = f"sweep_L{L}_S{S}_E{E}_{variant}"
    if variant == "gqa":
        return c(name, [X(1, 2, L, E), X(1, 1, S, E), X(1, 1, S, E)], enable_gqa=True)
    q, k, v = X(1, 1, L, E), X(1, 1, S, E), X(1, 1, S, E)
    if variant == "causal":
        return c(name, [q, k, v], is_causal=True)
    if variant == "bool_mask":
        return c(name, [q, k, v, B([L, S], p=0.6)])
    if variant == "float_mask":
        return c(name, [q, k, v, X(1, 1, L, S)])
    if variant == "scale":
        return c(name, [q, k, v], scale=0.25)
    return c(name, [q, k, v])


def cases():
    for L in [1, 17, 65]:
        for S in [1, 33, 66]:
            for E in [4, 16]:
                for variant in VARIANTS:
                    yield one(L, S, E, variant)
