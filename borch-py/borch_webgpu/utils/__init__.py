"""``torch.utils``: ``data`` (``TensorDataset``, ``DataLoader``)."""

from . import data

__all__ = ["data"]
