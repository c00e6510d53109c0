"""The "data" golden family through borch_webgpu (golden[py]): tests/data/cases.json, frozen from
real torch by tests/data/fixtures_torch.py, replayed with ``borch_webgpu.utils.data`` written as
torch's code is — samplers, ``random_split``, DataLoader passes (the global generator or a
``Generator``, ``sampler=``, ``batch_sampler=``, a Python ``Dataset`` with a ``collate_fn``),
``IterableDataset`` subclasses (a generator ``__iter__``, or one returning an iterator, with
``default_collate`` as a ``collate_fn``), ``ChainDataset`` and ``a + b``, ``ConcatDataset``
lookups, ``default_collate`` and torch's construction checks. Expected values are torch's only. Run inside
Pyodide by tests/browser/pages/golden_py.mjs; ``run`` returns the summary line and the failures."""

import json
import math
import time

try:
    import borch_webgpu as torch
    from borch_webgpu.utils import data
except ModuleNotFoundError:  # the native wheel (borch-wgpu): the same Python layer
    import borch as torch
    from borch.utils import data

ALIASES = {"AssertionError": "ValueError"}


def error_of(e):
    return {"error": [type(e).__name__, str(e)]}


def agree(got, want):
    if isinstance(want, dict) and "error" in want:
        if not (isinstance(got, dict) and "error" in got):
            return False
        g, w = got["error"], want["error"]
        cls = {"IndexError": "IndexError"}.get(g[0], g[0])
        return cls == ALIASES.get(w[0], w[0]) and (w[1] in g[1] or g[1] in w[1])
    return got == want


def as_borch(v):
    """torch's JSON as borch_webgpu gives it: tuples and lists alike, float64 as float32."""
    if isinstance(v, list):
        return [as_borch(x) for x in v]
    if isinstance(v, dict):
        out = {}
        for k, x in v.items():
            if k == "tuple":
                out["list"] = as_borch(x)
            elif k == "dtype" and x == "float64":
                out[k] = "float32"
            else:
                out[k] = as_borch(x)
        return out
    return v


def encode(s):
    if isinstance(s, torch.Tensor):
        flat = s.reshape(-1).tolist()
        dtype = str(s.dtype).replace("torch.", "")
        if dtype == "float32":
            flat = [float(x) for x in flat]
        return {"t": flat, "shape": list(s.shape), "dtype": dtype}
    if isinstance(s, (list, tuple)):
        return {"list": [encode(x) for x in s]}
    if isinstance(s, bool):
        return {"b": s}
    if isinstance(s, int):
        return {"i": s}
    if isinstance(s, float):
        return {"f": s}
    if isinstance(s, str):
        return {"s": s}
    return {"dict": [[k, encode(x)] for k, x in s.items()]}


def generator_for(c):
    if c["gen"] == "global":
        torch.manual_seed(c["seed"])
        return None
    return torch.Generator().manual_seed(c["seed"])


class Source:
    """A data source of ``n`` samples (what samplers and random_split measure)."""

    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return i


def one_pass(iterable):
    try:
        return [list(x) if isinstance(x, tuple) else x for x in iterable]
    except Exception as e:  # torch's errors at a pass's first next
        return error_of(e)


def weight(x):
    return float(x) if isinstance(x, str) else x  # "inf", "nan" as JSON holds them


def sampler_case(c):
    g = generator_for(c)
    source = Source(c.get("n", 0))
    kind = c["kind"]
    if kind == "random_split":
        try:
            got = [list(p.indices) for p in data.random_split(source, c["lengths"], generator=g)]
        except Exception as e:
            got = error_of(e)
        return None if agree(got, c["splits"]) else f"borch {got}\n  torch {c['splits']}"
    try:
        if kind == "random_sampler":
            s = data.RandomSampler(source, replacement=c["replacement"], num_samples=c["num_samples"], generator=g)
        elif kind == "subset_random":
            s = data.SubsetRandomSampler(c["indices"], generator=g)
        elif kind == "weighted":
            weights = [weight(w) for w in c["weights"]]
            s = data.WeightedRandomSampler(weights, c["num_samples"], replacement=c["replacement"], generator=g)
        else:
            inner = data.SequentialSampler(source) if c["inner"] == "sequential" else data.RandomSampler(source, generator=g)
            s = data.BatchSampler(inner, c["batch_size"], c["drop_last"])
    except Exception as e:
        return f"construction failed: {e}"
    if len(s) != c["len"]:
        return f"len {len(s)}, torch {c['len']}"
    for i, want in enumerate(c["passes"]):
        got = one_pass(s)
        if not agree(got, want):
            return f"pass {i}: borch {got}\n  torch {want}"
    return None


