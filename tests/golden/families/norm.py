"""Normalization, padding and resampling (torch.nn.functional): batch_norm (training with and
without running statistics, evaluation), instance_norm, group_norm, local_response_norm,
normalize; pad in every mode (constant with negative pads, reflect, replicate, circular over
1, 2 and 3 dims, batched and unbatched); interpolate (nearest, nearest-exact, linear, bilinear,
bicubic, trilinear, area; align_corners, scale_factor, recompute_scale_factor);
pixel_shuffle / pixel_unshuffle, channel_shuffle, unfold / fold; and torch's errors. Each case
with a float graph also freezes the input gradients.

Op names are `F.<name>`. Optional tensors follow the required ones in `inputs` in torch's order,
flagged by args the runner reads: `has_running_mean`, `has_running_var`, `has_weight`,
`has_bias`. Running statistics are passed to torch as detached copies (torch updates them in
place; only the output is frozen). Other args are torch's keyword arguments.
"""
import torch.nn.functional as F

from .common import In, case, floats

FLAGS = ("has_running_mean", "has_running_var", "has_weight", "has_bias")


def _n(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def X(shape, seed, view=(), lo=-3.0, hi=3.0):
    return In(floats(_n(shape), lo=lo, hi=hi, seed=seed), shape=shape, view=view)


def optional(fn, names):
    """torch's fn with the optional tensors (after the input) taken from the flags."""
    def call(x, *rest, **kw):
        rest = list(rest)
        given = {}
        for flag, name in names:
            if kw.pop(flag, False):
                t = rest.pop(0)
                given[name] = t.detach().clone() if name.startswith("running") else t
        return fn(x, **given, **kw)
    return call


NAMES = list(zip(FLAGS, ("running_mean", "running_var", "weight", "bias")))
batch_norm = optional(lambda x, running_mean=None, running_var=None, **kw:
                      F.batch_norm(x, running_mean, running_var, **kw), NAMES)
instance_norm = optional(F.instance_norm, NAMES)
group_norm = optional(F.group_norm, NAMES[2:])


def stats(c, seed):
    return [X([c], seed), X([c], seed + 1, lo=0.5, hi=2.0)]


def affine(c, seed):
    return [X([c], seed), X([c], seed + 1)]


ALL = {"has_running_mean": True, "has_running_var": True, "has_weight": True, "has_bias": True}
RUN = {"has_running_mean": True, "has_running_var": True}
AFF = {"has_weight": True, "has_bias": True}


def batch_norm_cases():
    op = "F.batch_norm"
    for name, shape, view in [("2d", [4, 3], ()), ("3d", [2, 3, 4], ()), ("4d", [2, 3, 2, 3], ()),
                              ("5d", [2, 2, 2, 2, 2], ()),
                              ("permuted", [3, 2, 4], [["permute", [1, 0, 2]]])]:
        x = lambda: X(shape, 500, view)
        c = x().torch().shape[1]
        yield case(f"{op}/train_{name}", op, [x()] + stats(c, 501) + affine(c, 503), batch_norm,
                   dict(ALL, training=True))
        yield case(f"{op}/eval_{name}", op, [x()] + stats(c, 505) + affine(c, 507), batch_norm,
                   dict(ALL, training=False))
    x = lambda: X([3, 4, 5], 510)
    yield case(f"{op}/train_no_stats", op, [x()] + affine(4, 511), batch_norm,
               dict(AFF, training=True))
    yield case(f"{op}/train_plain", op, [x()], batch_norm, {"training": True})
    yield case(f"{op}/train_momentum_eps", op, [x()] + stats(4, 513), batch_norm,
               dict(RUN, training=True, momentum=0.5, eps=1e-2))
    yield case(f"{op}/eval_no_affine", op, [x()] + stats(4, 515), batch_norm,
               dict(RUN, training=False, eps=1e-3))
    yield case(f"{op}/eval_weight_only", op, [x()] + stats(4, 517) + [X([4], 519)],
               batch_norm, dict(RUN, has_weight=True))
    yield case(f"{op}/one_value_per_channel", op, [X([1, 3], 520)], batch_norm, {"training": True})
    yield case(f"{op}/eval_without_stats", op, [X([2, 3], 521)], batch_norm, {"training": False})
    yield case(f"{op}/weight_size", op, [x()] + stats(4, 522) + [X([3], 524)], batch_norm,
               dict(RUN, has_weight=True, training=True))
    yield case(f"{op}/stats_size", op, [x()] + stats(3, 525), batch_norm,
               dict(RUN, training=False))
    # Odd channel counts and more values per channel than one workgroup's 256 threads
    # (the fused kernels' strided loop), (N, C, H, W) and (N, C).
    # More than 2048 values per channel: the split reductions (uneven chunks).
    for name, shape in [("large_4d", [3, 7, 10, 11]), ("large_2d", [300, 5]),
                        ("split_4d", [2, 3, 31, 41]), ("split_2d", [2500, 2])]:
        x = lambda: X(shape, 526)
        c = shape[1]
        yield case(f"{op}/train_{name}", op, [x()] + stats(c, 527) + affine(c, 529), batch_norm,
                   dict(ALL, training=True))
        yield case(f"{op}/eval_{name}", op, [x()] + stats(c, 531) + affine(c, 533), batch_norm,
                   dict(ALL, training=False))


def instance_norm_cases():
    op = "F.instance_norm"
    for name, shape in [("3d", [2, 3, 4]), ("4d", [2, 3, 2, 3]), ("5d", [1, 2, 2, 2, 3])]:
        x = lambda: X(shape, 530)
        c = shape[1]
        yield case(f"{op}/{name}", op, [x()], instance_norm)
        yield case(f"{op}/affine_{name}", op, [x()] + affine(c, 531), instance_norm, AFF)
        yield case(f"{op}/stats_{name}", op, [x()] + stats(c, 533) + affine(c, 535),
                   instance_norm, dict(ALL, momentum=0.3))
        yield case(f"{op}/eval_{name}", op, [x()] + stats(c, 537), instance_norm,
                   dict(RUN, use_input_stats=False))
    yield case(f"{op}/transposed_eps", op, [X([2, 5, 3], 540, [["transpose", 1, 2]])],
               instance_norm, {"eps": 1e-2})
    yield case(f"{op}/one_spatial", op, [X([2, 3, 1], 541)], instance_norm)
    yield case(f"{op}/eval_without_stats", op, [X([2, 3, 4], 542)], instance_norm,
               {"use_input_stats": False})


def group_norm_cases():
    op = "F.group_norm"
    for name, shape, g in [("3d", [2, 4, 3], 2), ("4d", [2, 6, 2, 2], 3), ("2d", [3, 4], 2),
                           ("one_group", [2, 3, 4], 1), ("per_channel", [2, 3, 4], 3)]:
        x = lambda: X(shape, 550)
        yield case(f"{op}/{name}", op, [x()], group_norm, {"num_groups": g})
        yield case(f"{op}/affine_{name}", op, [x()] + affine(shape[1], 551), group_norm,
                   dict(AFF, num_groups=g))
    yield case(f"{op}/permuted_eps", op, [X([3, 2, 4], 553, [["permute", [1, 0, 2]]])],
               group_norm, {"num_groups": 1, "eps": 1e-3})
    yield case(f"{op}/weight_only", op, [X([2, 4, 3], 554), X([4], 555)], group_norm,
               {"num_groups": 2, "has_weight": True})
    yield case(f"{op}/not_divisible", op, [X([2, 3, 4], 556)], group_norm, {"num_groups": 2})
    yield case(f"{op}/1d", op, [X([3], 557)], group_norm, {"num_groups": 1})
    yield case(f"{op}/weight_size", op, [X([2, 4, 4], 558), X([3], 559)], group_norm,
               {"num_groups": 2, "has_weight": True})


def lrn_and_normalize_cases():
    op = "F.local_response_norm"
    for name, shape, args in [("3d", [2, 5, 3], {"size": 3}), ("4d", [1, 6, 2, 3], {"size": 2}),
                              ("5d", [1, 4, 2, 2, 2], {"size": 5, "alpha": 0.1, "beta": 0.5,
                                                       "k": 2.0}),
                              ("size1", [2, 3, 4], {"size": 1, "alpha": 0.5}),
                              ("wide", [1, 3, 4], {"size": 7, "alpha": 1.0, "beta": 1.0})]:
        yield case(f"{op}/{name}", op, [X(shape, 560)], F.local_response_norm, args)
    yield case(f"{op}/transposed", op, [X([2, 4, 5], 561, [["transpose", 1, 2]])],
               F.local_response_norm, {"size": 3, "alpha": 0.2})
    yield case(f"{op}/2d", op, [X([2, 3], 562)], F.local_response_norm, {"size": 2})
    op = "F.normalize"
    for name, args in [("default", {}), ("p1", {"p": 1.0}), ("dim0", {"dim": 0}),
                       ("dim_last_p3", {"dim": -1, "p": 3.0}), ("eps", {"eps": 10.0})]:
        yield case(f"{op}/{name}", op, [X([3, 4], 565)], F.normalize, args)
    yield case(f"{op}/3d_transposed", op, [X([4, 3, 2], 566, [["transpose", 0, 2]])], F.normalize,
               {"dim": 1})
    yield case(f"{op}/zero_row", op, [In([0.0, 0.0, 0.0, 1.0, 2.0, 2.0], shape=[2, 3])],
               F.normalize, {"dim": 1})
    yield case(f"{op}/bad_dim", op, [X([3, 4], 567)], F.normalize, {"dim": 2})


def pad_cases():
    op = "F.pad"
    for name, shape, pad, extra in [
        ("1d", [2, 3], [1, 2], {}), ("1d_value", [2, 3], [2, 0], {"value": 1.5}),
        ("2d", [1, 2, 3], [1, 1, 2, 0], {}), ("3d", [1, 2, 2, 2], [1, 0, 0, 1, 1, 1], {}),
        ("all_dims", [2, 3], [1, 1, 1, 1], {"value": -2.0}),
        ("negative", [2, 5], [-1, -2], {}), ("mixed", [3, 4], [1, -2, -1, 2], {"value": 3.0}),
        ("empty_result", [2, 3], [-1, -2], {}), ("zero", [2, 3], [0, 0], {}),
        ("4d_last_only", [1, 1, 2, 2], [1, 1], {}),
    ]:
        yield case(f"{op}/constant_{name}", op, [X(shape, 570)], F.pad, dict(extra, pad=pad))
    yield case(f"{op}/constant_transposed", op, [X([4, 3], 571, [["t"]])], F.pad,
               {"pad": [1, 2, 0, 1], "value": 0.5})
    for mode in ["reflect", "replicate", "circular"]:
        for name, shape, pad in [("1d", [2, 2, 4], [2, 3 if mode != "reflect" else 1]),
                                 ("1d_unbatched", [2, 5], [1, 2]),
                                 ("2d", [1, 2, 3, 4], [1, 2, 2, 0]),
                                 ("2d_unbatched", [2, 3, 3], [2, 1, 1, 2]),
                                 ("3d", [1, 1, 3, 3, 3], [1, 2, 0, 1, 2, 1]),
                                 ("3d_unbatched", [2, 2, 3, 4], [1, 1, 1, 1, 1, 1]),
                                 ("negative", [1, 2, 5], [-1, 2])]:
            yield case(f"{op}/{mode}_{name}", op, [X(shape, 572)], F.pad, {"pad": pad, "mode": mode})
        yield case(f"{op}/{mode}_transposed", op, [X([2, 4, 3], 573, [["transpose", 1, 2]])],
                   F.pad, {"pad": [1, 1, 1, 1], "mode": mode})
        yield case(f"{op}/{mode}_value", op, [X([1, 2, 3], 574)], F.pad,
                   {"pad": [1, 1], "mode": mode, "value": 1.0})
        yield case(f"{op}/{mode}_5d_pad2", op, [X([1, 1, 2, 2, 2], 575)], F.pad,
                   {"pad": [1, 1], "mode": mode})
    yield case(f"{op}/circular_negative_both", op, [X([1, 2, 5], 576)], F.pad,
               {"pad": [-1, -2], "mode": "circular"})
    yield case(f"{op}/circular_whole", op, [X([1, 2, 3], 577)], F.pad,
               {"pad": [3, 3], "mode": "circular"})
    yield case(f"{op}/reflect_too_big", op, [X([1, 2, 3], 578)], F.pad,
               {"pad": [3, 3], "mode": "reflect"})
    yield case(f"{op}/reflect_too_big_h", op, [X([1, 2, 3, 3], 578)], F.pad,
               {"pad": [0, 0, 3, 0], "mode": "reflect"})
    yield case(f"{op}/replicate_too_small", op, [X([1, 2, 3], 579)], F.pad,
               {"pad": [-3, 0], "mode": "replicate"})
    yield case(f"{op}/replicate_too_small_2d", op, [X([1, 2, 3, 3], 579)], F.pad,
               {"pad": [-1, -3, 0, 0], "mode": "replicate"})
    yield case(f"{op}/circular_wraps_twice", op, [X([1, 2, 3], 580)], F.pad,
               {"pad": [4, 0], "mode": "circular"})
    yield case(f"{op}/circular_empty", op, [X([1, 2, 3], 580)], F.pad,
               {"pad": [-2, -2], "mode": "circular"})
    yield case(f"{op}/odd_length", op, [X([1, 2, 3], 581)], F.pad, {"pad": [1]})
    yield case(f"{op}/too_long", op, [X([1, 2, 3], 581)], F.pad, {"pad": [1] * 8})
    yield case(f"{op}/constant_crop_negative", op, [X([1, 2, 3], 581)], F.pad, {"pad": [-2, -2]})
    yield case(f"{op}/reflect_1d_input", op, [X([3], 582)], F.pad, {"pad": [1, 1], "mode": "reflect"})
    yield case(f"{op}/reflect_4d_pad8", op, [X([1, 1, 2, 2], 583)], F.pad,
               {"pad": [1] * 8, "mode": "reflect"})
    yield case(f"{op}/bad_mode", op, [X([1, 2, 3], 584)], F.pad, {"pad": [1, 1], "mode": "foo"})


def interpolate_cases():
    op = "F.interpolate"
    x3 = lambda: X([1, 2, 5], 590)
    x4 = lambda: X([1, 2, 3, 4], 591)
    x5 = lambda: X([1, 1, 2, 3, 2], 592)
    grid = [
        ("nearest", [(x3, {"size": 8}), (x3, {"scale_factor": 2.0}), (x3, {"size": 3}),
                     (x3, {"scale_factor": 0.6}), (x3, {"scale_factor": 1.7}),
                     (x4, {"size": [5, 7]}), (x4, {"scale_factor": [2.0, 1.5]}),
                     (x4, {"scale_factor": 2.3, "recompute_scale_factor": True}),
                     (x5, {"size": [3, 2, 5]}), (x5, {"scale_factor": 2.0})]),
        ("nearest-exact", [(x3, {"size": 8}), (x3, {"scale_factor": 0.6}),
                           (x4, {"size": [5, 3]}), (x4, {"scale_factor": 1.5}),
                           (x5, {"size": [3, 4, 1]})]),
        ("linear", [(x3, {"size": 8}), (x3, {"size": 8, "align_corners": True}),
                    (x3, {"scale_factor": 1.5}), (x3, {"size": 2}), (x3, {"size": 1}),
                    (x3, {"size": 1, "align_corners": True}),
                    (x3, {"scale_factor": 0.5, "recompute_scale_factor": True}),
                    (x3, {"scale_factor": 2.5, "align_corners": True})]),
        ("bilinear", [(x4, {"size": [5, 7]}), (x4, {"size": [5, 7], "align_corners": True}),
                      (x4, {"scale_factor": 2.0}), (x4, {"scale_factor": [0.7, 1.3]}),
                      (x4, {"size": [2, 2]}),
                      (x4, {"scale_factor": 1.6, "recompute_scale_factor": True})]),
        ("bicubic", [(x4, {"size": [5, 7]}), (x4, {"size": [5, 7], "align_corners": True}),
                     (x4, {"scale_factor": 2.0}), (x4, {"size": [2, 3]}),
                     (x4, {"scale_factor": [1.5, 0.8]})]),
        ("trilinear", [(x5, {"size": [3, 4, 3]}), (x5, {"scale_factor": 2.0}),
                       (x5, {"size": [3, 4, 3], "align_corners": True}),
                       (x5, {"scale_factor": [1.5, 0.7, 1.0]})]),
        ("area", [(x3, {"size": 3}), (x3, {"size": 7}), (x3, {"scale_factor": 0.5}),
                  (x4, {"size": [2, 3]}), (x4, {"scale_factor": [1.0, 0.5]}),
                  (x5, {"size": [1, 2, 2]})]),
    ]
    for mode, variants in grid:
        for i, (x, args) in enumerate(variants):
            yield case(f"{op}/{mode}_{i}", op, [x()], F.interpolate, dict(args, mode=mode))
    yield case(f"{op}/bilinear_permuted", op, [X([1, 3, 4, 2], 593, [["permute", [0, 3, 1, 2]]])],
               F.interpolate, {"size": [4, 5], "mode": "bilinear"})
    yield case(f"{op}/nearest_stepped", op, [X([1, 2, 10], 594, [["slice", 2, 0, None, 2]])],
               F.interpolate, {"scale_factor": 3.0})
    yield case(f"{op}/default_nearest", op, [x4()], F.interpolate, {"size": 6})
    for name, fn, args in [("F.upsample", F.upsample, {"scale_factor": 2.0, "mode": "bilinear"}),
                           ("F.upsample_nearest", F.upsample_nearest, {"size": [4, 6]}),
                           ("F.upsample_bilinear", F.upsample_bilinear, {"scale_factor": 1.5})]:
        yield case(f"{name}/basic", name, [x4()], fn, args)
    errors = [
        ("both", x3, {"size": 4, "scale_factor": 2.0}), ("neither", x3, {}),
        ("align_nearest", x3, {"size": 4, "align_corners": True}),
        ("bilinear_3d", x3, {"size": 4, "mode": "bilinear"}),
        ("linear_4d", x4, {"size": 4, "mode": "linear"}),
        ("trilinear_4d", x4, {"size": 4, "mode": "trilinear"}),
        ("bicubic_3d", x3, {"size": 4, "mode": "bicubic"}),
        ("bad_mode", x3, {"size": 4, "mode": "foo"}),
        ("size_length", x3, {"size": [3, 3]}),
        ("scale_length", x4, {"scale_factor": [2.0, 2.0, 2.0]}),
        ("recompute_with_size", x3, {"size": 4, "recompute_scale_factor": True}),
        ("antialias_linear", x3, {"size": 4, "mode": "linear", "antialias": True}),
        ("zero_output", x3, {"scale_factor": 0.1}),
    ]
    for name, x, args in errors:
        yield case(f"{op}/{name}", op, [x()], F.interpolate, args)


def rearrange_cases():
    for op, fn, cases_ in [
        ("F.pixel_shuffle", F.pixel_shuffle,
         [("basic", [1, 8, 2, 3], {"upscale_factor": 2}), ("unbatched", [9, 2, 2], {"upscale_factor": 3}),
          ("5d", [2, 1, 4, 1, 2], {"upscale_factor": 2}), ("factor1", [1, 3, 2, 2], {"upscale_factor": 1}),
          ("not_divisible", [1, 5, 2, 2], {"upscale_factor": 2}),
          ("2d", [4, 4], {"upscale_factor": 2})]),
        ("F.pixel_unshuffle", F.pixel_unshuffle,
         [("basic", [1, 2, 4, 6], {"downscale_factor": 2}), ("unbatched", [1, 3, 6], {"downscale_factor": 3}),
          ("5d", [2, 1, 1, 2, 4], {"downscale_factor": 2}),
          ("height", [1, 5, 5, 2], {"downscale_factor": 2}),
          ("width", [1, 5, 4, 3], {"downscale_factor": 2})]),
        ("F.channel_shuffle", F.channel_shuffle,
         [("basic", [1, 6, 2, 2], {"groups": 2}), ("3d", [2, 6, 3], {"groups": 3}),
          ("groups1", [1, 4, 2], {"groups": 1}), ("not_divisible", [1, 5, 4, 3], {"groups": 2}),
          ("1d", [5], {"groups": 2})]),
    ]:
        for name, shape, args in cases_:
            yield case(f"{op}/{name}", op, [X(shape, 600)], fn, args)
    yield case("F.pixel_shuffle/transposed", "F.pixel_shuffle",
               [X([1, 4, 3, 2], 601, [["transpose", 2, 3]])], F.pixel_shuffle, {"upscale_factor": 2})
    yield case("F.channel_shuffle/permuted", "F.channel_shuffle",
               [X([2, 3, 4], 602, [["permute", [2, 0, 1]]])], F.channel_shuffle, {"groups": 2})


def fold_cases():
    op = "F.unfold"
    for name, shape, args in [
        ("basic", [1, 2, 3, 4], {"kernel_size": 2}),
        ("unbatched", [2, 4, 4], {"kernel_size": [2, 3]}),
        ("options", [2, 1, 5, 6], {"kernel_size": [2, 2], "dilation": [2, 1], "padding": 1,
                                   "stride": [2, 3]}),
        ("kernel_whole", [1, 3, 2, 2], {"kernel_size": 2}),
        ("too_big", [1, 1, 3, 3], {"kernel_size": 4}),
    ]:
        yield case(f"{op}/{name}", op, [X(shape, 610)], F.unfold, args)
    yield case(f"{op}/transposed", op, [X([1, 2, 5, 4], 611, [["transpose", 2, 3]])], F.unfold,
               {"kernel_size": 3, "padding": 1})
    op = "F.fold"
    for name, shape, args in [
        ("basic", [1, 8, 6], {"output_size": [3, 4], "kernel_size": 2}),
        ("unbatched", [6, 3], {"output_size": [4, 3], "kernel_size": [2, 3], "stride": [1, 1]}),
        ("unbatched_mismatch", [6, 6], {"output_size": [4, 3], "kernel_size": [2, 3]}),
        ("options", [2, 4, 9], {"output_size": [5, 6], "kernel_size": 2, "dilation": [2, 1],
                                "padding": 1, "stride": [2, 3]}),
        ("overlap", [1, 9, 4], {"output_size": 4, "kernel_size": 3}),
        ("blocks_mismatch", [1, 4, 5], {"output_size": [3, 3], "kernel_size": 2}),
        ("not_divisible", [1, 5, 4], {"output_size": [3, 3], "kernel_size": 2}),
    ]:
        yield case(f"{op}/{name}", op, [X(shape, 612)], F.fold, args)


def cases():
    yield from batch_norm_cases()
    yield from instance_norm_cases()
    yield from group_norm_cases()
    yield from lrn_and_normalize_cases()
    yield from pad_cases()
    yield from interpolate_cases()
    yield from rearrange_cases()
    yield from fold_cases()
