"""``torch.nn.functional``: forwards by name to borch-ts's ``nn.functional`` (generated from
``borch_nn::api``), ``log_softmax`` → ``logSoftmax``."""

from .. import _bridge as b


def __getattr__(name):
    return b.attribute(None, b.bt.nn.functional, name, f"module '{__name__}'")