def tensors(n):
    x = torch.arange(n * 3, dtype=torch.float32).reshape(n, 3)
    y = torch.arange(n) * 10
    return x, y


class Rows(data.Dataset):
    """The TensorDataset's rows, written in Python."""

    def __init__(self, x, y):
        self.x, self.y = x, y

    def __len__(self):
        return self.x.shape[0]

    def __getitem__(self, i):
        return self.x[i], self.y[i]


def stack_columns(samples):
    return [torch.stack([s[k] for s in samples]) for k in range(2)]


def loader_for(c, g, python):
    o = c["options"]
    x, y = tensors(c["n"])
    ds = data.TensorDataset(x, y)
    kwargs = {"generator": g}
    for key in ("batch_size", "shuffle", "drop_last"):
        if key in o:
            kwargs[key] = o[key]
    if python and o.get("batch_size", 1) is not None:
        kwargs["collate_fn"] = stack_columns
    if "sampler" in o:
        kwargs["generator"] = None
        kwargs["sampler"] = data.SubsetRandomSampler(o["sampler"]["subset_random"], generator=g)
    if "batch_sampler" in o:
        kwargs["generator"] = None
        b = o["batch_sampler"]
        kwargs["batch_sampler"] = data.BatchSampler(data.RandomSampler(ds, generator=g), b["random"], b["drop_last"])
    return data.DataLoader(Rows(x, y) if python else ds, **kwargs)


def loader_pass(loader):
    try:
        return [encode(b) for b in loader]
    except Exception as e:
        return error_of(e)


def unwrap(batches):
    return [b["list"] if isinstance(b, dict) and "list" in b else b for b in batches] if isinstance(batches, list) else batches


def dataloader_case(c):
    for python in (False, True):
        g = generator_for(c)
        loader = loader_for(c, g, python)
        if len(loader) != c["len"]:
            return f"len {len(loader)}, torch {c['len']}"
        for i, want in enumerate(c["passes"]):
            got, w = unwrap(loader_pass(loader)), unwrap(as_borch(want))
            if not agree(got, w):
                return f"pass {i} (python dataset {python}): borch {got}\n  torch {w}"
    return None


def composed_case(c):
    g = generator_for(c)
    x, y = tensors(10)
    train, test = data.random_split(data.TensorDataset(x, y), [0.7, 0.3], generator=g)
    splits = [list(train.indices), list(test.indices)]
    if splits != c["splits"]:
        return f"splits: borch {splits}, torch {c['splits']}"
    loader = data.DataLoader(train, batch_size=3, shuffle=True, generator=g)
    for i, want in enumerate(c["passes"]):
        got = loader_pass(loader)
        if not agree(got, as_borch(want)):
            return f"pass {i}: borch {got}\n  torch {want}"
    got = loader_pass(data.DataLoader(test, batch_size=2))
    return None if agree(got, as_borch(c["test"])) else f"test part: borch {got}"


def concat_case(c):
    parts = [data.TensorDataset(torch.arange(k) + 100 * i) for i, k in enumerate(c["sizes"])]
    cat = data.ConcatDataset(parts)
    if list(cat.cumulative_sizes) != c["cumulative_sizes"]:
        return f"cumulative sizes {cat.cumulative_sizes}"
    try:
        got = encode(cat[c["index"]])
    except Exception as e:
        got = error_of(e)
    want = as_borch(c["expected"])
    return None if agree(got, want) else f"borch {got}, torch {want}"


