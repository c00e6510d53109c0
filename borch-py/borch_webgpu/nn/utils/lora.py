"""LoRA's model functions: forwards by name to borch-ts's ``nn.utils.lora`` (generated from the
core's ``borch_nn::utils::lora_catalog``): loralib's ``mark_only_lora_as_trainable(model,
bias='none')`` and ``lora_state_dict(model, bias='none')`` (a dict name -> Tensor), and borch's
``apply_lora(model, r, lora_alpha=1, target_modules=[...])`` (in place; returns the adapted
paths), ``merge_lora(model)`` and ``unmerge_lora(model)``. The layers are ``nn.LoRALinear`` and
``nn.LoRAConv2d`` (loralib's ``lora.Linear`` and ``lora.Conv2d``)."""

from ... import _bridge as b


def __getattr__(name):
    return b.attribute(None, b.bt.nn.utils.lora, name, "module 'borch_webgpu.nn.utils.lora'")
