"""Frozen torchvision (0.29, torch 2.15) outputs for borch-vision's transforms and datasets.

Writes tests/vision/cases.json (one case a line) and the tiny synthetic dataset files under
tests/vision/files/ (CIFAR-10/100 binary batches, MNIST IDX files, some gzip-compressed).
torchvision's own CIFAR classes read the pickled "python version", so the same images are also
pickled into a temporary folder and read there (md5 check switched off: the files are synthetic).

    python3 tests/vision/fixtures_torchvision.py      # only to regenerate
"""
import gzip, json, os, pickle, struct, tempfile
import numpy as np
import torch
import torchvision
import torchvision.transforms as T

HERE = os.path.dirname(os.path.abspath(__file__))
FILES = os.path.join(HERE, "files")


def image(shape):
    """The deterministic input both sides build: element i is ((i * 37) % 101) / 100."""
    n = int(np.prod(shape))
    v = torch.tensor([((i * 37) % 101) / 100 for i in range(n)], dtype=torch.float32)
    return v.reshape(shape)


def build(name, a):
    if name == "Normalize":
        return T.Normalize(a["mean"], a["std"], a.get("inplace", False))
    if name == "Resize":
        return T.Resize(a["size"], antialias=a.get("antialias", True), max_size=a.get("max_size"))
    if name == "CenterCrop":
        return T.CenterCrop(a["size"])
    if name == "RandomCrop":
        return T.RandomCrop(a["size"], padding=a.get("padding"), pad_if_needed=a.get("pad_if_needed", False),
                            fill=a.get("fill", 0), padding_mode=a.get("padding_mode", "constant"))
    if name == "RandomHorizontalFlip":
        return T.RandomHorizontalFlip(a.get("p", 0.5))
    if name == "RandomVerticalFlip":
        return T.RandomVerticalFlip(a.get("p", 0.5))
    if name == "RandomResizedCrop":
        return T.RandomResizedCrop(a["size"], scale=tuple(a.get("scale", (0.08, 1.0))),
                                   ratio=tuple(a.get("ratio", (3 / 4, 4 / 3))), antialias=a.get("antialias", True))
    raise ValueError(name)


params = []


def record(name, t):
    """Wrap a transform so the parameters it draws are recorded in order."""
    if name in ("RandomHorizontalFlip", "RandomVerticalFlip"):
        def f(x):
            state = torch.get_rng_state()
            flipped = bool(torch.rand(1) < t.p)
            torch.set_rng_state(state)
            params.append([name, int(flipped)])
            return t(x)
        return f
    if name in ("RandomCrop", "RandomResizedCrop"):
        orig = type(t).get_params
        def f(x):
            def gp(*a, **k):
                r = orig(*a, **k)
                params.append([name] + [int(v) for v in r])
                return r
            t.get_params = gp
            return t(x)
        return f
    return t


def pipeline_case(seed, shape, transforms):
    torch.manual_seed(seed)
    params.clear()
    x = image(shape)
    case = {"kind": "pipeline", "seed": seed, "shape": shape, "transforms": transforms}
    try:
        y = T.Compose([record(n, build(n, a)) for n, a in transforms])(x)
    except Exception as e:
        case["error"] = f"{type(e).__name__}: {e}"
        return case
    case["params"] = list(params)
    case["out_shape"] = list(y.shape)
    case["sum"] = float(y.double().sum())
    flat = y.flatten()
    case["values"] = [float(v) for v in flat] if flat.numel() <= 200 else [float(v) for v in flat[:32]]
    case["after"] = torch.randint(0, 1 << 30, (2,)).tolist()  # where the generator was left
    return case


