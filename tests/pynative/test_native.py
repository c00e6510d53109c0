"""The native wheel borch-wgpu (``import borch as torch``) on the default adapter: tensors, ops,
autograd, no_grad, nn modules (Linear, Conv2d, Sequential, an nn.Module subclass), optim (SGD,
Adam, a scheduler), reads, errors as torch's classes, numpy interop. Run with pytest in a
virtualenv where the wheel is installed (scripts/test does)."""

import io
import contextlib

import pytest

import borch as torch
import borch.nn.functional as F
from borch import nn, optim


def close(a, b, tol=1e-5):
    if isinstance(a, list):
        return len(a) == len(b) and all(close(x, y, tol) for x, y in zip(a, b))
    return abs(a - b) <= tol * (1 + abs(b))


def test_adapter_is_named_and_cuda_is_not_available():
    assert isinstance(torch.adapter(), str) and torch.adapter()
    assert torch.cuda.is_available() is False


def test_creation_dtypes_and_reads():
    t = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert t.shape == torch.Size([2, 2]) and t.dtype is torch.float32
    assert t.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert torch.tensor([1, 2]).dtype is torch.int64
    assert torch.tensor([True, False]).dtype is torch.bool
    assert torch.tensor(2.5).item() == 2.5 and isinstance(torch.tensor(2.5).item(), float)
    assert torch.zeros(2, 3).sum().item() == 0.0
    assert repr(torch.tensor([1.0, 2.0])) == "tensor([1., 2.])"


def test_ops_operators_and_indexing():
    a = torch.arange(6).reshape(2, 3).float()
    assert (a + 1).tolist() == [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    assert (a @ a.T).tolist() == [[5.0, 14.0], [14.0, 50.0]]
    assert a.sum(dim=1).tolist() == [3.0, 12.0]
    assert a[1].tolist() == [3.0, 4.0, 5.0]
    assert a[:, 1:].tolist() == [[1.0, 2.0], [4.0, 5.0]]
    assert a[a > 2].tolist() == [3.0, 4.0, 5.0]
    a[0, 0] = 9.0
    assert a[0, 0].item() == 9.0
    assert close(F.softmax(torch.tensor([0.0, 0.0]), dim=0).tolist(), [0.5, 0.5])
    assert a.log_softmax(dim=1).shape == torch.Size([2, 3])


def test_tensor_methods_resolved_once_answer_as_before():
    # The first t.add finds the catalog entry and keeps the method on Tensor (_bridge_native.
    # tensor_method); later calls, with any arguments, answer as the general path does.
    t = torch.tensor([1.0, 2.0])
    assert t.add(1).tolist() == [2.0, 3.0] and "add" in torch.Tensor.__dict__
    assert t.add(1).tolist() == [2.0, 3.0]
    assert t.add(t).tolist() == [2.0, 4.0] and t.add(t, alpha=2).tolist() == [3.0, 6.0]
    assert t.add(True).tolist() == [2.0, 3.0] and t.add(0.5).tolist() == [1.5, 2.5]
    assert t.add(torch.tensor([1, 1])).dtype is torch.float32
    p = nn.Parameter(torch.tensor([1.0]))
    assert p.add(1).tolist() == [2.0] and p.add(1).requires_grad is True
    with pytest.raises(TypeError, match="unexpected keyword argument 'beta'"):
        t.add(1, beta=2)
    with pytest.raises(TypeError, match="dict"):
        t.add({})
    with pytest.raises(TypeError):
        t.add("x")
    # The native tensor's own attributes are not catalog methods: still forwarded as values.
    assert t.requires_grad is False and t.is_leaf is True and t.grad is None
    assert "requires_grad" not in torch.Tensor.__dict__
    for _ in range(2):
        with pytest.raises(AttributeError, match="no attribute 'no_such_method'"):
            t.no_such_method


def test_autograd_backward_grad_and_no_grad():
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (x * x).sum().backward()
    assert x.grad.tolist() == [2.0, 4.0, 6.0]
    with torch.no_grad():
        y = x * 2
    assert y.requires_grad is False
    (g,) = torch.autograd.grad((x ** 3).sum(), [x])
    assert g.tolist() == [3.0, 12.0, 27.0]
    assert x.is_leaf and not (x * 2).is_leaf


def test_modules_linear_conv_sequential_and_state_dict():
    torch.manual_seed(0)
    lin = nn.Linear(3, 2)
    assert repr(lin) == "Linear(in_features=3, out_features=2, bias=True)"
    assert lin(torch.ones(4, 3)).shape == torch.Size([4, 2])
    conv = nn.Conv2d(1, 2, 3, padding=1)
    assert conv(torch.zeros(1, 1, 5, 5)).shape == torch.Size([1, 2, 5, 5])
    seq = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
    assert isinstance(seq, nn.Sequential) and len(seq) == 3
    assert isinstance(seq[0], nn.Linear)
    assert [k for k in seq.state_dict()] == ["0.weight", "0.bias", "2.weight", "2.bias"]
    other = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
    assert repr(other.load_state_dict(seq.state_dict())) == "<All keys matched successfully>"
    x = torch.randn(2, 3)
    assert close(other(x).tolist(), seq(x).tolist())


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 16)
        self.fc2 = nn.Linear(16, 3)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