def decode(v):
    if "t" in v:
        return torch.tensor(v["t"], dtype=getattr(torch, v["dtype"])).reshape(v["shape"])
    for k in ("i", "f", "b", "s"):
        if k in v:
            return v[k]
    if "tuple" in v:
        return tuple(decode(x) for x in v["tuple"])
    if "list" in v:
        return [decode(x) for x in v["list"]]
    return {k: decode(x) for k, x in v["dict"]}


def collate_case(c):
    try:
        got = encode(data.default_collate([decode(s) for s in c["batch"]]))
    except Exception as e:
        got = error_of(e)
    want = as_borch(c["expected"])
    return None if agree(got, want) else f"borch {got}, torch {want}"


class Numbers(data.IterableDataset):
    """torch's ``Numbers(data.IterableDataset)``: the ints 0..n, or float tensors ``[i]``; a
    generator as ``__iter__``."""

    def __init__(self, n, tensors=False):
        self.n, self.tensors = n, tensors

    def __iter__(self):
        for i in range(self.n):
            yield torch.tensor([float(i)]) if self.tensors else i

    def __len__(self):
        return self.n


class Counted(data.IterableDataset):
    """The same samples, ``__iter__`` returning an iterator (torch's textbook form)."""

    def __init__(self, n, tensors=False):
        self.n, self.tensors = n, tensors

    def __iter__(self):
        return iter(torch.tensor([float(i)]) if self.tensors else i for i in range(self.n))

    def __len__(self):
        return self.n


class Unsized(data.IterableDataset):
    def __iter__(self):
        return iter(range(3))


def iterable_case(c):
    o = c["options"]
    for cls in (Numbers, Counted):
        torch.manual_seed(c["seed"])
        kwargs = {"batch_size": o["batch_size"], "drop_last": o["drop_last"]}
        if cls is Counted and o["batch_size"] is not None:
            kwargs["collate_fn"] = data.default_collate
        loader = data.DataLoader(cls(c["n"], c.get("samples") == "tensor"), **kwargs)
        if len(loader) != c["len"]:
            return f"len {len(loader)}, torch {c['len']} ({cls.__name__})"
        for i, want in enumerate(c["passes"]):
            got = loader_pass(loader)
            if not agree(got, as_borch(want)):
                return f"pass {i} ({cls.__name__}): borch {got}\n  torch {want}"
    return None


def chain_case(c):
    parts = [Numbers(p["n"]) if "n" in p else data.TensorDataset(torch.arange(p["map"])) for p in c["parts"]]
    chain = parts[0] + parts[1] if c["add"] else data.ChainDataset(parts)
    if not isinstance(chain, data.ChainDataset):
        return f"{type(chain).__name__}, not a ChainDataset"
    loader = data.DataLoader(chain, batch_size=c["options"]["batch_size"])
    try:
        length = len(loader)
    except Exception as e:
        length = error_of(e)
    if not agree(length, c["len"]):
        return f"len: borch {length}, torch {c['len']}"
    for i, want in enumerate(c["passes"]):
        got = loader_pass(loader)
        if not agree(got, as_borch(want)):
            return f"pass {i}: borch {got}\n  torch {want}"
    samples = loader_pass(chain)
    return None if agree(samples, as_borch(c["samples"])) else f"samples: borch {samples}, torch {c['samples']}"


