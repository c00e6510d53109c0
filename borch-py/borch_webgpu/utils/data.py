"""``torch.utils.data`` forwarded to borch-ts's ``data`` (borch-data: with the same seed, samplers,
``random_split`` and a shuffled ``DataLoader`` give torch's indices in torch's order,
docs/data.md). A dataset written in Python (``__getitem__`` and ``__len__``) is handed to borch-ts
as a JavaScript ``{ getItem, length }``; an ``IterableDataset`` (``__iter__``, maybe ``__len__``)
as a JavaScript iterable (natively a Python one) whose samples are converted as they are drawn;
``collate_fn`` as a JavaScript function. Iterating a loader, a sampler or a ``ChainDataset`` steps
borch-ts's iterator, one core ``next`` a batch."""

from collections import abc

from .. import _bridge as b
from .._classes import JsBacked

__all__ = [
    "BatchSampler",
    "ChainDataset",
    "ConcatDataset",
    "DataLoader",
    "Dataset",
    "IterableDataset",
    "RandomSampler",
    "Sampler",
    "SequentialSampler",
    "Subset",
    "SubsetRandomSampler",
    "TensorDataset",
    "WeightedRandomSampler",
    "default_collate",
    "random_split",
]


class Dataset:
    """``torch.utils.data.Dataset``: subclass it with ``__getitem__`` and ``__len__``."""

    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other):
        return ConcatDataset([self, other])


class IterableDataset(Dataset, abc.Iterable):
    """``torch.utils.data.IterableDataset``: subclass it with ``__iter__`` (abstract, as torch's:
    a subclass without one cannot be made) and, if it has one, ``__len__``. A DataLoader over it
    takes no ``shuffle``, ``sampler`` or ``batch_sampler`` (torch's ValueErrors)."""

    def __add__(self, other):
        return ChainDataset([self, other])


class _Iterable:
    """Python's iterator protocol over borch-ts's ``iter()`` (a sampler's or a loader's pass)."""

    def __iter__(self):
        return _Pass(b.call(self._js.iter, (), {}))


class _MapDataset(JsBacked):
    """``dataset[i]`` forwards to borch-ts's ``getItem``; a tuple sample comes back a tuple."""

    def __getitem__(self, index):
        return b.call(self._js.getItem, (index,), {})


class TensorDataset(_MapDataset):
    """``TensorDataset(*tensors)``: borch-ts takes the tensors as one array."""

    def __init__(self, *tensors):
        JsBacked.__init__(self, list(tensors))

    @property
    def _js_class(self):
        return b.bt.data.TensorDataset


class Subset(_MapDataset):
    """``Subset(dataset, indices)``."""

    def __init__(self, dataset, indices):
        JsBacked.__init__(self, _dataset(dataset), list(indices))
        object.__setattr__(self, "dataset", dataset)

    @property
    def _js_class(self):
        return b.bt.data.Subset


class ConcatDataset(_MapDataset):
    """``ConcatDataset(datasets)``."""

    def __init__(self, datasets):
        JsBacked.__init__(self, [_dataset(d) for d in datasets])

    @property
    def _js_class(self):
        return b.bt.data.ConcatDataset


class ChainDataset(_Iterable, IterableDataset, JsBacked):
    """``ChainDataset(datasets)``: iterable datasets one after another (``a + b`` of two
    ``IterableDataset``s); a map-style one among them is refused when a pass or ``len`` reaches it
    (torch's assertion, a ValueError here)."""

    def __init__(self, datasets):
        JsBacked.__init__(self, [_source(d) for d in datasets])
        object.__setattr__(self, "datasets", datasets)

    @property
    def _js_class(self):
        return b.bt.data.ChainDataset


def random_split(dataset, lengths, generator=None):
    """``random_split(dataset, lengths, generator=default_generator)``: lengths or fractions."""
    return list(b.call(b.bt.data.randomSplit, (_dataset(dataset), list(lengths)), {"generator": generator}))


def default_collate(batch):
    """``default_collate(batch)``."""
    return b.call(b.bt.data.defaultCollate, (list(batch),), {})


class Sampler(_Iterable, JsBacked):
    """A borch-ts sampler: ``len(sampler)`` and iteration forward."""


class SequentialSampler(Sampler):
    """``SequentialSampler(data_source)``."""

    def __init__(self, data_source):
        JsBacked.__init__(self, _dataset(data_source))

    @property
    def _js_class(self):
        return b.bt.data.SequentialSampler


