"""Index orders and collated batches of torch.utils.data, frozen from real torch on the CPU.

    python3 tests/data/fixtures_torch.py     # rewrites tests/data/cases.json (a few seconds)

borch-data/tests/torch_fixtures.rs replays every case and must match exactly: the indices of
each pass of a sampler, batch sampler, random_split or DataLoader for a seed, and two draws from
the generator afterwards (so a pass must also leave the generator where torch leaves it). A case's
`gen` is "global" (torch.manual_seed(seed), generator=None) or "own" (a torch.Generator seeded
with seed, passed as generator=). Samples and batches are written as
  {"t": flat values, "shape": [...], "dtype": "float32" | "int64" | "bool" | "float64"}
  {"i": int}  {"f": float}  {"b": bool}  {"s": str}
  {"tuple": [...]}  {"list": [...]}  {"dict": [[key, value], ...]}
and an exception as {"error": [class name, message]} (borch's message must contain torch's, or
torch's borch's; borch raises torch's AssertionErrors as ValueError). A weight that JSON cannot hold is a string
("inf", "nan").
"""

import math
import os
import sys

import torch
from torch.utils import data

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import json_lines  # noqa: E402 (tests/json_lines.py)

HERE = os.path.dirname(os.path.abspath(__file__))
cases = []


def add(name, kind, **fields):
    cases.append({"name": name, "kind": kind, **fields})


def generator(gen, seed):
    if gen == "global":
        torch.manual_seed(seed)
        return None
    return torch.Generator().manual_seed(seed)


def after(g):
    """Two draws that show where the generator was left."""
    return torch.randint(0, 2**30, (2,), generator=g).tolist()


def error(e):
    return {"error": [type(e).__name__, str(e)]}


def encode(v):
    if isinstance(v, torch.Tensor):
        return {"t": v.reshape(-1).tolist(), "shape": list(v.shape), "dtype": str(v.dtype)[6:]}
    if isinstance(v, bool):
        return {"b": v}
    if isinstance(v, int):
        return {"i": v}
    if isinstance(v, float):
        return {"f": v}
    if isinstance(v, str):
        return {"s": v}
    if isinstance(v, tuple):
        return {"tuple": [encode(x) for x in v]}
    if isinstance(v, list):
        return {"list": [encode(x) for x in v]}
    if isinstance(v, dict):
        return {"dict": [[k, encode(x)] for k, x in v.items()]}
    raise TypeError(type(v))


def decode(v):
    if "t" in v:
        dtype = getattr(torch, v["dtype"])
        return torch.tensor(v["t"], dtype=dtype).reshape(v["shape"])
    for key, f in (("b", bool), ("i", int), ("f", float), ("s", str)):
        if key in v:
            return f(v[key])
    if "tuple" in v:
        return tuple(decode(x) for x in v["tuple"])
    if "list" in v:
        return [decode(x) for x in v["list"]]
    return {k: decode(x) for k, x in v["dict"]}


def passes(sampler, count=2):
    out = []
    for _ in range(count):
        try:
            out.append(list(sampler))
        except Exception as e:  # noqa: BLE001 (the exception is the expected value)
            out.append(error(e))
    return out


def random_samplers():
    configs = []
    for n in (1, 2, 5, 10, 33, 100):
        configs.append((n, False, None))
    for n, k in ((5, 3), (5, 12), (10, 10), (10, 25), (7, 14)):
        configs.append((n, False, k))
    for n, k in ((5, None), (10, 31), (10, 32), (10, 33), (3, 70), (100, 64)):
        configs.append((n, True, k))
    for n, replacement, k in configs:
        for gen in ("global", "own"):
            for seed in (0, 1, 7, 2024, 123456789):
                g = generator(gen, seed)
                s = data.RandomSampler(range(n), replacement, k, generator=g)
                add(f"random_sampler/n{n}_r{int(replacement)}_k{k}_{gen}_{seed}", "random_sampler",
                    n=n, replacement=replacement, num_samples=k, gen=gen, seed=seed,
                    len=len(s), passes=passes(s), after=after(g))


def subset_random():
    for indices in ([3, 1, 4, 1, 5, 9, 2, 6], list(range(20, 40)), [7]):
        for gen in ("global", "own"):
            for seed in (0, 3, 99):
                g = generator(gen, seed)
                s = data.SubsetRandomSampler(indices, generator=g)
                add(f"subset_random/{len(indices)}_{gen}_{seed}", "subset_random", indices=indices,
                    gen=gen, seed=seed, len=len(s), passes=passes(s), after=after(g))


