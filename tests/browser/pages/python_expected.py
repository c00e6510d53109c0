"""Writes python_expected.json: what torch gives for the module stacks python_api.py builds
(state_dict keys of TransformerEncoder/TransformerDecoder, a square subsequent mask). Run with
real torch: python3 tests/browser/pages/python_expected.py"""

import json
from pathlib import Path

import torch
from torch import nn

torch.manual_seed(0)
encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0), 2)
decoder = nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0), 1, norm=nn.LayerNorm(8))
mask = nn.Transformer.generate_square_subsequent_mask(3)
import torch.ao.nn.intrinsic as nni  # noqa: E402

fused_keys = {
    "ConvBnReLU2d": list(nni.ConvBnReLU2d(nn.Conv2d(2, 3, 3), nn.BatchNorm2d(3), nn.ReLU()).state_dict()),
    "ConvAddReLU2d": list(nni.ConvAddReLU2d(nn.Conv2d(2, 3, 1), torch.add, nn.ReLU()).state_dict()),
}
try:
    nni.ConvReLU2d(nn.Conv1d(1, 1, 1), nn.ReLU())
except AssertionError as e:
    fused_error = str(e)


class Scaled(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(torch.ones(2))
        self.fc = nn.Linear(2, 3)


try:
    Scaled().load_state_dict({"fc.weight": torch.zeros(4, 2), "fc.bias": torch.zeros(3),
                              "bogus": torch.zeros(1)})
except RuntimeError as e:
    load_state_dict_error = str(e)
expected = {
    "encoder_keys": list(encoder.state_dict()),
    "decoder_keys": list(decoder.state_dict()),
    "encoder_output_shape": list(encoder(torch.ones(5, 3, 8)).shape),
    "mask": [[str(v) for v in row] for row in mask.tolist()],
    "fused_keys": fused_keys,
    "fused_error": fused_error,
    "load_state_dict_error": load_state_dict_error,
}
out = Path(__file__).with_name("python_expected.json")
out.write_text(json.dumps(expected, indent=1) + "\n")
print(f"wrote {out}")
