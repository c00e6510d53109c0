#!/usr/bin/env python3
"""The chain of `cargo xtask bench dispatch` in torch: 1,000 chained `y = y.add(1)` on 1,024
floats, then one read of `y` (`y[0].item()`), per op:

    dispatch torch: 8.61 µs/op wall, 4.12 µs/op launch (host), first call 35.2 ms [NVIDIA H200 (CUDA, torch 2.11)]

then one JSON line ({"bench": "dispatch", "impl": "torch", ...}). `cargo xtask bench dispatch
--compare` runs this script in the same call and prints borch/torch ratios. Without CUDA it
times torch on the CPU (--cpu forces that), labelled so.

Timing: as the borch bench: the first call alone, `--warmup` calls, then `--reps` calls timed one
by one with a wall clock (the read synchronizes); the median counts. "launch" is the host time
to issue the ops before the read.
"""
import argparse
import json
import statistics
import time

import torch


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--ops", type=int, default=1000)
    p.add_argument("--numel", type=int, default=1024)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--reps", type=int, default=15)
    p.add_argument("--cpu", action="store_true")
    args = p.parse_args()
    cuda = torch.cuda.is_available() and not args.cpu
    device = torch.device("cuda" if cuda else "cpu")
    version = torch.__version__.split("+")[0]
    if cuda:
        label = f"{torch.cuda.get_device_name(device)} (CUDA, torch {version})"
    else:
        label = f"CPU, {torch.get_num_threads()} threads (torch {version})"
    x = torch.zeros(args.numel, device=device)

    def call():
        t = time.perf_counter()
        y = x
        for _ in range(args.ops):
            y = y.add(1)
        launch = time.perf_counter() - t
        got = y[0].item()
        wall = time.perf_counter() - t
        if got != float(args.ops):
            raise SystemExit(f"the chain read back {got}, not {args.ops}")
        return wall, launch

    first, _ = call()
    for _ in range(args.warmup):
        call()
    samples = [call() for _ in range(args.reps)]
    wall = statistics.median(s[0] for s in samples) * 1e6 / args.ops
    launch = statistics.median(s[1] for s in samples) * 1e6 / args.ops
    print(
        f"dispatch torch: {wall:.2f} µs/op wall, {launch:.2f} µs/op launch (host), "
        f"first call {first * 1e3:.1f} ms [{label}]",
        flush=True,
    )
    print(json.dumps({
        "bench": "dispatch",
        "impl": "torch",
        "device": label,
        "cuda": cuda,
        "ops": args.ops,
        "numel": args.numel,
        "us_per_op": wall,
        "launch_us_per_op": launch,
        "first_call_ms": first * 1e3,
    }))


if __name__ == "__main__":
    main()
