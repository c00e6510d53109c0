"""``torch.autograd``: ``grad`` and ``backward`` forward by name to borch-ts's ``autograd``
(generated from the core's ``borch_autograd::api`` catalog); ``Function`` is refused."""

from . import _bridge as b


class Function:
    """torch's ``autograd.Function``: a backward written in Python, which borch_webgpu does not
    run (the core records and differentiates its own ops); ``apply`` says so."""

    @classmethod
    def apply(cls, *args, **kwargs):
        raise NotImplementedError(
            f"{__package__} does not implement torch.autograd.Function ({cls.__name__}.apply): a "
            "forward and backward written in Python cannot join the core's graph; write the "
            "computation with tensor ops, whose gradients borch computes"
        )


def __getattr__(name):
    return b.attribute(None, b.bt.autograd, name, f"module '{__name__}'")
