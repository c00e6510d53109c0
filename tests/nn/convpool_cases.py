"""The 3-D and transposed convolutions, the pooling layers beyond 2-D and the Lazy modules' cases
for cases.json (called from cases.py):

- forward cases (output and gradients) for Conv3d, ConvTranspose1d/2d/3d, MaxPool1d/3d,
  AvgPool1d/3d, AdaptiveAvgPool1d/3d, AdaptiveMaxPool1d/2d/3d, LPPool1d/2d/3d, MaxUnpool1d/2d/3d;
- "lazy": a Lazy module built, then called right after `torch.manual_seed(seed)`: its repr before
  and after, the state_dict its first forward initialised (torch's default init from the CPU
  generator), the output and the gradients (`borch-nn/tests/lazy.rs`);
- structure specs (repr, state_dict keys).
"""
import torch
import torch.nn.functional as F

GEN = torch.Generator().manual_seed(2468)


def randn(*shape):
    return torch.randn(*shape, generator=GEN)


def rand(*shape):
    return torch.rand(*shape, generator=GEN)


def forward_cases(f, M, C, inp):
    """`f` is cases.py's forward_case, `M`/`C` its module specs, `inp` its input encoder."""
    pos = lambda *shape: rand(*shape) + 0.1
    out = [
        f("conv_transpose1d", M("ConvTranspose1d", 3, 2, 3, stride=2, padding=1, output_padding=1),
          [inp(randn(2, 3, 5))]),
        f("conv_transpose2d", M("ConvTranspose2d", 3, 4, 3), [inp(randn(2, 3, 4, 4))]),
        f("conv_transpose2d_options",
          M("ConvTranspose2d", 4, 6, [3, 2], stride=[2, 1], padding=1, output_padding=[1, 0],
            groups=2, bias=False, dilation=[1, 2]),
          [inp(randn(1, 4, 3, 4), transpose=True)]),
        f("conv_transpose2d_unbatched", M("ConvTranspose2d", 2, 3, 2, stride=2),
          [inp(randn(2, 3, 3))]),
        f("conv_transpose3d", M("ConvTranspose3d", 2, 3, 2, stride=2, padding=1),
          [inp(randn(1, 2, 3, 3, 3))]),
        f("conv3d", M("Conv3d", 2, 3, 3, padding=1), [inp(randn(2, 2, 4, 4, 4))]),
        f("conv3d_options", M("Conv3d", 4, 4, [2, 3, 2], stride=2, groups=2, bias=False),
          [inp(randn(1, 4, 4, 5, 4))]),
        f("max_pool1d", M("MaxPool1d", 3, stride=2, padding=1), [inp(randn(2, 3, 8))]),
        f("max_pool3d", M("MaxPool3d", 2), [inp(randn(1, 2, 4, 4, 4))]),
        f("max_pool3d_options", M("MaxPool3d", 3, stride=2, padding=1, ceil_mode=True),
          [inp(randn(1, 2, 5, 4, 6))]),
        f("avg_pool1d", M("AvgPool1d", 3, stride=2, padding=1, count_include_pad=False),
          [inp(randn(2, 3, 8))]),
        f("avg_pool3d", M("AvgPool3d", 2, stride=1), [inp(randn(1, 2, 3, 4, 4))]),
        f("avg_pool3d_divisor", M("AvgPool3d", 3, 2, 1, divisor_override=4),
          [inp(randn(1, 2, 5, 5, 5))]),
        f("adaptive_avg_pool1d", M("AdaptiveAvgPool1d", 3), [inp(randn(2, 3, 7))]),
        f("adaptive_avg_pool3d", M("AdaptiveAvgPool3d", [2, None, 3]), [inp(randn(1, 2, 5, 4, 7))]),
        f("adaptive_max_pool1d", M("AdaptiveMaxPool1d", 3), [inp(randn(2, 3, 7))]),
        f("adaptive_max_pool2d", M("AdaptiveMaxPool2d", [2, 3]), [inp(randn(2, 3, 5, 7))]),
        f("adaptive_max_pool3d", M("AdaptiveMaxPool3d", 2), [inp(randn(1, 2, 3, 5, 4))]),
        f("lp_pool1d", M("LPPool1d", 2, 3, stride=2), [inp(randn(2, 3, 8))]),
        f("lp_pool2d", M("LPPool2d", 3, 2), [inp(pos(2, 3, 4, 6))]),
        f("lp_pool3d", M("LPPool3d", 2, [2, 2, 3], stride=1), [inp(randn(1, 2, 3, 3, 4))]),
    ]
    for name, kind, pool, shape, kw in [
        ("max_unpool1d", "MaxUnpool1d", F.max_pool1d, (2, 3, 8), {"kernel_size": 2}),
        ("max_unpool2d", "MaxUnpool2d", F.max_pool2d, (1, 2, 4, 6), {"kernel_size": 2}),
        ("max_unpool2d_s2_p1", "MaxUnpool2d", F.max_pool2d, (1, 2, 5, 5),
         {"kernel_size": 3, "stride": 2, "padding": 1}),
        ("max_unpool3d", "MaxUnpool3d", F.max_pool3d, (1, 2, 4, 4, 4), {"kernel_size": 2}),
    ]:
        v, i = pool(randn(*shape), return_indices=True, **kw)
        spec = M(kind, kw["kernel_size"], stride=kw.get("stride"), padding=kw.get("padding", 0))
        out.append(f(name, spec, [inp(v), inp(i)]))
    out.append(f("encoder_decoder", C("Sequential", [
        M("Conv2d", 1, 4, 3, padding=1), M("ReLU"), M("MaxPool2d", 2),
        M("ConvTranspose2d", 4, 2, 2, stride=2), M("Tanh")]),
        [inp(randn(2, 1, 6, 6))]))
    return out


