"""torch's side of `cargo xtask bench gpt`: one training step of the same character-level GPT
(nanoGPT's GPT with torch's default init, tests/trajectories/char_gpt.py) in CUDA eager fp32 with
TF32 off: zero_grad, forward, cross-entropy, backward, AdamW step (torch's default
implementation, foreach on CUDA), the loss read back with .item(). The model is built on the CPU
after manual_seed(0) and moved to the GPU; every step's batch is drawn on the CPU by randint
after manual_seed(1) and copied over, as the borch bench draws and uploads it. Prints which SDPA
backends take fp32 with a gradient (torch's default uses the first that does). With --compare
FILE (the saved output of the borch bench) the shape is taken from it, the first losses are
checked, then borch's speed relative to torch printed.

    python3 scripts/bench_gpt_torch.py --reps 20 --warmup 3 --compare borch.txt
"""

import argparse
import json
import os
import statistics
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests",
                                "trajectories"))
import char_gpt  # noqa: E402

PRESETS = {"baby": (6, 6, 384, 256, 64), "tiny": (2, 4, 32, 32, 8)}


def sdpa_backends(dev):
    from torch.nn.attention import SDPBackend, sdpa_kernel
    out = []
    probe = [torch.rand(1, 2, 64, 64, device=dev, requires_grad=True) for _ in range(3)]
    for name in ["FLASH_ATTENTION", "EFFICIENT_ATTENTION", "CUDNN_ATTENTION", "MATH"]:
        if not hasattr(SDPBackend, name):
            continue
        try:
            with sdpa_kernel([getattr(SDPBackend, name)]):
                F.scaled_dot_product_attention(*probe, is_causal=True).sum().backward()
            out.append(name)
        except Exception:  # torch says the backend does not take these inputs
            pass
    return out


def profile(step, dev, top):
    """One more step under torch.profiler; its kernels by device time (or CPU time on a CPU)."""
    from torch.profiler import ProfilerActivity, profile as torch_profile
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if dev.type == "cuda" else [])
    with torch_profile(activities=activities) as prof:
        step()
    key = "self_device_time_total" if dev.type == "cuda" else "self_cpu_time_total"
    print(f"torch profile, one step (sorted by {key}):")
    print(prof.key_averages().table(sort_by=key, row_limit=top, max_name_column_width=60))


def borch_result(path):
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("{") and '"bench":"gpt"' in line.replace(" ", ""):
                return json.loads(line)
    raise SystemExit(f"no borch gpt JSON line in {path}")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--preset", default="baby", choices=sorted(PRESETS))
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--reps", type=int, default=20)
    p.add_argument("--compare", help="output of `cargo xtask bench gpt` to compare with")
    p.add_argument("--device", default="cuda", help="cpu: a dry run that proves the script works")
    p.add_argument("--profile", type=int, default=0, metavar="TOP",
                   help="after the timed steps, one step under torch.profiler: the TOP kernels")
    args = p.parse_args()
    if args.device == "cuda" and not torch.cuda.is_available():
        raise SystemExit("torch sees no CUDA device")
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")
    dev = torch.device(args.device)
    name = torch.cuda.get_device_name(dev) if dev.type == "cuda" else "CPU"
    borch = borch_result(args.compare) if args.compare else None
    if borch:
        shape = (borch["n_layer"], borch["n_head"], borch["n_embd"], borch["block_size"],
                 borch["batch"])
    else:
        shape = PRESETS[args.preset]
    n_layer, n_head, n_embd, block, batch = shape
    _, vocab, data = char_gpt.load_text()
    torch.manual_seed(0)
    model = char_gpt.GPT(len(vocab), block, n_layer, n_head, n_embd).to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, betas=(0.9, 0.99), weight_decay=0.1)
    n_params = sum(p.numel() for p in model.parameters())
    torch.manual_seed(1)

    def step():
        ix = torch.randint(len(data) - block, (batch,))
        x = torch.stack([data[i:i + block] for i in ix]).to(dev)
        y = torch.stack([data[i + 1:i + 1 + block] for i in ix]).to(dev)
        opt.zero_grad(set_to_none=True)
        logits = model(x)
        loss = F.cross_entropy(logits.view(-1, logits.size(-1)), y.view(-1))
        loss.backward()
        opt.step()
        return loss.item()

    backends = sdpa_backends(dev) if dev.type == "cuda" else ["(CPU)"]
    if dev.type == "cuda":
        torch.cuda.synchronize()
    losses = []
    t0 = time.perf_counter()
    losses.append(step())
    first = (time.perf_counter() - t0) * 1e3
    for _ in range(args.warmup):
        losses.append(step())
    times = []
    for _ in range(max(1, args.reps)):
        t0 = time.perf_counter()
        losses.append(step())
        times.append((time.perf_counter() - t0) * 1e3)
    med = statistics.median(times)
    if args.profile:
        profile(step, dev, args.profile)
    desc = f"{n_layer} layers x {n_head} heads x {n_embd} wide, context {block}, batch {batch}"
    print(f"torch gpt ({desc}, {n_params} parameters) AdamW training step: {med:.3f} ms median "
          f"to a read loss (first step {first:.0f} ms); loss {losses[0]:.4f} -> {losses[-1]:.4f}; "
          f"SDPA backends taking fp32 causal with grad: {', '.join(backends) or 'none'} "
          f"(the default uses the first) [{name}, torch {torch.__version__}, eager fp32, TF32 off]")
    print(json.dumps({"bench": "gpt", "impl": "torch", "median_ms": med, "first_ms": first,
                      "losses": losses, "parameters": n_params, "sdpa_backends": backends,
                      "device": name}))
    if borch:
        n = min(4, len(borch["losses"]), len(losses))
        diff = max(abs(a - b) for a, b in zip(borch["losses"][:n], losses[:n]))
        ok = diff <= 1e-3 and borch["parameters"] == n_params
        print(f"gpt {borch['preset']} (sdpa {borch.get('sdpa', 'fused')}): borch "
              f"{borch['median_ms']:.3f} ms, torch {med:.3f} ms, borch speed / torch "
              f"{med / borch['median_ms']:.2f}x; first {n} losses agree within {diff:.1e} "
              f"({'ok' if ok else 'DIFFERENT'}); borch {borch['dispatches']} dispatches, "
              f"{borch['submits']} submits per step [borch {borch['adapter']}, torch {name}]")


if __name__ == "__main__":
    main()