def pipelines():
    out = []
    rr = lambda **a: ["RandomResizedCrop", a]
    for seed in range(6):
        out.append(pipeline_case(seed, [3, 8, 10], [["RandomHorizontalFlip", {}], ["RandomVerticalFlip", {"p": 0.3}]]))
        out.append(pipeline_case(seed, [3, 9, 7], [["RandomCrop", {"size": [5, 4]}], ["RandomHorizontalFlip", {}]]))
        out.append(pipeline_case(seed, [3, 6, 6], [["RandomCrop", {"size": 6, "padding": 2}]]))
        out.append(pipeline_case(seed, [3, 6, 5], [["RandomCrop", {"size": [6, 7], "padding": [1, 2], "padding_mode": "reflect"}]]))
        out.append(pipeline_case(seed, [3, 5, 6], [["RandomCrop", {"size": [6, 7], "padding": [1, 0, 2, 1], "padding_mode": "edge"}]]))
        out.append(pipeline_case(seed, [3, 5, 6], [["RandomCrop", {"size": 8, "padding": 2, "padding_mode": "symmetric"}]]))
        out.append(pipeline_case(seed, [3, 4, 5], [["RandomCrop", {"size": [7, 8], "pad_if_needed": True, "fill": 0.5}]]))
        out.append(pipeline_case(seed, [3, 12, 14], [rr(size=[6, 5], antialias=False)]))
        out.append(pipeline_case(seed, [3, 10, 10], [rr(size=8, scale=[0.5, 1.0], antialias=False), ["Normalize", {"mean": [0.5, 0.4, 0.3], "std": [0.2, 0.25, 0.3]}]]))
        out.append(pipeline_case(seed, [2, 3, 8, 9], [["RandomHorizontalFlip", {}], ["RandomCrop", {"size": 6, "padding": 1}]]))
        # a ratio no crop can meet: the 10 tries run out and the central fallback is taken
        out.append(pipeline_case(seed, [3, 4, 16], [rr(size=4, scale=[0.9, 1.0], ratio=[0.1, 0.2], antialias=False)]))
        out.append(pipeline_case(seed, [3, 16, 4], [rr(size=[4, 4], scale=[0.9, 1.0], ratio=[5.0, 9.0], antialias=False)]))
    out.append(pipeline_case(0, [3, 6, 8], [["Resize", {"size": [9, 11], "antialias": False}]]))
    out.append(pipeline_case(0, [3, 6, 8], [["Resize", {"size": 4, "antialias": False}]]))
    out.append(pipeline_case(0, [3, 8, 6], [["Resize", {"size": 12, "antialias": False}]]))
    out.append(pipeline_case(0, [3, 6, 8], [["Resize", {"size": 5, "max_size": 6, "antialias": False}]]))
    out.append(pipeline_case(0, [3, 6, 8], [["Resize", {"size": [9, 11]}]]))  # upsampling: antialias changes nothing
    out.append(pipeline_case(0, [2, 3, 6, 8], [["Resize", {"size": [12, 8], "antialias": True}]]))
    out.append(pipeline_case(0, [3, 6, 8], [["Resize", {"size": 6, "antialias": False}]]))  # same size: returned as is
    out.append(pipeline_case(0, [3, 7, 8], [["CenterCrop", {"size": [4, 5]}]]))
    out.append(pipeline_case(0, [3, 7, 8], [["CenterCrop", {"size": 3}]]))
    out.append(pipeline_case(0, [3, 4, 5], [["CenterCrop", {"size": [7, 8]}]]))
    out.append(pipeline_case(0, [3, 4, 5], [["CenterCrop", {"size": [3, 8]}]]))
    out.append(pipeline_case(0, [3, 4, 5], [["Normalize", {"mean": [0.1, 0.2, 0.3], "std": [1.5, 0.5, 2.0]}]]))
    out.append(pipeline_case(0, [2, 3, 2, 2], [["Normalize", {"mean": [0.5], "std": [0.5]}]]))
    # antialias=True (the default) shrinking: torch's antialiased bilinear
    out.append(pipeline_case(0, [3, 12, 16], [["Resize", {"size": [5, 7]}]]))
    out.append(pipeline_case(0, [3, 13, 9], [["Resize", {"size": 4}]]))
    out.append(pipeline_case(0, [2, 3, 10, 6], [["Resize", {"size": [3, 9]}]]))
    out.append(pipeline_case(0, [3, 20, 20], [["Resize", {"size": [20, 3]}]]))
    for seed in range(6):
        out.append(pipeline_case(seed, [3, 16, 18], [rr(size=[7, 6]), ["RandomHorizontalFlip", {}]]))
    # torchvision's errors
    out.append(pipeline_case(0, [3, 4, 4], [["RandomCrop", {"size": 6}]]))
    out.append(pipeline_case(0, [3, 4, 4], [["Normalize", {"mean": [0.5, 0.5, 0.5], "std": [1.0, 0.0, 1.0]}]]))
    out.append(pipeline_case(0, [3, 4, 4], [["RandomCrop", {"size": 4, "padding": [1, 2, 3]}]]))
    out.append(pipeline_case(0, [3, 4, 4], [["Resize", {"size": 5, "max_size": 5, "antialias": False}]]))
    return out


def to_tensor_cases():
    out = []
    rng = np.random.default_rng(0)
    for h, w, c in [(2, 3, 3), (4, 2, 1), (3, 3, 4)]:
        a = rng.integers(0, 256, size=(h, w, c), dtype=np.uint8)
        t = T.ToTensor()(a)
        p = torch.from_numpy(a.transpose(2, 0, 1).copy())  # PILToTensor's layout (CHW, values kept)
        out.append({"kind": "to_tensor", "hwc": [h, w, c], "bytes": a.flatten().tolist(),
                    "shape": list(t.shape), "values": [float(v) for v in t.flatten()],
                    "pil_values": p.flatten().tolist()})
    return out


