"""``torch.nn.functional``: forwards by name to borch-ts's ``nn.functional`` when it has one,
else to its catalog functions (``relu``, ``softmax``, ``log_softmax``, ``gelu``, ``silu``, ...)."""

from .. import _bridge as b


def __getattr__(name):
    functional = getattr(getattr(b.bt, "nn", None), "functional", None)
    if functional is not None and b.js.Reflect.has(functional, b.camel(name)):
        return b.attribute(None, functional, name, "module 'borch_webgpu.nn.functional'")
    return b.attribute(None, b.bt, name, "module 'borch_webgpu.nn.functional'")
