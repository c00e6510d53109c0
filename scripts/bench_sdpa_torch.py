#!/usr/bin/env python3
"""F.scaled_dot_product_attention in torch (CUDA, fp32, TF32 off), the same shapes and passes as
`cargo xtask bench sdpa` (forward; forward+backward as autograd.grad of the output with respect
to q, k and v for a fixed output gradient), printing first which SDPA backends run fp32 here:

    sdpa backends for fp32: EFFICIENT_ATTENTION yes, FLASH_ATTENTION no (...), ...
    sdpa b8_h8_l1024_e64 forward: torch 1.234 ms (default: EFFICIENT_ATTENTION), ... [GPU]

then one JSON line per case, pass and backend ({"bench": "sdpa", "impl": "torch", ...}). The
default (no restriction) is timed, and each fp32-capable backend alone under
`torch.nn.attention.sdpa_kernel`; the default is labelled with the first capable backend in
the order flash, efficient, cudnn, math (torch's usual priority), and each case also prints the
capable backend whose time is closest to the default's (the one torch most likely picked). With --compare FILE (the saved output of the borch bench) it also prints borch/torch speed
per case and pass (torch time / borch time: 1.0 is parity, 0.5 half torch's speed):

    ./xtask bench sdpa | tee borch.txt
    python3 scripts/bench_sdpa_torch.py --compare borch.txt

Timing as the borch bench: the first call separately, warm-up calls, then --reps calls each
followed by a readback of one element (`.item()`); the median counts.
"""
import argparse
import json
import time

import torch
import torch.nn.functional as F

# (batch, heads, kv heads, seq, dim, causal), as xtask/src/bench_sdpa.rs's `shapes`.
SHAPES = [
    (8, 8, 8, 1024, 64, False),
    (8, 8, 8, 1024, 64, True),
    (4, 8, 8, 2048, 64, False),
    (8, 8, 8, 512, 128, False),
    (8, 8, 2, 1024, 64, False),
]
SMALL = [(1, 2, 2, 128, 32, False), (1, 2, 2, 128, 32, True)]
PASSES = ["forward", "forward_backward"]


def case_name(b, h, hkv, l, e, causal):
    s = f"b{b}_h{h}_l{l}_e{e}"
    if hkv != h:
        s += f"_kv{hkv}"
    if causal:
        s += "_causal"
    return s


def flops(b, h, l, e, causal, pass_):
    f = 4.0 * b * h * l * l * e
    if causal:
        f /= 2
    return f if pass_ == "forward" else 3.5 * f


def backends():
    from torch.nn.attention import SDPBackend
    order = ["FLASH_ATTENTION", "EFFICIENT_ATTENTION", "CUDNN_ATTENTION", "MATH"]
    return [(n, getattr(SDPBackend, n)) for n in order if hasattr(SDPBackend, n)]


def sync():
    if torch.cuda.is_available():
        torch.cuda.synchronize()


