"""The golden suite through borch_webgpu (Python in Pyodide, forwarding to borch-ts), or
through the native wheel borch-wgpu (``import borch as torch``, golden[pynative]: run by
tests/golden/golden_native.py), whose Python layer is the same.

Every case of tests/golden/golden.json (frozen from real torch) is run through the Python
surface, ``import borch_webgpu as torch``, as tests/golden/bindings.json says, with the same case
names and semantics as the JavaScript runner (tests/browser/pages/golden.mjs) and the tolerances of
the Rust runner (borch-goldens/tests/golden/compare.rs): atol = rtol = 1e-4 for float32 (expected
values rounded to f32), NaN matches NaN, infinities exactly, int64 and bool exactly; dtype and
shape must match; an expected error agrees when it came from borch, its Python class is torch's
exception class and one message contains the other.

Views are the Python method calls (``t.t()``, ``t.slice(...)``, ...); backward cases set
``requires_grad = True`` on the float bases, call ``out[0].backward(grad_output)`` and compare
each base's ``.grad``. Each case runs inside ``with torch.scope():`` so memory stays flat.

Run by tests/browser/pages/golden_py.mjs with ``runPythonAsync`` (reads use ``run_sync``):

    import golden_runner
    golden_runner.run(golden_text, bindings_text, adapter="...", log=print)

Pure Python: the only import of the project is borch_webgpu (or, where it is not installed,
borch: the native wheel).
"""

import json
import time
from array import array

try:
    import borch_webgpu as torch
except ModuleNotFoundError:  # the native wheel (borch-wgpu): the same Python layer
    import borch as torch

ATOL = 1e-4
RTOL = 1e-4
TORCH_ERRORS = ("RuntimeError", "IndexError", "TypeError", "ValueError", "NotImplementedError")
SPECIAL = {"nan": float("nan"), "inf": float("inf"), "-inf": float("-inf")}
# This runner's surface as bindings.json's ``surfaces`` names it: "python" in Pyodide, "pynative"
# through the native wheel (whose reads block, so a browser-only reason does not hold there).
SURFACE = "python" if torch._bridge.BACKEND == "pyodide" else "pynative"


class NotExpressible(Exception):
    """Reported as "not implemented", with the reason, instead of being run."""


def num(v):
    """A golden value as Python's: "nan", "inf", "-inf" strings are those floats; anything else
    (ints, floats, booleans, other strings, None) unchanged."""
    if isinstance(v, str):
        return SPECIAL.get(v, v)
    return v


def arg_value(v):
    if isinstance(v, list):
        return [arg_value(x) for x in v]
    return num(v)


def nest(flat, shape):
    if not shape:
        return flat[0]
    it = iter(flat)

    def rows(dims):
        if not dims:
            return next(it)
        return [rows(dims[1:]) for _ in range(dims[0])]

    return rows(list(shape))


def dtype_of(name):
    return {"float32": torch.float32, "int64": torch.int64, "bool": torch.bool}[name]


def make_tensor(enc):
    """An encoded tensor {dtype, shape, data} as a leaf: torch.tensor(data, dtype=...); an empty
    one as torch.zeros(shape, dtype=...) (nested lists cannot say [0, 3])."""
    shape = enc["shape"]
    numel = 1
    for d in shape:
        numel *= d
    dt = dtype_of(enc["dtype"])
    if numel == 0:
        return torch.zeros(shape, dtype=dt)
    flat = [num(x) for x in enc["data"]]
    return torch.tensor(nest(flat, shape), dtype=dt)


def apply_view(t, step):
    name, *args = step
    method = getattr(t, name)
    return method(*[num(a) for a in args])


# Catalog entries that Python reaches through its subscript protocol: ``t[key]`` (``index``, and
# ``index_async`` for a boolean mask) and ``t[key] = value`` (``__setitem__``).
SUBSCRIPTS = ("index", "index_async", "__setitem__")


def subscript_item(item):
    """A golden subscript item as Python writes it: [start, stop, step] is a slice, "..." is
    Ellipsis; ints, None and tensors as they are."""
    if isinstance(item, list) and len(item) == 3:
        return slice(*item)
    if isinstance(item, str) and item == "...":
        return Ellipsis
    return item


def subscripted(name, t, positional, keywords):
    args = dict(zip(("indices", "value"), positional), **keywords)
    key = tuple(subscript_item(i) for i in args["indices"])
    if name == "__setitem__":
        t[key] = args["value"]
        return t
    return t[key]


