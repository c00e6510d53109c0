#!/usr/bin/env python3
"""The cases of `cargo xtask bench matmul-call` in torch (CUDA eager fp32, TF32 off): per call
`c = a @ b` then `c[0, 0].item()`; the matmul then `torch.cuda.synchronize()`; and `--loop`
matmuls back to back then one read (per matmul). Medians of --reps calls after --warmup, timed
with perf_counter (each case ends synchronised). With --compare FILE (the borch bench's output)
it prints borch ms, torch ms and borch's speed relative to torch per case.
"""
import argparse
import json
import statistics
import time

import torch


def borch_lines(path):
    out = {}
    with open(path) as f:
        for line in f:
            if line.startswith("{"):
                d = json.loads(line)
                if d.get("bench") == "matmul-call":
                    out[d["n"]] = d
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--sizes", default="1024,4096")
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--reps", type=int, default=20)
    p.add_argument("--loop", type=int, default=10)
    p.add_argument("--compare")
    a = p.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")
    dev = torch.device("cuda")
    label = f"{torch.cuda.get_device_name(dev)} (CUDA, torch {torch.__version__.split('+')[0]})"
    borch = borch_lines(a.compare) if a.compare else {}
    g = torch.Generator(device="cpu").manual_seed(0)
    for n in [int(s) for s in a.sizes.split(",")]:
        x = torch.randn(n, n, generator=g).to(dev)
        y = torch.randn(n, n, generator=g).to(dev)
        torch.cuda.synchronize()
        t = time.perf_counter()
        (x @ y)[0, 0].item()
        first = (time.perf_counter() - t) * 1e3

        def timed(fn, reps):
            v = []
            for r in range(a.warmup + reps):
                t = time.perf_counter()
                fn()
                if r >= a.warmup:
                    v.append((time.perf_counter() - t) * 1e3)
            return statistics.median(v)

        call_read = timed(lambda: (x @ y)[0, 0].item(), a.reps)

        def synced():
            x @ y
            torch.cuda.synchronize()

        call_sync = timed(synced, a.reps)

        def looped():
            for _ in range(a.loop):
                c = x @ y
            c[0, 0].item()

        loop = timed(looped, max(1, a.reps // 4)) / a.loop
        print(f"matmul-call {n}³: torch call+read {call_read:.2f} ms, call+sync {call_sync:.2f} ms, "
              f"back to back {loop:.2f} ms per matmul, first call {first:.0f} ms [{label}]")
        print(json.dumps({"bench": "matmul-call", "impl": "torch", "n": n, "call_read_ms": call_read,
                          "call_sync_ms": call_sync, "loop_ms": loop, "first_call_ms": first,
                          "device": label}))
        b = borch.get(n)
        if b:
            for key in ("call_read_ms", "call_sync_ms", "loop_ms"):
                mine, theirs = b[key], {"call_read_ms": call_read, "call_sync_ms": call_sync,
                                        "loop_ms": loop}[key]
                print(f"  {n}³ {key[:-3]}: borch {mine:.2f} ms, torch {theirs:.2f} ms, "
                      f"borch speed / torch {theirs / mine:.2f}x")


if __name__ == "__main__":
    main()
