"""The normalization, padding and resampling layers' cases for cases.json (called from cases.py):

- forward cases (output and gradients, train or eval mode) for BatchNorm*, InstanceNorm*,
  GroupNorm, LocalResponseNorm, the 15 padding layers, Conv with padding_mode, Upsample*,
  PixelShuffle/Unshuffle, ChannelShuffle, Fold/Unfold;
- "stats": a module run in train mode on several inputs (its buffers after each forward: running
  mean and variance, num_batches_tracked), then in eval mode (`tests/running_stats.rs`);
- structure specs (repr, state_dict keys, buffers).
"""
import torch

GEN = torch.Generator().manual_seed(4321)


def randn(*shape, scale=1.0, shift=0.0):
    return torch.randn(*shape, generator=GEN) * scale + shift


def forward_cases(f, M, inp):
    """`f` is cases.py's forward_case, `M` its module spec, `inp` its input encoder."""
    out = []
    for name, spec, shape, train in [
        ("bn1d_train", M("BatchNorm1d", 3), [4, 3], True),
        ("bn1d_3d_train", M("BatchNorm1d", 3), [2, 3, 4], True),
        ("bn1d_eval", M("BatchNorm1d", 3), [4, 3], False),
        ("bn2d_train", M("BatchNorm2d", 2), [2, 2, 3, 3], True),
        ("bn2d_no_affine", M("BatchNorm2d", 2, affine=False), [2, 2, 2, 3], True),
        ("bn2d_no_stats_eval", M("BatchNorm2d", 2, track_running_stats=False), [2, 2, 2, 2],
         False),
        ("bn2d_no_bias", M("BatchNorm2d", 2, bias=False), [3, 2, 2, 2], True),
        ("bn3d_train", M("BatchNorm3d", 2, eps=1e-3), [2, 2, 2, 2, 2], True),
        ("in1d", M("InstanceNorm1d", 3), [2, 3, 5], True),
        ("in1d_unbatched", M("InstanceNorm1d", 3, affine=True), [3, 5], True),
        ("in2d_affine", M("InstanceNorm2d", 2, affine=True), [2, 2, 3, 3], True),
        ("in2d_stats_eval", M("InstanceNorm2d", 2, track_running_stats=True), [2, 2, 3, 2],
         False),
        ("in3d", M("InstanceNorm3d", 2, affine=True), [1, 2, 2, 2, 3], True),
        ("gn", M("GroupNorm", 2, 4), [2, 4, 3], True),
        ("gn_4d_no_affine", M("GroupNorm", 3, 6, affine=False), [2, 6, 2, 2], True),
        ("gn_eps", M("GroupNorm", 1, 3, eps=1e-3), [2, 3, 2, 2], False),
        ("lrn", M("LocalResponseNorm", 2), [2, 4, 3], True),
        ("lrn_4d", M("LocalResponseNorm", 3, alpha=0.1, beta=0.5, k=2.0), [1, 5, 2, 2], True),
        ("zero_pad1d", M("ZeroPad1d", [1, 2]), [2, 3, 4], True),
        ("zero_pad2d", M("ZeroPad2d", 1), [1, 2, 3, 3], True),
        ("zero_pad3d", M("ZeroPad3d", [1, 0, 0, 1, 1, 0]), [1, 1, 2, 2, 2], True),
        ("constant_pad1d", M("ConstantPad1d", 2, 3.5), [2, 3], True),
        ("constant_pad2d", M("ConstantPad2d", [1, 0, -1, 2], -1.0), [1, 3, 4], True),
        ("constant_pad3d", M("ConstantPad3d", 1, 0.5), [1, 2, 2, 2], True),
        ("reflection_pad1d", M("ReflectionPad1d", [2, 1]), [1, 2, 4], True),
        ("reflection_pad2d", M("ReflectionPad2d", 1), [1, 2, 3, 3], True),
        ("reflection_pad3d", M("ReflectionPad3d", [1, 1, 0, 1, 1, 0]), [1, 1, 2, 3, 3], True),
        ("replication_pad1d", M("ReplicationPad1d", 3), [2, 3], True),
        ("replication_pad2d", M("ReplicationPad2d", [2, 0, 1, 1]), [1, 2, 2, 3], True),
        ("replication_pad3d", M("ReplicationPad3d", 1), [1, 2, 2, 2], True),
        ("circular_pad1d", M("CircularPad1d", [1, 2]), [1, 2, 4], True),
        ("circular_pad2d", M("CircularPad2d", 1), [1, 1, 3, 3], True),
        ("circular_pad3d", M("CircularPad3d", [1, 0, 1, 0, 0, 1]), [1, 1, 2, 2, 2], True),
        ("conv2d_reflect", M("Conv2d", 2, 3, 3, padding=1, padding_mode="reflect"),
         [1, 2, 4, 4], True),
        ("conv2d_replicate_same", M("Conv2d", 2, 2, [2, 3], padding="same",
                                    padding_mode="replicate"), [1, 2, 4, 5], True),
        ("conv2d_circular_stride", M("Conv2d", 1, 2, 3, stride=2, padding=[1, 2],
                                     padding_mode="circular"), [2, 1, 5, 5], True),
        ("conv1d_reflect", M("Conv1d", 2, 3, 3, padding=2, dilation=2, padding_mode="reflect"),
         [2, 2, 6], True),
        ("conv1d_circular_unbatched", M("Conv1d", 2, 2, 3, padding=1, padding_mode="circular"),
         [2, 5], True),
        ("upsample_nearest", M("Upsample", scale_factor=2.0), [1, 2, 2, 3], True),
        ("upsample_bilinear", M("Upsample", size=[3, 5], mode="bilinear"), [1, 2, 2, 3], True),
        ("upsample_bicubic_align", M("Upsample", scale_factor=1.5, mode="bicubic",
                                     align_corners=True), [1, 1, 3, 3], True),
        ("upsample_linear", M("Upsample", size=7, mode="linear"), [2, 2, 4], True),
        ("upsample_trilinear", M("Upsample", scale_factor=[1.0, 2.0, 1.5], mode="trilinear"),
         [1, 1, 2, 2, 2], True),
        ("upsampling_nearest2d", M("UpsamplingNearest2d", size=[3, 4]), [1, 2, 2, 2], True),
        ("upsampling_bilinear2d", M("UpsamplingBilinear2d", scale_factor=2.0), [1, 2, 2, 3],
         True),
        ("pixel_shuffle", M("PixelShuffle", 2), [1, 8, 2, 3], True),
        ("pixel_unshuffle", M("PixelUnshuffle", 2), [1, 2, 4, 2], True),
        ("channel_shuffle", M("ChannelShuffle", 3), [2, 6, 2], True),
        ("unfold", M("Unfold", [2, 3], padding=1, stride=[1, 2]), [2, 2, 3, 4], True),
        ("fold", M("Fold", [3, 4], 2), [1, 8, 6], True),
        ("fold_options", M("Fold", 4, [2, 2], dilation=2, padding=1, stride=2), [2, 4, 4], True),
    ]:
        out.append(f(name, spec, [inp(randn(*shape))], train=train))
    out.append(f("bn1d_transposed", M("BatchNorm1d", 3), [inp(randn(5, 3), transpose=True)]))
    out.append(f("norm_net", {"type": "Sequential", "children": [
        M("Conv2d", 1, 4, 3, padding=1, padding_mode="reflect"), M("BatchNorm2d", 4),
        M("ReLU"), M("Upsample", scale_factor=2.0, mode="bilinear"), M("GroupNorm", 2, 4),
        M("ZeroPad2d", 1), M("PixelUnshuffle", 2)]}, [inp(randn(2, 1, 3, 3))]))
    return out