class Runner:
    def __init__(self, bindings):
        self.bindings = bindings

    # ---- building inputs ------------------------------------------------------------------

    def build_inputs(self, inputs, requires_grad):
        values, bases = [], []
        for inp in inputs:
            if "scalar" in inp:
                s = inp["scalar"]
                values.append(bool(s) if inp["kind"] == "bool" else num(s))
                bases.append(None)
                continue
            base = make_tensor(inp["tensor"])
            is_float = inp["tensor"]["dtype"] == "float32"
            if requires_grad and is_float:
                base.requires_grad = True
            t = base
            for step in inp.get("view") or []:
                t = apply_view(t, step)
            values.append(t)
            bases.append(base if is_float else None)
        return values, bases

    # ---- calling through the catalog, as bindings.json says --------------------------------

    def binding_of(self, op):
        """The op's rule: its prefix's (with `name`, the op's name after the prefix), then its own keys."""
        own = self.bindings["ops"].get(op) or {}
        for prefix, pb in (self.bindings.get("prefixes") or {}).items():
            if op.startswith(prefix):
                return {**pb, "name": op[len(prefix):], **own}
        return own

    @staticmethod
    def invoke(name, form, self_tensor, positional, keywords, namespace=None):
        if name in SUBSCRIPTS and isinstance(self_tensor, torch.Tensor):
            return subscripted(name, self_tensor, positional, keywords)
        if form == "function":
            owner = torch
            for part in (namespace or "").split("."):
                if part:
                    owner = getattr(owner, part)
            fn = getattr(owner, name)
            return fn(*positional, **keywords)
        if not isinstance(self_tensor, torch.Tensor):
            raise RuntimeError(f"{name}: input 0 is not a tensor")
        return getattr(self_tensor, name)(*positional, **keywords)

    def call_op(self, c, values):
        b = self.binding_of(c["op"])
        applies = "surfaces" not in b or SURFACE in b["surfaces"]
        if applies and "not_implemented" in b:
            raise NotExpressible(b["not_implemented"])
        when = b.get("not_implemented_when") if applies else None
        if when and all(num(c["args"].get(k)) == v for k, v in when["args"].items()):
            raise NotExpressible(when["reason"])
        if "seed" in c["args"]:
            torch.manual_seed(num(c["args"]["seed"]))
        seq = b.get("sequence")
        if seq:
            if "calls" in seq:
                calls = seq["calls"]
            else:
                calls = [
                    {"call": seq["call"], "form": seq.get("form"), "args": {seq["as"]: item}}
                    for item in c["args"][seq["over"]]
                ]
            outs = []
            for k in calls:
                kw = {n: arg_value(v) for n, v in k["args"].items()}
                self_tensor = values[0] if values else None
                outs.append(self.invoke(k["call"], k.get("form") or "method", self_tensor, [], kw))
            return outs
        form = b.get("form", "method")
        # Inputs present only when a flag arg is true (`has_bias`), passed by keyword; the flags are
        # not arguments. `detach_inputs` flags detach an input before the call.
        optional = list((b.get("optional_inputs") or {}).items())
        detach = list((b.get("detach_inputs") or {}).items())
        flags = {flag for flag, _ in optional + detach}
        values = list(values)
        for flag, i in detach:
            if c["args"].get(flag) is True:
                values[i] = values[i].detach()
        present = [(flag, param) for flag, param in optional if c["args"].get(flag) is True]
        optional_values = values[len(values) - len(present):] if present else []
        if present:
            values = values[: len(values) - len(present)]
        # input_refs: an arg {"input": k} is input k, which is then passed only there.
        refs = set()

        def arg(v):
            if isinstance(v, dict) and "input" in v:
                refs.add(v["input"])
                return values[v["input"]]
            if isinstance(v, list):
                return [arg(x) for x in v]
            return arg_value(v)

        named_positional = b.get("positional") or []
        positional = [arg(c["args"][n]) for n in named_positional]
        keywords = {}
        for n, v in c["args"].items():
            if n == "seed" or n in flags or n in named_positional:
                continue
            keywords[(b.get("rename") or {}).get(n, n)] = arg(v)
        keywords.update(b.get("fixed") or {})
        values = [v for i, v in enumerate(values) if i not in refs]
        self_tensor = None
        inputs = b.get("inputs")
        if inputs == "list":
            positional.insert(len(positional) if b.get("args_first") else 0, list(values))
        elif isinstance(inputs, list):
            for name, v in zip(inputs, values):
                if name == "self":
                    self_tensor = v
                else:
                    keywords[name] = v
        elif form == "function":
            positional = list(values) + positional
        else:
            self_tensor = values[0] if values else None
            positional = list(values[1:]) + positional
        for (_, param), v in zip(present, optional_values):
            keywords[param] = v
        name = b.get("call") or b.get("name") or c["op"]
        result = self.invoke(name, form, self_tensor, positional, keywords, b.get("namespace"))
        return list(result) if isinstance(result, (list, tuple)) else [result]

    # ---- one case --------------------------------------------------------------------------

    def run_forward(self, c):
        values, _ = self.build_inputs(c["inputs"], False)
        got = data = error = None
        try:
            got = self.call_op(c, values)
            # Index errors found on the GPU arrive at the next readback (as on CUDA).
            data = [t.tolist() for t in got]
        except NotExpressible:
            raise
        except Exception as e:  # noqa: BLE001 (any error is compared with torch's)
            error = e
        if error is None and c.get("expect") is not None:
            return outcome(compare_outputs(got, data, c["expect"]))
        if error is not None and c.get("error"):
            return outcome(compare_error(error, c["error"]))
        if error is None and c.get("error"):
            return outcome(f"succeeded but torch raised {c['error'].get('type')}")
        if error is not None and c.get("expect") is not None:
            return outcome(f"failed: {describe_error(error)}")
        return "case has neither expect nor error"

    def run_backward(self, c):
        values, bases = self.build_inputs(c["inputs"], True)
        try:
            outputs = self.call_op(c, values)
        except NotExpressible:
            raise
        except Exception as e:  # noqa: BLE001
            return outcome(f"forward failed: {describe_error(e)}")
        if not outputs or not isinstance(outputs[0], torch.Tensor):
            return outcome("no output")
        first = outputs[0]
        if not first.requires_grad:
            return outcome("not implemented yet: the op records no autograd node")
        try:
            first.backward(make_tensor(c["grad_output"]))
        except Exception as e:  # noqa: BLE001
            return outcome(f"backward: {describe_error(e)}")
        for i, (base, want) in enumerate(zip(bases, c["grads"])):
            got = base.grad if base is not None else None
            if not isinstance(got, torch.Tensor):
                got = None
            if got is None and want is None:
                continue
            if got is not None and want is None:
                return outcome(f"input {i} got a gradient, torch none")
            if got is None:
                return outcome(f"input {i} got no gradient")
            try:
                data = [got.tolist()]
            except Exception as e:  # noqa: BLE001
                return outcome(f"grad of input {i}: readback failed: {describe_error(e)}")
            why = compare_outputs([got], data, [want])
            if why:
                return outcome(f"grad of input {i}: {why}")
        return None

    def run_case(self, c):
        """None (agrees), a string (why not), or ("missing", reason) for what cannot run."""
        try:
            with torch.scope():
                if c.get("kind") == "backward":
                    return self.run_backward(c)
                return self.run_forward(c)
        except NotExpressible as e:
            return ("missing", str(e))
        except Exception as e:  # noqa: BLE001
            return f"threw: {describe_error(e)}"