@pytest.mark.parametrize("make", [lambda p: optim.SGD(p, lr=0.1, momentum=0.9),
                                  lambda p: optim.Adam(p, lr=0.01)])
def test_subclass_trains_with_sgd_and_adam(make):
    torch.manual_seed(0)
    model = MLP()
    assert [n for n, _ in model.named_parameters()] == ["fc1.weight", "fc1.bias", "fc2.weight",
                                                        "fc2.bias"]
    X = torch.randn(32, 4)
    y = (X @ torch.randn(4, 3)).argmax(dim=1)
    opt = make(model.parameters())
    sched = optim.lr_scheduler.StepLR(opt, step_size=10, gamma=0.5)
    losses = []
    for _ in range(30):
        with torch.scope():
            opt.zero_grad()
            loss = F.cross_entropy(model(X), y)
            loss.backward()
            opt.step()
            sched.step()
            losses.append(loss.item())
    assert losses[-1] < losses[0] * 0.8
    assert close(opt.param_groups[0]["lr"], opt.param_groups[0]["lr"])
    assert len(opt.state_dict()["param_groups"]) == 1


def test_errors_are_torchs_classes_and_the_module_stays_usable():
    with pytest.raises(RuntimeError, match="mat1 and mat2 shapes cannot be multiplied"):
        torch.ones(2, 3) @ torch.ones(4, 5)
    with pytest.raises(IndexError):
        torch.ones(3)[5]
    with pytest.raises(TypeError):
        torch.ones(2).sum(dim="x")
    with pytest.raises(AttributeError):
        torch.no_such_function
    with pytest.raises(RuntimeError, match="floating point"):
        torch.tensor([1, 2]).requires_grad = True
    assert torch.ones(2).sum().item() == 2.0


def test_cuda_device_maps_to_the_adapter_with_one_notice():
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        t = torch.ones(2).to(torch.device("cuda"))
        torch.device("cuda:0")
    assert t.tolist() == [1.0, 1.0]
    assert err.getvalue().count("torch.device('cuda') means the default adapter") <= 1


