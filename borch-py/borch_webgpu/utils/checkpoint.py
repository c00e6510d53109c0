"""``torch.utils.checkpoint``: ``checkpoint(function, *args, use_reentrant=False)`` forwards to
borch-ts's ``utils.checkpoint.checkpoint`` (the core's ``checkpoint_with_options``): ``function``
runs without keeping its intermediate values and runs again in the backward. borch has torch's
non-reentrant variant only: ``use_reentrant=True``, or leaving it out (torch then warns and runs
the reentrant one), is a NotImplementedError. An exception ``function`` raises, in the forward
or in the backward's recompute, comes out of the call (``loss.backward()``) as raised."""

from pyodide.code import run_js
from pyodide.ffi import create_proxy

from .. import _bridge as b

# A JavaScript function over the proxy of the Python callable, which borch-ts calls again in the
# backward (after checkpoint() has returned): its borchRelease destroys the proxy when the core
# drops the function with its checkpoint node.
_RELEASABLE = run_js(
    "(py) => Object.assign((...args) => py(...args), { borchRelease: () => py.destroy() })"
)


def _function(function):
    """``function`` as a JavaScript function of borch-ts tensors returning one."""
    proxy = create_proxy(lambda *js_args: b.to_js_value(function(*[b.from_js(a) for a in js_args])))
    return _RELEASABLE(proxy)


def checkpoint(function, *args, **kwargs):
    """torch's ``checkpoint(function, *args, use_reentrant=None, preserve_rng_state=True,
    determinism_check='default', debug=False, early_stop=True)``."""
    return b.call(b.bt.utils.checkpoint.checkpoint, (_function(function), *args), kwargs)


__all__ = ["checkpoint"]