# ---- comparing, as compare.rs ----------------------------------------------------------------


def flatten(v, into):
    if isinstance(v, (list, tuple)):
        for x in v:
            flatten(x, into)
    elif isinstance(v, bool):
        into.append(1 if v else 0)
    else:
        into.append(v)
    return into


def f32(x):
    """x rounded to float32 (out of range -> infinity, as Rust's `as f32`)."""
    return array("f", [x])[0]


def wanted(enc):
    if enc["dtype"] == "float32":
        return [f32(num(x)) for x in enc["data"]]
    if enc["dtype"] == "bool":
        return [1 if x is True else 0 for x in enc["data"]]
    return [num(x) for x in enc["data"]]


def compare_values(have, want, exact):
    for k, (a, b) in enumerate(zip(have, want)):
        if exact:
            ok = a == b
        elif b != b:
            ok = a != a
        elif b in (float("inf"), float("-inf")):
            ok = a == b
        else:
            ok = abs(a - b) <= ATOL + RTOL * abs(b)
        if not ok:
            return f"element {k}: {a} but torch {b}"
    return None


def compare_outputs(got, data, expect):
    if len(got) != len(expect):
        return f"{len(got)} outputs, torch gave {len(expect)}"
    for i, (g, d, e) in enumerate(zip(got, data, expect)):
        if not isinstance(g, torch.Tensor):
            return f"output {i}: {type(g).__name__}, not a Tensor"
        dt = g.dtype.name
        if dt != e["dtype"]:
            return f"output {i}: dtype {dt} but torch {e['dtype']}"
        shape = list(g.shape)
        if shape != list(e["shape"]):
            return f"output {i}: shape {shape} but torch {list(e['shape'])}"
        why = compare_values(flatten(d, []), wanted(e), e["dtype"] != "float32")
        if why:
            return f"output {i}: {why}"
    return None