def test_numpy_interop():
    np = pytest.importorskip("numpy")
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    t = torch.from_numpy(a)
    assert t.dtype is torch.float32 and t.shape == torch.Size([2, 3])
    assert t.tolist() == a.tolist()
    assert torch.tensor(np.array([1, 2, 3])).dtype is torch.int64
    assert torch.tensor(np.array([True, False])).dtype is torch.bool
    back = (t * 2).numpy()
    assert back.dtype == np.float32 and back.tolist() == (a * 2).tolist()
    with pytest.raises(TypeError, match="float32"):
        torch.tensor(np.zeros(3))  # float64
    assert torch.tensor(np.zeros(3), dtype=torch.float32).dtype is torch.float32
    with pytest.raises(RuntimeError, match="requires grad"):
        torch.ones(2, requires_grad=True).numpy()
    assert np.asarray(torch.ones(2, 2)).sum() == 4.0
    assert torch.as_tensor(a).tolist() == a.tolist()
    t = torch.ones(3)
    assert torch.as_tensor(t) is t


def test_tensor_dataset_and_a_shuffled_loader_in_torchs_order():
    from borch.utils.data import DataLoader, Dataset, TensorDataset

    torch.manual_seed(0)
    X = torch.randn(10, 3)
    ds = TensorDataset(X, torch.arange(10))
    assert len(ds) == 10 and ds[3][1].item() == 3
    loader = DataLoader(ds, batch_size=4, shuffle=True)
    assert len(loader) == 3
    # torch 2.15: torch.manual_seed(0); torch.randn(10, 3); then this loader's batches.
    assert [yb.tolist() for _, yb in loader] == [[7, 9, 2, 6], [1, 8, 4, 0], [3, 5]]

    class Squares(Dataset):
        def __len__(self):
            return 5

        def __getitem__(self, i):
            return torch.tensor([float(i)]), i * i

    batches = [(a.tolist(), b.tolist()) for a, b in DataLoader(Squares(), batch_size=2)]
    assert batches == [([[0.0], [1.0]], [0, 1]), ([[2.0], [3.0]], [4, 9]), ([[4.0]], [16])]


def test_an_iterable_dataset_through_a_loader_and_torchs_refusals():
    from borch.utils import data

    class Numbers(data.IterableDataset):
        def __init__(self, n):
            self.n = n

        def __iter__(self):
            return iter(torch.tensor([float(i)]) for i in range(self.n))

    loader = data.DataLoader(Numbers(10), batch_size=4, drop_last=False)
    batches = [b.tolist() for b in loader]
    assert batches == [[[0.0], [1.0], [2.0], [3.0]], [[4.0], [5.0], [6.0], [7.0]], [[8.0], [9.0]]]
    assert [b.shape for b in data.DataLoader(Numbers(10), batch_size=4, drop_last=True)] == [
        torch.Size([4, 1]), torch.Size([4, 1])]
    assert [b.tolist() for b in data.DataLoader(Numbers(2), batch_size=None)] == [[0.0], [1.0]]
    assert [b for b in data.DataLoader(Numbers(3), batch_size=2, collate_fn=len)] == [2, 1]

    # torch 2.15's exact errors.
    with pytest.raises(TypeError, match=r"^object of type 'Numbers' has no len\(\)$"):
        len(loader)
    with pytest.raises(ValueError, match=r"^DataLoader with IterableDataset: expected "
                                         r"unspecified shuffle option, but got shuffle=True$"):
        data.DataLoader(Numbers(3), shuffle=True)
    data.DataLoader(Numbers(3), shuffle=False)
    sampler = data.SequentialSampler(range(3))
    with pytest.raises(ValueError, match="expected unspecified sampler option"):
        data.DataLoader(Numbers(3), sampler=sampler)
    with pytest.raises(ValueError, match="expected unspecified batch_sampler option"):
        data.DataLoader(Numbers(3), batch_sampler=data.BatchSampler(sampler, 2, False))
    with pytest.raises(TypeError, match="Can't instantiate abstract class"):
        type("Empty", (data.IterableDataset,), {})()

    # A dataset's own exception keeps its class; __len__ when there is one.
    class Sized(Numbers):
        def __len__(self):
            return self.n

    assert len(data.DataLoader(Sized(10), batch_size=4)) == 3
    assert len(data.DataLoader(Sized(10), batch_size=4, drop_last=True)) == 2

    class Failing(data.IterableDataset):
        def __iter__(self):
            yield torch.zeros(1)
            raise KeyError("no more")

    with pytest.raises(KeyError, match="no more"):
        list(data.DataLoader(Failing(), batch_size=2))

    # ChainDataset, and IterableDataset + IterableDataset.
    chain = Sized(2) + Sized(3)
    assert isinstance(chain, data.ChainDataset) and isinstance(chain, data.IterableDataset)
    assert len(chain) == 5 and [t.tolist() for t in chain] == [[0.0], [1.0], [0.0], [1.0], [2.0]]
    assert [b.shape[0] for b in data.DataLoader(chain, batch_size=2)] == [2, 2, 1]
    with pytest.raises(TypeError, match=r"object of type 'Numbers' has no len\(\)"):
        len(data.ChainDataset([Sized(2), Numbers(3)]))
    mixed = data.ChainDataset([Sized(1), data.TensorDataset(torch.arange(3))])
    with pytest.raises(ValueError, match="ChainDataset only supports IterableDataset"):
        list(mixed)


