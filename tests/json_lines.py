"""Writing generated case files (tests/nn/cases.json, tests/optim/cases.json,
borch-tensor/tests/random/cases.json, tests/trajectories/*.json) one case a line.

A generator that rewrites a one-line JSON file changes that whole line on every regeneration, so
its commit weighs the file's full size; written one case a line, a regeneration's diff is the
size of what changed. ``write(path, obj)`` puts each top-level key on its own line and each item
of a top-level list or dict (a case, a tensor, a loss) on its own line below it; deeper values
stay compact. The JSON is the same as ``json.dump(obj, f, separators=(",", ":"))`` wrote:
loading either gives equal objects.
"""

import json

COMPACT = {"separators": (",", ":")}


def encode(value, depth):
    """``value`` as JSON, with one item per line for containers within ``depth`` levels."""
    if depth == 0 or not isinstance(value, (dict, list)) or not value:
        return json.dumps(value, **COMPACT)
    if isinstance(value, dict):
        items = [f"{json.dumps(k)}:{encode(v, depth - 1)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n}"
    items = [encode(v, depth - 1) for v in value]
    return "[\n" + ",\n".join(items) + "\n]"


def write(path, obj):
    with open(path, "w") as f:
        f.write(encode(obj, 2))
        f.write("\n")