def borch_kind(e):
    """The ``kind`` of the borch-ts error that borch_webgpu re-raised as ``e`` (it raises torch's
    class from the JavaScript error, whose exception stays as ``__context__``), or None for an
    error that did not come from borch."""
    ctx = e.__context__
    if ctx is not None and type(ctx).__name__ == "NativeError" and len(ctx.args) == 2:
        return ctx.args[0]  # the native module's NativeError(kind, message)
    if ctx is None or type(ctx).__name__ != "JsException":
        return None
    err = getattr(ctx, "js_error", ctx)
    kind = getattr(err, "kind", None)
    return kind if isinstance(kind, str) else None


def describe_error(e):
    if borch_kind(e):
        return f"{type(e).__name__}: {e}"
    return f"{type(e).__name__} (not from borch): {e}"


def compare_error(e, expect):
    torch_type = expect.get("type") or ""
    contains = expect.get("contains") or ""
    message = str(e)
    if not (borch_kind(e) and torch_type in TORCH_ERRORS and type(e).__name__ == torch_type):
        origin = "" if borch_kind(e) else ", not from borch"
        return f"error {type(e).__name__}{origin} ({message}) but torch raised {torch_type}"
    if contains not in message and message not in contains:
        return f"message «{message}» but torch said «{contains}»"
    return None


def outcome(why):
    if why is None:
        return None
    if "borch has no" in why or "not implemented yet" in why:
        return ("missing", why)
    return why


# ---- the suite -------------------------------------------------------------------------------


def select(cases, every):
    """Every ``every``-th case of each op and kind (forward, backward: its first, then each
    ``every``-th after), in file order: a deterministic subset that keeps every op in both
    directions. ``every`` 1 is all of them."""
    if every <= 1:
        return cases
    seen = {}
    chosen = []
    for c in cases:
        key = (c["op"], c.get("kind"))
        n = seen.get(key, 0)
        seen[key] = n + 1
        if n % every == 0:
            chosen.append(c)
    return chosen


def run(golden_text, bindings_text, adapter="", filter="", verbose=False, every=1, log=print,
        label="golden[py]"):
    """Run the suite; logs the disagreements (first 30), the not-implemented groups and the
    summary line; returns {"ok", "summary", ...}."""
    started = time.perf_counter()
    bindings = json.loads(bindings_text)
    golden = json.loads(golden_text)
    runner = Runner(bindings)
    everything = [c for c in golden["cases"] if filter in c["name"]]
    cases = select(everything, every)
    loaded = time.perf_counter()
    agree = backward_agree = backward_total = 0
    disagreements = []
    missing = {}
    for c in cases:
        is_backward = c.get("kind") == "backward"
        backward_total += is_backward
        verdict = runner.run_case(c)
        if verdict is None:
            agree += 1
            backward_agree += is_backward
            said = "agrees"
        elif isinstance(verdict, tuple):
            key = f"{c['family']}:{c['op']}: {verdict[1]}"
            missing[key] = missing.get(key, 0) + 1
            said = f"not implemented ({verdict[1]})"
        else:
            disagreements.append(f"{c['name']}: {verdict}")
            said = verdict
        if verbose:
            log(f"case {c['name']}: {said}")
    seconds = time.perf_counter() - started
    for d in disagreements[:30]:
        log(f"DISAGREE {d}")
    if len(disagreements) > 30:
        log(f"… and {len(disagreements) - 30} more disagreements")
    for key, count in missing.items():
        log(f"not implemented ({count}): {key}")
    total = len(cases)
    missing_count = sum(missing.values())
    scope = (f" (a subset: every {every}th case of each op and kind, of {len(everything)})"
             if every > 1 else "")
    line = (
        f"{label}: {agree} agreeing / {total} cases{scope}, {missing_count} not implemented, "
        f"{len(disagreements)} disagreeing (forward {agree - backward_agree} / "
        f"{total - backward_total}, backward {backward_agree} / {backward_total}) [{adapter}]"
    )
    log(line)
    memory = torch.memory()
    log(
        f"{label}: {seconds:.1f} s (loading {loaded - started:.1f} s)"
        + (f', filter "{filter}"' if filter else "")
        + f"; memory after: {json.dumps(memory if isinstance(memory, dict) else str(memory))}"
    )
    return {
        "ok": not disagreements and total > 0,
        "summary": line,
        "seconds": seconds,
        "disagreeing": len(disagreements),
    }