class RandomSampler(Sampler):
    """``RandomSampler(data_source, replacement=False, num_samples=None, generator=None)``."""

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        kwargs = {"replacement": replacement, "num_samples": num_samples, "generator": generator}
        JsBacked.__init__(self, _dataset(data_source), **kwargs)

    @property
    def _js_class(self):
        return b.bt.data.RandomSampler


class SubsetRandomSampler(Sampler):
    """``SubsetRandomSampler(indices, generator=None)``."""

    def __init__(self, indices, generator=None):
        JsBacked.__init__(self, list(indices), generator=generator)

    @property
    def _js_class(self):
        return b.bt.data.SubsetRandomSampler


class WeightedRandomSampler(Sampler):
    """``WeightedRandomSampler(weights, num_samples, replacement=True, generator=None)``."""

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        weights = [float(w) for w in weights]
        JsBacked.__init__(self, weights, num_samples, replacement=replacement, generator=generator)

    @property
    def _js_class(self):
        return b.bt.data.WeightedRandomSampler


class BatchSampler(Sampler):
    """``BatchSampler(sampler, batch_size, drop_last)``."""

    @property
    def _js_class(self):
        return b.bt.data.BatchSampler


class DataLoader(_Iterable, JsBacked):
    """``DataLoader(dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
    num_workers=0, collate_fn=None, pin_memory=False, drop_last=False, ..., generator=None)``,
    single process: ``num_workers`` other than 0 is refused."""

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
                 num_workers=0, collate_fn=None, pin_memory=False, drop_last=False,
                 generator=None):
        if num_workers != 0:
            raise NotImplementedError("DataLoader: num_workers > 0 is not supported by borch (single process)")
        # batch_size=None turns batching off: borch-ts reads that from null (None crosses as
        # undefined, which means the default 1).
        kwargs = {"batch_size": b.jsnull if batch_size is None else batch_size, "drop_last": drop_last}
        for name, value in (("shuffle", shuffle), ("sampler", sampler),
                            ("batch_sampler", batch_sampler), ("generator", generator)):
            if value is not None:
                kwargs[name] = value
        if collate_fn is not None:
            kwargs["collate_fn"] = _collate(collate_fn)
        JsBacked.__init__(self, _source(dataset), **kwargs)
        object.__setattr__(self, "dataset", dataset)

    @property
    def _js_class(self):
        return b.bt.data.DataLoader


class _Pass:
    """One pass of a DataLoader or sampler: Python's iterator protocol over borch-ts's ``next()``."""

    def __init__(self, js_pass):
        self._pass = js_pass

    def __iter__(self):
        return self

    def __next__(self):
        step = b.call(self._pass._js.next, (), {})
        if step["done"]:
            raise StopIteration
        value = step["value"]
        return list(value) if isinstance(value, tuple) else value


def _dataset(dataset):
    """A borch-ts dataset as it is; a Python one as a JavaScript ``{ getItem, length }`` whose
    ``getItem`` calls ``__getitem__`` (the proxy is kept on the dataset while it lives)."""
    if getattr(dataset, "_js", None) is not None:
        return dataset
    proxy = getattr(dataset, "_borch_get_item", None)
    if proxy is None:
        proxy = b.proxy(lambda i: b.to_js_value(dataset[i]))
        try:
            dataset._borch_get_item = proxy
        except AttributeError:
            pass
    return b.JsObject(b.keywords({"getItem": proxy, "length": len(dataset)}))


class _Samples:
    """A Python ``IterableDataset`` as the backend reads it: ``__iter__`` yields its samples
    converted (tensors as borch-ts's, lists as arrays), ``__len__`` is ``len(dataset)`` (Python's
    own TypeError when the dataset has none)."""

    def __init__(self, dataset):
        self.dataset = dataset

    def __iter__(self):
        return map(b.to_js_value, iter(self.dataset))

    def __len__(self):
        return len(self.dataset)


def _source(dataset):
    """What a DataLoader or ChainDataset reads: an ``IterableDataset`` written in Python as the
    backend's iterable (``b.iterable``: a JavaScript one in Pyodide, kept on the dataset while it
    lives), any other dataset as ``_dataset`` makes it."""
    if not isinstance(dataset, IterableDataset) or getattr(dataset, "_js", None) is not None:
        return _dataset(dataset)
    iterable = getattr(dataset, "_borch_iterable", None)
    if iterable is None:
        iterable = b.iterable(_Samples(dataset))
        try:
            dataset._borch_iterable = iterable
        except AttributeError:
            pass
    return iterable


def _collate(fn):
    """A Python ``collate_fn`` as a JavaScript function of the batch's samples."""
    return b.proxy(lambda batch: b.to_js_value(fn([b.from_js(s) for s in batch])))