def timed(fn, warmup, reps):
    sync()
    t = time.perf_counter()
    fn().reshape(-1)[0].item()
    first = (time.perf_counter() - t) * 1e3
    for _ in range(warmup):
        fn().reshape(-1)[0].item()
    times = []
    for _ in range(max(1, reps)):
        t = time.perf_counter()
        fn().reshape(-1)[0].item()
        times.append((time.perf_counter() - t) * 1e3)
    times.sort()
    return first, times[len(times) // 2]


def borch_results(path):
    out, adapter = {}, "?"
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line.startswith("{"):
                continue
            d = json.loads(line)
            if d.get("bench") == "sdpa" and d.get("impl") == "borch":
                out[(d["case"], d["pass"], d["path"])] = d
                adapter = d.get("adapter", adapter)
    if not out:
        raise SystemExit(f"no borch sdpa JSON lines in {path}")
    return out, adapter


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--small", action="store_true", help="the bench's --small shapes")
    p.add_argument("--passes", default=",".join(PASSES))
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--reps", type=int, default=20)
    p.add_argument("--compare", help="output of `cargo xtask bench sdpa` to compare with")
    p.add_argument("--device", default="cuda", help="cpu: a dry run that proves the script works")
    args = p.parse_args()
    if args.device == "cuda" and not torch.cuda.is_available():
        raise SystemExit("torch sees no CUDA device")
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")
    from torch.nn.attention import sdpa_kernel
    dev = torch.device(args.device)
    gpu = torch.cuda.get_device_name(dev) if dev.type == "cuda" else "CPU"
    label = f"{gpu} ({dev.type.upper()}, torch {torch.__version__.split('+')[0]})"
    passes = [s for s in args.passes.split(",") if s]

    # Which backends take fp32 here (a small probe with grad, as the bench uses them).
    capable = []
    notes = []
    probe = [torch.rand(1, 2, 64, 64, device=dev, requires_grad=True) for _ in range(3)]
    for name, be in backends():
        try:
            with sdpa_kernel([be]):
                F.scaled_dot_product_attention(*probe).sum().backward()
            sync()
            capable.append((name, be))
            notes.append(f"{name} yes")
        except Exception as e:  # torch says why a backend does not run
            notes.append(f"{name} no ({str(e).splitlines()[0][:80]})")
    print(f"sdpa backends for fp32: {', '.join(notes)} [{label}]")
    default_name = capable[0][0] if capable else "?"

    results = []
    for b, h, hkv, l, e, causal in (SMALL if args.small else SHAPES):
        name = case_name(b, h, hkv, l, e, causal)
        gen = torch.Generator(device=dev).manual_seed(0)
        mk = lambda heads, rg: (torch.rand(b, heads, l, e, device=dev, generator=gen) * 2 - 1).requires_grad_(rg)
        for pass_ in passes:
            rg = pass_ != "forward"
            q, k, v = mk(h, rg), mk(hkv, rg), mk(hkv, rg)
            g = torch.rand(b, h, l, e, device=dev, generator=gen) * 2 - 1
            gqa = hkv != h

            def call():
                out = F.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=gqa)
                if pass_ == "forward":
                    return out
                return torch.autograd.grad(out, (q, k, v), g)[0]

            runs = [("default", None)] + capable
            for bname, be in runs:
                try:
                    if be is None:
                        first, med = timed(call, args.warmup, args.reps)
                    else:
                        with sdpa_kernel([be]):
                            first, med = timed(call, args.warmup, args.reps)
                except Exception as ex:
                    print(f"sdpa {name} {pass_} {bname}: failed ({str(ex).splitlines()[0][:100]})")
                    continue
                tf = flops(b, h, l, e, causal, pass_) / (med * 1e-3) / 1e12
                results.append({"bench": "sdpa", "impl": "torch", "case": name, "pass": pass_,
                                "backend": bname if be is not None else f"default ({default_name})",
                                "median_ms": med, "first_ms": first, "tflops": tf, "device": label})
                print(f"sdpa {name} {pass_}: torch {bname if be is not None else 'default (' + default_name + ')'} "
                      f"{med:.3f} ms ({tf:.2f} TFLOP/s, first call {first:.0f} ms) [{label}]")
            mine = [r for r in results if r["case"] == name and r["pass"] == pass_]
            base = [r for r in mine if r["backend"].startswith("default")]
            alone = [r for r in mine if not r["backend"].startswith("default")]
            if base and alone:
                near = min(alone, key=lambda r: abs(r["median_ms"] - base[0]["median_ms"]))
                base[0]["closest_backend"] = near["backend"]
                print(f"sdpa {name} {pass_}: the default's time is closest to {near['backend']}")
            del q, k, v, g
            if dev.type == "cuda":
                torch.cuda.empty_cache()
    for r in results:
        print(json.dumps(r))
    if args.compare:
        borch, adapter = borch_results(args.compare)
        print(f"borch/torch speed (torch default time / borch time) [borch: {adapter}; torch: {label}]")
        for r in results:
            if not r["backend"].startswith("default"):
                continue
            for path in ["fused", "fused_rows", "math"]:
                d = borch.get((r["case"], r["pass"], path))
                if d:
                    ratio = r["median_ms"] / d["median_ms"]
                    print(f"sdpa {r['case']} {r['pass']} {path}: borch {d['median_ms']:.3f} ms, "
                          f"torch {r['median_ms']:.3f} ms ({r['backend']}): {ratio:.2f}x")


if __name__ == "__main__":
    main()
