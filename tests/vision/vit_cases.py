"""Freeze timm's vit_tiny_patch16_224 into tests/vision/vit_cases.json, for
borch-vision/tests/vit.rs (which reads only the JSON; run: python3 tests/vision/vit_cases.py,
needs torch and timm).

- "init": after torch.manual_seed(0), timm.create_model("vit_tiny_patch16_224") (not
  pretrained): the state_dict keys in order with shapes, and per parameter its sum and sum of
  squares (float64) and its first 8 values, and the printed form.
- "forward": the same model with every state_dict entry refilled in order by normal_(mean, 0.02)
  after torch.manual_seed(1) (mean 1 for LayerNorm weights, 0 otherwise) — seeded weights borch
  redraws bit for bit, so no 23 MB weights file is committed — then x = torch.randn(2, 3, 224, 224)
  from the same generator, and the eval-mode logits (2, 1000) of timm's forward.
"""

import json
import os

import timm
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
NAME = "vit_tiny_patch16_224"


def is_layer_norm_weight(key):
    return key.endswith(("norm1.weight", "norm2.weight")) or key == "norm.weight"


def init_entry():
    torch.manual_seed(0)
    model = timm.create_model(NAME, pretrained=False)
    keys, stats = [], []
    for k, v in model.state_dict().items():
        keys.append([k, list(v.shape)])
        d = v.detach().double()
        stats.append({"name": k, "sum": d.sum().item(), "sumsq": (d * d).sum().item(),
                      "first": v.detach().reshape(-1)[:8].tolist()})
    return {"seed": 0, "keys": keys, "stats": stats, "repr": repr(model)}


def forward_entry():
    torch.manual_seed(0)
    model = timm.create_model(NAME, pretrained=False).eval()
    torch.manual_seed(1)
    with torch.no_grad():
        for k, v in model.state_dict().items():
            v.normal_(1.0 if is_layer_norm_weight(k) else 0.0, 0.02)
        x = torch.randn(2, 3, 224, 224)
        logits = model(x)
    return {"seed": 1, "input_shape": list(x.shape),
            "input_sum": x.double().sum().item(), "logits": logits.reshape(-1).tolist()}


def main():
    torch.set_num_threads(1)
    init, forward = init_entry(), forward_entry()
    path = os.path.join(HERE, "vit_cases.json")
    with open(path, "w") as f:
        f.write(json.dumps({"torch": torch.__version__, "timm": timm.__version__, "model": NAME})[:-1])
        f.write(',\n"init": ' + json.dumps(init, separators=(",", ":")))
        f.write(',\n"forward": ' + json.dumps(forward, separators=(",", ":")) + "\n}\n")
    print(f"{NAME}: {len(init['keys'])} keys; logits[0][:4] = {forward['logits'][:4]}")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
