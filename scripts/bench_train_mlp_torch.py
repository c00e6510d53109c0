#!/usr/bin/env python3
"""The training step of `cargo xtask bench train-mlp` in torch: an MLP (784→1024→1024→10, ReLU,
batch 256), cross-entropy, Adam (lr 1e-3), the loss read back every step (`loss.item()`), eager
fp32 with TF32 off, on CUDA when available (else the CPU). Synthetic data from a fixed seed, the
same batch every step. Prints the same kind of lines as the borch bench:

    train-mlp 784-1024-1024-10 batch 256: torch 0.52 ms/step (1923.1 steps/s) [NVIDIA H200 (CUDA, torch 2.11)]

then one JSON line ({"bench": "train-mlp", "impl": "torch", ...}). With --compare FILE (the saved
output of the borch bench, whose JSON line it reads), it also prints borch/torch time per step:

    cargo xtask bench train-mlp | tee borch.txt
    python3 scripts/bench_train_mlp_torch.py --compare borch.txt

Timing: --warmup steps, then --steps steps timed one by one (CUDA events around each step on a
GPU, perf_counter on the CPU; each step ends with the loss readback, so it is synchronous); the
median step counts, as in the borch bench, and the mean is reported too.
"""
import argparse
import json
import statistics
import time

import torch


def borch_result(path):
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line.startswith("{"):
                continue
            data = json.loads(line)
            if data.get("bench") == "train-mlp" and data.get("impl") == "borch":
                return data
    raise SystemExit(f"no borch train-mlp JSON line in {path}")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sizes", default="784,1024,1024,10")
    p.add_argument("--batch", type=int, default=256)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--steps", type=int, default=0, help="timed steps (default 100 on CUDA, 20 on the CPU)")
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--cpu", action="store_true", help="use the CPU even when CUDA is available")
    p.add_argument("--compare", help="output of `cargo xtask bench train-mlp` to compare with")
    args = p.parse_args()

    cuda = torch.cuda.is_available() and not args.cpu
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")
    device = torch.device("cuda" if cuda else "cpu")
    version = torch.__version__.split("+")[0]
    if cuda:
        name = torch.cuda.get_device_name(device)
        label = f"{name} (CUDA, torch {version})"
    else:
        name = "cpu"
        label = f"CPU, {torch.get_num_threads()} threads (torch {version})"
    steps = args.steps or (100 if cuda else 20)

    sizes = [int(s) for s in args.sizes.split(",") if s]
    # The same order of draws as the borch bench: data, then each layer's weight and bias.
    torch.manual_seed(0)
    x = torch.randn(args.batch, sizes[0]).to(device)
    y = torch.randint(0, sizes[-1], (args.batch,)).to(device)
    layers = []
    for i, (fan_in, fan_out) in enumerate(zip(sizes, sizes[1:])):
        layers.append(torch.nn.Linear(fan_in, fan_out))
        if i + 2 < len(sizes):
            layers.append(torch.nn.ReLU())
    model = torch.nn.Sequential(*layers).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)

    def step():
        opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss.item()

    t = time.perf_counter()
    first_loss = step()
    first_ms = (time.perf_counter() - t) * 1e3
    for _ in range(1, args.warmup):
        step()
    times = []
    last_loss = first_loss
    if cuda:
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for _ in range(steps):
        if cuda:
            start.record()
            last_loss = step()
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end))
        else:
            t = time.perf_counter()
            last_loss = step()
            times.append((time.perf_counter() - t) * 1e3)
    ms = statistics.median(times)
    mean_ms = statistics.fmean(times)
    name_sizes = "-".join(str(s) for s in sizes)
    print(f"train-mlp {name_sizes} batch {args.batch}: torch {ms:.2f} ms/step ({1e3 / ms:.1f} steps/s) [{label}]", flush=True)
    print(
        f"  mean {mean_ms:.2f} ms over {steps} timed steps after {args.warmup} warm-up; first step {first_ms:.0f} ms; "
        f"loss {first_loss:.4f} → {last_loss:.4f}",
        flush=True,
    )
    result = {
        "bench": "train-mlp",
        "impl": "torch",
        "device": name,
        "label": label,
        "cuda": cuda,
        "tf32": False,
        "sizes": sizes,
        "batch": args.batch,
        "optimizer": "adam",
        "lr": args.lr,
        "warmup": args.warmup,
        "steps": steps,
        "ms_per_step": ms,
        "mean_ms_per_step": mean_ms,
        "steps_per_s": 1e3 / ms,
        "first_step_ms": first_ms,
        "first_loss": first_loss,
        "last_loss": last_loss,
    }
    if args.compare:
        borch = borch_result(args.compare)
        if borch.get("sizes") != sizes or borch.get("batch") != args.batch:
            raise SystemExit(f"{args.compare} measured sizes {borch.get('sizes')} batch {borch.get('batch')}, not {sizes} batch {args.batch}")
        ratio = ms / borch["ms_per_step"]
        result["borch_ms_per_step"] = borch["ms_per_step"]
        result["borch_adapter"] = borch.get("adapter", "?")
        result["ratio"] = ratio
        print(
            f"train-mlp {name_sizes} batch {args.batch}: borch {borch['ms_per_step']:.2f} ms/step "
            f"({borch.get('dispatches_per_step', '?')} dispatches, {borch.get('submits_per_step', '?')} submits) "
            f"[{borch.get('adapter', '?')}], torch {ms:.2f} ms/step [{label}], "
            f"borch/torch speed {ratio:.2f}x",
            flush=True,
        )
    print(json.dumps(result))


if __name__ == "__main__":
    main()
