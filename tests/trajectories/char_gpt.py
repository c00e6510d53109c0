"""Freeze a char-level GPT (nanoGPT's shape) trained 20 steps with AdamW on data/sonnets into
tests/trajectories/char_gpt.json (issue 14's GPT trajectory).

Run: python3 tests/trajectories/char_gpt.py   (torch only, CPU, seconds). Replayed by
borch-nn/tests/gpt_trajectory.rs (borch_nn::models::Gpt) and, in Chromium, by
tests/browser/pages/gpt_trajectory.html (the same model written with borch-ts's nn modules).

The model is nanoGPT's `GPT` with torch's default init for every module (nanoGPT's own
`_init_weights` and weight tying are left out, so each module draws as torch builds it):
transformer.wte = Embedding(vocab, d), transformer.wpe = Embedding(block_size, d), then per
block ln_1 = LayerNorm(d), attn.c_attn = Linear(d, 3d), attn.c_proj = Linear(d, d),
ln_2 = LayerNorm(d), mlp.c_fc = Linear(d, 4d), mlp.gelu = GELU(), mlp.c_proj = Linear(4d, d);
transformer.ln_f = LayerNorm(d), lm_head = Linear(d, vocab, bias=False). Attention is
F.scaled_dot_product_attention(q, k, v, is_causal=True) over n_head heads.

The run: vocab = sorted(set(text)); torch.manual_seed(0); model = GPT(...);
torch.manual_seed(1); per step ix = torch.randint(len(data) - block_size, (batch,)),
x = stack(data[i : i + block_size]), y = stack(data[i + 1 : i + 1 + block_size]);
AdamW(lr, betas, weight_decay, foreach=False); loss = cross_entropy(logits.view(-1, vocab),
y.view(-1)). Per step (before the update): the loss, the batch offsets and the 2-norm of every
parameter's gradient (named_parameters order). The same run in float64 (same float32 start and
batches) is stored under "float64", to show how far float32 rounding alone moves torch.
"""

import json
import math
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
TEXT = os.path.join(HERE, "..", "..", "data", "sonnets", "sonnets.txt")

CONFIG = {"n_layer": 2, "n_head": 4, "n_embd": 32, "block_size": 32, "batch": 8, "steps": 20,
          "init_seed": 0, "data_seed": 1,
          "optimizer": {"lr": 3e-3, "betas": [0.9, 0.99], "eps": 1e-8, "weight_decay": 0.1}}


class CausalSelfAttention(nn.Module):
    def __init__(self, d, n_head):
        super().__init__()
        self.c_attn = nn.Linear(d, 3 * d)
        self.c_proj = nn.Linear(d, d)
        self.n_head = n_head

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(C, dim=2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.c_proj(y.transpose(1, 2).contiguous().view(B, T, C))


class MLP(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.c_fc = nn.Linear(d, 4 * d)
        self.gelu = nn.GELU()
        self.c_proj = nn.Linear(4 * d, d)

    def forward(self, x):
        return self.c_proj(self.gelu(self.c_fc(x)))


class Block(nn.Module):
    def __init__(self, d, n_head):
        super().__init__()
        self.ln_1 = nn.LayerNorm(d)
        self.attn = CausalSelfAttention(d, n_head)
        self.ln_2 = nn.LayerNorm(d)
        self.mlp = MLP(d)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self, vocab, block_size, n_layer, n_head, n_embd):
        super().__init__()
        self.transformer = nn.ModuleDict(dict(
            wte=nn.Embedding(vocab, n_embd),
            wpe=nn.Embedding(block_size, n_embd),
            h=nn.ModuleList([Block(n_embd, n_head) for _ in range(n_layer)]),
            ln_f=nn.LayerNorm(n_embd),
        ))
        self.lm_head = nn.Linear(n_embd, vocab, bias=False)

    def forward(self, idx):
        t = idx.size(1)
        pos = torch.arange(0, t, dtype=torch.long, device=idx.device)
        x = self.transformer.wte(idx) + self.transformer.wpe(pos)
        for block in self.transformer.h:
            x = block(x)
        return self.lm_head(self.transformer.ln_f(x))


def load_text():
    with open(TEXT, encoding="utf-8") as f:
        text = f.read()
    vocab = sorted(set(text))
    data = torch.tensor([vocab.index(ch) for ch in text], dtype=torch.long)
    return text, vocab, data


def build(vocab_size):
    c = CONFIG
    torch.manual_seed(c["init_seed"])
    return GPT(vocab_size, c["block_size"], c["n_layer"], c["n_head"], c["n_embd"])


def train(dtype):
    c, o = CONFIG, CONFIG["optimizer"]
    torch.set_num_threads(1)
    _, vocab, data = load_text()
    model = build(len(vocab)).to(dtype)
    opt = torch.optim.AdamW(model.parameters(), lr=o["lr"], betas=tuple(o["betas"]), eps=o["eps"],
                            weight_decay=o["weight_decay"], foreach=False)
    torch.manual_seed(c["data_seed"])
    losses, grad_norms, offsets = [], [], []
    T = c["block_size"]
    for _ in range(c["steps"]):
        ix = torch.randint(len(data) - T, (c["batch"],))
        x = torch.stack([data[i:i + T] for i in ix])
        y = torch.stack([data[i + 1:i + 1 + T] for i in ix])
        opt.zero_grad(set_to_none=True)
        logits = model(x)
        loss = F.cross_entropy(logits.view(-1, logits.size(-1)), y.view(-1))
        loss.backward()
        losses.append(loss.item())
        offsets.append(ix.tolist())
        grad_norms.append([p.grad.norm().item() for p in model.parameters()])
        opt.step()
    return {"names": [n for n, _ in model.named_parameters()], "offsets": offsets,
            "loss": losses, "grad_norms": grad_norms,
            "param_norms": [p.detach().norm().item() for p in model.parameters()]}


def main():
    text, vocab, _ = load_text()
    model = build(len(vocab))
    init = {n: p.detach().reshape(-1)[:4].tolist() for n, p in model.named_parameters()}
    r = train(torch.float32)
    r64 = train(torch.float64)
    assert r64["offsets"] == r["offsets"]
    out = {
        "recipe": "char_gpt", "torch": torch.__version__,
        "config": {**CONFIG, "text": "data/sonnets/sonnets.txt", "text_chars": len(text),
                   "vocab": "".join(vocab), "model": "nanoGPT GPT, torch's default init, untied"},
        "parameter_count": sum(p.numel() for p in model.parameters()),
        "init_first": init,
        "parameters": r["names"], "offsets": r["offsets"], "loss": r["loss"],
        "grad_norms": r["grad_norms"], "param_norms": r["param_norms"],
        "float64": {k: r64[k] for k in ("loss", "grad_norms", "param_norms")},
    }
    path = os.path.join(HERE, "char_gpt.json")
    with open(path, "w") as f:
        f.write("{\n" + ",\n".join(f"{json.dumps(k)}:{json.dumps(v, separators=(',', ':'))}"
                                   for k, v in out.items()) + "\n}\n")
    spread = max(abs(a - b) for a, b in zip(r["loss"], r64["loss"]))
    print(f"char_gpt: {out['parameter_count']} parameters, vocab {len(vocab)}, loss "
          f"{r['loss'][0]:.6g} -> {r['loss'][-1]:.6g} (ln(vocab) {math.log(len(vocab)):.4f}); "
          f"float32 vs float64 loss spread {spread:.2e}; wrote {path}")


if __name__ == "__main__":
    main()
