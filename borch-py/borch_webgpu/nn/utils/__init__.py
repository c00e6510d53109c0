"""``torch.nn.utils``: forwards by name to borch-ts's ``nn.utils`` (generated from the core's
``borch_nn::utils`` catalog): ``clip_grad_norm_``, ``clip_grad_value_``,
``parameters_to_vector``, ``vector_to_parameters``; and ``fusion`` (``torch.nn.utils.fusion``)."""

from ... import _bridge as b
from . import fusion  # noqa: F401  (torch.nn.utils.fusion)


def __getattr__(name):
    return b.attribute(None, b.bt.nn.utils, name, f"module '{__name__}'")