def construct_calls():
    """The fixture's construction checks, as torch's code writes them (torch's ``sampler=[0, 1]``
    is a SequentialSampler: borch's sampler option takes its samplers only)."""
    ds = data.TensorDataset(torch.zeros(4, 2))
    seq = data.SequentialSampler
    return {
        "dataloader_sampler_and_shuffle": lambda: data.DataLoader(ds, sampler=seq(ds), shuffle=True),
        "dataloader_batch_sampler_and_batch_size": lambda: data.DataLoader(
            ds, batch_sampler=data.BatchSampler(seq(ds), 2, False), batch_size=2),
        "dataloader_batch_sampler_and_drop_last": lambda: data.DataLoader(
            ds, batch_sampler=data.BatchSampler(seq(ds), 2, False), drop_last=True),
        "dataloader_no_batch_and_drop_last": lambda: data.DataLoader(ds, batch_size=None, drop_last=True),
        "dataloader_batch_size_0": lambda: data.DataLoader(ds, batch_size=0),
        "iterable_shuffle": lambda: data.DataLoader(Unsized(), shuffle=True),
        "iterable_shuffle_false": lambda: data.DataLoader(Unsized(), shuffle=False),
        "iterable_sampler": lambda: data.DataLoader(Unsized(), sampler=seq(ds)),
        "iterable_batch_sampler": lambda: data.DataLoader(Unsized(), batch_sampler=data.BatchSampler(seq(ds), 2, False)),
        "iterable_len": lambda: len(data.DataLoader(Unsized())),
        "batch_sampler_0": lambda: data.BatchSampler(seq(ds), 0, False),
        "random_sampler_num_samples_0": lambda: data.RandomSampler(ds, num_samples=0),
        "random_sampler_empty": lambda: data.RandomSampler([]),
        "weighted_num_samples_0": lambda: data.WeightedRandomSampler([1.0], 0),
        "tensor_dataset_mismatch": lambda: data.TensorDataset(torch.zeros(2), torch.zeros(3)),
        "concat_empty": lambda: data.ConcatDataset([]),
        "subset_out_of_range": lambda: data.Subset(ds, [0, 1])[2],
        "tensor_dataset_out_of_range": lambda: ds[4],
        "tensor_dataset_negative": lambda: encode(ds[-1]),
    }


def construct_case(c):
    try:
        out = construct_calls()[c["what"]]()
        out = out if isinstance(out, (dict, int)) else "ok"
    except Exception as e:
        out = error_of(e)
    want = as_borch(c["expected"])
    return None if agree(out, want) else f"borch {out}, torch {want}"


HANDLERS = {
    "random_sampler": sampler_case,
    "subset_random": sampler_case,
    "weighted": sampler_case,
    "batch_sampler": sampler_case,
    "random_split": sampler_case,
    "dataloader": dataloader_case,
    "composed": composed_case,
    "iterable": iterable_case,
    "chain": chain_case,
    "concat": concat_case,
    "collate": collate_case,
    "construct": construct_case,
}


class Failing(data.Dataset):
    def __len__(self):
        return 3

    def __getitem__(self, i):
        if i == 1:
            raise IndexError("no sample 1")
        return i


def bad_batch(batch):
    raise TypeError("bad batch")


class FailingIterable(data.IterableDataset):
    def __iter__(self):
        yield torch.zeros(1)
        raise KeyError("no sample 1")


ERROR_CHECKS = 8


def error_checks():
    """A Python dataset's exception keeps its class through borch-ts; torch's option errors; an
    IterableDataset's: its own exception, torch's exact TypeError and ValueError (``=``: the whole
    message, no traceback around it), the abstract ``__iter__``."""
    out = []
    for what, make, kind, words in (
        ("__getitem__ raises", lambda: list(data.DataLoader(Failing(), batch_size=2)), IndexError, "no sample 1"),
        ("collate_fn raises", lambda: list(data.DataLoader(Failing(), batch_size=1, collate_fn=bad_batch)), TypeError, "bad batch"),
        ("num_workers", lambda: data.DataLoader(Failing(), num_workers=2), NotImplementedError, "num_workers"),
        ("sampler and shuffle", lambda: data.DataLoader(Failing(), sampler=data.SequentialSampler(Failing()), shuffle=True), ValueError, "mutually exclusive with shuffle"),
        ("an IterableDataset raises", lambda: list(data.DataLoader(FailingIterable(), batch_size=2)), KeyError, "no sample 1"),
        ("len without __len__", lambda: len(data.DataLoader(Unsized())), TypeError, "=object of type 'Unsized' has no len()"),
        ("shuffle with an IterableDataset", lambda: data.DataLoader(Unsized(), shuffle=True), ValueError,
         "=DataLoader with IterableDataset: expected unspecified shuffle option, but got shuffle=True"),
        ("IterableDataset without __iter__", lambda: type("Empty", (data.IterableDataset,), {})(), TypeError, "Can't instantiate abstract class Empty"),
    ):
        try:
            make()
            out.append(f"errors/{what}: no error")
        except Exception as e:  # the class must be the expected one
            text = str(e).strip("'")  # a KeyError's str is its key's repr
            said = text == words[1:] if words.startswith("=") else words in text
            if not isinstance(e, kind) or not said:
                out.append(f"errors/{what}: {type(e).__name__}: {e}")
    return out


