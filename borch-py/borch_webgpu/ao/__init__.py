"""``torch.ao``: ``torch.ao.nn.intrinsic`` (the fused modules)."""

from . import nn

__all__ = ["nn"]
