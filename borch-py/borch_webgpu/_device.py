"""``torch.device`` and the arguments of ``.to(...)``. borch has one device, the WebGPU device
that borch-ts opened: ``torch.device('cpu')``, ``('cuda')``, ``('cuda:0')`` and ``('webgpu')``
are all accepted and all mean it, so ``.to(device)``, ``.cpu()`` and ``.cuda()`` keep a tensor
where it is (``torch.cuda.is_available()`` stays False: there is no CUDA). A tensor's own
``.device`` says the truth: ``device(type='webgpu')``."""

TYPES = ("cpu", "cuda", "webgpu")


class device:
    """torch's ``torch.device(type, index=None)`` / ``torch.device('cuda:0')``."""

    __slots__ = ("type", "index")

    def __init__(self, type, index=None):
        if isinstance(type, device):
            type, index = type.type, type.index
        kind, colon, number = str(type).partition(":")
        if kind not in TYPES or (colon and not number.isdigit()):
            raise RuntimeError(
                f"Expected one of {', '.join(TYPES)} device type at start of device string: "
                f"{type} (borch has one device, WebGPU; each of these names means it)"
            )
        if kind == "cuda":
            from . import _bridge

            _bridge.cuda_notice()
        object.__setattr__(self, "type", kind)
        object.__setattr__(self, "index", int(number) if colon else index)

    def __setattr__(self, name, value):
        raise AttributeError(f"attribute '{name}' of 'torch.device' objects is not writable")

    def __repr__(self):
        index = "" if self.index is None else f", index={self.index}"
        return f"device(type='{self.type}'{index})"

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other):
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self):
        return hash((self.type, self.index))


WEBGPU = device("webgpu")


def requested_dtype(args, kwargs, dtype_class, tensor_class):
    """The dtype that torch's ``.to(*args, **kwargs)`` asks for, or None: positional dtypes, another
    tensor (its dtype) or devices (checked by ``torch.device``, then nothing to do), and the
    keywords ``dtype``, ``device``, ``non_blocking``, ``copy``, ``memory_format``."""
    unknown = set(kwargs) - {"dtype", "device", "non_blocking", "copy", "memory_format"}
    if unknown:
        raise TypeError(f"to() got an unexpected keyword argument '{sorted(unknown)[0]}'")
    wanted = kwargs.get("dtype")
    for a in args:
        if isinstance(a, dtype_class):
            wanted = a
        elif isinstance(a, tensor_class):
            wanted = a.dtype
        elif not isinstance(a, bool):  # to(dtype, non_blocking) / to(device, dtype, non_blocking)
            device(a)
    if kwargs.get("device") is not None:
        device(kwargs["device"])
    return wanted
