"""borch's CIFAR ResNet-18 at width 8 trained 20 steps through borch_webgpu, written as torch
code, against tests/trajectories/cifar_resnet18_w8.json, judged as
borch-vision/tests/trajectory.rs and resnet_trajectory.mjs judge it: steps 0-4 within 1e-4, the
rest (float32's chaotic regime, docs/vision.md) within loose bounds. Run by
resnet_trajectory_py.mjs in Pyodide (entered with runPythonAsync: reads use run_sync)."""

import json
import time

import borch_webgpu as torch
import borch_webgpu.nn.functional as F
import borch_webgpu.vision as torchvision

RTOL = 1e-4
STRICT_STEPS = 5
LOOSE = {
    "loss": 5e-2,
    "grad norm": 1.0,
    "running_mean norm": 5e-2,
    "running_var norm": 5e-2,
    "final parameter norm": 1e-1,
    "eval logits (max abs diff / max abs logit)": 5e-2,
}


CONDITIONED = 1e-5
SPREAD_FACTOR = 10.0


def rel(got, want):
    return abs(got - want) / max(abs(want), 1e-30)


class Judge:
    """Every compared value, judged at the end as borch-vision/tests/trajectory.rs judges."""

    def __init__(self):
        self.values = []

    def check(self, what, at, leading, got, want, want64):
        d, d64 = rel(got, want), rel(want, want64)
        self.values.append((what, at, leading and d64 <= CONDITIONED, got, want, d, d64))

    def quantities(self):
        q = {}
        for what, _, _, _, _, d, d64 in self.values:
            w, w64 = q.get(what, (0.0, 0.0))
            q[what] = (max(w, d), max(w64, d64))
        return {k: (d, d64, max(LOOSE[k], SPREAD_FACTOR * d64)) for k, (d, d64) in q.items()}

    def strict_worst(self):
        return max([v[5] for v in self.values if v[2]], default=0.0)

    def failures(self):
        q = self.quantities()
        return [f"{what} {at}: borch {got}, torch {want} (rel diff {d:.2e})"
                for what, at, strict, got, want, d, _ in self.values
                if not d <= (RTOL if strict else q[what][2])]


def norms(tensors):
    with torch.scope():
        return list(torch.stack([t.norm() for t in tensors]).tolist())


def run(recipe_text, adapter, log):
    r = json.loads(recipe_text)
    c, r64, j = r["config"], r["float64"], Judge()
    torch.manual_seed(c["init_seed"])
    model = torchvision.models.cifar_resnet18(num_classes=c["num_classes"], width=c["width"])
    torch.manual_seed(c["data_seed"])
    x = torch.keep_alive(torch.randn(c["n"], 3, 32, 32))
    y = torch.keep_alive(torch.tensor([i % 10 for i in range(c["n"])]))
    names = [n for n, _ in model.named_parameters()]
    assert names == r["parameters"], names
    params = list(model.parameters())
    opt = torch.optim.SGD(params, lr=c["options"]["lr"], momentum=c["options"]["momentum"],
                          weight_decay=c["options"]["weight_decay"])
    model.train()
    start = time.time()
    for step in range(r["steps"]):
        with torch.scope():
            opt.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            grads = norms([p.grad for p in params])
            value = loss.item()
            opt.step()
        strict = step < STRICT_STEPS
        j.check("loss", f"step {step}", strict, value, r["loss"][step], r64["loss"][step])
        for i, g in enumerate(grads):
            j.check("grad norm", f"step {step} {names[i]}", strict, g, r["grad_norms"][step][i],
                    r64["grad_norms"][step][i])
    per_step = (time.time() - start) / r["steps"]
    buffers = dict(model.named_buffers())
    for i, bn in enumerate(r["batchnorm"]):
        for key in ("running_mean", "running_var"):
            (got,) = norms([buffers[f"{bn['name']}.{key}"]])
            j.check(f"{key} norm", bn["name"], False, got, bn[key], r64["batchnorm"][i][key])
    for i, g in enumerate(norms(params)):
        j.check("final parameter norm", names[i], False, g, r["param_norms"][i], r64["param_norms"][i])
    model.eval()
    with torch.no_grad(), torch.scope():
        logits = list(model(x).reshape(-1).tolist())
    want = r["eval_logits"]
    scale = max(abs(w) for w in want)
    d = max(abs(g - w) for g, w in zip(logits, want))
    d64 = max(abs(w - w64) for w, w64 in zip(want, r64["eval_logits"]))
    j.check("eval logits (max abs diff / max abs logit)", "", False, scale + d, scale, scale + d64)
    spreads = ", ".join(f"{k} {d:.2e} (torch f32 vs f64 {d64:.2e}, bound {b:.0e})"
                        for k, (d, d64, b) in j.quantities().items())
    line = (f"trajectory[py] {r['recipe']}: steps 0-{STRICT_STEPS - 1} agree within "
            f"{j.strict_worst():.2e} (loss, every gradient norm); all {r['steps']} steps and the end "
            f"of the run: max rel diff {spreads} ({per_step:.1f} s/step) [{adapter}]")
    log(line)
    failures = j.failures()
    for f in failures[:10]:
        log(f)
    return {"ok": not failures, "summary": line}
