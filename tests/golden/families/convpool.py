"""3-D and transposed convolution, and pooling beyond 2-D max/average (torch.nn.functional):
conv_transpose1d/2d/3d (stride, padding, output_padding, groups, dilation, bias or none,
unbatched, non-contiguous), conv3d; max_pool1d/3d (indices), avg_pool1d/3d, adaptive_avg_pool1d/3d,
adaptive_max_pool1d/2d/3d (indices), lp_pool1d/2d/3d, max_unpool1d/2d/3d; and torch's errors.
Each case with a float graph also freezes the input gradients.

Op names are `F.<name>`; the bias follows the weight in `inputs` when the arg `has_bias` is true.
"""
import torch
import torch.nn.functional as F

from .common import In, case, floats

X = lambda shape, seed, view=(): In(floats(_n(shape), seed=seed), shape=shape, view=view)


def _n(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def conv(fn):
    return lambda x, w, b=None, has_bias=False, **kw: fn(x, w, b, **kw)


def plain(fn):
    return lambda *xs, **kw: fn(*xs, **kw)


BIAS = {"has_bias": True}


def conv_transpose2d_cases():
    op, f = "F.conv_transpose2d", conv(F.conv_transpose2d)
    x = lambda: X([2, 3, 4, 4], 400)
    w = lambda: X([3, 2, 3, 3], 401)
    b = lambda: X([2], 402)
    yield case(f"{op}/basic", op, [x(), w(), b()], f, BIAS)
    yield case(f"{op}/no_bias", op, [x(), w()], f)
    yield case(f"{op}/stride2", op, [x(), w(), b()], f, {**BIAS, "stride": 2})
    yield case(f"{op}/stride2_pad1_outpad1", op, [x(), w(), b()], f,
               {**BIAS, "stride": 2, "padding": 1, "output_padding": 1})
    yield case(f"{op}/pairs", op, [X([1, 3, 3, 5], 403), X([3, 4, 2, 3], 404)], f,
               {"stride": [2, 1], "padding": [1, 0], "output_padding": [1, 0], "dilation": [1, 2]})
    yield case(f"{op}/dilation2", op, [x(), w()], f, {"dilation": 2})
    yield case(f"{op}/outpad_dilation", op, [x(), w()], f,
               {"dilation": 2, "output_padding": 1})
    yield case(f"{op}/groups2", op, [X([1, 4, 3, 3], 405), X([4, 3, 2, 2], 406), X([6], 407)], f,
               {**BIAS, "groups": 2, "stride": 2})
    yield case(f"{op}/depthwise", op, [X([2, 3, 3, 3], 408), X([3, 1, 3, 3], 409)], f,
               {"groups": 3, "padding": 1})
    yield case(f"{op}/unbatched", op, [X([3, 4, 4], 410), w(), b()], f, BIAS)
    yield case(f"{op}/channels_last_view", op,
               [X([2, 4, 4, 3], 411, view=[["permute", [0, 3, 1, 2]]]), w(), b()], f, BIAS)
    yield case(f"{op}/transposed_weight", op,
               [x(), X([2, 3, 3, 3], 412, view=[["transpose", 0, 1]])], f)
    yield case(f"{op}/kernel_1x1_stride3", op, [x(), X([3, 2, 1, 1], 413)], f, {"stride": 3})
    yield case(f"{op}/empty_batch", op, [In([], shape=[0, 3, 4, 4]), w(), b()], f, BIAS)
    # torch's errors
    yield case(f"{op}/wrong_channels", op, [x(), X([2, 2, 3, 3], 414)], f)
    yield case(f"{op}/bias_size", op, [x(), w(), X([3], 415)], f, BIAS)
    yield case(f"{op}/outpad_too_big", op, [x(), w()], f, {"output_padding": 1})
    yield case(f"{op}/outpad_stride", op, [x(), w()], f, {"stride": 2, "output_padding": 2})
    yield case(f"{op}/output_too_small", op, [X([1, 3, 1, 1], 416), w()], f, {"padding": 2})
    yield case(f"{op}/groups_not_dividing", op, [x(), w()], f, {"groups": 2})
    yield case(f"{op}/groups_zero", op, [x(), w()], f, {"groups": 0})
    yield case(f"{op}/stride_zero", op, [x(), w()], f, {"stride": 0})
    yield case(f"{op}/padding_negative", op, [x(), w()], f, {"padding": -1})
    yield case(f"{op}/input_2d", op, [X([5, 5], 417), w()], f)
    yield case(f"{op}/weight_int", op, [x(), In([1] * 54, "int64", shape=[3, 2, 3, 3])], f)


def conv_transpose1d_cases():
    op, f = "F.conv_transpose1d", conv(F.conv_transpose1d)
    x = lambda: X([2, 3, 5], 420)
    w = lambda: X([3, 2, 3], 421)
    yield case(f"{op}/basic", op, [x(), w(), X([2], 422)], f, BIAS)
    yield case(f"{op}/stride_pad_outpad_dilation", op, [x(), w()], f,
               {"stride": 3, "padding": 2, "output_padding": 2, "dilation": 2})
    yield case(f"{op}/groups", op, [X([1, 4, 4], 423), X([4, 2, 2], 424)], f, {"groups": 2})
    yield case(f"{op}/unbatched", op, [X([3, 5], 425), w()], f, {"stride": 2})
    yield case(f"{op}/transposed_input", op, [X([2, 5, 3], 426, view=[["transpose", 1, 2]]), w()], f)
    yield case(f"{op}/outpad_too_big", op, [x(), w()], f, {"output_padding": 1})
    yield case(f"{op}/output_too_small", op, [X([1, 3, 1], 427), w()], f, {"padding": 2})
    yield case(f"{op}/input_4d", op, [X([1, 3, 5, 5], 428), w()], f)


def conv_transpose3d_cases():
    op, f = "F.conv_transpose3d", conv(F.conv_transpose3d)
    x = lambda: X([2, 2, 3, 3, 3], 430)
    w = lambda: X([2, 3, 2, 2, 2], 431)
    yield case(f"{op}/basic", op, [x(), w(), X([3], 432)], f, BIAS)
    yield case(f"{op}/stride_pad_outpad", op, [x(), w()], f,
               {"stride": [2, 1, 2], "padding": [1, 0, 1], "output_padding": [1, 0, 0]})
    yield case(f"{op}/dilation_groups", op, [X([1, 4, 2, 3, 2], 433), X([4, 1, 2, 2, 2], 434)], f,
               {"dilation": [1, 2, 1], "groups": 2})
    yield case(f"{op}/unbatched", op, [X([2, 3, 3, 3], 435), w()], f)
    yield case(f"{op}/outpad_too_big", op, [x(), w()], f, {"output_padding": 1})
    yield case(f"{op}/wrong_channels", op, [X([1, 3, 2, 2, 2], 436), w()], f)


def conv3d_cases():
    op, f = "F.conv3d", conv(F.conv3d)
    x = lambda: X([2, 2, 4, 4, 4], 440)
    w = lambda: X([3, 2, 2, 3, 2], 441)
    yield case(f"{op}/basic", op, [x(), w(), X([3], 442)], f, BIAS)
    yield case(f"{op}/stride_pad_dilation", op, [x(), w()], f,
               {"stride": [2, 1, 2], "padding": [1, 1, 0], "dilation": [1, 2, 1]})
    yield case(f"{op}/groups", op, [X([1, 4, 3, 3, 3], 443), X([2, 2, 2, 2, 2], 444)], f,
               {"groups": 2})
    yield case(f"{op}/same", op, [x(), w()], f, {"padding": "same"})
    yield case(f"{op}/unbatched", op, [X([2, 4, 4, 4], 445), w()], f)
    yield case(f"{op}/transposed_input", op,
               [X([2, 2, 4, 4, 3], 446, view=[["transpose", 3, 4]]), X([3, 2, 2, 2, 2], 447)], f)
    yield case(f"{op}/kernel_too_big", op, [X([1, 2, 2, 2, 2], 448), X([2, 2, 3, 3, 3], 449)], f)
    yield case(f"{op}/wrong_channels", op, [X([1, 3, 2, 2, 2], 450), X([2, 2, 2, 2, 2], 451)], f)
    yield case(f"{op}/input_3d", op, [X([3, 2, 2], 452), w()], f)


def pool1d_cases():
    op, f = "F.max_pool1d", plain(F.max_pool1d)
    x = lambda: X([2, 3, 8], 460)
    yield case(f"{op}/k2", op, [x()], f, {"kernel_size": 2})
    yield case(f"{op}/k3_s2_p1", op, [x()], f, {"kernel_size": 3, "stride": 2, "padding": 1})
    yield case(f"{op}/dilation_ceil", op, [x()], f,
               {"kernel_size": 2, "stride": 2, "dilation": 2, "ceil_mode": True})
    yield case(f"{op}/indices", op, [x()], f,
               {"kernel_size": 3, "stride": 2, "padding": 1, "return_indices": True})
    yield case(f"{op}/unbatched", op, [X([3, 7], 461)], f, {"kernel_size": 3, "stride": 1})
    yield case(f"{op}/transposed", op, [X([2, 8, 3], 462, view=[["transpose", 1, 2]])], f,
               {"kernel_size": 2})
    yield case(f"{op}/kernel_zero", op, [x()], f, {"kernel_size": 0})
    yield case(f"{op}/stride_zero", op, [x()], f, {"kernel_size": 2, "stride": 0})
    yield case(f"{op}/pad_too_big", op, [x()], f, {"kernel_size": 3, "padding": 2})
    yield case(f"{op}/output_too_small", op, [x()], f, {"kernel_size": 9})
    yield case(f"{op}/kernel_two", op, [x()], f, {"kernel_size": [2, 2]})
    yield case(f"{op}/input_1d", op, [X([8], 463)], f, {"kernel_size": 2})
    yield case(f"{op}/indices_input_1d", op, [X([8], 463)], f,
               {"kernel_size": 2, "return_indices": True})
    yield case(f"{op}/indices_kernel_two", op, [x()], f,
               {"kernel_size": [2, 2], "return_indices": True})

    op, f = "F.avg_pool1d", plain(F.avg_pool1d)
    yield case(f"{op}/k2", op, [x()], f, {"kernel_size": 2})
    yield case(f"{op}/k3_s2_p1", op, [x()], f, {"kernel_size": 3, "stride": 2, "padding": 1})
    yield case(f"{op}/exclude_pad_ceil", op, [x()], f,
               {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True,
                "count_include_pad": False})
    yield case(f"{op}/unbatched", op, [X([3, 7], 464)], f, {"kernel_size": 3, "stride": 1})
    yield case(f"{op}/pad_too_big", op, [x()], f, {"kernel_size": 3, "padding": 2})
    yield case(f"{op}/output_too_small", op, [x()], f, {"kernel_size": 9})
    yield case(f"{op}/kernel_two", op, [x()], f, {"kernel_size": [2, 2]})
    yield case(f"{op}/input_1d", op, [X([8], 465)], f, {"kernel_size": 2})


def pool3d_cases():
    op, f = "F.max_pool3d", plain(F.max_pool3d)
    x = lambda: X([2, 2, 4, 4, 5], 470)
    yield case(f"{op}/k2", op, [x()], f, {"kernel_size": 2})
    yield case(f"{op}/k3_s2_p1", op, [x()], f, {"kernel_size": 3, "stride": 2, "padding": 1})
    yield case(f"{op}/triples", op, [x()], f,
               {"kernel_size": [2, 3, 2], "stride": [1, 2, 2], "padding": [1, 1, 0],
                "dilation": [1, 1, 2]})
    yield case(f"{op}/ceil_indices", op, [x()], f,
               {"kernel_size": 2, "stride": 2, "ceil_mode": True, "return_indices": True})
    yield case(f"{op}/indices_dilated", op, [X([1, 2, 5, 5, 5], 471)], f,
               {"kernel_size": [2, 2, 3], "stride": 1, "padding": 1, "dilation": 2,
                "return_indices": True})
    yield case(f"{op}/unbatched", op, [X([2, 4, 4, 4], 472)], f, {"kernel_size": 2})
    yield case(f"{op}/pad_too_big", op, [x()], f, {"kernel_size": 3, "padding": 2})
    yield case(f"{op}/output_too_small", op, [x()], f, {"kernel_size": 5})
    yield case(f"{op}/dilation_zero", op, [x()], f, {"kernel_size": 2, "dilation": 0})
    yield case(f"{op}/kernel_two", op, [x()], f, {"kernel_size": [2, 2]})
    yield case(f"{op}/input_3d", op, [X([4, 4, 4], 473)], f, {"kernel_size": 2})

    op, f = "F.avg_pool3d", plain(F.avg_pool3d)
    yield case(f"{op}/k2", op, [x()], f, {"kernel_size": 2})
    yield case(f"{op}/k3_s2_p1", op, [x()], f, {"kernel_size": 3, "stride": 2, "padding": 1})
    yield case(f"{op}/exclude_pad_ceil", op, [x()], f,
               {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True,
                "count_include_pad": False})
    yield case(f"{op}/divisor_override", op, [x()], f,
               {"kernel_size": [2, 2, 3], "stride": [2, 1, 2], "divisor_override": 5})
    yield case(f"{op}/unbatched", op, [X([2, 4, 4, 4], 474)], f, {"kernel_size": 2, "stride": 1})
    yield case(f"{op}/pad_too_big", op, [x()], f, {"kernel_size": 3, "padding": 2})
    yield case(f"{op}/input_too_small", op, [x()], f, {"kernel_size": 5})
    yield case(f"{op}/divisor_zero", op, [x()], f, {"kernel_size": 2, "divisor_override": 0})
    yield case(f"{op}/input_3d", op, [X([4, 4, 4], 475)], f, {"kernel_size": 2})


def adaptive_cases():
    op, f = "F.adaptive_avg_pool1d", plain(F.adaptive_avg_pool1d)
    yield case(f"{op}/3", op, [X([2, 3, 7], 480)], f, {"output_size": 3})
    yield case(f"{op}/larger", op, [X([2, 4], 481)], f, {"output_size": 6})
    yield case(f"{op}/input_1d", op, [X([8], 482)], f, {"output_size": 2})
    yield case(f"{op}/size_two", op, [X([2, 3, 7], 480)], f, {"output_size": [2, 2]})

    op, f = "F.adaptive_avg_pool3d", plain(F.adaptive_avg_pool3d)
    yield case(f"{op}/2x3x2", op, [X([2, 2, 5, 4, 3], 483)], f, {"output_size": [2, 3, 2]})
    yield case(f"{op}/global", op, [X([2, 2, 3, 3, 3], 484)], f, {"output_size": 1})
    yield case(f"{op}/none_keeps", op, [X([2, 3, 4, 5], 485)], f, {"output_size": [None, 2, None]})
    yield case(f"{op}/input_2d", op, [X([4, 4], 486)], f, {"output_size": 2})

    op, f = "F.adaptive_max_pool1d", plain(F.adaptive_max_pool1d)
    yield case(f"{op}/3", op, [X([2, 3, 7], 487)], f, {"output_size": 3})
    yield case(f"{op}/indices", op, [X([2, 3, 7], 488)], f, {"output_size": 4, "return_indices": True})
    yield case(f"{op}/input_1d", op, [X([8], 489)], f, {"output_size": 2})

    op, f = "F.adaptive_max_pool2d", plain(F.adaptive_max_pool2d)
    yield case(f"{op}/2x3", op, [X([2, 3, 5, 7], 490)], f, {"output_size": [2, 3]})
    yield case(f"{op}/indices", op, [X([2, 3, 5, 7], 491)], f,
               {"output_size": [3, 4], "return_indices": True})
    yield case(f"{op}/none_keeps", op, [X([3, 4, 5], 492)], f,
               {"output_size": [2, None], "return_indices": True})
    yield case(f"{op}/larger", op, [X([1, 2, 3, 3], 493)], f, {"output_size": [4, 5]})
    ties = In([1.0, 3.0, 3.0, 0.0, 3.0, 2.0, 1.0, 3.0, -1.0, -1.0, 2.0, 2.0, 0.0, 0.0, 2.0, 2.0],
              shape=[1, 1, 4, 4])
    yield case(f"{op}/ties", op, [ties], f, {"output_size": 3, "return_indices": True})
    yield case(f"{op}/input_1d", op, [X([8], 494)], f, {"output_size": 2})

    op, f = "F.adaptive_max_pool3d", plain(F.adaptive_max_pool3d)
    yield case(f"{op}/2x3x2", op, [X([2, 2, 5, 4, 3], 495)], f,
               {"output_size": [2, 3, 2], "return_indices": True})
    yield case(f"{op}/unbatched", op, [X([2, 3, 3, 4], 496)], f, {"output_size": 2})


def lp_cases():
    op, f = "F.lp_pool1d", plain(F.lp_pool1d)
    pos = lambda shape, seed: In([abs(v) + 0.1 for v in floats(_n(shape), seed=seed)], shape=shape)
    yield case(f"{op}/p2", op, [X([2, 3, 8], 500)], f, {"norm_type": 2, "kernel_size": 3, "stride": 2})
    yield case(f"{op}/p3_ceil", op, [pos([2, 3, 7], 501)], f,
               {"norm_type": 3.0, "kernel_size": 2, "ceil_mode": True})
    op, f = "F.lp_pool2d", plain(F.lp_pool2d)
    yield case(f"{op}/p2", op, [X([2, 3, 5, 6], 502)], f, {"norm_type": 2, "kernel_size": 2})
    yield case(f"{op}/p1.5_rect", op, [pos([1, 2, 5, 6], 503)], f,
               {"norm_type": 1.5, "kernel_size": [2, 3], "stride": [1, 2]})
    op, f = "F.lp_pool3d", plain(F.lp_pool3d)
    yield case(f"{op}/p2", op, [X([1, 2, 4, 4, 4], 504)], f, {"norm_type": 2, "kernel_size": 2})
    yield case(f"{op}/p3_stride", op, [pos([2, 3, 3, 4], 505)], f,
               {"norm_type": 3, "kernel_size": [2, 2, 3], "stride": 1})


def unpool_cases():
    def pooled(fn, shape, seed, **kw):
        x = torch.tensor(floats(_n(shape), seed=seed)).reshape(shape)
        v, i = fn(x, return_indices=True, **kw)
        return In(v.reshape(-1).tolist(), shape=list(v.shape)), In(i.reshape(-1).tolist(), "int64", shape=list(i.shape))

    op, f = "F.max_unpool1d", plain(F.max_unpool1d)
    v, i = pooled(F.max_pool1d, [2, 3, 8], 510, kernel_size=2)
    yield case(f"{op}/k2", op, [v, i], f, {"kernel_size": 2})
    yield case(f"{op}/output_size", op, [v, i], f, {"kernel_size": 2, "output_size": [9]})
    v, i = pooled(F.max_pool1d, [2, 7], 511, kernel_size=3, stride=2, padding=1)
    yield case(f"{op}/s2_p1_unbatched", op, [v, i], f, {"kernel_size": 3, "stride": 2, "padding": 1})

    op, f = "F.max_unpool2d", plain(F.max_unpool2d)
    v, i = pooled(F.max_pool2d, [2, 2, 4, 6], 512, kernel_size=2)
    yield case(f"{op}/k2", op, [v, i], f, {"kernel_size": 2})
    yield case(f"{op}/output_size_full", op, [v, i], f,
               {"kernel_size": 2, "output_size": [2, 2, 5, 7]})
    v, i = pooled(F.max_pool2d, [1, 2, 5, 5], 513, kernel_size=3, stride=2, padding=1)
    yield case(f"{op}/s2_p1", op, [v, i], f, {"kernel_size": 3, "stride": 2, "padding": 1})
    yield case(f"{op}/output_size_range", op, [v, i], f,
               {"kernel_size": 3, "stride": 2, "padding": 1, "output_size": [9, 9]})
    yield case(f"{op}/output_size_length", op, [v, i], f,
               {"kernel_size": 3, "stride": 2, "padding": 1, "output_size": [1, 5, 5]})
    yield case(f"{op}/float_indices", op, [v, In(floats(8, seed=514), shape=[1, 2, 2, 2])], f,
               {"kernel_size": 2})

    op, f = "F.max_unpool3d", plain(F.max_unpool3d)
    v, i = pooled(F.max_pool3d, [1, 2, 4, 4, 4], 515, kernel_size=2)
    yield case(f"{op}/k2", op, [v, i], f, {"kernel_size": 2})


def cases():
    yield from conv_transpose2d_cases()
    yield from conv_transpose1d_cases()
    yield from conv_transpose3d_cases()
    yield from conv3d_cases()
    yield from pool1d_cases()
    yield from pool3d_cases()
    yield from adaptive_cases()
    yield from lp_cases()
    yield from unpool_cases()
