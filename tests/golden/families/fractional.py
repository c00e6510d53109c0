"""torch.nn.functional.fractional_max_pool2d / fractional_max_pool3d: with given
`_random_samples` (the last input, passed by keyword when the arg `has_samples` is true) and
with samples drawn after `manual_seed(seed)` (torch.rand(N, C, n) from the default generator);
output_size and output_ratio, square and per-dim kernels, unbatched and non-contiguous inputs,
indices (return_indices=True), and torch's errors. Each case with a float graph also freezes the
input gradients.
"""
import torch
import torch.nn.functional as F

from .common import In, case, floats

X = lambda shape, seed, view=(): In(floats(_n(shape), seed=seed), shape=shape, view=view)
U = lambda shape, seed: In(floats(_n(shape), lo=0.0, hi=1.0, seed=seed), shape=shape)


def _n(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def pool(fn):
    def call(x, samples=None, has_samples=False, seed=None, **kw):
        if seed is not None:
            torch.manual_seed(seed)
        # The samples are not differentiable (torch's backward refuses a graph through them).
        samples = None if samples is None else samples.detach()
        return fn(x, _random_samples=samples, **kw)
    return call


SAMPLES = {"has_samples": True}


def cases():
    op, f = "F.fractional_max_pool2d", pool(F.fractional_max_pool2d)
    x = lambda: X([2, 3, 7, 6], 900)
    s = lambda: U([2, 3, 2], 901)
    yield case(f"{op}/size", op, [x(), s()], f, {**SAMPLES, "kernel_size": 2, "output_size": [3, 4]})
    yield case(f"{op}/ratio", op, [x(), s()], f,
               {**SAMPLES, "kernel_size": 3, "output_ratio": [0.5, 0.5]})
    yield case(f"{op}/kernel_pair", op, [x(), s()], f,
               {**SAMPLES, "kernel_size": [2, 3], "output_size": 4})
    yield case(f"{op}/output_1", op, [x(), s()], f,
               {**SAMPLES, "kernel_size": 2, "output_size": [1, 5]})
    yield case(f"{op}/indices", op, [x(), s()], f,
               {**SAMPLES, "kernel_size": 2, "output_size": [3, 3], "return_indices": True})
    yield case(f"{op}/unbatched", op, [X([3, 6, 5], 902), U([1, 3, 2], 903)], f,
               {**SAMPLES, "kernel_size": 2, "output_size": 3, "return_indices": True})
    yield case(f"{op}/channels_last_view", op,
               [X([2, 6, 5, 3], 904, view=[["permute", [0, 3, 1, 2]]]), s()], f,
               {**SAMPLES, "kernel_size": 2, "output_size": 3})
    yield case(f"{op}/seeded", op, [x()], f, {"seed": 0, "kernel_size": 2, "output_size": [3, 4]})
    yield case(f"{op}/seeded_ratio_indices", op, [x()], f,
               {"seed": 5, "kernel_size": 2, "output_ratio": [0.6, 0.6], "return_indices": True})
    yield case(f"{op}/ratio_number", op, [x()], f,
               {"seed": 5, "kernel_size": 2, "output_ratio": 0.6})
    yield case(f"{op}/pool_edge", op, [x()], f,
               {"seed": 0, "kernel_size": 2, "output_size": [6, 5]})
    yield case(f"{op}/seeded_unbatched", op, [X([2, 6, 6], 905)], f,
               {"seed": 3, "kernel_size": 3, "output_size": 2})
    yield case(f"{op}/empty_batch", op, [In([], shape=[0, 3, 4, 4])], f,
               {"seed": 0, "kernel_size": 2, "output_size": 2})
    # torch's errors
    yield case(f"{op}/no_size", op, [x()], f, {"seed": 0, "kernel_size": 2})
    yield case(f"{op}/ratio_three", op, [x()], f,
               {"seed": 0, "kernel_size": 2, "output_ratio": [0.5, 0.5, 0.5]})
    yield case(f"{op}/kernel_three", op, [x()], f,
               {"seed": 0, "kernel_size": [2, 2, 2], "output_size": 2})
    yield case(f"{op}/output_three", op, [x()], f,
               {"seed": 0, "kernel_size": 2, "output_size": [2, 2, 2]})
    yield case(f"{op}/kernel_0", op, [x()], f, {"seed": 0, "kernel_size": 0, "output_size": 2})
    yield case(f"{op}/pool_too_large", op, [x()], f,
               {"seed": 0, "kernel_size": 2, "output_size": [7, 4]})
    yield case(f"{op}/pool_too_wide", op, [x()], f,
               {"seed": 0, "kernel_size": 2, "output_size": [3, 6]})
    yield case(f"{op}/rank_2", op, [X([7, 6], 906), U([1, 7, 2], 907)], f,
               {**SAMPLES, "kernel_size": 2, "output_size": 2})
    yield case(f"{op}/rank_2_drawn", op, [X([7, 6], 906)], f,
               {"seed": 0, "kernel_size": 2, "output_size": 2})
    yield case(f"{op}/empty_channels", op, [In([], shape=[2, 0, 4, 4])], f,
               {"seed": 0, "kernel_size": 2, "output_size": 2})
    yield case(f"{op}/samples_rank", op, [x(), U([2, 3, 2, 1], 908)], f,
               {**SAMPLES, "kernel_size": 2, "output_size": 2})
    yield case(f"{op}/samples_batch", op, [x(), U([1, 3, 2], 909)], f,
               {**SAMPLES, "kernel_size": 2, "output_size": 2})
    yield case(f"{op}/samples_channels", op, [x(), U([2, 2, 2], 910)], f,
               {**SAMPLES, "kernel_size": 2, "output_size": 2})
    yield case(f"{op}/samples_last", op, [x(), U([2, 3, 3], 911)], f,
               {**SAMPLES, "kernel_size": 2, "output_size": 2})

    op, f = "F.fractional_max_pool3d", pool(F.fractional_max_pool3d)
    x = lambda: X([2, 2, 4, 5, 6], 920)
    s = lambda: U([2, 2, 3], 921)
    yield case(f"{op}/size", op, [x(), s()], f,
               {**SAMPLES, "kernel_size": 2, "output_size": [2, 3, 3]})
    yield case(f"{op}/ratio_kernel_triple", op, [x(), s()], f,
               {**SAMPLES, "kernel_size": [2, 1, 2], "output_ratio": [0.5, 0.7, 0.5]})
    yield case(f"{op}/indices", op, [x(), s()], f,
               {**SAMPLES, "kernel_size": 2, "output_size": 2, "return_indices": True})
    yield case(f"{op}/unbatched", op, [X([3, 4, 4, 4], 922), U([1, 3, 3], 923)], f,
               {**SAMPLES, "kernel_size": 2, "output_size": 2})
    yield case(f"{op}/transposed", op,
               [X([2, 2, 4, 6, 5], 924, view=[["transpose", 3, 4]]), s()], f,
               {**SAMPLES, "kernel_size": 2, "output_size": [2, 2, 3]})
    yield case(f"{op}/seeded", op, [x()], f,
               {"seed": 1, "kernel_size": 2, "output_size": [2, 3, 3], "return_indices": True})
    yield case(f"{op}/pool_time_edge", op, [x()], f,
               {"seed": 0, "kernel_size": 2, "output_size": [3, 2, 2]})
    yield case(f"{op}/seeded_ratio", op, [x()], f,
               {"seed": 2, "kernel_size": 2, "output_ratio": 0.5})
    yield case(f"{op}/rank_3", op, [X([2, 3, 4], 925)], f,
               {"seed": 0, "kernel_size": 2, "output_size": 2})
    yield case(f"{op}/rank_3_samples", op, [X([2, 3, 4], 925), U([1, 2, 3], 926)], f,
               {**SAMPLES, "kernel_size": 2, "output_size": 2})
    yield case(f"{op}/pool_time", op, [x()], f,
               {"seed": 0, "kernel_size": 2, "output_size": [4, 2, 2]})
    yield case(f"{op}/pool_height", op, [x()], f,
               {"seed": 0, "kernel_size": 2, "output_size": [2, 5, 2]})
    yield case(f"{op}/pool_width", op, [x()], f,
               {"seed": 0, "kernel_size": 2, "output_size": [2, 2, 6]})
    yield case(f"{op}/kernel_pair", op, [x()], f,
               {"seed": 0, "kernel_size": [2, 2], "output_size": 2})
    yield case(f"{op}/output_pair", op, [x()], f,
               {"seed": 0, "kernel_size": 2, "output_size": [2, 2]})
    yield case(f"{op}/kernel_0", op, [x()], f, {"seed": 0, "kernel_size": 0, "output_size": 2})
    yield case(f"{op}/empty_channels", op, [In([], shape=[2, 0, 4, 4, 4])], f,
               {"seed": 0, "kernel_size": 2, "output_size": 2})
    yield case(f"{op}/samples_last", op, [x(), U([2, 2, 2], 927)], f,
               {**SAMPLES, "kernel_size": 2, "output_size": 2})
