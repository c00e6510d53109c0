"""``torch.utils.data``: ``TensorDataset`` and ``DataLoader`` forwarded to borch-ts's ``data``
(borch-data: with the same ``manual_seed``, a shuffled loader yields torch's batches in torch's
order, docs/data.md). ``len(loader)`` is borch-ts's ``length``; iterating steps borch-ts's
iterator, one core ``next`` a batch."""

from .. import _bridge as b
from .._classes import JsBacked

__all__ = ["DataLoader", "TensorDataset"]


class TensorDataset(JsBacked):
    """``TensorDataset(*tensors)``: borch-ts takes the tensors as one array."""

    def __init__(self, *tensors):
        JsBacked.__init__(self, list(tensors))

    @property
    def _js_class(self):
        return b.bt.data.TensorDataset


class DataLoader(JsBacked):
    """``DataLoader(dataset, batch_size=1, shuffle=False, drop_last=False)``."""

    @property
    def _js_class(self):
        return b.bt.data.DataLoader

    def __iter__(self):
        return _Pass(b.call(self._js.iter, (), {}))


class _Pass:
    """One pass of a DataLoader: Python's iterator protocol over borch-ts's ``next()``."""

    def __init__(self, js_pass):
        self._pass = js_pass

    def __iter__(self):
        return self

    def __next__(self):
        step = b.call(self._pass._js.next, (), {})
        if step["done"]:
            raise StopIteration
        return step["value"]