def run(cases_json, adapter="", log=print, label="golden[py]"):
    started = time.time()
    cases = json.loads(cases_json)["cases"]
    agreeing, failures, missing = 0, [], {}
    for c in cases:
        handler = HANDLERS.get(c["kind"])
        if handler is None:
            missing[c["kind"]] = missing.get(c["kind"], 0) + 1
            continue
        try:
            failure = handler(c)
        except Exception as e:
            failure = f"raised {type(e).__name__}: {e}"
        if failure:
            failures.append(f"{c['name']}: {failure}")
        else:
            agreeing += 1
    errors = error_checks()
    failures += errors
    listed = ", ".join(f"{k} {n}" for k, n in missing.items())
    summary = (
        f"{label} data: {agreeing} agreeing / {len(failures)} disagreeing / "
        f"{sum(missing.values())} not implemented ({listed}); error checks {ERROR_CHECKS - len(errors)} / {ERROR_CHECKS} "
        f"[{adapter}] in {time.time() - started:.1f} s"
    )
    log(summary)
    shown = {}
    for f in failures:  # the first three of each kind
        kind = f.split("/")[0]
        shown[kind] = shown.get(kind, 0) + 1
        if shown[kind] <= 3:
            log(f)
    return {"ok": not failures and agreeing > 0, "summary": summary}



# The vision part: tests/vision/cases.json (torchvision 0.29's seeded pipelines and ToTensor /
# PILToTensor conversions) through borch_webgpu.vision.transforms.
def vision_image(shape):
    n = math.prod(shape)
    return torch.tensor([((i * 37) % 101) / 100 for i in range(n)], dtype=torch.float32).reshape(shape)


def error_line(e):
    kind = {"RangeError": "IndexError"}.get(type(e).__name__, type(e).__name__)
    return f"{kind}: {e}"


def pipeline_case(c):
    T = torch.vision.transforms

    torch.manual_seed(c["seed"])
    x = vision_image(c["shape"])
    try:
        y = T.Compose([getattr(T, name)(**kw) for name, kw in c["transforms"]])(x)
    except Exception as e:
        got = error_line(e)
        return None if c.get("error") == got else f"borch {got}, torchvision {c.get('error')}"
    if "error" in c:
        return f"no error, torchvision {c['error']}"
    if list(y.shape) != c["out_shape"]:
        return f"shape {list(y.shape)}, torchvision {c['out_shape']}"
    values = y.reshape(-1).tolist()
    worst = max((abs(values[i] - w) for i, w in enumerate(c["values"])), default=0.0)
    if not worst <= 1e-5 or abs(sum(values) - c["sum"]) > 1e-5 * max(len(values), 1):
        return f"max |diff| {worst}, sum {sum(values)} (torchvision {c['sum']})"
    return None


def to_tensor_case(c):
    T = torch.vision.transforms

    raw = bytes(c["bytes"])
    a = T.ToTensor()(raw, c["hwc"]).reshape(-1).tolist()
    p = T.PILToTensor()(raw, c["hwc"]).reshape(-1).tolist()
    f32 = [float(torch.tensor([v], dtype=torch.float32).tolist()[0]) for v in c["values"]]
    if a != f32:
        return f"ToTensor {a}"
    return None if p == c["pil_values"] else f"PILToTensor {p}"