def stats_cases(build, M, enc):
    """A module trained on several batches: its output and buffers after each, then eval."""
    out = []
    for name, spec, shape, steps in [
        ("bn1d", M("BatchNorm1d", 3), [4, 3], 3),
        ("bn1d_3d", M("BatchNorm1d", 3, momentum=0.3), [2, 3, 4], 3),
        ("bn2d_cumulative", M("BatchNorm2d", 2, momentum=None), [2, 2, 3, 3], 4),
        ("bn2d_no_affine", M("BatchNorm2d", 2, affine=False, eps=1e-3), [3, 2, 2, 2], 3),
        ("bn2d_no_stats", M("BatchNorm2d", 2, track_running_stats=False), [2, 2, 2, 2], 2),
        ("bn3d", M("BatchNorm3d", 2, momentum=0.5), [2, 2, 2, 2, 2], 3),
        ("in1d_stats", M("InstanceNorm1d", 3, track_running_stats=True), [2, 3, 5], 3),
        ("in2d_stats_affine", M("InstanceNorm2d", 2, affine=True, track_running_stats=True,
                                momentum=0.2), [2, 2, 3, 3], 3),
        ("in2d_unbatched_stats", M("InstanceNorm2d", 2, track_running_stats=True), [2, 3, 2], 2),
        ("in3d_cumulative", M("InstanceNorm3d", 1, track_running_stats=True, momentum=None),
         [2, 1, 2, 2, 2], 2),
    ]:
        m = build(spec)
        m.train()
        record = {"name": name, "module": spec, "steps": []}
        for _ in range(steps):
            x = randn(*shape, scale=2.0, shift=0.5)
            y = m(x)
            record["steps"].append({"input": enc(x), "output": enc(y),
                                    "buffers": [[k, enc(v)] for k, v in m.named_buffers()]})
        m.eval()
        x = randn(*shape)
        record["eval"] = {"input": enc(x), "output": enc(m(x))}
        record["state_dict"] = list(m.state_dict().keys())
        out.append(record)
    return out


