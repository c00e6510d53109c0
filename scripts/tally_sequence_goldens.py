#!/usr/bin/env python3
"""Counts the torch-frozen cases of issue 14's families (attention, transformer, recurrent, LoRA,
checkpoint) in the committed fixtures, by family and file, and prints the total:

    python3 scripts/tally_sequence_goldens.py

A case is one entry a runner checks on its own (a golden case is one forward or one backward; a
forward case of tests/nn/*.json is one module call with its output and every gradient; a LoRA
group is one item of a list, or one entry of a dict, of lora_cases.json). Reads JSON only: no torch needed.
"""
import collections
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RECURRENT = {"RNN", "LSTM", "GRU", "RNNCell", "LSTMCell", "GRUCell"}
ATTENTION = {"MultiheadAttention"}
TRANSFORMER = {"TransformerEncoderLayer", "TransformerDecoderLayer", "TransformerEncoder",
               "TransformerDecoder", "Transformer"}


def family(module_type):
    for name, types in [("recurrent", RECURRENT), ("attention", ATTENTION), ("transformer", TRANSFORMER)]:
        if module_type in types:
            return name
    return None


def load(path):
    return json.loads((ROOT / path).read_text())


def main():
    rows = collections.Counter()  # (family, where) -> cases
    g = load("tests/golden/golden.json")
    for c in g["cases"]:
        if c["family"].startswith("attention"):
            rows[("attention", f"tests/golden/golden.json ({c['family']}.py)")] += 1

    def module_cases(path, sections):
        if not (ROOT / path).exists():
            return
        d = load(path)
        for section in sections:
            for c in d.get(section, []):
                types = [m["type"] for m in c["modules"]] if "modules" in c else [c["module"]["type"]]
                fam = next((family(t) for t in types if family(t)), None)
                if fam:
                    rows[(fam, f"{path} {section}")] += 1

    module_cases("tests/nn/cases.json", ["forward", "init", "structure", "recurrent_errors"])
    module_cases("tests/nn/sequence_sweep.json", ["forward"])
    for path in ["tests/nn/rnn_packed_cases.json", "tests/nn/rnn_utils_cases.json",
                 "tests/nn/rnn_double_backward.json"]:
        rows[("recurrent", path)] += len(load(path)["cases"])
    lora = load("tests/nn/lora_cases.json")
    for k, v in lora.items():
        if isinstance(v, (list, dict)):  # a list's items, a dict's entries (its groups)
            rows[("checkpoint" if k == "checkpoint" else "lora", f"tests/nn/lora_cases.json {k}")] += len(v)

    by_family = collections.Counter()
    for (fam, where), n in sorted(rows.items()):
        print(f"{fam:12} {n:5}  {where}")
        by_family[fam] += n
    print()
    for fam, n in sorted(by_family.items()):
        print(f"{fam:12} {n:5}")
    print(f"{'total':12} {sum(by_family.values()):5}")


if __name__ == "__main__":
    main()
