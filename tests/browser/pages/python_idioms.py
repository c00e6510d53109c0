# torch's everyday idioms through borch_webgpu, after micropip.install and an import with no
# JavaScript glue (micropip.html): torch.device and .to / .cpu / .cuda as no-ops that keep the
# tensor where it is, .data, .grad_fn, refused dtypes naming float32, .numpy() without numpy,
# nn.init, nn.utils and load_state_dict on a Python subclass, print(model) of core modules.
# Expected values: python_idioms_expected.json (python_idioms_expected.py, real torch), given by
# the page as EXPECTED_JSON. Prints one line: "python idioms: N checks passed".
import json

import borch_webgpu as torch
from borch_webgpu import nn

expected = json.loads(EXPECTED_JSON)  # noqa: F821  (set by the page)
checks = 0


def check(what, ok):
    global checks
    if not ok:
        raise AssertionError(what)
    checks += 1


def raises(what, cls, needle, fn):
    try:
        fn()
    except cls as e:
        check(f"{what}: {type(e).__name__}: {e}", needle in str(e))
        return
    raise AssertionError(f"{what}: nothing raised")


# torch.device: every name is borch's one device; reprs are torch's.
for name, text in expected["devices"].items():
    check(f"repr(torch.device({name!r}))", repr(torch.device(name)) == text)
for name, text in expected["device_str"].items():
    check(f"str(torch.device({name!r}))", str(torch.device(name)) == text)
check("torch.device('webgpu')", repr(torch.device("webgpu")) == "device(type='webgpu')")
check("torch.device(torch.device('cuda', 1))", torch.device(torch.device("cuda", 1)).index == 1)
check("devices compare", torch.device("cuda:0") == torch.device("cuda", 0))
check("torch raises RuntimeError for an unknown device", expected["device_error_class"] == "RuntimeError")
raises("torch.device('foo')", RuntimeError, "device type at start of device string: foo",
       lambda: torch.device("foo"))
check("torch.cuda.is_available() is False", torch.cuda.is_available() is False)

x = torch.randn(3, 2)
check("x.device is webgpu", x.device == torch.device("webgpu"))
check("x.to('cpu') is x", x.to("cpu") is x)
check("x.to('cuda') is x", x.to("cuda") is x)
check("x.to(torch.device('cuda:0')) is x", x.to(torch.device("cuda:0")) is x)
check("x.to(device='webgpu', non_blocking=True) is x", x.to(device="webgpu", non_blocking=True) is x)
check("x.to(torch.float32) is x", x.to(torch.float32) is x)
check("x.cpu() is x, x.cuda() is x", x.cpu() is x and x.cuda() is x)
check("x.to(torch.int64)", x.to(torch.int64).dtype is torch.int64)
check("x.to('cpu', torch.long)", x.to("cpu", torch.long).dtype is torch.int64)
check("x.to(device='cuda', dtype=torch.bool)", x.to(device="cuda", dtype=torch.bool).dtype is torch.bool)
check("x.to(other)", x.to(torch.tensor([1, 2])).dtype is torch.int64)
check("x.cpu().tolist() reads", x.cpu().tolist() == x.tolist())
raises("x.to('tpu')", RuntimeError, "device string: tpu", lambda: x.to("tpu"))
raises("x.to(foo=1)", TypeError, "unexpected keyword argument 'foo'", lambda: x.to(foo=1))

# Dtypes borch does not have: importable, refused on use, naming float32.
for what, fn in [
    ("x.to(torch.float64)", lambda: x.to(torch.float64)),
    ("x.double()", lambda: x.double()),
    ("x.half()", lambda: x.half()),
    ("torch.zeros(2, dtype=torch.float64)", lambda: torch.zeros(2, dtype=torch.float64)),
    ("torch.tensor([1.0], dtype=torch.double)", lambda: torch.tensor([1.0], dtype=torch.double)),
    ("torch.ones(2, dtype=torch.int32)", lambda: torch.ones(2, dtype=torch.int32)),
    ("nn.Linear(2, 1).double()", lambda: nn.Linear(2, 1).double()),
]:
    raises(what, TypeError, "torch.float32", fn)
check("repr(torch.float64)", repr(torch.float64) == "torch.float64" and torch.double is torch.float64)
check("torch refuses module.to(int64) with a TypeError", expected["module_to_int64"].startswith("TypeError: "))
raises("nn.Linear(2, 1).to(torch.int64)", TypeError, "but got desired dtype=torch.int64",
       lambda: nn.Linear(2, 1).to(torch.int64))