def idx(arr, magic_type=8):
    head = struct.pack(">BBBB", 0, 0, magic_type, arr.ndim) + b"".join(struct.pack(">I", d) for d in arr.shape)
    return head + arr.astype(np.uint8).tobytes()


def datasets(tmp):
    os.makedirs(FILES, exist_ok=True)
    rng = np.random.default_rng(15)
    cases = []
    # CIFAR-10: five train batches of 1 image, a test batch of 2; binary files committed
    bin10 = os.path.join(FILES, "cifar-10-batches-bin")
    py10 = os.path.join(tmp, "cifar-10-batches-py")
    os.makedirs(bin10, exist_ok=True); os.makedirs(py10, exist_ok=True)
    names = [f"data_batch_{i}" for i in range(1, 6)] + ["test_batch"]
    for name in names:
        n = 2 if name == "test_batch" else 1
        data = rng.integers(0, 256, size=(n, 3072), dtype=np.uint8)
        labels = rng.integers(0, 10, size=n).tolist()
        with open(os.path.join(bin10, name + ".bin"), "wb") as f:
            for k in range(n):
                f.write(bytes([labels[k]]) + data[k].tobytes())
        with open(os.path.join(py10, name), "wb") as f:
            pickle.dump({"data": data, "labels": labels}, f)
    with open(os.path.join(py10, "batches.meta"), "wb") as f:
        pickle.dump({"label_names": [f"c{i}" for i in range(10)]}, f)
    # CIFAR-100: train 3 images, test 2
    bin100 = os.path.join(FILES, "cifar-100-binary")
    py100 = os.path.join(tmp, "cifar-100-python")
    os.makedirs(bin100, exist_ok=True); os.makedirs(py100, exist_ok=True)
    for name, n in [("train", 3), ("test", 2)]:
        data = rng.integers(0, 256, size=(n, 3072), dtype=np.uint8)
        coarse = rng.integers(0, 20, size=n).tolist(); fine = rng.integers(0, 100, size=n).tolist()
        with open(os.path.join(bin100, name + ".bin"), "wb") as f:
            for k in range(n):
                f.write(bytes([coarse[k], fine[k]]) + data[k].tobytes())
        with open(os.path.join(py100, name), "wb") as f:
            pickle.dump({"data": data, "fine_labels": fine, "coarse_labels": coarse}, f)
    with open(os.path.join(py100, "meta"), "wb") as f:
        pickle.dump({"fine_label_names": [f"f{i}" for i in range(100)]}, f)
    # MNIST: train 5 images raw, test 3 images gzip-compressed (torchvision reads the raw copies)
    raw = os.path.join(FILES, "MNIST", "raw"); traw = os.path.join(tmp, "MNIST", "raw")
    os.makedirs(raw, exist_ok=True); os.makedirs(traw, exist_ok=True)
    for prefix, n, gz in [("train", 5, False), ("t10k", 3, True)]:
        imgs = rng.integers(0, 256, size=(n, 28, 28), dtype=np.uint8)
        labs = rng.integers(0, 10, size=n, dtype=np.uint8)
        for kind, arr in [("images-idx3-ubyte", imgs), ("labels-idx1-ubyte", labs)]:
            b = idx(arr)
            name = f"{prefix}-{kind}"
            with open(os.path.join(traw, name), "wb") as f:
                f.write(b)
            if gz:
                with open(os.path.join(raw, name + ".gz"), "wb") as f:
                    f.write(gzip.compress(b, mtime=0))
            else:
                with open(os.path.join(raw, name), "wb") as f:
                    f.write(b)
    torchvision.datasets.cifar.check_integrity = lambda *a, **k: True
    for cls, name in [(torchvision.datasets.CIFAR10, "CIFAR10"), (torchvision.datasets.CIFAR100, "CIFAR100"),
                      (torchvision.datasets.MNIST, "MNIST")]:
        for train in (True, False):
            ds = cls(tmp, train=train, transform=T.ToTensor())
            raw_ds = cls(tmp, train=train)
            items = []
            for k in range(len(ds)):
                x, y = ds[k]
                img, _ = raw_ds[k]
                a = np.asarray(img)
                items.append({"label": int(y), "shape": list(x.shape), "sum": float(x.double().sum()),
                              "byte_sum": int(a.astype(np.int64).sum()), "first": [float(v) for v in x.flatten()[:4]]})
            cases.append({"kind": "dataset", "class": name, "train": train, "len": len(ds), "items": items})
    return cases


def main():
    with tempfile.TemporaryDirectory() as tmp:
        cases = pipelines() + to_tensor_cases() + datasets(tmp)
    with open(os.path.join(HERE, "cases.json"), "w") as f:
        for c in cases:
            f.write(json.dumps(c) + "\n")
    print(f"{len(cases)} cases")


if __name__ == "__main__":
    main()
