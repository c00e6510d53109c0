"""torch.nn.utils.rnn.pad_sequence frozen from torch for borch-nn/tests/rnn_utils.rs: the
sequences, the keyword arguments, the output, and each sequence's gradient of
sum(output * gout); or torch's exception. One case a line.
Run: python3 tests/nn/rnn_utils_cases.py"""

import json
import os

import torch
from torch.nn.utils.rnn import pad_sequence

HERE = os.path.dirname(os.path.abspath(__file__))
GEN = torch.Generator().manual_seed(5)


def enc(t):
    return {"shape": list(t.shape), "dtype": str(t.dtype).replace("torch.", ""),
            "data": t.detach().reshape(-1).tolist()}


def case(name, shapes, dtype=torch.float32, **kw):
    seqs = []
    for s in shapes:
        t = torch.randn(*s, generator=GEN)
        t = (t * 5).to(dtype) if dtype != torch.float32 else t
        seqs.append(t.requires_grad_(dtype == torch.float32))
    c = {"name": name, "sequences": [enc(s) for s in seqs], "kwargs": kw}
    try:
        y = pad_sequence(seqs, **kw)
    except Exception as e:
        c["error"] = {"type": type(e).__name__, "message": str(e)}
        return c
    c["output"] = enc(y)
    if dtype == torch.float32:
        gout = torch.randn(*y.shape, generator=GEN)
        (y * gout).sum().backward()
        c["gout"] = enc(gout)
        c["grads"] = [enc(s.grad) for s in seqs]
    return c


def main():
    cases = [
        case("right", [(3, 2), (1, 2), (2, 2)]),
        case("batch_first", [(3, 2), (1, 2), (2, 2)], batch_first=True),
        case("left", [(3, 2), (1, 2), (2, 2)], padding_side="left"),
        case("left_batch_first_value", [(2,), (4,), (1,)], batch_first=True,
             padding_side="left", padding_value=-1.5),
        case("value", [(1, 2, 3), (3, 2, 3)], padding_value=7.0),
        case("one", [(2, 3)]),
        case("equal", [(2, 3), (2, 3)], batch_first=True),
        case("empty_sequence", [(0, 2), (2, 2)]),
        case("int64", [(2,), (3,)], dtype=torch.int64, padding_value=1.5),
        case("err_empty", []),
        case("err_side", [(2,)], padding_side="middle"),
        case("err_trailing", [(2, 3), (2, 4)]),
    ]
    path = os.path.join(HERE, "rnn_utils_cases.json")
    with open(path, "w") as f:
        f.write('{"torch": "%s", "cases": [\n' % torch.__version__)
        f.write(",\n".join(json.dumps(c, separators=(",", ":")) for c in cases))
        f.write("\n]}\n")
    print(f"{path}: {len(cases)} cases")


if __name__ == "__main__":
    main()
