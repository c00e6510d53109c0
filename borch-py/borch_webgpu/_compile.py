"""``torch.compile(model_or_fn)``: borch-ts's ``compiled(...)``. The first call per input shapes
records the device work; later calls run the same Python but replay it (buffers and bind groups
reused), so results equal eager bit for bit. Read results (``item()``, ``tolist()``) outside the
compiled function: a read inside would have to suspend Python inside the call."""

from . import _bridge as b


class _Compiled:
    """What ``torch.compile`` returns: callable like the function or module (``forward`` too);
    a module's other attributes (``parameters()``, ``train()``, ``state_dict()``) are its own."""

    def __init__(self, target):
        object.__setattr__(self, "_target", target)
        object.__setattr__(self, "_proxy", b.proxy(self._run))
        object.__setattr__(self, "_js", b.bt.compiled(self._proxy))

    def _run(self, *js_args):
        return b.to_js_value(self._target(*(b.from_js(a) for a in js_args)))

    def __call__(self, *args):
        return b.call(self._js, args, {})

    forward = __call__

    def __getattr__(self, name):
        return getattr(self._target, name)


def compile(model=None, **options):
    """torch's ``torch.compile(model, *, fullgraph, dynamic, backend, mode, options, disable)``:
    the options choose among torch's compilers; borch has one (record and replay), which gives
    eager's results, so they change nothing. ``torch.compile(**options)`` without a model is a
    decorator."""
    return _Compiled(model) if model is not None else _Compiled