# .data: the same storage, outside autograd; t.data = v copies v in.
lin = nn.Linear(2, 1)
w = lin.weight
check("w.data does not require grad", w.data.requires_grad is False and w.requires_grad is True)
w.data.fill_(0.5)
check("w.data.fill_ changes w", w.tolist() == [[0.5, 0.5]])
w.data = w.data - 0.25
check("w.data = ... copies into w", w.tolist() == [[0.25, 0.25]] and w.is_leaf and w.requires_grad)
w.data -= 0.25
check("w.data -= ... (p.data -= lr * p.grad)", w.tolist() == [[0.0, 0.0]])
raises("w.data = a tensor of another shape", RuntimeError, "shape", lambda: setattr(w, "data", torch.zeros(3)))
check("model(x) still works after .data writes", lin(x).shape == (3, 1))

# grad_fn: None for leaves and no-grad results; the op's node otherwise, named as torch names it.
a = torch.ones(2, requires_grad=True)
b = torch.ones(2, requires_grad=True)
check("a leaf's grad_fn is None", a.grad_fn is None and x.grad_fn is None)
check("grad_fn without grad is None", (x + 1).grad_fn is None)
with torch.no_grad():
    check("grad_fn under no_grad is None", (a + b).grad_fn is None)
for op, result in [("add", a + b), ("mul", a * b), ("sum", a.sum())]:
    node = result.grad_fn
    check(f"({op}).grad_fn.name() is torch's {expected['grad_fn'][op]} (got {node.name() if node else None})",
          node is not None and node.name() == expected["grad_fn"][op])
    check(f"repr(({op}).grad_fn)", repr(node).startswith(f"<{expected['grad_fn'][op]} object at 0x"))

# numpy: not in npm pyodide; torch's refusal for a tensor that requires grad comes first.
try:
    import numpy  # noqa: F401
    HAVE_NUMPY = True
except ModuleNotFoundError:
    HAVE_NUMPY = False
if HAVE_NUMPY:
    check("x.numpy()", x.numpy().tolist() == x.tolist() and str(x.numpy().dtype) == "float32")
    raises("a.numpy()", RuntimeError, expected["numpy_requires_grad"].split(": ", 1)[1], lambda: a.numpy())
else:
    raises("x.numpy() without numpy", RuntimeError, "loadPackage('numpy')", lambda: x.numpy())
print(f"numpy in this Pyodide: {HAVE_NUMPY}")

# nn.init: in place, outside autograd, the tensor returned.
p = nn.Linear(4, 3).weight
check("nn.init.constant_", nn.init.constant_(p, 0.3) is p and p.tolist() == [[0.30000001192092896] * 4] * 3)
check("nn.init.zeros_", nn.init.zeros_(p).tolist() == [[0.0] * 4] * 3)
check("nn.init.ones_", nn.init.ones_(p).tolist() == [[1.0] * 4] * 3)
nn.init.uniform_(p, -0.1, 0.1)
check("nn.init.uniform_", all(-0.1001 <= v <= 0.1001 for row in p.tolist() for v in row) and p.is_leaf)
nn.init.normal_(p, mean=5.0, std=0.01)
check("nn.init.normal_", all(4.9 < v < 5.1 for row in p.tolist() for v in row) and p.requires_grad)
raises("nn.init.xavier_uniform_", AttributeError, "not bound yet", lambda: nn.init.xavier_uniform_)


# nn.utils and load_state_dict on a Python subclass.
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(2, 4), nn.ReLU())
        self.head = nn.Linear(4, 1)

    def forward(self, x):
        return self.head(self.body(x))


torch.manual_seed(1)
net = Net()
net(x).sum().backward()
norm = nn.utils.clip_grad_norm_(net.parameters(), max_norm=1e-3)
check("nn.utils.clip_grad_norm_ returns the total norm", norm.item() > 0)
grads = torch.cat([q.grad.flatten() for q in net.parameters()])
check("nn.utils.clip_grad_norm_ clipped", abs(grads.norm().item() - 1e-3) < 1e-5)
check("nn.utils.parameters_to_vector", nn.utils.parameters_to_vector(net.parameters()).shape == (17,))
fresh = Net()
keys = fresh.load_state_dict(net.state_dict())
check("load_state_dict on a Python subclass", repr(keys) == expected["keys_matched"]
      and fresh(x).tolist() == net(x).tolist())
check("load_state_dict on a core module", repr(nn.Linear(2, 1).load_state_dict(nn.Linear(2, 1).state_dict()))
      == expected["keys_matched"])

# print(model) of core modules: the core's repr, which is torch's.
core = nn.Sequential(nn.Linear(2, 32), nn.Tanh(), nn.Linear(32, 1))
check("print(core Sequential)", repr(core).split("\n") == expected["quickstart"][5:10])
print(f"python idioms: {checks} checks passed")
