"""``torchvision.transforms`` forwarded to borch-ts's ``vision.transforms`` (borch-vision's
transform catalog: torchvision's names, argument order and defaults; the random ones draw from
the global generator as torchvision does, so after ``manual_seed`` a pipeline crops and flips as
torchvision's). A transform is called on a tensor; ``ToTensor()`` / ``PILToTensor()`` take raw HWC
uint8 bytes and their ``(height, width, channels)`` (there are no PIL images here)."""

from .. import _bridge as b

__all__ = ["Compose", "PILToTensor", "ToTensor"]


class _Transform(b.JsObject):
    """A borch-ts transform: ``transform(img)`` forwards to its ``forward``."""

    def __call__(self, img, hwc=None):
        if isinstance(img, (bytes, bytearray, memoryview)):
            img = b.bytes_in(img)
        return b.call(self._js.forward, (img,) if hwc is None else (img, list(hwc)), {})


def _made(js_transform):
    return _Transform(js_transform)


def Compose(transforms):
    """``Compose(transforms)``."""
    return _made(b.call(b.bt.vision.transforms.Compose, (list(transforms),), {})._js)


def ToTensor():
    """``ToTensor()``: HWC uint8 bytes to a CHW float32 tensor divided by 255."""
    return _made(b.bt.vision.transforms.ToTensor())


def PILToTensor():
    """``PILToTensor()``: HWC uint8 bytes to CHW, values kept (int64: borch has no uint8)."""
    return _made(b.bt.vision.transforms.PILToTensor())


def __getattr__(name):
    """``transforms.<Name>(*args, **kwargs)`` for every transform of borch-vision's catalog."""
    forward = b.attribute(None, b.bt.vision.transforms, name, f"module '{__name__}'")

    def build(*args, **kwargs):
        return _made(forward(*args, **kwargs)._js)

    build.__name__ = name
    return build