def run_vision(cases_text, adapter="", log=print, label="golden[py]"):
    started = time.time()
    cases = [json.loads(line) for line in cases_text.splitlines() if line.strip()]
    handlers = {"pipeline": pipeline_case, "to_tensor": to_tensor_case}
    agreeing, failures, missing = 0, [], {}
    for c in cases:
        handler = handlers.get(c["kind"])
        if handler is None:
            missing[c["kind"]] = missing.get(c["kind"], 0) + 1
            continue
        try:
            failure = handler(c)
        except Exception as e:
            failure = f"raised {type(e).__name__}: {e}"
        if failure:
            failures.append(f"{c['kind']} seed {c.get('seed')} {c.get('transforms', c.get('hwc'))}: {failure}")
        else:
            agreeing += 1
    listed = ", ".join(f"{k} {n}" for k, n in missing.items())
    summary = (
        f"{label} data (vision transforms): {agreeing} agreeing / {len(failures)} disagreeing / "
        f"{sum(missing.values())} not implemented ({listed}) [{adapter}] in {time.time() - started:.1f} s"
    )
    log(summary)
    for f in failures[:20]:
        log(f)
    return {"ok": not failures and agreeing > 0, "summary": summary}


def run_vision_datasets(root, cases_text, log=print, runner="golden[py]"):
    """What torchvision's CIFAR10 / CIFAR100 / MNIST read from the synthetic files under ``root``
    (tests/vision/files), through borch_webgpu.vision.datasets' ``from_bytes``."""
    D = torch.vision.datasets

    def read(path):
        with open(f"{root}/{path}", "rb") as f:
            return f.read()

    make = {
        ("CIFAR10", True): lambda: D.CIFAR10.from_bytes([read(f"cifar-10-batches-bin/data_batch_{i}.bin") for i in range(1, 6)]),
        ("CIFAR10", False): lambda: D.CIFAR10.from_bytes([read("cifar-10-batches-bin/test_batch.bin")]),
        ("CIFAR100", True): lambda: D.CIFAR100.from_bytes(read("cifar-100-binary/train.bin")),
        ("CIFAR100", False): lambda: D.CIFAR100.from_bytes(read("cifar-100-binary/test.bin")),
        ("MNIST", True): lambda: D.MNIST.from_bytes(read("MNIST/raw/train-images-idx3-ubyte"), read("MNIST/raw/train-labels-idx1-ubyte")),
        ("MNIST", False): lambda: D.MNIST.from_bytes(read("MNIST/raw/t10k-images-idx3-ubyte.gz"), read("MNIST/raw/t10k-labels-idx1-ubyte.gz")),
    }
    cases = [json.loads(line) for line in cases_text.splitlines() if line.strip()]
    agreeing, failures, samples = 0, [], 0
    for c in (c for c in cases if c["kind"] == "dataset"):
        ds = make[(c["class"], c["train"])]()
        failure = None if len(ds) == c["len"] else f"len {len(ds)}, torchvision {c['len']}"
        for i, want in enumerate(c["items"]):
            if failure:
                break
            img, label = ds[i]
            v = img.reshape(-1).tolist()
            first = v[: len(want["first"])]
            f32 = [torch.tensor([x], dtype=torch.float32).tolist()[0] for x in want["first"]]
            if label != want["label"] or list(img.shape) != want["shape"] or abs(sum(v) - want["sum"]) > 1e-3 or first != f32:
                failure = f"item {i}: label {label} shape {list(img.shape)} sum {sum(v)}"
            samples += 1
        if failure:
            failures.append(f"{c['class']} train={c['train']}: {failure}")
        else:
            agreeing += 1
    summary = f"{runner} data (vision datasets): {agreeing} splits agreeing / {len(failures)} disagreeing, {samples} samples (CIFAR-10, CIFAR-100, MNIST from bytes)"
    log(summary)
    for f in failures:
        log(f)
    return {"ok": not failures and agreeing > 0, "summary": summary}
