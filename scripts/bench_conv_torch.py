#!/usr/bin/env python3
"""CIFAR ResNet-18's convolutions in torch (CUDA, fp32, TF32 off, cuDNN), the same cases and
passes as `cargo xtask bench conv` (forward, input gradient, weight gradient), timed with CUDA
events, printing

    conv b64_32x32x64_to_64_k3s1 forward: torch 12345.6 GFLOP/s [NVIDIA H200 (CUDA, torch 2.11)]

then one JSON line per case and pass ({"bench": "conv", "impl": "torch", ...}). With
--compare FILE (the saved output of the borch bench, whose JSON lines it reads), it also prints
borch/torch per case and pass, for the implicit-GEMM path and the im2col path:

    ./xtask bench conv | tee borch.txt
    python3 scripts/bench_conv_torch.py --compare borch.txt

Timing: warm-up calls, then `--reps` runs of N back-to-back calls between two CUDA events (N
chosen so a run lasts about --seconds); the fastest run counts, as in the borch bench. The
gradients are torch.ops.aten.convolution_backward with only the input (input gradient) or only
the weight (weight gradient) asked for, as autograd calls it.
"""
import argparse
import json

import torch

# (c_in, c_out, size, kernel, stride), as xtask/src/bench_conv.rs's RESNET18.
RESNET18 = [
    (3, 64, 32, 3, 1),
    (64, 64, 32, 3, 1),
    (64, 128, 32, 3, 2),
    (64, 128, 32, 1, 2),
    (128, 128, 16, 3, 1),
    (128, 256, 16, 3, 2),
    (128, 256, 16, 1, 2),
    (256, 256, 8, 3, 1),
    (256, 512, 8, 3, 2),
    (256, 512, 8, 1, 2),
    (512, 512, 4, 3, 1),
]
PASSES = ["forward", "input_grad", "weight_grad"]


def case_name(batch, c_in, c_out, size, k, stride):
    return f"b{batch}_{size}x{size}x{c_in}_to_{c_out}_k{k}s{stride}"


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
    out, adapter = {}, "?"
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line.startswith("{"):
                continue
            data = json.loads(line)
            if data.get("bench") == "conv" and data.get("impl") == "borch":
                out[(data["case"], data["pass"])] = data
                adapter = data.get("adapter", adapter)
    if not out:
        raise SystemExit(f"no borch conv JSON lines in {path}")
    return out, adapter


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--batches", default="1,16,64")
    p.add_argument("--passes", default=",".join(PASSES))
    p.add_argument("--filter", default="", help="only cases whose name contains this")
    p.add_argument("--seconds", type=float, default=0.2)
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--compare", help="output of `cargo xtask bench conv` to compare with")
    args = p.parse_args()
    if not torch.cuda.is_available():
        raise SystemExit("torch sees no CUDA device")
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cudnn.benchmark = False
    torch.set_float32_matmul_precision("highest")
    device = torch.device("cuda")
    gpu = torch.cuda.get_device_name(device)
    label = f"{gpu} (CUDA, torch {torch.__version__.split('+')[0]})"
    gen = torch.Generator(device=device).manual_seed(0)
    passes = [s for s in args.passes.split(",") if s]
    results = []
    for batch in [int(b) for b in args.batches.split(",") if b]:
        for c_in, c_out, size, k, stride in RESNET18:
            name = case_name(batch, c_in, c_out, size, k, stride)
            if args.filter and args.filter not in name:
                continue
            pad = k // 2
            out_size = (size + 2 * pad - k) // stride + 1
            x = torch.rand(batch, c_in, size, size, device=device, generator=gen) * 2 - 1
            w = torch.rand(c_out, c_in, k, k, device=device, generator=gen) * 2 - 1
            g = torch.rand(batch, c_out, out_size, out_size, device=device, generator=gen) * 2 - 1
            flops = 2.0 * batch * c_out * out_size * out_size * c_in * k * k
            conv = lambda: torch.nn.functional.conv2d(x, w, None, stride, pad)
            backward = lambda mask: torch.ops.aten.convolution_backward(
                g, x, w, None, [stride] * 2, [pad] * 2, [1, 1], False, [0, 0], 1, mask)
            calls = {
                "forward": conv,
                "input_grad": lambda: backward([True, False, False]),
                "weight_grad": lambda: backward([False, True, False]),
            }
            for pass_ in passes:
                with torch.no_grad():
                    torch.cuda.synchronize()
                    torch.cuda.reset_peak_memory_stats()
                    base = torch.cuda.memory_allocated()
                    calls[pass_]()
                    torch.cuda.synchronize()
                    peak = torch.cuda.max_memory_allocated() - base
                    s = time_call(calls[pass_], args.seconds, args.reps)
                gflops = flops / s / 1e9
                print(f"conv {name} {pass_}: torch {gflops:.1f} GFLOP/s [{label}]", flush=True)
                results.append({"case": name, "pass": pass_, "batch": batch, "flops": flops,
                                "torch_ms": s * 1e3, "torch_gflops": gflops, "torch_peak_bytes": peak})
    if args.compare:
        borch, adapter = borch_results(args.compare)
        for r in results:
            mine = borch.get((r["case"], r["pass"]))
            if mine is None:
                continue
            r["borch_implicit_gflops"] = mine["implicit_gflops"]
            r["ratio_implicit"] = mine["implicit_gflops"] / r["torch_gflops"]
            text = f"implicit {mine['implicit_gflops']:.1f} GFLOP/s ({r['ratio_implicit']:.2f}x)"
            if mine.get("im2col_gflops"):
                r["borch_im2col_gflops"] = mine["im2col_gflops"]
                r["ratio_im2col"] = mine["im2col_gflops"] / r["torch_gflops"]
                text += f", im2col {mine['im2col_gflops']:.1f} GFLOP/s ({r['ratio_im2col']:.2f}x)"
            print(f"conv {r['case']} {r['pass']}: borch {text} [{adapter}], "
                  f"torch {r['torch_gflops']:.1f} GFLOP/s [{label}]", flush=True)
        for pass_ in passes:
            ratios = [r["ratio_implicit"] for r in results if r["pass"] == pass_ and "ratio_implicit" in r]
            if ratios:
                geo = 1.0
                for q in ratios:
                    geo *= q
                geo **= 1.0 / len(ratios)
                print(f"conv {pass_}: geometric mean borch implicit / torch {geo:.2f}x over {len(ratios)} cases")
    for r in results:
        print(json.dumps({"bench": "conv", "impl": "torch", "device": gpu, "tf32": False, **r}))


if __name__ == "__main__":
    main()
