"""Shapes that exercise the implicit-GEMM convolution kernels (borch-tensor/src/kernels/
conv_gemm.rs), forward and backward (input, weight and bias gradients): tile edges (C_out, K and
N not multiples of the tile), groups and depthwise, dilation, ResNet's 3x3 stride 2 with padding
1 and 1x1 stride-2 shortcuts, small planes with many channels (where a GPU splits K), 'same'
padding with even kernels, conv1d as planes of height 1, non-contiguous and unbatched inputs.

Op names are `F.<name>` as in conv.py; the bias follows the weight when `has_bias` is true.
"""
from .common import In, case, floats
from .conv import conv1d, conv2d


def X(shape, seed, view=()):
    n = 1
    for s in shape:
        n *= s
    return In(floats(n, lo=-1.0, hi=1.0, seed=seed), shape=shape, view=view)


def conv2d_cases():
    op = "F.conv2d"
    bias = {"has_bias": True}
    yield case(f"{op}/igemm_tile_edges", op, [X([2, 5, 9, 11], 900), X([33, 5, 3, 3], 901),
               X([33], 902)], conv2d, {**bias, "padding": 1})
    yield case(f"{op}/igemm_groups3_stride2", op, [X([2, 6, 7, 7], 903), X([9, 2, 3, 3], 904)],
               conv2d, {"groups": 3, "stride": 2, "padding": 1})
    yield case(f"{op}/igemm_depthwise", op, [X([2, 8, 6, 6], 905), X([8, 1, 3, 3], 906),
               X([8], 907)], conv2d, {**bias, "groups": 8, "padding": 1})
    yield case(f"{op}/igemm_depthwise_multiplier", op, [X([1, 4, 5, 7], 908),
               X([12, 1, 3, 3], 909)], conv2d, {"groups": 4, "stride": [1, 2], "padding": 1})
    yield case(f"{op}/igemm_dilation2", op, [X([1, 4, 9, 9], 910), X([5, 4, 3, 3], 911),
               X([5], 912)], conv2d, {**bias, "dilation": 2, "padding": 2})
    yield case(f"{op}/igemm_dilation_rect", op, [X([2, 3, 10, 8], 913), X([4, 3, 2, 3], 914)],
               conv2d, {"dilation": [3, 2], "stride": [2, 1], "padding": [1, 2]})
    yield case(f"{op}/igemm_resnet_3x3_s2", op, [X([2, 8, 8, 8], 915), X([16, 8, 3, 3], 916),
               X([16], 917)], conv2d, {**bias, "stride": 2, "padding": 1})
    yield case(f"{op}/igemm_shortcut_1x1_s2", op, [X([2, 8, 8, 8], 918), X([16, 8, 1, 1], 919)],
               conv2d, {"stride": 2})
    yield case(f"{op}/igemm_odd_plane_s2", op, [X([3, 4, 7, 5], 920), X([6, 4, 3, 3], 921),
               X([6], 922)], conv2d, {**bias, "stride": 2, "padding": 1})
    # Few output pixels, many channels: a GPU splits K (forward and input gradient).
    yield case(f"{op}/igemm_split_k_b1_4x4", op, [X([1, 32, 4, 4], 923), X([32, 32, 3, 3], 924),
               X([32], 925)], conv2d, {**bias, "padding": 1})
    # Weight gradient with K = batch * OH * OW the long side.
    yield case(f"{op}/igemm_split_k_weight", op, [X([8, 16, 4, 4], 926), X([16, 16, 3, 3], 927)],
               conv2d, {"padding": 1})
    yield case(f"{op}/igemm_same_even", op, [X([2, 3, 6, 5], 928), X([4, 3, 2, 4], 929),
               X([4], 930)], conv2d, {**bias, "padding": "same"})
    yield case(f"{op}/igemm_same_even_dilated", op, [X([1, 2, 7, 6], 931), X([3, 2, 4, 2], 932)],
               conv2d, {"padding": "same", "dilation": [2, 1]})
    yield case(f"{op}/igemm_channels_last", op,
               [X([2, 6, 6, 5], 933, view=[["permute", [0, 3, 1, 2]]]), X([7, 5, 3, 3], 934),
                X([7], 935)], conv2d, {**bias, "stride": 2, "padding": 1})
    yield case(f"{op}/igemm_unbatched_groups", op, [X([4, 6, 6], 936), X([6, 2, 3, 3], 937)],
               conv2d, {"groups": 2, "padding": 1})
    yield case(f"{op}/igemm_kernel_covers_padded", op, [X([1, 3, 3, 3], 938), X([2, 3, 5, 5], 939)],
               conv2d, {"padding": 1})


def conv1d_cases():
    op = "F.conv1d"
    yield case(f"{op}/igemm_groups_stride_dilation", op, [X([2, 6, 17], 950), X([10, 3, 4], 951),
               X([10], 952)], conv1d,
               {"has_bias": True, "groups": 2, "stride": 2, "padding": 3, "dilation": 2})
    yield case(f"{op}/igemm_same_even", op, [X([1, 4, 9], 953), X([3, 4, 2], 954)], conv1d,
               {"padding": "same"})
    yield case(f"{op}/igemm_depthwise", op, [X([2, 5, 12], 955), X([5, 1, 5], 956)], conv1d,
               {"groups": 5, "padding": 2})
    yield case(f"{op}/igemm_tile_edges", op, [X([3, 7, 21], 957), X([19, 7, 3], 958)], conv1d,
               {"stride": 2})


def cases():
    yield from conv2d_cases()
    yield from conv1d_cases()
