"""``torch.nn.utils.fusion``: forwards by name to borch-ts's ``nn.utils.fusion`` (generated from
the core's ``borch_nn::utils::fusion_catalog``): torch's ``fuse_conv_bn_eval``,
``fuse_conv_bn_weights``, ``fuse_linear_bn_eval``, ``fuse_linear_bn_weights``, and borch's
``fuse_for_eval(model)`` (the whole eval model's Conv-BN(-Add)(-ReLU) patterns, in place)."""

from ... import _bridge as b


def __getattr__(name):
    return b.attribute(None, b.bt.nn.utils.fusion, name, f"module '{__name__}'")
