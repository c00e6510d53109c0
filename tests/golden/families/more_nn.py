"""More torch.nn.functional cases for issue 10's under-covered functions: max_unpool1d/3d
(stride, padding, output_size, unbatched), the deprecated upsample / upsample_nearest /
upsample_bilinear, lp_pool1d/2d/3d (norm types, ceil_mode, unbatched, views),
adaptive_max_pool1d/3d and adaptive_avg_pool1d (indices, larger outputs, None sizes, views), bilinear
and rms_norm; with their input gradients, and torch's errors."""
import torch
import torch.nn.functional as F

from .common import In, case, floats


def _n(shape):
    n = 1
    for s in shape:
        n *= s
    return n


X = lambda shape, seed, view=(): In(floats(_n(shape), seed=seed), shape=list(shape), view=view)


def plain(fn):
    return lambda *xs, **kw: fn(*xs, **kw)


def pooled(fn, shape, seed, **kw):
    t = torch.tensor(floats(_n(shape), seed=seed)).reshape(shape)
    v, i = fn(t, return_indices=True, **kw)
    return (In(v.reshape(-1).tolist(), shape=list(v.shape)),
            In(i.reshape(-1).tolist(), "int64", shape=list(i.shape)))


def unpool_cases():
    op, f = "F.max_unpool3d", plain(F.max_unpool3d)
    v, i = pooled(F.max_pool3d, [1, 2, 5, 5, 5], 1399, kernel_size=3, stride=2, padding=1)
    yield case(f"{op}/s2_p1", op, [v, i], f, {"kernel_size": 3, "stride": 2, "padding": 1})
    # 5x5x4 pools to 3x3x2, whose default unpooled size is 5x5x3: output_size says 5x5x4.
    v, i = pooled(F.max_pool3d, [1, 2, 5, 5, 4], 1400, kernel_size=3, stride=2, padding=1)
    yield case(f"{op}/output_size", op, [v, i], f,
               {"kernel_size": 3, "stride": 2, "padding": 1, "output_size": [5, 5, 4]})
    yield case(f"{op}/output_size_full", op, [v, i], f,
               {"kernel_size": 3, "stride": 2, "padding": 1, "output_size": [1, 2, 5, 5, 4]})
    v, i = pooled(F.max_pool3d, [2, 4, 4, 6], 1401, kernel_size=2)
    yield case(f"{op}/unbatched", op, [v, i], f, {"kernel_size": 2})
    v, i = pooled(F.max_pool3d, [1, 1, 4, 4, 6], 1402, kernel_size=[2, 2, 3], stride=[2, 1, 3])
    yield case(f"{op}/rect", op, [v, i], f, {"kernel_size": [2, 2, 3], "stride": [2, 1, 3]})
    yield case(f"{op}/bad_output_size", op, [v, i], f,
               {"kernel_size": [2, 2, 3], "stride": [2, 1, 3], "output_size": [9, 9, 9]})
    op, f = "F.max_unpool1d", plain(F.max_unpool1d)
    v, i = pooled(F.max_pool1d, [1, 2, 9], 1403, kernel_size=3, stride=3)
    yield case(f"{op}/k3", op, [v, i], f, {"kernel_size": 3})
    yield case(f"{op}/k3_output_size", op, [v, i], f, {"kernel_size": 3, "output_size": [10]})
    v, i = pooled(F.max_pool1d, [2, 3, 8], 1404, kernel_size=2, stride=1)
    yield case(f"{op}/overlapping", op, [v, i], f, {"kernel_size": 2, "stride": 1})