def weighted():
    weight_sets = {
        "six": [0.1, 0.9, 0.4, 0.7, 3.0, 0.6],
        "ints": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
        "zeros": [0.0, 1.0, 0.0, 2.0, 0.5],
        "one": [2.0],
        "skew": [1e-3, 1.0, 1e3, 5.0, 0.25, 7.5, 1e-6, 42.0],
    }
    for wname, w in weight_sets.items():
        for k in (1, 3, 5, 8, 50):
            for replacement in (True, False):
                # Without replacement, keys of zero weight tie; their order is torch's sort's.
                positive = sum(1 for x in w if x > 0)
                if not replacement and k > positive:
                    continue
                for gen in ("global", "own"):
                    for seed in (0, 5, 31337):
                        g = generator(gen, seed)
                        s = data.WeightedRandomSampler(w, k, replacement, generator=g)
                        add(f"weighted/{wname}_k{k}_r{int(replacement)}_{gen}_{seed}", "weighted",
                            weights=[float(x) for x in w], num_samples=k, replacement=replacement,
                            gen=gen, seed=seed, len=len(s), passes=passes(s), after=after(g))
    for wname, w in (("negative", [1.0, -1.0]), ("inf", [1.0, float("inf")]),
                     ("allzero", [0.0, 0.0])):
        for k, replacement in ((3, True), (1, True), (2, False), (3, False)):
            g = generator("own", 1)
            s = data.WeightedRandomSampler(w, k, replacement, generator=g)
            add(f"weighted/bad_{wname}_k{k}_r{int(replacement)}", "weighted",
                weights=[x if math.isfinite(x) else str(x) for x in w], num_samples=k, replacement=replacement, gen="own",
                seed=1, len=len(s), passes=passes(s, 1), after=after(g))


def batch_samplers():
    for inner in ("sequential", "random"):
        for n in (1, 7, 10, 16):
            for bs in (1, 3, 4, 16, 20):
                for drop_last in (False, True):
                    g = generator("own", n * 100 + bs)
                    base = data.SequentialSampler(range(n)) if inner == "sequential" else \
                        data.RandomSampler(range(n), generator=g)
                    s = data.BatchSampler(base, bs, drop_last)
                    add(f"batch_sampler/{inner}_n{n}_b{bs}_d{int(drop_last)}", "batch_sampler",
                        inner=inner, n=n, batch_size=bs, drop_last=drop_last, gen="own",
                        seed=n * 100 + bs, len=len(s), passes=passes(s), after=after(g))


def splits():
    configs = [
        (10, [3, 7]), (10, [10]), (10, [0, 10]), (9, [2, 3, 4]),
        (10, [0.5, 0.5]), (10, [0.3, 0.3, 0.4]), (7, [0.5, 0.5]), (11, [0.1, 0.2, 0.7]),
        (5, [1 / 3, 1 / 3, 1 / 3]), (100, [0.8, 0.1, 0.1]), (3, [0.25, 0.25, 0.25, 0.25]),
        (10, [2, 3]), (10, [0.5, -0.5, 1.0]), (10, [0.6, 0.6]),
    ]
    for n, lengths in configs:
        for gen in ("global", "own"):
            for seed in (0, 42):
                g = generator(gen, seed)
                try:
                    kwargs = {} if g is None else {"generator": g}
                    out = [list(s.indices) for s in data.random_split(range(n), lengths, **kwargs)]
                except Exception as e:  # noqa: BLE001
                    out = error(e)
                add(f"random_split/n{n}_{lengths}_{gen}_{seed}", "random_split", n=n,
                    lengths=[float(x) for x in lengths], gen=gen, seed=seed, splits=out,
                    after=after(g))


