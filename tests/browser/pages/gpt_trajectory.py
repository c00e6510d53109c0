"""nanoGPT's GPT at character level trained 20 steps with AdamW through borch_webgpu, written as
the torch code of tests/trajectories/char_gpt.py (nn.Module subclasses, ModuleDict, ModuleList,
split/view/transpose, F.scaled_dot_product_attention(is_causal=True)), against
tests/trajectories/char_gpt.json, judged as borch-nn/tests/gpt_trajectory.rs judges it: torch's
init (first values of every parameter exactly), torch's batch offsets, every loss within 1e-4,
every gradient norm within 1e-4 relative, the final parameter norms within 1e-4 (or 10x torch's
own float32-vs-float64 spread). Run by gpt_trajectory_py.mjs in Pyodide."""

import json
import time

import borch_webgpu as torch
import borch_webgpu.nn as nn
import borch_webgpu.nn.functional as F

LOSS_ATOL = 1e-4
NORM_RTOL = 1e-4
SPREAD_FACTOR = 10.0


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
        pos = torch.arange(0, t, dtype=torch.long)
        x = self.transformer.wte(idx) + self.transformer.wpe(pos)
        for block in self.transformer.h:
            x = block(x)
        return self.lm_head(self.transformer.ln_f(x))


def rel(got, want):
    return abs(got - want) / max(abs(want), 1e-30)


def norms(tensors):
    with torch.scope():
        return list(torch.stack([t.norm() for t in tensors]).tolist())


def run(recipe_text, text, adapter, log):
    r = json.loads(recipe_text)
    c, o = r["config"], r["config"]["optimizer"]
    vocab = sorted(set(text))
    assert "".join(vocab) == c["vocab"], "vocabulary"
    data = torch.keep_alive(torch.tensor([vocab.index(ch) for ch in text]))
    T = c["block_size"]
    torch.manual_seed(c["init_seed"])
    model = GPT(len(vocab), T, c["n_layer"], c["n_head"], c["n_embd"])
    names = [n for n, _ in model.named_parameters()]
    assert names == r["parameters"], names
    failures = []
    for n, p in model.named_parameters():
        with torch.scope():
            first = list(p.reshape(-1)[:4].tolist())
        want = r["init_first"][n]
        if first != [float(torch.tensor(w).item()) for w in want]:
            failures.append(f"{n} after manual_seed is not torch's init: {first} vs {want}")
    params = list(model.parameters())
    opt = torch.optim.AdamW(params, lr=o["lr"], betas=tuple(o["betas"]), eps=o["eps"],
                            weight_decay=o["weight_decay"])
    torch.manual_seed(c["data_seed"])
    worst_loss = worst_grad = 0.0
    losses = []
    start = time.time()
    for step in range(c["steps"]):
        with torch.scope():
            ix = [int(i) for i in torch.randint(0, len(text) - T, (c["batch"],)).tolist()]
            x = torch.stack([data[i:i + T] for i in ix])
            y = torch.stack([data[i + 1:i + 1 + T] for i in ix])
            opt.zero_grad()
            logits = model(x)
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), y.view(-1))
            loss.backward()
            grads = norms([p.grad for p in params])
            value = loss.item()
            opt.step()
        if ix != r["offsets"][step]:
            failures.append(f"step {step}: randint's offsets {ix}, torch {r['offsets'][step]}")
        losses.append(value)
        d = abs(value - r["loss"][step])
        worst_loss = max(worst_loss, d)
        if not d <= LOSS_ATOL:
            failures.append(f"step {step}: loss {value}, torch {r['loss'][step]}")
        for i, g in enumerate(grads):
            dg = rel(g, r["grad_norms"][step][i])
            worst_grad = max(worst_grad, dg)
            if not dg <= NORM_RTOL:
                failures.append(f"step {step}: grad norm of {names[i]}: {g}, torch "
                                f"{r['grad_norms'][step][i]}")
    per_step = (time.time() - start) / c["steps"]
    worst_param = 0.0
    for i, p in enumerate(norms(params)):
        want, want64 = r["param_norms"][i], r["float64"]["param_norms"][i]
        d = rel(p, want)
        worst_param = max(worst_param, d)
        if not d <= max(NORM_RTOL, SPREAD_FACTOR * rel(want, want64)):
            failures.append(f"final norm of {names[i]}: {p}, torch {want}")
    line = (f"trajectory[py] char_gpt: {c['steps']} steps, loss {losses[0]:.4f} -> "
            f"{losses[-1]:.4f}; max loss diff {worst_loss:.2e}, gradient norms {worst_grad:.2e} "
            f"rel, final parameter norms {worst_param:.2e} rel; {per_step * 1e3:.0f} ms/step "
            f"[{adapter}]")
    log(line)
    for f in failures[:10]:
        log(f)
    return {"ok": not failures, "summary": line}
