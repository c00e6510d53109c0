#!/usr/bin/env python3
"""The step of `cargo xtask bench lstm` in torch: nn.LSTM (or GRU, RNN) forward + backward of
output.sum() with the loss read back (`loss.item()`), and the forward alone under no_grad, eager
fp32 with TF32 off, on CUDA when available (cuDNN's RNN) else the CPU. Input [T, N, I] from a
fixed seed, the same batch every step; --warmup steps, then --steps timed one by one (median).
Prints one line and one JSON line ({"bench": "lstm", "impl": "torch", ...}). With --compare
FILE (the saved output of the borch bench) it also prints borch/torch times:

    cargo xtask bench lstm | tee borch.txt
    python3 scripts/bench_lstm_torch.py --compare borch.txt
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
            if line.startswith("{"):
                data = json.loads(line)
                if data.get("bench") == "lstm" and data.get("impl") == "borch":
                    return data
    raise SystemExit(f"no borch lstm JSON line in {path}")


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--mode", default="lstm", choices=["lstm", "gru", "rnn"])
    p.add_argument("--seq", type=int, default=64)
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--input", type=int, default=256)
    p.add_argument("--hidden", type=int, default=256)
    p.add_argument("--layers", type=int, default=1)
    p.add_argument("--bidirectional", action="store_true")
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--steps", type=int, default=30)
    p.add_argument("--compare")
    a = p.parse_args()
    borch = borch_result(a.compare) if a.compare else None
    if borch:
        for k in ["mode", "seq", "batch", "input", "hidden", "layers", "bidirectional"]:
            setattr(a, k, borch[k] if k != "mode" or borch[k] != "tanh" else "rnn")
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    torch.manual_seed(0)
    cls = {"lstm": torch.nn.LSTM, "gru": torch.nn.GRU, "rnn": torch.nn.RNN}[a.mode]
    m = cls(a.input, a.hidden, num_layers=a.layers, bidirectional=a.bidirectional).to(dev)
    x = torch.randn(a.seq, a.batch, a.input, device=dev)

    def train():
        y, _ = m(x)
        loss = y.sum()
        loss.backward()
        return loss.item()

    def evaluate():
        with torch.no_grad():
            return m(x)[0].sum().item()

    for _ in range(a.warmup):
        train()
        evaluate()

    def timed(fn):
        out = []
        for _ in range(a.steps):
            t = time.perf_counter()
            fn()
            out.append(time.perf_counter() - t)
        return statistics.median(out) * 1e3

    train_ms, eval_ms = timed(train), timed(evaluate)
    name = torch.cuda.get_device_name() + " (CUDA, cuDNN)" if dev.type == "cuda" else "CPU"
    print(f"{a.mode} T{a.seq} N{a.batch} I{a.input} H{a.hidden} L{a.layers}"
          f"{' bidirectional' if a.bidirectional else ''}: torch {train_ms:.2f} ms/step train, "
          f"{eval_ms:.2f} ms eval [{name}, torch {torch.__version__}]")
    print(json.dumps({"bench": "lstm", "impl": "torch", "device": name, "mode": a.mode,
                      "seq": a.seq, "batch": a.batch, "input": a.input, "hidden": a.hidden,
                      "layers": a.layers, "bidirectional": a.bidirectional,
                      "train_ms": train_ms, "eval_ms": eval_ms}))
    if borch:
        print(f"borch/torch: train {borch['train_ms'] / train_ms:.2f}x, "
              f"eval {borch['eval_ms'] / eval_ms:.2f}x (time; above 1 is slower than torch)")


if __name__ == "__main__":
    main()
