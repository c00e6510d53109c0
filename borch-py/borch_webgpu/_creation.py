"""``torch.tensor``: the one creation function whose dtype depends on the Python values (ints ->
int64, floats -> float32, bools -> bool), a distinction JavaScript numbers lose."""

from . import _bridge as b
from . import _numpy


def inferred_dtype(data):
    """torch's default dtype for nested Python data: float32 if any float, else int64 if any int,
    else bool."""
    kinds = set()
    stack = [data]
    while stack:
        x = stack.pop()
        if isinstance(x, (list, tuple)):
            stack.extend(x)
        else:
            kinds.add(type(x).__name__)
    if "float" in kinds:
        return "float32"
    if "int" in kinds:
        return "int64"
    if "bool" in kinds:
        return "bool"
    return "float32"


def tensor(data, dtype=None, requires_grad=False):
    """torch's ``tensor(data, dtype=None, requires_grad=False)``; a numpy array's values with
    torch's dtype rules (_numpy.py)."""
    if isinstance(data, b.Tensor):
        data = data.tolist()
    if _numpy.is_array(data):
        t = _numpy.tensor_of(data, dtype)
        if requires_grad:
            t.requires_grad_(True)
        return t
    name = b.to_js_value(dtype) if dtype is not None else inferred_dtype(data)
    t = b.call(b.bt.tensor, (data,), {"dtype": name})
    if requires_grad:
        t.requires_grad_(True)
    return t