def test_save_and_load_a_state_dict(tmp_path):
    torch.manual_seed(0)
    model = nn.Linear(3, 2)
    path = tmp_path / "linear.safetensors"
    torch.save(model.state_dict(), path)
    other = nn.Linear(3, 2)
    assert repr(other.load_state_dict(torch.load(path))) == "<All keys matched successfully>"
    assert other.weight.tolist() == model.weight.tolist()
    buffer = io.BytesIO()
    torch.save(model.state_dict(), buffer)
    assert sorted(torch.load(io.BytesIO(buffer.getvalue()))) == ["bias", "weight"]


def test_lambda_lr_calls_python_and_its_exceptions_come_back():
    p = torch.ones(2, requires_grad=True)
    opt = optim.SGD([p], lr=0.1)
    sched = optim.lr_scheduler.LambdaLR(opt, lr_lambda=lambda epoch: 0.5 ** epoch)
    for _ in range(3):
        opt.step()
        sched.step()
    assert close(opt.param_groups[0]["lr"], 0.0125)

    def refuses(epoch):
        if epoch >= 1:
            raise ValueError(f"no schedule for epoch {epoch}")
        return 1.0

    failing = optim.lr_scheduler.LambdaLR(optim.SGD([p], lr=0.1), refuses)
    with pytest.raises(ValueError, match="no schedule for epoch 1"):
        failing.step()
    assert torch.ones(1).item() == 1.0


def test_vision_catalogue_models_and_transforms():
    import pathlib

    import borch.vision as torchvision

    root = pathlib.Path(__file__).resolve().parents[2]
    loaded = torchvision.catalogue.load(str(root / "catalogue/digits_mlp.json"))
    assert loaded.manifest["name"] == "digits_mlp" and loaded.max_sample_diff <= 1e-4
    assert isinstance(loaded.model, nn.Sequential)
    torch.manual_seed(0)
    net = torchvision.models.resnet18(num_classes=10)
    assert [n for n, _ in net.named_parameters()][:2] == ["conv1.weight", "bn1.weight"]
    to_tensor = torchvision.transforms.ToTensor()
    img = to_tensor(bytes([0, 255, 51, 102]), (2, 2, 1))
    assert img.shape == torch.Size([1, 2, 2]) and close(img.flatten().tolist(), [0, 1, 0.2, 0.4])
    norm = torchvision.transforms.Normalize((0.5,), (0.5,))
    assert close(norm(img).flatten().tolist(), [-1, 1, -0.6, -0.2])


def test_a_rust_panic_is_a_python_exception_and_the_module_stays_usable():
    from borch import _native

    with pytest.raises(_native.NativeError, match="borch panicked .* a test panic"):
        _native._panic_for_test("a test panic")
    assert (torch.ones(3) * 2).sum().item() == 6.0
