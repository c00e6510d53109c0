"""Load a borch training checkpoint (docs/checkpoints.md) into torch: model, optimizer,
scheduler and torch's CPU RNG state. Used by tests/checkpoints/fixtures_torch.py and
scripts/checkpoint_ddp_torch.py; copy it into a torch project to continue a borch run there."""

import json

import torch
from safetensors import safe_open
from safetensors.torch import load_file


def _floats(obj):
    """borch writes non-finite floats (JSON has none) as {"__float__": "inf"}."""
    if set(obj) == {"__float__"}:
        return float(obj["__float__"])
    return obj


def _json(text):
    return json.loads(text, object_hook=_floats)


def rebuild_optimizer_state(ckpt, meta):
    """torch's optimizer.state_dict() from a borch checkpoint's `optimizer.` entries."""
    state = {}
    for key, value in ckpt.items():
        if key.startswith("optimizer.state."):
            index, name = key[len("optimizer.state."):].split(".", 1)
            state.setdefault(int(index), {})[name] = value
    groups = _json(meta["optimizer.param_groups"])
    for g in groups:
        for k, v in g.items():
            if isinstance(v, list) and k != "params":
                g[k] = tuple(v)
    return {"state": state, "param_groups": groups}


def load_borch_checkpoint(path, model, optimizer, scheduler=None):
    """Restore model, optimizer, scheduler and torch's CPU RNG from a borch checkpoint; the
    epoch it was saved at is returned (what docs/checkpoints.md shows)."""
    with safe_open(path, "pt") as f:
        meta = f.metadata()
    assert meta["format"] == "borch.checkpoint.v1", meta.get("format")
    ckpt = load_file(path)
    model.load_state_dict({k[6:]: v for k, v in ckpt.items() if k.startswith("model.")})
    optimizer.load_state_dict(rebuild_optimizer_state(ckpt, meta))
    if scheduler is not None:
        scheduler.load_state_dict(_json(meta["scheduler"]))
    torch.set_rng_state(ckpt["rng_state"])
    return int(meta["epoch"])
