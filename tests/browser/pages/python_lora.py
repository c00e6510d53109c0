# LoRA and activation checkpointing through borch_webgpu, as torch + loralib code writes them,
# against tests/nn/lora_cases.json (tests/nn/lora_cases.py: loralib 0.1.2 and torch): nn.LoRALinear
# after manual_seed has loralib's init, forward, gradients and eval merge; nn.utils.lora's
# apply_lora + mark_only_lora_as_trainable + four SGD steps + lora_state_dict + merge_lora and
# eval's merge; torch.utils.checkpoint.checkpoint over two blocks with torch's output and
# gradients, equal to the run without it; its refusals; an exception raised in the function during
# backward comes out of backward(), and the instance goes on working. Run by python.mjs (LORA_JSON
# is the fixture's text); prints one line.
import json

import borch_webgpu as torch
from borch_webgpu import nn
from borch_webgpu.nn.utils import lora
from borch_webgpu.utils.checkpoint import checkpoint

fx = json.loads(LORA_JSON)  # noqa: F821  (set by python.mjs)
checks = 0


def check(what, ok):
    global checks
    if not ok:
        raise AssertionError(what)
    checks += 1


def close(what, t, want, atol=1e-4, rtol=1e-4):
    got = t.reshape(-1).tolist()
    bad = [i for i, (a, b) in enumerate(zip(got, want)) if not abs(a - b) <= atol + rtol * abs(b)]
    check(f"{what}: {len(got)} elements, first bad {bad[:1]}", len(got) == len(want) and not bad)


def raises(what, cls, needle, fn):
    try:
        fn()
    except cls as e:
        check(f"{what}: {e}", needle in str(e))
        return
    raise AssertionError(f"{what}: nothing raised")


def tensor(shape, data):
    return torch.tensor(data).reshape(shape)


def state(obj):
    return {k: tensor(shape, data) for k, (shape, data) in obj.items()}


# lora.Linear's case 0: loralib's init after manual_seed, the adapter's gradients, eval's merge.
c = fx["cases"][0]
torch.manual_seed(c["seed"])
m = nn.LoRALinear(c["in"], c["out"], r=c["r"], lora_alpha=c["alpha"], bias=c["bias"])
check("LoRALinear prints as loralib's", repr(m) == c["repr"])
sd = m.state_dict()
check("state_dict keys", list(sd) == [e[0] for e in c["init"]])
for k, _, data in c["init"]:
    close(f"init {k}", sd[k], data, atol=1e-7, rtol=0)
sd = dict(m.named_parameters())
with torch.no_grad():
    sd["lora_B"].copy_(tensor(sd["lora_B"].shape, c["lora_B"]))
x = tensor(c["x"], c["input"])
x.requires_grad = True
y = m(x)
close("LoRALinear output", y, c["output"])
(y * tensor(c["output_shape"], c["grad_output"])).sum().backward()
close("grad lora_A", sd["lora_A"].grad, c["grad_lora_A"])
close("grad lora_B", sd["lora_B"].grad, c["grad_lora_B"])
check("the frozen weight has no gradient", sd["weight"].grad is None)
m.eval()
close("eval merges", m.state_dict()["weight"], c["merged_weight"])
m.train()
close("train unmerges", m.state_dict()["weight"], c["unmerged_weight"])
raises("fan_in_fan_out=True", NotImplementedError, "fan_in_fan_out",
       lambda: nn.LoRALinear(3, 4, r=2, fan_in_fan_out=True))
c0 = fx["conv_r0"]
torch.manual_seed(c0["seed"])
plain_conv = nn.LoRAConv2d(2, 3, 3, padding=1)  # loralib's default r=0: no adapter
check("LoRAConv2d(r=0) keys", list(plain_conv.state_dict()) == [e[0] for e in c0["init"]])
for k, _, data in c0["init"]:
    close(f"r=0 init {k}", plain_conv.state_dict()[k], data, atol=1e-7, rtol=0)
close("r=0 output", plain_conv(tensor(c0["x"], c0["input"])), c0["output"])
raises("LoRAConv2d(lora_dropout=0.1)", NotImplementedError, "lora_dropout",
       lambda: nn.LoRAConv2d(3, 4, 3, r=2, lora_dropout=0.1))
conv = nn.LoRAConv2d(3, 4, 3, r=2, lora_alpha=4, padding=1)
check("LoRAConv2d keys", list(conv.state_dict()) == ["lora_A", "lora_B", "conv.weight", "conv.bias"])
check("LoRAConv2d forward", conv(torch.randn(1, 3, 5, 5)).shape == (1, 4, 5, 5))

# loralib's three bias modes on Sequential(lora.Linear, ReLU, Linear): trainable names, adapter keys.
modes = nn.Sequential(nn.LoRALinear(4, 6, r=2, lora_alpha=2), nn.ReLU(), nn.Linear(6, 3))
for bias, want in fx["model"].items():
    for p in modes.parameters():
        p.requires_grad = True
    lora.mark_only_lora_as_trainable(modes, bias=bias)
    check(f"mark_only_lora_as_trainable(bias={bias!r})",
          [n for n, p in modes.named_parameters() if p.requires_grad] == want["trainable"])
    check(f"lora_state_dict(bias={bias!r}) keys",
          list(lora.lora_state_dict(modes, bias=bias)) == want["lora_state_dict"])

