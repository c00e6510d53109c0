#!/usr/bin/env python3
"""torch.matmul fp32 (TF32 off) on the same shapes as `cargo xtask bench matmul`, timed with CUDA
events, printing the same kind of lines:

    matmul 4096x4096x4096: torch 51234.5 GFLOP/s [NVIDIA H200 (CUDA, torch 2.11)]

then one JSON line ({"bench": "matmul", "impl": "torch", ...}). With --compare FILE (the saved
output of the borch bench, whose JSON line it reads), it also prints borch/torch per shape:

    cargo xtask bench matmul --sizes 256,1024,4096 | tee borch.txt
    python3 scripts/bench_matmul_torch.py --sizes 256,1024,4096 --compare borch.txt

Timing: warm-up calls, then `--reps` runs of N back-to-back calls between two CUDA events (N
chosen so a run lasts about --seconds); the fastest run counts, as in the borch bench.
"""
import argparse
import json

import torch


def parse_shapes(sizes, batched):
    shapes = [(1, s, s, s) for s in sizes]
    for spec in batched:
        b, m, k, n = (int(x) for x in spec.split("x"))
        shapes.append((b, m, k, n))
    return shapes


def name(shape):
    b, m, k, n = shape
    return f"{m}x{k}x{n}" if b == 1 else f"{b}x{m}x{k}x{n}"


def time_call(fn, seconds, reps):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    fn()
    end.record()
    end.synchronize()
    once = start.elapsed_time(end) / 1e3
    n = max(1, min(2000, int(seconds / max(once, 1e-9))))
    best = once
    for _ in range(reps):
        start.record()
        for _ in range(n):
            fn()
        end.record()
        end.synchronize()
        best = min(best, start.elapsed_time(end) / 1e3 / n)
    return best


def borch_results(path):
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line.startswith("{"):
                continue
            data = json.loads(line)
            if data.get("bench") == "matmul" and data.get("impl") == "borch":
                return {r["shape"]: r for r in data["results"]}, data.get("adapter", "?")
    raise SystemExit(f"no borch matmul JSON line in {path}")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sizes", default="256,512,1024,2048,4096")
    p.add_argument("--batched", default="32x256x256x256")
    p.add_argument("--seconds", type=float, default=0.3)
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--compare", help="output of `cargo xtask bench matmul` to compare with")
    args = p.parse_args()
    if not torch.cuda.is_available():
        raise SystemExit("torch sees no CUDA device")
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")
    device = torch.device("cuda")
    gpu = torch.cuda.get_device_name(device)
    label = f"{gpu} (CUDA, torch {torch.__version__.split('+')[0]})"
    sizes = [int(s) for s in args.sizes.split(",") if s]
    batched = [s for s in args.batched.split(",") if s]
    gen = torch.Generator(device=device).manual_seed(0)
    results = []
    for shape in parse_shapes(sizes, batched):
        b, m, k, n = shape
        lead = () if b == 1 else (b,)
        x = torch.rand(*lead, m, k, device=device, generator=gen) * 2 - 1
        y = torch.rand(*lead, k, n, device=device, generator=gen) * 2 - 1
        out = torch.empty(*lead, m, n, device=device)
        s = time_call(lambda: torch.matmul(x, y, out=out), args.seconds, args.reps)
        gflops = 2.0 * b * m * k * n / s / 1e9
        print(f"matmul {name(shape)}: torch {gflops:.1f} GFLOP/s [{label}]", flush=True)
        results.append({"shape": name(shape), "batch": b, "m": m, "k": k, "n": n, "torch_gflops": gflops, "torch_ms": s * 1e3})
    if args.compare:
        borch, adapter = borch_results(args.compare)
        for r in results:
            mine = borch.get(r["shape"])
            if mine is None:
                continue
            ratio = mine["borch_gflops"] / r["torch_gflops"]
            r["borch_gflops"] = mine["borch_gflops"]
            r["ratio"] = ratio
            print(
                f"matmul {r['shape']}: borch {mine['borch_gflops']:.1f} GFLOP/s [{adapter}], "
                f"torch {r['torch_gflops']:.1f} GFLOP/s [{label}], ratio {ratio:.2f}x",
                flush=True,
            )
    print(json.dumps({"bench": "matmul", "impl": "torch", "device": gpu, "tf32": False, "results": results}))


if __name__ == "__main__":
    main()