def structure_specs(M):
    return [
        M("BatchNorm1d", 3), M("BatchNorm2d", 4, momentum=None, eps=1e-3),
        M("BatchNorm2d", 2, affine=False), M("BatchNorm3d", 2, track_running_stats=False),
        M("BatchNorm1d", 3, bias=False),
        M("InstanceNorm1d", 3), M("InstanceNorm2d", 2, affine=True, track_running_stats=True),
        M("InstanceNorm3d", 4, momentum=0.2), M("GroupNorm", 2, 4),
        M("GroupNorm", 1, 3, eps=1e-3, affine=False), M("GroupNorm", 2, 4, bias=False),
        M("LocalResponseNorm", 2), M("LocalResponseNorm", 3, alpha=0.1, beta=0.5, k=2.0),
        M("ZeroPad1d", 2), M("ZeroPad2d", [1, 0, 2, 3]), M("ZeroPad3d", 1),
        M("ConstantPad1d", [1, 2], 3.5), M("ConstantPad2d", 1, 0.0), M("ConstantPad3d", 2, -1.5),
        M("ReflectionPad1d", 2), M("ReflectionPad2d", [1, 1, 2, 0]), M("ReflectionPad3d", 1),
        M("ReplicationPad1d", [0, 1]), M("ReplicationPad2d", 2), M("ReplicationPad3d", 1),
        M("CircularPad1d", 1), M("CircularPad2d", [1, 2, 3, 4]), M("CircularPad3d", 2),
        M("Conv2d", 2, 3, 3, padding=1, padding_mode="reflect"),
        M("Conv1d", 2, 3, 3, padding_mode="circular"),
        M("Upsample", scale_factor=2.0), M("Upsample", size=[3, 4], mode="bilinear",
                                           align_corners=True),
        M("Upsample", size=5, mode="linear"), M("Upsample", scale_factor=[2.0, 1.5]),
        M("UpsamplingNearest2d", scale_factor=3.0), M("UpsamplingBilinear2d", size=[4, 4]),
        M("PixelShuffle", 2), M("PixelUnshuffle", 3), M("ChannelShuffle", 2),
        M("Fold", [4, 5], 2), M("Fold", 3, [2, 2], dilation=1, padding=1, stride=2),
        M("Unfold", 2), M("Unfold", [2, 3], padding=[1, 0], stride=2),
    ]
