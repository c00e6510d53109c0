"""The native wheel and Python threads (borch-pyo3/src/thread_bound.rs): tensors and generators
cross threads as torch's do; modules, optimizers, schedulers, datasets, DataLoaders, samplers,
transforms, scopes and compiled functions are bound to the thread that made them, and another
thread touching one gets a RuntimeError naming the rule (not pyo3's PanicException), after which
the object still works on its own thread. Objects made in a thread work there, and objects let
go of or garbage-collected on another thread crash nothing (they are dropped by their own
thread at its next call). Run with pytest where the wheel is installed (scripts/test does)."""

import gc
import threading

import pytest

import borch as torch
import borch.vision as torchvision
from borch import _native, nn, optim
from borch.utils.data import DataLoader, Dataset, TensorDataset, RandomSampler

WORKER = "borch-test-worker"


def in_thread(fn):
    """`fn()` in a new thread: {"value": result} or {"error": the exception}."""
    out = {}

    def run():
        try:
            out["value"] = fn()
        except BaseException as e:  # noqa: BLE001 — a PanicException is a BaseException
            out["error"] = e

    t = threading.Thread(target=run, name=WORKER)
    t.start()
    t.join()
    return out


def refused(what, fn):
    """`fn()` in another thread raises torch's RuntimeError naming `what` and both threads."""
    out = in_thread(fn)
    e = out.get("error")
    assert type(e) is RuntimeError, f"{what}: {out}"
    message = str(e)
    assert message.startswith(f"borch: this {what} was made on thread MainThread"), message
    assert "bound to the thread that made them" in message, message
    assert f"this is thread {WORKER}" in message, message


def test_tensors_and_generators_cross_threads():
    t = torch.arange(4).float().requires_grad_()
    out = in_thread(lambda: (t * 2).sum().item())
    assert out == {"value": 12.0}
    y = (t * t).sum()
    assert in_thread(lambda: y.backward()) == {"value": None}
    assert t.grad.tolist() == [0.0, 2.0, 4.0, 6.0]
    g = torch.Generator().manual_seed(0)
    assert in_thread(lambda: g.manual_seed(1) is g) == {"value": True}


def test_module_optimizer_scheduler_from_another_thread_are_runtime_errors():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    opt = optim.SGD(model.parameters(), lr=0.1)
    sched = optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    x = torch.ones(2, 3)
    refused("module", lambda: model(x))
    refused("module", lambda: model[0](x))
    refused("module", lambda: model.state_dict())
    refused("module", lambda: model.train())
    refused("module", lambda: nn.Sequential(model))
    refused("optimizer", lambda: opt.step())
    refused("optimizer", lambda: opt.zero_grad())
    refused("optimizer", lambda: optim.lr_scheduler.StepLR(opt, step_size=1))
    refused("optimizer", lambda: opt.param_groups)
    group = opt.param_groups[0]
    refused("param group", lambda: group["lr"])
    refused("scheduler", lambda: sched.step())
    refused("scheduler", lambda: sched.get_last_lr())
    # The main thread's objects still work, and so do the tensors they hold from anywhere.
    loss = model(x).sum()
    loss.backward()
    opt.step()
    sched.step()
    opt.zero_grad()
    assert list(sched.get_last_lr()) == [0.05]
    w = model[0].weight
    assert in_thread(lambda: w.shape) == {"value": torch.Size([4, 3])}


def test_data_vision_scope_and_compiled_from_another_thread_are_runtime_errors():
    data = TensorDataset(torch.arange(6).float(), torch.arange(6))
    loader = DataLoader(data, batch_size=2)
    refused("dataset", lambda: data[0])
    refused("dataset", lambda: len(data))
    refused("DataLoader", lambda: list(loader))
    refused("DataLoader", lambda: len(loader))
    batches = iter(loader)
    refused("DataLoader pass", lambda: next(batches))
    sampler = RandomSampler(range(4))
    refused("sampler", lambda: list(sampler))
    norm = torchvision.transforms.Normalize((0.5,), (0.5,))
    refused("transform", lambda: norm(torch.ones(1, 2, 2)))
    with torch.scope() as s:
        refused("scope", lambda: s.keep(torch.ones(1)))
    double = torch.compile(lambda a: a * 2)
    refused("compiled function", lambda: double(torch.ones(2)))
    # Still fine here.
    assert [b[1].tolist() for b in loader] == [[0, 1], [2, 3], [4, 5]]
    assert next(batches)[1].tolist() == [0, 1]
    assert sorted(sampler) == [0, 1, 2, 3]
    assert norm(torch.ones(1, 2, 2)).flatten().tolist() == [1.0] * 4
    assert double(torch.ones(2)).tolist() == [2.0, 2.0]


def test_objects_made_in_a_thread_work_there():
    class Squares(Dataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            return torch.tensor([float(i)]), i * i

    def train():
        torch.manual_seed(0)
        model = nn.Linear(1, 1)
        opt = optim.Adam(model.parameters(), lr=0.1)
        losses = []
        for _ in range(3):
            for x, y in DataLoader(Squares(), batch_size=2, shuffle=True):
                opt.zero_grad()
                loss = ((model(x).flatten() - y.float()) ** 2).mean()
                loss.backward()
                opt.step()
                losses.append(loss.item())
        with torch.scope():
            torch.compile(lambda a: a + 1)(torch.ones(1))
        return losses

    out = in_thread(train)
    assert "error" not in out, out
    assert len(out["value"]) == 6
    assert train() == out["value"]  # the same seed gives the same steps on either thread


def test_objects_let_go_of_on_another_thread_are_dropped_by_their_own():
    gc.collect()
    base = _native.memory()["bytes"]
    box = []
    box.append(box)  # a cycle: only the collector frees it
    box.append(nn.Linear(256, 256))
    made = _native.memory()["bytes"]
    assert made >= base + 256 * 256 * 4
    del box
    assert in_thread(gc.collect).get("value", 0) > 0
    # The module's native half waits for this thread (its weights still held) …
    assert _native.memory()["bytes"] == made
    # … whose next borch object drops it.
    nn.Identity()
    assert _native.memory()["bytes"] <= made - 256 * 256 * 4

    model = nn.Linear(8, 8)
    holder = [model]
    del model
    t = threading.Thread(target=holder.clear, name=WORKER)  # the last reference goes there
    t.start()
    t.join()
    nn.Identity()
    assert nn.Linear(2, 2)(torch.ones(1, 2)).shape == torch.Size([1, 2])


def test_no_thread_sees_a_panic():
    model = nn.Linear(2, 2)
    results = []

    def poke():
        try:
            model(torch.ones(1, 2))
        except RuntimeError as e:
            results.append(type(e))

    threads = [threading.Thread(target=poke, name=WORKER) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [RuntimeError] * 8
    assert model(torch.ones(1, 2)).shape == torch.Size([1, 2])


def test_a_thread_error_is_not_a_base_exception_escape():
    model = nn.Linear(2, 2)
    out = in_thread(lambda: model(torch.ones(1, 2)))
    assert isinstance(out["error"], Exception)
    with pytest.raises(RuntimeError):
        raise out["error"]
