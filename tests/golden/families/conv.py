"""Convolution and pooling (torch.nn.functional): conv1d and conv2d with strides, padding (sizes,
'valid', 'same'), dilation, groups, bias or none, unbatched and non-contiguous inputs;
max_pool2d (ceil_mode, dilation, return_indices, ties), avg_pool2d (count_include_pad,
divisor_override, ceil_mode), adaptive_avg_pool2d; and torch's errors. Each case with a float
graph also freezes the input gradients (input, weight, bias).

Op names are `F.<name>`; the bias follows the weight in `inputs` when the arg `has_bias` is true.
Other args are torch's keyword arguments.
"""
import torch.nn.functional as F

from .common import In, case, floats


def conv(fn):
    return lambda x, w, b=None, has_bias=False, **kw: fn(x, w, b, **kw)


conv2d, conv1d = conv(F.conv2d), conv(F.conv1d)

X = lambda shape, seed, view=(): In(floats(_n(shape), seed=seed), shape=shape, view=view)


def _n(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def conv2d_cases():
    op = "F.conv2d"
    x = lambda: X([2, 3, 5, 5], 300)
    w = lambda: X([4, 3, 3, 3], 301)
    b = lambda: X([4], 302)
    bias = {"has_bias": True}
    yield case(f"{op}/basic", op, [x(), w(), b()], conv2d, bias)
    yield case(f"{op}/no_bias", op, [x(), w()], conv2d)
    yield case(f"{op}/stride2_pad1", op, [x(), w(), b()], conv2d, {**bias, "stride": 2, "padding": 1})
    yield case(f"{op}/pairs", op, [X([1, 3, 6, 7], 303), w(), b()], conv2d,
               {**bias, "stride": [2, 1], "padding": [1, 2], "dilation": [2, 1]})
    yield case(f"{op}/dilation2", op, [X([1, 3, 6, 6], 304), w()], conv2d, {"dilation": 2})
    yield case(f"{op}/groups2", op, [X([1, 4, 5, 5], 305), X([6, 2, 3, 3], 306), X([6], 307)],
               conv2d, {**bias, "groups": 2})
    yield case(f"{op}/depthwise", op, [X([2, 4, 4, 4], 308), X([4, 1, 3, 3], 309)], conv2d,
               {"groups": 4, "padding": 1})
    yield case(f"{op}/same_odd", op, [x(), w(), b()], conv2d, {**bias, "padding": "same"})
    yield case(f"{op}/same_even_dilated", op, [x(), X([2, 3, 2, 4], 310)], conv2d,
               {"padding": "same", "dilation": [1, 2]})
    yield case(f"{op}/valid", op, [x(), w()], conv2d, {"padding": "valid"})
    yield case(f"{op}/unbatched", op, [X([3, 5, 5], 311), w(), b()], conv2d, bias)
    yield case(f"{op}/channels_last_view", op,
               [X([2, 5, 5, 3], 312, view=[["permute", [0, 3, 1, 2]]]), w(), b()], conv2d, bias)
    yield case(f"{op}/stepped_input", op,
               [X([1, 3, 5, 10], 313, view=[["slice", 3, 0, None, 2]]), w()], conv2d)
    yield case(f"{op}/transposed_weight", op,
               [x(), X([3, 4, 3, 3], 314, view=[["transpose", 0, 1]]), b()], conv2d, bias)
    yield case(f"{op}/kernel_1x1", op, [x(), X([2, 3, 1, 1], 315)], conv2d)
    yield case(f"{op}/kernel_whole", op, [x(), X([2, 3, 5, 5], 316), X([2], 317)], conv2d, bias)
    yield case(f"{op}/rect_kernel_stride", op, [X([1, 2, 7, 6], 318), X([3, 2, 2, 3], 319)],
               conv2d, {"stride": [3, 2], "padding": [0, 1]})
    yield case(f"{op}/empty_batch", op, [In([], shape=[0, 3, 5, 5]), w(), b()], conv2d, bias)
    # torch's errors
    yield case(f"{op}/wrong_channels", op, [x(), X([4, 2, 3, 3], 320)], conv2d)
    yield case(f"{op}/kernel_too_big", op, [x(), X([4, 3, 7, 7], 321)], conv2d)
    yield case(f"{op}/groups_channels", op, [X([1, 4, 5, 5], 305), X([6, 2, 3, 3], 306)], conv2d,
               {"groups": 3})
    yield case(f"{op}/groups_not_dividing", op, [X([1, 4, 5, 5], 305), X([5, 2, 3, 3], 322)],
               conv2d, {"groups": 2})
    yield case(f"{op}/groups_zero", op, [x(), w()], conv2d, {"groups": 0})
    yield case(f"{op}/weight_3d", op, [x(), X([4, 3, 3], 323)], conv2d)
    yield case(f"{op}/input_5d", op, [X([1, 1, 3, 5, 5], 324), w()], conv2d)
    yield case(f"{op}/input_2d", op, [X([5, 5], 325), w()], conv2d)
    yield case(f"{op}/bias_size", op, [x(), w(), X([3], 326)], conv2d, bias)
    yield case(f"{op}/stride_zero", op, [x(), w()], conv2d, {"stride": 0})
    yield case(f"{op}/padding_negative", op, [x(), w()], conv2d, {"padding": -1})
    yield case(f"{op}/dilation_zero", op, [x(), w()], conv2d, {"dilation": 0})
    yield case(f"{op}/same_strided", op, [x(), w()], conv2d, {"padding": "same", "stride": 2})
    yield case(f"{op}/padding_string", op, [x(), w()], conv2d, {"padding": "full"})
    yield case(f"{op}/stride_three", op, [x(), w()], conv2d, {"stride": [1, 2, 3]})
    yield case(f"{op}/weight_int", op, [x(), In([1] * 108, "int64", shape=[4, 3, 3, 3])], conv2d)


def conv1d_cases():
    op = "F.conv1d"
    x = lambda: X([2, 3, 8], 330)
    w = lambda: X([4, 3, 3], 331)
    yield case(f"{op}/basic", op, [x(), w(), X([4], 332)], conv1d, {"has_bias": True})
    yield case(f"{op}/stride_pad_dilation", op, [x(), w()], conv1d,
               {"stride": 2, "padding": 2, "dilation": 2})
    yield case(f"{op}/groups", op, [X([1, 4, 6], 333), X([2, 2, 2], 334)], conv1d, {"groups": 2})
    yield case(f"{op}/same_even", op, [x(), X([2, 3, 4], 335)], conv1d, {"padding": "same"})
    yield case(f"{op}/unbatched", op, [X([3, 8], 336), w()], conv1d)
    yield case(f"{op}/transposed_input", op, [X([2, 8, 3], 337, view=[["transpose", 1, 2]]), w()],
               conv1d)
    yield case(f"{op}/kernel_too_big", op, [X([2, 3, 5], 338), X([4, 3, 6], 339)], conv1d)
    yield case(f"{op}/input_4d", op, [X([1, 3, 5, 5], 340), w()], conv1d)


def max_pool_cases():
    op = "F.max_pool2d"
    x = lambda: X([2, 3, 6, 6], 350)
    mp = lambda x, **kw: F.max_pool2d(x, **kw)
    yield case(f"{op}/k2", op, [x()], mp, {"kernel_size": 2})
    yield case(f"{op}/k3_s2_p1", op, [x()], mp, {"kernel_size": 3, "stride": 2, "padding": 1})
    yield case(f"{op}/pairs", op, [X([1, 2, 7, 6], 351)], mp,
               {"kernel_size": [2, 3], "stride": [1, 2], "padding": [1, 0]})
    yield case(f"{op}/dilation", op, [X([1, 2, 7, 7], 352)], mp,
               {"kernel_size": 3, "stride": 1, "dilation": 2})
    yield case(f"{op}/ceil_mode", op, [X([1, 2, 7, 7], 353)], mp,
               {"kernel_size": 3, "stride": 2, "ceil_mode": True})
    yield case(f"{op}/ceil_mode_padded", op, [X([1, 2, 6, 6], 354)], mp,
               {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True})
    yield case(f"{op}/indices", op, [X([1, 2, 5, 6], 355)], mp,
               {"kernel_size": 3, "stride": 2, "padding": 1, "return_indices": True})
    yield case(f"{op}/indices_dilated_ceil", op, [X([2, 1, 7, 6], 356)], mp,
               {"kernel_size": [2, 3], "dilation": [2, 1], "ceil_mode": True,
                "return_indices": True})
    yield case(f"{op}/unbatched", op, [X([3, 4, 4], 357)], mp, {"kernel_size": 2})
    yield case(f"{op}/channels_last_view", op, [X([2, 4, 4, 3], 358, view=[["permute", [0, 3, 1, 2]]])],
               mp, {"kernel_size": 2, "stride": 1})
    # ties: torch picks (and sends the gradient to) the first maximum of each window
    ties = In([1.0, 3.0, 3.0, 0.0, 3.0, 2.0, 1.0, 3.0, -1.0, -1.0, 2.0, 2.0, 0.0, 0.0, 2.0, 2.0],
              shape=[1, 1, 4, 4])
    yield case(f"{op}/ties", op, [ties], mp, {"kernel_size": 2, "stride": 1,
                                              "return_indices": True})
    yield case(f"{op}/empty_batch", op, [In([], shape=[0, 2, 4, 4])], mp, {"kernel_size": 2})
    yield case(f"{op}/pad_too_big", op, [x()], mp, {"kernel_size": 3, "padding": 2})
    yield case(f"{op}/kernel_zero", op, [x()], mp, {"kernel_size": 0})
    yield case(f"{op}/stride_zero", op, [x()], mp, {"kernel_size": 2, "stride": 0})
    yield case(f"{op}/output_too_small", op, [x()], mp, {"kernel_size": 7})
    yield case(f"{op}/input_2d", op, [X([6, 6], 359)], mp, {"kernel_size": 2})
    yield case(f"{op}/dilation_zero", op, [x()], mp, {"kernel_size": 2, "dilation": 0})
    yield case(f"{op}/kernel_three", op, [x()], mp, {"kernel_size": [2, 2, 2]})


def avg_pool_cases():
    op = "F.avg_pool2d"
    x = lambda: X([2, 3, 6, 6], 360)
    ap = lambda x, **kw: F.avg_pool2d(x, **kw)
    yield case(f"{op}/k2", op, [x()], ap, {"kernel_size": 2})
    yield case(f"{op}/k3_s2_p1", op, [x()], ap, {"kernel_size": 3, "stride": 2, "padding": 1})
    yield case(f"{op}/exclude_pad", op, [x()], ap,
               {"kernel_size": 3, "stride": 2, "padding": 1, "count_include_pad": False})
    yield case(f"{op}/ceil_mode_padded", op, [X([1, 2, 7, 7], 361)], ap,
               {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True})
    yield case(f"{op}/ceil_mode_exclude_pad", op, [X([1, 2, 7, 7], 361)], ap,
               {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True,
                "count_include_pad": False})
    yield case(f"{op}/divisor_override", op, [x()], ap,
               {"kernel_size": [2, 3], "stride": [2, 1], "divisor_override": 5})
    yield case(f"{op}/unbatched", op, [X([3, 5, 5], 362)], ap, {"kernel_size": 2, "stride": 1})
    yield case(f"{op}/stepped_input", op, [X([1, 2, 6, 12], 363, view=[["slice", 3, 1, None, 2]])],
               ap, {"kernel_size": 3, "stride": 1})
    yield case(f"{op}/empty_batch", op, [In([], shape=[0, 2, 4, 4])], ap, {"kernel_size": 2})
    yield case(f"{op}/pad_too_big", op, [x()], ap, {"kernel_size": 3, "padding": 2})
    yield case(f"{op}/output_too_small", op, [x()], ap, {"kernel_size": 7})
    yield case(f"{op}/divisor_zero", op, [x()], ap, {"kernel_size": 2, "divisor_override": 0})
    yield case(f"{op}/input_2d", op, [X([6, 6], 364)], ap, {"kernel_size": 2})


def adaptive_cases():
    op = "F.adaptive_avg_pool2d"
    aap = lambda x, **kw: F.adaptive_avg_pool2d(x, **kw)
    x = lambda: X([2, 3, 5, 7], 370)
    yield case(f"{op}/2x3", op, [x()], aap, {"output_size": [2, 3]})
    yield case(f"{op}/global", op, [x()], aap, {"output_size": 1})
    yield case(f"{op}/none_keeps", op, [x()], aap, {"output_size": [3, None]})
    yield case(f"{op}/larger", op, [X([1, 2, 3, 3], 371)], aap, {"output_size": [4, 5]})
    yield case(f"{op}/unbatched", op, [X([3, 4, 4], 372)], aap, {"output_size": 2})
    yield case(f"{op}/transposed", op, [X([2, 3, 7, 5], 373, view=[["transpose", 2, 3]])], aap,
               {"output_size": [3, 2]})
    yield case(f"{op}/input_2d", op, [X([5, 5], 374)], aap, {"output_size": 2})


def cases():
    yield from conv2d_cases()
    yield from conv1d_cases()
    yield from max_pool_cases()
    yield from avg_pool_cases()
    yield from adaptive_cases()
