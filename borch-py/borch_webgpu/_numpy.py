"""numpy interop, where numpy is installed: ``torch.from_numpy(a)``, ``torch.tensor(a)`` and
``torch.as_tensor(a)`` read a numpy array's values (one copy to the device; borch's tensors live
on the GPU, so they never share the array's memory as torch's CPU tensors do), with torch's
dtype rules: a float32, int64 or bool array keeps its dtype; torch would make float64, int32,
float16, ... tensors, which borch does not have, so those are refused with a TypeError naming the
dtype to convert to, unless ``dtype=`` asks for one of borch's (``torch.tensor(a,
dtype=torch.float32)``). ``Tensor.numpy()`` (in _tensor.py) reads back into a new array."""

from . import _bridge as b

# numpy's dtype name -> borch's dtype, for the arrays whose dtype borch has.
KEPT = {"float32": "float32", "int64": "int64", "bool": "bool"}
# What to convert the others to.
INSTEAD = {"f": "float32", "i": "int64", "u": "int64", "b": "bool"}


def is_array(x):
    """Whether ``x`` is a numpy array or numpy scalar (without importing numpy)."""
    t = type(x)
    return t.__module__ == "numpy" and (t.__name__ == "ndarray" or hasattr(x, "dtype"))


def dtype_for(array, dtype=None, what="tensor"):
    """borch's dtype name for ``array`` (given ``dtype``, a torch dtype, or None), or the
    TypeError saying what to do."""
    if dtype is not None:
        return b.to_js_value(dtype)
    name = array.dtype.name
    if name in KEPT:
        return KEPT[name]
    instead = INSTEAD.get(array.dtype.kind, "float32")
    raise TypeError(
        f"{what}(): a numpy array of dtype {name} would be a torch.{name} tensor, and borch has "
        f"no dtype torch.{name} (its dtypes are torch.float32, torch.int64 and torch.bool): "
        f"convert it first, array.astype(numpy.{instead}), or pass dtype=torch.{instead}"
    )


def tensor_of(array, dtype=None, what="tensor"):
    """A new tensor holding ``array``'s values, of borch's dtype for it."""
    name = dtype_for(array, dtype, what)
    shape = list(array.shape)
    flat = array.reshape(-1).tolist()
    t = b.call(b.bt.tensor, (flat,), {"dtype": name})
    return t.reshape(shape) if shape != [len(flat)] else t


def as_tensor(data, dtype=None, device=None):
    """torch's ``as_tensor(data, dtype=None, device=None)``: a tensor of that dtype is returned as
    it is (borch has one device); anything else as ``torch.tensor(data, dtype=dtype)`` makes it
    (a numpy array's values are copied to the device: they never share its memory)."""
    from ._creation import tensor
    from ._device import device as check_device

    if device is not None:
        check_device(device)
    if isinstance(data, b.Tensor):
        return data if dtype is None else data.to(dtype)
    return tensor(data, dtype=dtype)


def from_numpy(ndarray):
    """torch's ``from_numpy(ndarray)``: a tensor with the array's values and dtype (a copy on
    the device: borch's tensors are not in the array's memory)."""
    if not is_array(ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    return tensor_of(ndarray, None, "from_numpy")
