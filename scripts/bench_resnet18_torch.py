#!/usr/bin/env python3
"""The cases of `cargo xtask bench resnet18` in torch: a CIFAR ResNet-18 (3×3 stem, 4×2
BasicBlocks, 1×1 conv + BatchNorm shortcuts, BatchNorm, global average pool, 10 classes; the
state_dict keys of borch_vision's `cifar_resnet18`, torchvision's names) on CUDA eager fp32 with
TF32 off (cudnn.benchmark left at its default, off), or on the CPU when there is no GPU.

Cases (the same as the borch bench; one JSON line each):

- train b16/32/64: zero_grad, forward, cross_entropy, backward, SGD (momentum 0.9, lr 0.05,
  weight decay 5e-4), the loss read back (`loss.item()`) every step; peak memory of one step
  (`torch.cuda.max_memory_allocated()` after `reset_peak_memory_stats()`).
- eval b1/b16: `model.eval()`, under `torch.no_grad()`, the logits read back (`.cpu()`).

Timing: --warmup calls, then --steps calls timed one by one with perf_counter (each ends with a
readback, so it is synchronous and its wall time is its cost, launch overhead included); the
median counts, the mean is reported too; the first call (cuDNN's algorithm choice, allocator
growth) separately.

    cargo xtask bench resnet18 | tee borch.txt
    python3 scripts/bench_resnet18_torch.py --compare borch.txt

With --compare FILE (the saved output of the borch bench) it prints, per borch case (every
mode: eager, compiled, fused+compiled), borch ms, torch ms, borch speed / torch (torch ms over
borch ms) and borch peak memory / torch's.

Also used by scripts/make_bench_resnet18_onnx.py (the model class).
"""
import argparse
import json
import statistics
import time

import torch
from torch import nn
import torch.nn.functional as F


