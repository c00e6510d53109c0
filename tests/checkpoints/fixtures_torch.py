"""Interop fixtures for borch's safetensors checkpoints, written by real torch.

    python3 tests/checkpoints/fixtures_torch.py make     # writes tests/checkpoints/fixtures/
    python3 tests/checkpoints/fixtures_torch.py check DIR  # checks the files borch's tests wrote

`make` saves, with `safetensors.torch.save_file`:
  mlp.safetensors        nn.Sequential(Linear(8, 16), ReLU(), Linear(16, 4)), torch's init
  mlp_io.safetensors     a fixed input and torch's logits for it
  resnet18.safetensors.gz  torchvision.models.resnet18(num_classes=10), eval mode (gzipped)
  resnet18_io.safetensors  a fixed 2x3x32x32 input and torch's logits
  rng.safetensors        torch.get_rng_state() after manual_seed(7) and rand(5)

A float32 ResNet-18 is 45 MB and git's zlib cannot shrink random floats. So the conv and linear
weights (torchvision's own kaiming init) are each rounded to 2 distinct values (the means of the tensor's
lower and upper halves, which keep its scale): every weight byte pattern repeats, and zlib stores the
file in ~3 MB. The BatchNorm statistics are real (running_mean/var from 4 training-mode batches,
num_batches_tracked int64) and not rounded; they are small. The model is still a real ResNet-18
forward: the interop test checks key names, dtypes, layouts and the whole forward, not accuracy.

`check DIR` loads what borch's tests wrote in DIR (target/tmp/checkpoints):
  borch_mlp.safetensors + borch_mlp_io.safetensors: borch's state dict of a trained MLP and its
      logits; torch loads the weights into the same Sequential and must give borch's logits.
  borch_checkpoint.safetensors: a training checkpoint (model, Adam state, StepLR, epoch, RNG);
      torch rebuilds model, optimizer and scheduler from it and takes one more step.
"""

import gzip
import json
import sys
import zlib
from pathlib import Path

import torch
from safetensors.torch import load_file, save, save_file

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
from borch_checkpoint_torch import load_borch_checkpoint  # noqa: E402

HERE = Path(__file__).resolve().parent
OUT = HERE / "fixtures"


def mlp():
    return torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4))


def quantise(w, levels=2):
    """Each weight replaced by the mean of its quantile bin: `levels` distinct values."""
    flat = w.flatten()
    order = flat.argsort()
    out = torch.empty_like(flat)
    for chunk in order.chunk(levels):
        out[chunk] = flat[chunk].mean()
    return out.view_as(w)


def make():
    import torchvision

    OUT.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(0)
    m = mlp()
    x = torch.randn(3, 8)
    save_file(m.state_dict(), OUT / "mlp.safetensors")
    save_file({"input": x, "logits": m(x).detach()}, OUT / "mlp_io.safetensors")

    torch.manual_seed(1)
    r = torchvision.models.resnet18(num_classes=10)
    with torch.no_grad():
        for name, p in r.named_parameters():
            if p.dim() > 1:
                p.copy_(quantise(p))
        r.train()
        for _ in range(4):
            r(torch.randn(4, 3, 32, 32))
    r.eval()
    x = torch.randn(2, 3, 32, 32)
    with torch.no_grad():
        logits = r(x)
    sd = {k: v.contiguous() for k, v in r.state_dict().items()}
    # Kept gzipped (2.6 MB instead of 45 MB) so checkouts, and the tree copied to the lent GPU
    # machine (64 MiB at most), stay small; the test reads it through flate2.
    (OUT / "resnet18.safetensors.gz").write_bytes(
        gzip.compress(save(sd), compresslevel=9, mtime=0))
    save_file({"input": x, "logits": logits}, OUT / "resnet18_io.safetensors")

    torch.manual_seed(7)
    torch.rand(5)
    save_file({"rng_state": torch.get_rng_state()}, OUT / "rng.safetensors")

    for f in sorted(OUT.iterdir()):
        raw = f.read_bytes()
        print(f"{f.name}: {len(raw)} bytes, {len(zlib.compress(raw))} zlib-compressed")
    print(f"torch {torch.__version__}, torchvision {torchvision.__version__}")


def check(d):
    d = Path(d)
    m = mlp()
    m.load_state_dict(load_file(d / "borch_mlp.safetensors"))
    io = load_file(d / "borch_mlp_io.safetensors")
    with torch.no_grad():
        got = m(io["input"])
    err = (got - io["logits"]).abs().max().item()
    print(f"borch MLP state dict in torch: max |logits - borch's| = {err:.3g}")
    assert err <= 1e-5, err

    model = mlp()
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    epoch = load_borch_checkpoint(d / "borch_checkpoint.safetensors", model, opt, sched)
    x = torch.randn(4, 8)
    loss = model(x).square().mean()
    loss.backward()
    opt.step()
    sched.step()
    print(f"borch checkpoint resumed in torch at epoch {epoch}: one Adam step, lr now "
          f"{sched.get_last_lr()}, step {opt.state_dict()['state'][0]['step'].item()}")
    print("ok")


if __name__ == "__main__":
    if sys.argv[1:2] == ["make"]:
        make()
    elif sys.argv[1:2] == ["check"] and len(sys.argv) == 3:
        check(sys.argv[2])
    else:
        sys.exit(__doc__)