# apply_lora + mark_only_lora_as_trainable + 4 SGD steps + lora_state_dict + merge, as loralib's.
t = fx["training"]
model = nn.Sequential(nn.Linear(4, 6), nn.ReLU(), nn.Linear(6, 3))
model.load_state_dict(state(t["base"]))
check("apply_lora returns the adapted paths",
      list(lora.apply_lora(model, 2, lora_alpha=4, target_modules=["0", "2"])) == ["0", "2"])
model.load_state_dict(state(t["adapter"]), strict=False)
lora.mark_only_lora_as_trainable(model)
check("mark_only_lora_as_trainable",
      [n for n, p in model.named_parameters() if p.requires_grad] == t["trainable"])
xs, ys = tensor([5, 4], t["x"]), tensor([5, 3], t["y"])
opt = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=t["lr"])
losses = []
for _ in t["losses"]:
    opt.zero_grad()
    loss = nn.functional.mse_loss(model(xs), ys)
    loss.backward()
    opt.step()
    losses.append(loss.item())
check(f"losses {losses} are loralib's",
      all(abs(a - b) <= 1e-4 + 1e-4 * abs(b) for a, b in zip(losses, t["losses"])))
lsd = lora.lora_state_dict(model)
check("lora_state_dict keys", list(lsd) == list(t["lora_state_dict"]))
for k, (_, data) in t["lora_state_dict"].items():
    close(f"lora_state_dict {k}", lsd[k], data)
with torch.no_grad():
    close("train output", model(xs), t["train_output"])
    check("merge_lora returns the merged paths", list(lora.merge_lora(model)) == ["0", "2"])
    close("merge_lora output", model(xs), t["train_output"])
    lora.unmerge_lora(model)
    model.eval()
    close("eval output (merged)", model(xs), t["eval_output"])
close("eval's merged weight", model.state_dict()["0.weight"], t["merged_weights"]["0"])
raises("mark_only_lora_as_trainable(bias='some')", NotImplementedError, "some",
       lambda: lora.mark_only_lora_as_trainable(model, bias="some"))

# torch.utils.checkpoint.checkpoint(block, h, use_reentrant=False) over two blocks.
ck = fx["checkpoint"]
blocks = []
for s in ck["blocks"]:
    b = nn.Sequential(nn.Linear(5, 8), nn.Tanh(), nn.Linear(8, 5), nn.Tanh())
    b.load_state_dict(state(s))
    blocks.append(b)
xc = tensor(ck["x_shape"], ck["x"])
xc.requires_grad = True
g = tensor(ck["x_shape"], ck["grad_output"])


def run(wrap):
    for b in blocks:
        b.zero_grad()
    xc.grad = None
    h = xc
    for b in blocks:
        h = wrap(b, h)
    (h * g).sum().backward()
    return h, xc.grad.reshape(-1).tolist(), {
        f"{i}.{n}": p.grad for i, b in enumerate(blocks) for n, p in b.named_parameters()}


h, gx, grads = run(lambda b, h: checkpoint(b, h, use_reentrant=False))
close("checkpoint output", h, ck["output"])
close("checkpoint grad input", xc.grad, ck["grad_input"])
for n, gr in grads.items():
    close(f"checkpoint grad {n}", gr, ck["grads"][n])
h2, gx2, _ = run(lambda b, h: b(h))
check("checkpoint = no checkpoint", max(abs(a - b) for a, b in zip(gx, gx2)) <= 1e-5)
raises("checkpoint without use_reentrant", NotImplementedError, "use_reentrant=False",
       lambda: checkpoint(blocks[0], xc))
raises("checkpoint(use_reentrant=True)", NotImplementedError, "use_reentrant=True",
       lambda: checkpoint(blocks[0], xc, use_reentrant=True))


# After the forward, a checkpointed chain holds each block's input only; the plain one every
# block's activations (torch.memory(): bytes of live buffers; each pass in a memory scope).
torch.manual_seed(1)
deep = [nn.Sequential(nn.Linear(32, 32), nn.Tanh(), nn.Linear(32, 32), nn.Tanh()) for _ in range(4)]
xm = torch.keep_alive(torch.randn(64, 32))
xm.requires_grad = True


def held(wrap):
    with torch.scope():
        before = torch.memory()["bytes"]
        h = xm
        for b in deep:
            h = wrap(b, h)
        after = torch.memory()["bytes"] - before
        h.sum().backward()
        grad = xm.grad.reshape(-1).tolist()
    xm.grad = None
    return after, grad


plain_bytes, plain_grad = held(lambda b, h: b(h))
ck_bytes, ck_grad = held(lambda b, h: checkpoint(b, h, use_reentrant=False))
print(f"python lora: checkpoint holds {ck_bytes} B after the forward, {plain_bytes} B without")
check("checkpoint holds less after the forward", ck_bytes < plain_bytes / 2)
check("checkpoint's gradients = plain", max(abs(a - b) for a, b in zip(ck_grad, plain_grad)) <= 1e-5)


class Boom(Exception):
    pass


calls = []


def flaky(v):
    calls.append(1)
    if len(calls) == 2:
        raise Boom("recompute failed")
    return v.tanh()


yb = checkpoint(flaky, xc, use_reentrant=False)
try:
    yb.sum().backward()
    raise AssertionError("backward did not raise")
except Boom as e:
    check(f"the function's exception comes out of backward as raised: {e}", str(e) == "recompute failed")
xc.grad = None
(checkpoint(lambda v: v * v, xc, use_reentrant=False)).sum().backward()
close("still working after the throw", xc.grad, [2 * v for v in xc.reshape(-1).tolist()], 1e-5, 0)

print(f"python lora: {checks} checks passed")