def lazy_case(build, enc, materialise, name, spec, inputs, seed):
    m = build(spec)
    before = repr(m)
    leaves, args = [], []
    for d in inputs:
        leaf, arg = materialise(d)
        leaves.append(leaf)
        args.append(arg)
    torch.manual_seed(seed)
    y = m(*args)
    g = randn(*y.shape)
    (y * g).sum().backward()
    return {
        "name": name, "module": spec, "seed": seed, "inputs": inputs,
        "repr_before": before, "repr_after": repr(m),
        "state_dict": [[k, enc(v)] for k, v in m.state_dict().items()],
        "output": enc(y), "gout": enc(g),
        "input_grads": [enc(l.grad) if l.grad is not None else None for l in leaves],
        "param_grads": [[k, enc(p.grad)] for k, p in m.named_parameters() if p.grad is not None],
    }


def lazy_cases(build, M, C, enc, inp, materialise):
    def L(*a):
        return lazy_case(build, enc, materialise, *a)

    return [
        L("lazy_linear", M("LazyLinear", 3), [inp(randn(2, 5))], 0),
        L("lazy_linear_no_bias_3d", M("LazyLinear", 4, bias=False), [inp(randn(2, 3, 6))], 1),
        L("lazy_conv1d", M("LazyConv1d", 4, 3, stride=2), [inp(randn(2, 3, 9))], 2),
        L("lazy_conv2d", M("LazyConv2d", 4, 3, padding=1), [inp(randn(2, 3, 5, 5))], 3),
        L("lazy_conv2d_unbatched_groups", M("LazyConv2d", 4, [2, 3], groups=2, bias=False),
          [inp(randn(2, 4, 5))], 4),
        L("lazy_conv2d_same", M("LazyConv2d", 2, 3, padding="same"), [inp(randn(1, 2, 4, 4))], 5),
        L("lazy_conv3d", M("LazyConv3d", 2, 2), [inp(randn(1, 3, 3, 3, 3))], 6),
        L("lazy_conv_transpose1d", M("LazyConvTranspose1d", 2, 3, stride=2, output_padding=1),
          [inp(randn(2, 3, 4))], 7),
        L("lazy_conv_transpose2d", M("LazyConvTranspose2d", 3, 2, stride=2),
          [inp(randn(2, 2, 3, 3))], 8),
        L("lazy_conv_transpose3d", M("LazyConvTranspose3d", 2, 2), [inp(randn(1, 2, 2, 2, 2))], 9),
        L("lazy_batch_norm1d", M("LazyBatchNorm1d"), [inp(randn(4, 3))], 11),
        L("lazy_batch_norm2d", M("LazyBatchNorm2d", momentum=None), [inp(randn(2, 3, 2, 2))], 12),
        L("lazy_batch_norm3d_no_affine", M("LazyBatchNorm3d", affine=False),
          [inp(randn(2, 2, 2, 2, 2))], 13),
        L("lazy_instance_norm1d", M("LazyInstanceNorm1d"), [inp(randn(2, 3, 5))], 14),
        L("lazy_instance_norm2d_affine", M("LazyInstanceNorm2d", affine=True, track_running_stats=True),
          [inp(randn(2, 3, 3, 3))], 15),
        L("lazy_instance_norm3d", M("LazyInstanceNorm3d"), [inp(randn(1, 2, 2, 3, 2))], 16),
        L("lazy_cnn", C("Sequential", [M("LazyConv2d", 4, 3), M("LazyBatchNorm2d"), M("ReLU"),
                                       M("Flatten"), M("LazyLinear", 2)]),
          [inp(randn(2, 3, 5, 5))], 17),
        L("lazy_mlp", C("Sequential", [M("LazyLinear", 8), M("ReLU"), M("LazyLinear", 2)]),
          [inp(randn(3, 5))], 10),
    ]


def structure_specs(M):
    return [
        M("ConvTranspose1d", 3, 2, 3), M("ConvTranspose2d", 3, 4, [3, 2], stride=2, padding=1,
                                          output_padding=1, groups=1, bias=False, dilation=2),
        M("ConvTranspose3d", 2, 4, 3, groups=2), M("Conv3d", 2, 3, 3, stride=[1, 2, 1], padding=1),
        M("MaxPool1d", 3, stride=2), M("MaxPool3d", [2, 2, 3], padding=1, ceil_mode=True),
        M("AvgPool1d", 3), M("AvgPool1d", 3, 2, 1), M("AvgPool3d", 2, stride=1),
        M("AdaptiveAvgPool1d", 3), M("AdaptiveAvgPool3d", [2, None, 3]), M("AdaptiveMaxPool1d", 2),
        M("AdaptiveMaxPool2d", [2, None]), M("AdaptiveMaxPool3d", 2), M("LPPool1d", 2, 3),
        M("LPPool2d", 1.5, [2, 3], stride=1), M("LPPool3d", 2, 2, ceil_mode=True),
        M("MaxUnpool1d", 2), M("MaxUnpool2d", 3, 2, 1), M("MaxUnpool3d", 2, stride=1),
    ]