def loaders():
    """DataLoader over TensorDataset(x, y): x float (n, 3) = arange, y int64 (n,) = 10 * arange."""
    configs = [
        dict(batch_size=1), dict(batch_size=4), dict(batch_size=4, drop_last=True),
        dict(batch_size=4, shuffle=True), dict(batch_size=3, shuffle=True, drop_last=True),
        dict(batch_size=16, shuffle=True), dict(batch_size=None), dict(batch_size=None, shuffle=True),
        dict(batch_size=2, shuffle=False),
    ]
    for n in (5, 10):
        for cfg in configs:
            for gen in ("global", "own"):
                for seed in (0, 17):
                    g = generator(gen, seed)
                    x = torch.arange(n * 3, dtype=torch.float32).reshape(n, 3)
                    y = torch.arange(n) * 10
                    loader = data.DataLoader(data.TensorDataset(x, y), generator=g, **cfg)
                    out = [[encode(b) for b in loader] for _ in range(2)]
                    cfg_name = "_".join(f"{k}{v}" for k, v in cfg.items())
                    add(f"dataloader/n{n}_{cfg_name}_{gen}_{seed}", "dataloader", n=n,
                        options=cfg, gen=gen, seed=seed, len=len(loader), passes=out,
                        after=after(g))
    # A sampler or batch sampler of the caller's.
    for seed in (0, 9):
        g = torch.Generator().manual_seed(seed)
        x = torch.arange(24, dtype=torch.float32).reshape(8, 3)
        y = torch.arange(8) * 10
        ds = data.TensorDataset(x, y)
        loader = data.DataLoader(ds, batch_size=3, sampler=data.SubsetRandomSampler([0, 2, 4, 6, 7],
                                 generator=g))
        add(f"dataloader/subset_sampler_{seed}", "dataloader", n=8,
            options={"batch_size": 3, "sampler": {"subset_random": [0, 2, 4, 6, 7]}}, gen="own",
            seed=seed, len=len(loader), passes=[[encode(b) for b in loader] for _ in range(2)],
            after=after(g))
        g = torch.Generator().manual_seed(seed)
        bsamp = data.BatchSampler(data.RandomSampler(ds, generator=g), 3, True)
        loader = data.DataLoader(ds, batch_sampler=bsamp)
        add(f"dataloader/batch_sampler_{seed}", "dataloader", n=8,
            options={"batch_sampler": {"random": 3, "drop_last": True}}, gen="own", seed=seed,
            len=len(loader), passes=[[encode(b) for b in loader] for _ in range(2)], after=after(g))


def composed():
    """The usual chain: random_split of a TensorDataset, a shuffled DataLoader over one part; and a
    DataLoader over a ConcatDataset of two TensorDatasets."""
    for seed in (0, 5):
        for gen in ("global", "own"):
            g = generator(gen, seed)
            x = torch.arange(30, dtype=torch.float32).reshape(10, 3)
            y = torch.arange(10) * 10
            kwargs = {} if g is None else {"generator": g}
            train, test = data.random_split(data.TensorDataset(x, y), [0.7, 0.3], **kwargs)
            loader = data.DataLoader(train, batch_size=3, shuffle=True, generator=g)
            batches = [[encode(b) for b in loader] for _ in range(2)]
            tests = [encode(b) for b in data.DataLoader(test, batch_size=2)]
            add(f"composed/split_{gen}_{seed}", "composed", n=10, gen=gen, seed=seed,
                splits=[train.indices, test.indices], passes=batches, test=tests, after=after(g))
        torch.manual_seed(seed)
        a = data.TensorDataset(torch.arange(6, dtype=torch.float32).reshape(3, 2), torch.arange(3))
        b = data.TensorDataset(torch.arange(4, dtype=torch.float32).reshape(2, 2) + 100,
                               torch.arange(2) + 100)
        loader = data.DataLoader(data.ConcatDataset([a, b]), batch_size=2, shuffle=True)
        add(f"composed/concat_{seed}", "composed_concat", gen="global", seed=seed,
            passes=[[encode(b) for b in loader] for _ in range(2)], after=after(None))


def interleaved():
    """Draws between iter() and the first next(): torch draws the DataLoader's base seed at
    iter(), a RandomSampler's seed and permutation only at the first next()."""
    for seed in (0, 3):
        for shuffle, bs in ((True, 4), (True, None), (False, 3)):
            torch.manual_seed(seed)
            x = torch.arange(21, dtype=torch.float32).reshape(7, 3)
            y = torch.arange(7) * 10
            loader = data.DataLoader(data.TensorDataset(x, y), batch_size=bs, shuffle=shuffle)
            it = iter(loader)
            between = torch.randint(0, 2**30, (2,)).tolist()
            batches = [encode(b) for b in it]
            add(f"interleaved/loader_s{int(shuffle)}_b{bs}_{seed}", "interleaved", n=7,
                options={"batch_size": bs, "shuffle": shuffle}, gen="global", seed=seed,
                between=between, batches=batches, after=after(None))


