"""``torch.nn.utils``: forwards by name to borch-ts's ``nn.utils`` (generated from the core's
``borch_nn::utils`` catalog): ``clip_grad_norm_``, ``clip_grad_value_``,
``parameters_to_vector``, ``vector_to_parameters``; ``fusion`` (``torch.nn.utils.fusion``) and
``lora`` (LoRA's ``apply_lora``, ``mark_only_lora_as_trainable``, ``lora_state_dict``, ...)."""

from ... import _bridge as b
from . import fusion  # noqa: F401  (torch.nn.utils.fusion)
from . import lora  # noqa: F401  (borch's nn.utils.lora)


def __getattr__(name):
    return b.attribute(None, b.bt.nn.utils, name, f"module '{__name__}'")