class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, inplanes, planes, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2d(inplanes, planes, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(planes, planes, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.downsample = None
        if stride != 1 or inplanes != planes:
            self.downsample = nn.Sequential(
                nn.Conv2d(inplanes, planes, 1, stride, bias=False), nn.BatchNorm2d(planes)
            )

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return self.relu(out + identity)


class CifarResNet18(nn.Module):
    """torchvision's ResNet-18 with the CIFAR stem (3×3 conv, stride 1, no max-pool)."""

    def __init__(self, num_classes=10, width=64):
        super().__init__()
        self.conv1 = nn.Conv2d(3, width, 3, 1, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(width)
        self.relu = nn.ReLU(inplace=True)
        inplanes = width
        for i, (mult, stride) in enumerate([(1, 1), (2, 2), (4, 2), (8, 2)]):
            planes = width * mult
            layer = nn.Sequential(BasicBlock(inplanes, planes, stride), BasicBlock(planes, planes))
            setattr(self, f"layer{i + 1}", layer)
            inplanes = planes
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(inplanes, num_classes)
        # torchvision's init.
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            elif isinstance(m, nn.BatchNorm2d):
                nn.init.constant_(m.weight, 1)
                nn.init.constant_(m.bias, 0)

    def forward(self, x):
        x = self.relu(self.bn1(self.conv1(x)))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(torch.flatten(self.avgpool(x), 1))


def borch_results(path):
    out = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("{"):
                data = json.loads(line)
                if data.get("bench") == "resnet18" and data.get("impl") == "borch":
                    out.append(data)
    if not out:
        raise SystemExit(f"no borch resnet18 JSON line in {path}")
    return out


def timed(fn, warmup, steps, sync):
    sync()
    t = time.perf_counter()
    first_value = fn()
    first_ms = (time.perf_counter() - t) * 1e3
    for _ in range(1, warmup):
        fn()
    times = []
    value = first_value
    for _ in range(steps):
        sync()
        t = time.perf_counter()
        value = fn()
        times.append((time.perf_counter() - t) * 1e3)
    return first_ms, times, first_value, value


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--batches", default="16,32,64", help="train-step batch sizes")
    p.add_argument("--eval-batches", default="1,16", help="eval-forward batch sizes")
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--steps", type=int, default=0, help="timed calls (default 20 on CUDA, 3 on the CPU)")
    p.add_argument("--width", type=int, default=64, help="base channels (64: ResNet-18)")
    p.add_argument("--cpu", action="store_true", help="use the CPU even when CUDA is available")
    p.add_argument("--compare", help="output of `cargo xtask bench resnet18` to compare with")
    args = p.parse_args()

    cuda = torch.cuda.is_available() and not args.cpu
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")
    device = torch.device("cuda" if cuda else "cpu")
    version = torch.__version__.split("+")[0]
    if cuda:
        name = torch.cuda.get_device_name(device)
        label = f"{name} (CUDA, torch {version}, cudnn.benchmark {torch.backends.cudnn.benchmark})"
        sync = torch.cuda.synchronize
    else:
        name = "cpu"
        label = f"CPU, {torch.get_num_threads()} threads (torch {version})"
        sync = lambda: None  # noqa: E731
    steps = args.steps or (20 if cuda else 3)
    batches = [int(b) for b in args.batches.split(",") if b]
    eval_batches = [int(b) for b in args.eval_batches.split(",") if b]
    print(f"adapter: {label}", flush=True)

    torch.manual_seed(0)
    model = CifarResNet18(10, args.width).to(device)
    results = []

    def record(case, batch, first_ms, times, extra):
        ms = statistics.median(times)
        r = {
            "bench": "resnet18", "impl": "torch", "mode": "eager", "case": case, "batch": batch,
            "width": args.width, "device": name, "label": label, "cuda": cuda, "tf32": False,
            "warmup": args.warmup, "steps": steps, "ms": ms, "mean_ms": statistics.fmean(times),
            "min_ms": min(times), "first_ms": first_ms, **extra,
        }
        line = f"resnet18 {case} b{batch} torch eager: {ms:.2f} ms (median of {steps}; mean {r['mean_ms']:.2f}, first {first_ms:.0f} ms)"
        if "peak_bytes" in extra:
            line += f", peak {extra['peak_bytes'] / 2**20:.1f} MiB"
        if "last_loss" in extra:
            line += f", loss {extra['first_loss']:.4f} → {extra['last_loss']:.4f}"
        print(f"{line} [{label}]", flush=True)
        print(json.dumps(r), flush=True)
        results.append(r)

    model.train()
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=5e-4)
    for batch in batches:
        g = torch.Generator().manual_seed(1000 + batch)
        x = torch.randn(batch, 3, 32, 32, generator=g).to(device)
        y = torch.randint(0, 10, (batch,), generator=g).to(device)

        def step():
            opt.zero_grad(set_to_none=True)
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            return loss.item()

        first_ms, times, first_loss, last_loss = timed(step, args.warmup, steps, sync)
        peak = None
        if cuda:
            sync()
            torch.cuda.reset_peak_memory_stats()
            step()
            sync()
            peak = torch.cuda.max_memory_allocated()
        extra = {"first_loss": first_loss, "last_loss": last_loss}
        if peak is not None:
            extra["peak_bytes"] = peak
        record("train", batch, first_ms, times, extra)

    model.eval()
    for batch in eval_batches:
        g = torch.Generator().manual_seed(2000 + batch)
        x = torch.randn(batch, 3, 32, 32, generator=g).to(device)

        def forward():
            with torch.no_grad():
                return model(x).cpu()

        first_ms, times, _, _ = timed(forward, args.warmup, steps, sync)
        record("eval", batch, first_ms, times, {})

    if args.compare:
        print(f"\nborch ({args.compare}) against torch eager [{label}]:", flush=True)
        print("| case | batch | borch mode | borch ms | dispatches | submits | torch ms | borch speed / torch | borch peak MiB | torch peak MiB | memory borch / torch | loss borch, torch (first → last) |")
        print("|---|---|---|---|---|---|---|---|---|---|---|---|")
        for b in borch_results(args.compare):
            t = next((r for r in results if r["case"] == b["case"] and r["batch"] == b["batch"]), None)
            if t is None:
                print(f"| {b['case']} | {b['batch']} | {b['mode']} | {b['ms']:.2f} | | | (no torch case) | | | | | |")
                continue
            if b.get("width", 64) != args.width:
                raise SystemExit(f"{args.compare} measured width {b.get('width')}, not {args.width}")
            speed = t["ms"] / b["ms"]
            bp, tp = b.get("peak_bytes"), t.get("peak_bytes")
            mem = f"{bp / tp:.2f}×" if bp and tp else ""
            bpm = f"{bp / 2**20:.1f}" if bp else ""
            tpm = f"{tp / 2**20:.1f}" if tp else ""
            loss = ""
            if "first_loss" in b and "first_loss" in t and b["mode"] == "eager":
                loss = (f"{b['first_loss']:.4f} → {b['last_loss']:.4f}, "
                        f"{t['first_loss']:.4f} → {t['last_loss']:.4f}")
            count = lambda v: f"{v:g}" if isinstance(v, (int, float)) else ""  # noqa: E731
            print(
                f"| {b['case']} | {b['batch']} | {b['mode']} | {b['ms']:.2f} | {count(b.get('dispatches'))} | "
                f"{count(b.get('submits'))} | {t['ms']:.2f} | {speed:.2f}× | {bpm} | {tpm} | {mem} | {loss} |",
                flush=True,
            )
            print(json.dumps({"bench": "resnet18", "impl": "ratio", "case": b["case"], "batch": b["batch"],
                              "mode": b["mode"], "borch_ms": b["ms"], "torch_ms": t["ms"], "speed": speed,
                              "memory_ratio": bp / tp if bp and tp else None,
                              "borch_adapter": b.get("adapter"), "torch_label": label}), flush=True)


if __name__ == "__main__":
    main()