def iterables():
    class Numbers(data.IterableDataset):
        def __init__(self, n, sized):
            self.n, self.sized = n, sized

        def __iter__(self):
            return iter(range(self.n))

        def __len__(self):
            if not self.sized:
                raise TypeError("object of type 'IterableDataset' has no len()")
            return self.n

    for n in (0, 1, 7, 8):
        for bs, drop_last in ((1, False), (3, False), (3, True), (4, True), (None, False)):
            torch.manual_seed(n)
            loader = data.DataLoader(Numbers(n, True), batch_size=bs, drop_last=drop_last)
            add(f"iterable/n{n}_b{bs}_d{int(drop_last)}", "iterable", n=n,
                options={"batch_size": bs, "drop_last": drop_last}, gen="global", seed=n,
                len=len(loader), passes=[[encode(b) for b in loader] for _ in range(2)],
                after=after(None))

    # The textbook form: each sample a float tensor [i] (default_collate stacks them).
    class Tensors(data.IterableDataset):
        def __init__(self, n):
            self.n = n

        def __iter__(self):
            return iter(torch.tensor([float(i)]) for i in range(self.n))

        def __len__(self):
            return self.n

    for n, bs, drop_last in ((10, 4, False), (10, 4, True), (10, None, False), (5, 5, False)):
        torch.manual_seed(n)
        loader = data.DataLoader(Tensors(n), batch_size=bs, drop_last=drop_last)
        add(f"iterable/tensors_n{n}_b{bs}_d{int(drop_last)}", "iterable", n=n, samples="tensor",
            options={"batch_size": bs, "drop_last": drop_last}, gen="global", seed=n,
            len=len(loader), passes=[[encode(b) for b in loader] for _ in range(2)],
            after=after(None))


def chains():
    """ChainDataset (and IterableDataset + IterableDataset) through a DataLoader. `parts`: an
    iterable dataset of `n` ints ({"n": n}) or a map-style TensorDataset of arange(k)
    ({"map": k}), which torch refuses (an AssertionError) when the pass or len reaches it."""

    class Numbers(data.IterableDataset):
        def __init__(self, n):
            self.n = n

        def __iter__(self):
            return iter(range(self.n))

        def __len__(self):
            return self.n

    def part(p):
        return Numbers(p["n"]) if "n" in p else data.TensorDataset(torch.arange(p["map"]))

    def one_pass(loader):
        try:
            return [encode(b) for b in loader]
        except Exception as e:  # noqa: BLE001
            return error(e)

    for name, parts, add_op, bs in (
        ("three", [{"n": 3}, {"n": 0}, {"n": 2}], False, 2),
        ("add", [{"n": 3}, {"n": 4}], True, 3),
        ("unbatched", [{"n": 2}, {"n": 1}], False, None),
        ("map_part", [{"n": 3}, {"map": 3}], False, 2),
    ):
        datasets = [part(p) for p in parts]
        chain = datasets[0] + datasets[1] if add_op else data.ChainDataset(datasets)
        loader = data.DataLoader(chain, batch_size=bs)
        try:
            length = len(loader)
        except Exception as e:  # noqa: BLE001
            length = error(e)
        add(f"chain/{name}", "chain", parts=parts, add=add_op, options={"batch_size": bs},
            len=length, passes=[one_pass(loader) for _ in range(2)],
            samples=one_pass(chain))


def collates():
    samples = {
        "tensors": [torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0]), torch.tensor([5.0, 6.0])],
        "scalars": [torch.tensor(1.5), torch.tensor(2.5)],
        "int_tensors": [torch.tensor([[1, 2]]), torch.tensor([[3, 4]])],
        "ints": [1, 2, 3],
        "floats": [0.5, 1.5],
        "bools": [True, False, True],
        "int_then_float": [1, 2.5],
        "int_then_bool": [1, True],
        "strings": ["a", "bc"],
        "tuples": [(torch.tensor([1.0]), 0), (torch.tensor([2.0]), 1)],
        "lists": [[1, 2.0], [3, 4.0]],
        "dicts": [{"x": torch.tensor([1.0, 2.0]), "y": 3}, {"x": torch.tensor([4.0, 5.0]), "y": 6}],
        "nested": [{"a": (1, [True, "s"])}, {"a": (2, [False, "t"])}],
        "unequal_lists": [[1, 2], [1]],
        "unequal_tensors": [torch.zeros(2), torch.zeros(3)],
        "missing_key": [{"a": 1}, {"b": 2}],
        "tensor_then_int": [torch.zeros(2), 1],
        "empty": [],
    }
    for name, batch in samples.items():
        try:
            out = encode(data.default_collate(batch))
        except Exception as e:  # noqa: BLE001
            out = error(e)
        add(f"collate/{name}", "collate", batch=[encode(s) for s in batch], expected=out)


