"""``torch.ao.nn``: ``intrinsic``, the same module as ``torch.nn.intrinsic``."""

from ...nn import intrinsic

__all__ = ["intrinsic"]