def upsample_cases():
    x4 = lambda seed=1410, view=(): X([1, 2, 3, 4], seed, view)
    x3 = lambda: X([1, 2, 5], 1411)
    x5 = lambda: X([1, 1, 2, 3, 2], 1412)
    op, f = "F.upsample", F.upsample
    variants = [
        ("nearest_size", x4, {"size": [5, 6]}),
        ("nearest_scale", x4, {"scale_factor": 2.0}),
        ("nearest_1d", x3, {"scale_factor": 1.6}),
        ("linear", x3, {"size": 7, "mode": "linear"}),
        ("linear_align", x3, {"size": 7, "mode": "linear", "align_corners": True}),
        ("bilinear_align", x4, {"size": [4, 7], "mode": "bilinear", "align_corners": True}),
        ("bicubic", x4, {"size": [5, 5], "mode": "bicubic"}),
        ("trilinear", x5, {"scale_factor": 2.0, "mode": "trilinear"}),
        ("nearest_3d", x5, {"size": [3, 3, 3]}),
        ("area", x4, {"size": [2, 2], "mode": "area"}),
    ]
    for name, x, args in variants:
        yield case(f"{op}/{name}", op, [x()], f, args)
    yield case(f"{op}/permuted", op, [X([1, 3, 4, 2], 1413, [["permute", [0, 3, 1, 2]]])], f,
               {"scale_factor": 1.5, "mode": "bilinear"})
    yield case(f"{op}/both_error", op, [x4()], f, {"size": 4, "scale_factor": 2.0})
    op, f = "F.upsample_nearest", F.upsample_nearest
    yield case(f"{op}/scale", op, [x4()], f, {"scale_factor": 3.0})
    yield case(f"{op}/1d", op, [x3()], f, {"size": 9})
    yield case(f"{op}/3d", op, [x5()], f, {"scale_factor": 2.0})
    yield case(f"{op}/transposed", op, [x4(1414, [["transpose", 2, 3]])], f, {"size": [6, 4]})
    op, f = "F.upsample_bilinear", F.upsample_bilinear
    yield case(f"{op}/size", op, [x4()], f, {"size": [5, 7]})
    yield case(f"{op}/scale2", op, [x4(1415)], f, {"scale_factor": 2.0})
    yield case(f"{op}/shrink", op, [X([1, 2, 6, 5], 1416)], f, {"size": [3, 2]})
    yield case(f"{op}/transposed", op, [x4(1417, [["transpose", 2, 3]])], f, {"size": [3, 3]})


def lp_cases():
    pos = lambda shape, seed, view=(): In([abs(v) + 0.1 for v in floats(_n(shape), seed=seed)], shape=list(shape), view=view)
    op, f = "F.lp_pool1d", plain(F.lp_pool1d)
    yield case(f"{op}/p1", op, [X([2, 3, 8], 1420)], f, {"norm_type": 1, "kernel_size": 2})
    yield case(f"{op}/p2_unbatched", op, [X([3, 9], 1421)], f, {"norm_type": 2, "kernel_size": 3})
    yield case(f"{op}/p4_stride1", op, [pos([1, 2, 6], 1422)], f, {"norm_type": 4, "kernel_size": 3, "stride": 1})
    yield case(f"{op}/transposed", op, [X([2, 7, 3], 1423, [["transpose", 1, 2]])], f, {"norm_type": 2, "kernel_size": 2})
    yield case(f"{op}/kernel_too_big", op, [X([1, 2, 3], 1424)], f, {"norm_type": 2, "kernel_size": 5})
    op, f = "F.lp_pool2d", plain(F.lp_pool2d)
    yield case(f"{op}/p1", op, [X([1, 2, 4, 4], 1425)], f, {"norm_type": 1, "kernel_size": 2})
    yield case(f"{op}/p2_ceil", op, [X([1, 2, 5, 5], 1426)], f, {"norm_type": 2, "kernel_size": 2, "ceil_mode": True})
    yield case(f"{op}/p3_unbatched", op, [pos([2, 4, 6], 1427)], f, {"norm_type": 3, "kernel_size": [2, 3]})
    yield case(f"{op}/stride_pair", op, [X([2, 1, 5, 6], 1428)], f, {"norm_type": 2, "kernel_size": 3, "stride": [2, 1]})
    yield case(f"{op}/permuted", op, [X([1, 4, 4, 2], 1429, [["permute", [0, 3, 1, 2]]])], f, {"norm_type": 2, "kernel_size": 2})
    op, f = "F.lp_pool3d", plain(F.lp_pool3d)
    yield case(f"{op}/p1", op, [X([1, 1, 4, 4, 4], 1430)], f, {"norm_type": 1, "kernel_size": 2})
    yield case(f"{op}/p2_ceil", op, [X([1, 2, 3, 5, 5], 1431)], f, {"norm_type": 2, "kernel_size": 2, "ceil_mode": True})
    yield case(f"{op}/p2_stride", op, [X([2, 4, 4, 5], 1432)], f, {"norm_type": 2, "kernel_size": [2, 2, 3], "stride": [1, 2, 2]})


