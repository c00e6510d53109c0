"""``torchvision.datasets`` readers from bytes, forwarded to borch-ts's ``vision.datasets``
(borch-vision's readers of CIFAR-10/100 binary batches, MNIST/Fashion-MNIST IDX files raw or
gzip-compressed, and the bundled digits): ``CIFAR10.from_bytes([batch, ...], train=True,
transform=None)``. A dataset's ``transform`` gets the image as ``ToTensor()`` makes it; the
dataset works with ``borch_webgpu.utils.data.DataLoader``."""

from .. import _bridge as b

__all__ = ["CIFAR10", "CIFAR100", "Digits", "FashionMNIST", "MNIST"]


class VisionDataset(b.JsObject):
    """``len(dataset)``, ``dataset[i]`` (``(image, label)``), ``dataset.targets``."""

    def __getitem__(self, index):
        return b.call(self._js.getItem, (index,), {})


def _reader(js_name, doc):
    def from_bytes(*files, train=True, transform=None, download=False):
        args = [[b.bytes_in(x) for x in f] if isinstance(f, (list, tuple)) else b.bytes_in(f) for f in files]
        options = {"train": train, "download": download}
        if transform is not None:
            options["transform"] = transform
        reader = getattr(b.bt.vision.datasets, js_name).fromBytes
        return VisionDataset(b.call(reader, args, options)._js)

    from_bytes.__doc__ = doc
    return type(js_name, (), {"from_bytes": staticmethod(from_bytes), "__doc__": doc})


CIFAR10 = _reader("CIFAR10", "``CIFAR10.from_bytes([batch, ...], train=True, transform=None)``.")
CIFAR100 = _reader("CIFAR100", "``CIFAR100.from_bytes(bytes, train=True, transform=None)``.")
MNIST = _reader("MNIST", "``MNIST.from_bytes(images, labels, train=True, transform=None)``.")
FashionMNIST = _reader("FashionMNIST", "``FashionMNIST.from_bytes(images, labels, ...)``.")
Digits = _reader("Digits", "``Digits.from_bytes(digits_csv_gz, transform=None)``.")
