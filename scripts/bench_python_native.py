#!/usr/bin/env python3
"""borch's native wheel (`import borch`) and torch timed from one Python script, on the same
machine in the same run (issue 16's speed item). The same code runs on both modules:

- train-mlp: an MLP 784→1024→1024→10 (ReLU), batch 256, cross-entropy, Adam (lr 1e-3), the loss
  read back every step (`loss.item()`);
- train-cnn: three 3×3 convolutions (3→32→64→64, ReLU, max-pool after the first two), a Linear
  to 10, batch 64 of 32×32 images, SGD with momentum, the loss read back every step;
- per-op: 1,000 chained `y = y.add(1)` on 1,024 floats, then one element read, per op — the
  Python-side cost of a call. Two figures per op: wall (issue to read done) and host recording
  (the 1,000 calls issued, before the read submits: CPU only, so it compares across adapters);
  `--rust FILE` reads `cargo xtask bench dispatch`'s output of the same run (its eager wall and
  recording figures, timed the same way) and prints the difference per op, wall and recording
  (the target: within 2 µs of the Rust call).

torch runs eager fp32 with TF32 off, on CUDA when available (`--no-torch`: borch alone, for a
machine without torch). Each case: --warmup steps, then the
median of --steps steps timed one by one with perf_counter (each ends in a read, so it is
synchronous), first step reported separately. Prints one line per case and library, then the
ratios (torch time / borch time: above 1 means borch is faster), then JSON lines.

    python3 scripts/bench_python_native.py [--steps 30] [--rust dispatch.txt] [--no-torch]
        [--cases train-mlp,train-cnn,per-op]
"""
import argparse
import json
import re
import statistics
import sys
import time


def timed(step, warmup, steps):
    t0 = time.perf_counter()
    step()
    first = time.perf_counter() - t0
    for _ in range(warmup):
        step()
    times = []
    for _ in range(steps):
        t0 = time.perf_counter()
        step()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3, first * 1e3


def mlp_case(T, to):
    nn = T.nn
    T.manual_seed(0)
    model = to(nn.Sequential(nn.Linear(784, 1024), nn.ReLU(), nn.Linear(1024, 1024), nn.ReLU(),
                             nn.Linear(1024, 10)))
    opt = T.optim.Adam(model.parameters(), lr=1e-3)
    x, y = to(T.randn(256, 784)), to(T.randint(0, 10, (256,)))
    loss_fn = nn.CrossEntropyLoss()

    def step():
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        return loss.item()

    return step


def cnn_case(T, to):
    nn = T.nn
    T.manual_seed(0)
    model = to(nn.Sequential(
        nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(64, 64, 3, padding=1), nn.ReLU(), nn.Flatten(), nn.Linear(64 * 8 * 8, 10)))
    opt = T.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x, y = to(T.randn(64, 3, 32, 32)), to(T.randint(0, 10, (64,)))
    loss_fn = nn.CrossEntropyLoss()

    def step():
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        return loss.item()

    return step


def op_case(T, to, ops=1000):
    y0 = to(T.ones(1024))
    recorded = []  # seconds to issue the chain, per step (before the read)

    def step():
        t0 = time.perf_counter()
        y = y0
        for _ in range(ops):
            y = y.add(1)
        recorded.append(time.perf_counter() - t0)
        return y[0].item()

    step.recorded = recorded
    return step


def recording_us(step, steps, ops=1000):
    """The median and the fastest host recording time per op, µs, of the last `steps` steps (the
    fastest as bench dispatch's `best`: other work on a shared machine only ever slows a call)."""
    times = step.recorded[-steps:]
    return statistics.median(times) * 1e6 / ops, min(times) * 1e6 / ops


def rust_per_op_us(path):
    """(wall, recording, best recording) µs per op of `cargo xtask bench dispatch`'s eager chain
    (its JSON line)."""
    with open(path) as f:
        for line in f:
            if line.startswith("{"):
                d = json.loads(line)
                if d.get("bench") == "dispatch" and d.get("impl") == "borch":
                    e = d["eager"]
                    return (float(e["us_per_op"]), float(e["record_us_per_op"]),
                            float(e["best_record_us_per_op"]))
    return None


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--steps", type=int, default=30)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--rust", help="output of `cargo xtask bench dispatch` from the same run")
    p.add_argument("--cases", default="train-mlp,train-cnn,per-op")
    p.add_argument("--no-torch", action="store_true", help="time borch alone")
    args = p.parse_args()

    import borch

    torch = None
    if not args.no_torch:
        import torch

        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        cuda = torch.cuda.is_available()
        dev = torch.device("cuda" if cuda else "cpu")
        torch_label = (f"{torch.cuda.get_device_name(dev)} (CUDA, torch {torch.__version__}, "
                       f"eager fp32, TF32 off)" if cuda else f"cpu (torch {torch.__version__})")
    borch_label = f"{borch.adapter()} (borch-wgpu {borch.__version__}, Python {sys.version.split()[0]})"
    cases = {"train-mlp": mlp_case, "train-cnn": cnn_case, "per-op": op_case}
    rows = []
    for name in args.cases.split(","):
        make = cases[name]
        scale, unit = (1e3 / 1000, "µs per op") if name == "per-op" else (1.0, "ms per step")
        b_step = make(borch, lambda t: t)
        b_ms, b_first = timed(b_step, args.warmup, args.steps)
        b = b_ms * scale
        row = {"bench": "python-native", "case": name, "unit": unit, "borch": b,
               "borch_first_ms": b_first, "borch_adapter": borch_label}
        print(f"{name}: borch {b:.3f} {unit} (first {b_first:.0f} ms) [{borch_label}]")
        if name == "per-op":
            b_rec, b_best = recording_us(b_step, args.steps)
            row["borch_record_us_per_op"], row["borch_best_record_us_per_op"] = b_rec, b_best
            print(f"per-op: borch {b_rec:.3f} µs per op host recording (best {b_best:.3f}; the "
                  f"calls issued, before the read)")
        if torch is not None:
            t_step = make(torch, lambda t: t.to(dev))
            t_ms, t_first = timed(t_step, args.warmup, args.steps)
            t = t_ms * scale
            print(f"{name}: torch {t:.3f} {unit} (first {t_first:.0f} ms) [{torch_label}]")
            print(f"{name}: torch time / borch time {t / b:.2f}x")
            row.update({"torch": t, "speed": t / b, "torch_first_ms": t_first,
                        "torch_device": torch_label})
            if name == "per-op":
                row["torch_record_us_per_op"] = recording_us(t_step, args.steps)[0]
        if name == "per-op" and args.rust:
            r = rust_per_op_us(args.rust)
            if r is None:
                print(f"per-op: no per-op figure found in {args.rust}")
            else:
                r_wall, r_rec, r_best = r
                print(f"per-op: the Rust call {r_wall:.3f} µs per op wall, {r_rec:.3f} recording "
                      f"(best {r_best:.3f}; cargo xtask bench dispatch, same run); Python adds "
                      f"{b - r_wall:.3f} µs per op wall, {b_rec - r_rec:.3f} recording (best vs "
                      f"best {b_best - r_best:.3f}; target: at most 2)")
                row.update({"rust_us_per_op": r_wall, "rust_record_us_per_op": r_rec,
                            "rust_best_record_us_per_op": r_best})
        rows.append(row)
    for r in rows:
        print(json.dumps(r))


if __name__ == "__main__":
    main()