def concats():
    parts = [data.TensorDataset(torch.arange(k) + 100 * i) for i, k in enumerate((3, 0, 2, 4))]
    cat = data.ConcatDataset(parts)
    for idx in (0, 2, 3, 4, 8, -1, -9, 9, -10):
        try:
            out = encode(cat[idx])
        except Exception as e:  # noqa: BLE001
            out = error(e)
        add(f"concat/{idx}", "concat", sizes=[3, 0, 2, 4], index=idx, expected=out,
            cumulative_sizes=cat.cumulative_sizes)


def construct_errors():
    """Constructor checks: `what` names the call; the Rust test makes the same one."""
    ds = data.TensorDataset(torch.zeros(4, 2))

    class Numbers(data.IterableDataset):
        def __iter__(self):
            return iter(range(3))

    calls = {
        "dataloader_sampler_and_shuffle": lambda: data.DataLoader(
            ds, sampler=data.SequentialSampler(ds), shuffle=True),
        "dataloader_batch_sampler_and_batch_size": lambda: data.DataLoader(
            ds, batch_sampler=data.BatchSampler(data.SequentialSampler(ds), 2, False),
            batch_size=2),
        "dataloader_batch_sampler_and_drop_last": lambda: data.DataLoader(
            ds, batch_sampler=data.BatchSampler(data.SequentialSampler(ds), 2, False),
            drop_last=True),
        "dataloader_no_batch_and_drop_last": lambda: data.DataLoader(
            ds, batch_size=None, drop_last=True),
        "dataloader_batch_size_0": lambda: data.DataLoader(ds, batch_size=0),
        "iterable_shuffle": lambda: data.DataLoader(Numbers(), shuffle=True),
        "iterable_shuffle_false": lambda: data.DataLoader(Numbers(), shuffle=False),
        "iterable_sampler": lambda: data.DataLoader(Numbers(), sampler=[0, 1]),
        "iterable_batch_sampler": lambda: data.DataLoader(Numbers(), batch_sampler=[[0, 1]]),
        "iterable_len": lambda: len(data.DataLoader(Numbers())),
        "batch_sampler_0": lambda: data.BatchSampler(data.SequentialSampler(ds), 0, False),
        "random_sampler_num_samples_0": lambda: data.RandomSampler(ds, num_samples=0),
        "random_sampler_empty": lambda: data.RandomSampler([]),
        "weighted_num_samples_0": lambda: data.WeightedRandomSampler([1.0], 0),
        "tensor_dataset_mismatch": lambda: data.TensorDataset(torch.zeros(2), torch.zeros(3)),
        "concat_empty": lambda: data.ConcatDataset([]),
        "subset_out_of_range": lambda: data.Subset(ds, [0, 1])[2],
        "tensor_dataset_out_of_range": lambda: ds[4],
        "tensor_dataset_negative": lambda: encode(ds[-1]),
    }
    for what, call in calls.items():
        try:
            out = call()
            out = out if isinstance(out, (dict, int)) else "ok"
        except Exception as e:  # noqa: BLE001
            out = error(e)
            if "has no len()" in str(e):  # torch names the Python class
                out["error"][1] = "has no len()"
        add(f"construct/{what}", "construct", what=what, expected=out)


def main():
    random_samplers()
    subset_random()
    weighted()
    batch_samplers()
    splits()
    loaders()
    iterables()
    chains()
    interleaved()
    composed()
    collates()
    concats()
    construct_errors()
    names = [c["name"] for c in cases]
    assert len(names) == len(set(names)), "case names must be unique"
    json_lines.write(os.path.join(HERE, "cases.json"), {"torch": torch.__version__, "cases": cases})
    print(f"{len(cases)} cases")


if __name__ == "__main__":
    main()