def adaptive_cases():
    op, f = "F.adaptive_max_pool3d", plain(F.adaptive_max_pool3d)
    yield case(f"{op}/global", op, [X([2, 2, 3, 3, 3], 1440)], f, {"output_size": 1, "return_indices": True})
    yield case(f"{op}/larger", op, [X([1, 1, 2, 3, 2], 1441)], f, {"output_size": [3, 4, 3], "return_indices": True})
    yield case(f"{op}/none_keeps", op, [X([1, 2, 4, 5, 3], 1442)], f, {"output_size": [None, 2, None]})
    yield case(f"{op}/uneven", op, [X([1, 2, 5, 7, 3], 1443)], f, {"output_size": [3, 4, 2]})
    yield case(f"{op}/permuted", op, [X([1, 3, 4, 4, 2], 1444, [["permute", [0, 4, 1, 2, 3]]])], f, {"output_size": 2})
    yield case(f"{op}/unbatched_indices", op, [X([2, 4, 3, 5], 1445)], f, {"output_size": [2, 2, 3], "return_indices": True})
    ties = In([1.0, 1.0, 1.0, 1.0, 2.0, 2.0, 0.0, 2.0], shape=[1, 1, 2, 2, 2])
    yield case(f"{op}/ties", op, [ties], f, {"output_size": 1, "return_indices": True})
    yield case(f"{op}/input_2d_error", op, [X([4, 4], 1446)], f, {"output_size": 2})
    op, f = "F.adaptive_max_pool1d", plain(F.adaptive_max_pool1d)
    yield case(f"{op}/global", op, [X([2, 3, 7], 1447)], f, {"output_size": 1, "return_indices": True})
    yield case(f"{op}/larger", op, [X([1, 2, 3], 1448)], f, {"output_size": 5, "return_indices": True})
    yield case(f"{op}/transposed", op, [X([2, 6, 3], 1449, [["transpose", 1, 2]])], f, {"output_size": 4})
    op, f = "F.adaptive_avg_pool1d", plain(F.adaptive_avg_pool1d)
    yield case(f"{op}/global", op, [X([2, 3, 7], 1450)], f, {"output_size": 1})
    yield case(f"{op}/transposed", op, [X([2, 6, 3], 1451, [["transpose", 1, 2]])], f, {"output_size": 4})
    yield case(f"{op}/uneven", op, [X([1, 2, 10], 1452)], f, {"output_size": 3})


def misc_cases():
    op = "F.bilinear"
    bl = lambda a, b, w, bias=None, has_bias=False: F.bilinear(a, b, w, bias)
    yield case(f"{op}/no_batch_dims_3d", op, [X([2, 3, 4], 1460), X([2, 3, 5], 1461), X([2, 4, 5], 1462), X([2], 1463)], bl, {"has_bias": True})
    yield case(f"{op}/transposed_inputs", op, [X([4, 3], 1464, [["t"]]), X([3, 2], 1465), X([3, 4, 2], 1466)], bl)
    yield case(f"{op}/1d", op, [X([4], 1467), X([2], 1468), X([3, 4, 2], 1469)], bl)
    yield case(f"{op}/shape_error", op, [X([3, 4], 1470), X([3, 2], 1471), X([3, 5, 2], 1472)], bl)
    op = "F.rms_norm"
    rn = lambda t, w=None, normalized_shape=None, eps=None, has_weight=False: F.rms_norm(t, normalized_shape, w, eps)
    yield case(f"{op}/two_dims", op, [X([2, 3, 4], 1473)], rn, {"normalized_shape": [3, 4]})
    yield case(f"{op}/weight_eps", op, [X([2, 3, 4], 1474), X([4], 1475)], rn, {"normalized_shape": [4], "eps": 0.1, "has_weight": True})
    yield case(f"{op}/transposed", op, [X([4, 3], 1476, [["t"]]), X([3], 1477)], rn, {"normalized_shape": [3], "has_weight": True})
    yield case(f"{op}/zeros", op, [In([0.0] * 6, shape=[2, 3])], rn, {"normalized_shape": [3]})
    yield case(f"{op}/shape_error", op, [X([2, 3], 1478)], rn, {"normalized_shape": [2]})


def cases():
    yield from unpool_cases()
    yield from upsample_cases()
    yield from lp_cases()
    yield from adaptive_cases()
    yield from misc_cases()
