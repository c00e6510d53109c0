"""torch's side of `cargo xtask bench vit`: timm's vit_tiny_patch16_224 eval forward (CUDA eager
fp32, TF32 off, torch.no_grad) at the same batches, each call timed to the read of one logit
(.item()), medians after warm-up. The model and inputs are built as the borch bench builds them
(manual_seed(0), create_model, every state_dict entry refilled by normal_(mean, 0.02) after
manual_seed(1), inputs randn after manual_seed(2) on the CPU, then moved to the GPU), so with
--compare FILE (the saved output of the borch bench) the logits are checked first, then the
borch/torch speed ratio printed per batch and mode.

    python3 scripts/bench_vit_torch.py --reps 20 --warmup 3 --compare borch.txt
"""

import argparse
import json
import statistics
import time

import timm
import torch


def model(device):
    torch.manual_seed(0)
    m = timm.create_model("vit_tiny_patch16_224", pretrained=False).eval()
    torch.manual_seed(1)
    with torch.no_grad():
        for k, v in m.state_dict().items():
            ln = k.endswith(("norm1.weight", "norm2.weight")) or k == "norm.weight"
            v.normal_(1.0 if ln else 0.0, 0.02)
    return m.to(device)


def borch_results(path):
    out = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("{") and '"bench":"vit"' in line.replace(" ", ""):
                r = json.loads(line)
                out[(r["batch"], r["mode"])] = r
    return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--batches", default="1,16")
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--reps", type=int, default=20)
    p.add_argument("--compare", help="output of `cargo xtask bench vit` to compare with")
    args = p.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    device = "cuda" if torch.cuda.is_available() else "cpu"
    name = torch.cuda.get_device_name() if device == "cuda" else "cpu"
    m = model(device)
    borch = borch_results(args.compare) if args.compare else {}
    for b in [int(s) for s in args.batches.split(",")]:
        torch.manual_seed(2)
        x = torch.randn(b, 3, 224, 224).to(device)

        def call():
            with torch.no_grad():
                y = m(x)
            y.reshape(-1)[0].item()
            return y

        if device == "cuda":
            torch.cuda.synchronize()
        t0 = time.perf_counter()
        y = call()
        first = (time.perf_counter() - t0) * 1e3
        for _ in range(args.warmup):
            call()
        times = []
        for _ in range(args.reps):
            t0 = time.perf_counter()
            call()
            times.append((time.perf_counter() - t0) * 1e3)
        med = statistics.median(times)
        logits = y.reshape(-1).cpu()
        print(f"torch vit_tiny_patch16_224 eval b{b}: {med:.3f} ms per call to a read logit "
              f"(first call {first:.0f} ms) [{name}, torch {torch.__version__}, timm "
              f"{timm.__version__}, eager fp32, TF32 off]")
        print(json.dumps({"bench": "vit", "impl": "torch", "batch": b, "median_ms": med,
                          "first_ms": first, "logits_sum": float(logits.double().sum()),
                          "device": name}))
        for mode in ("eager", "compiled"):
            r = borch.get((b, mode))
            if r is None:
                continue
            diff = max(abs(a - float(c)) for a, c in zip(r["logits_first"], logits[:8]))
            ok = diff <= 1e-3
            print(f"vit b{b} {mode}: borch {r['median_ms']:.3f} ms, torch {med:.3f} ms, borch "
                  f"speed / torch {med / r['median_ms']:.2f}x; first logits agree within "
                  f"{diff:.1e} ({'ok' if ok else 'DIFFERENT'}); logits sum borch "
                  f"{r['logits_sum']:.4f} torch {float(logits.double().sum()):.4f} "
                  f"[borch {r['adapter']}, torch {name}]")


if __name__ == "__main__":
    main()
