"""``torch.utils``: ``data`` (``TensorDataset``, ``DataLoader``) and ``checkpoint``
(``checkpoint(function, *args, use_reentrant=False)``)."""

from . import checkpoint, data

__all__ = ["checkpoint", "data"]
