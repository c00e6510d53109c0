"""``torch.utils.checkpoint``: ``checkpoint(function, *args, use_reentrant=False)`` forwards to
borch-ts's ``utils.checkpoint.checkpoint`` (the core's ``checkpoint_with_options``): ``function``
runs without keeping its intermediate values and runs again in the backward. borch has torch's
non-reentrant variant only: ``use_reentrant=True``, or leaving it out (torch then warns and runs
the reentrant one), is a NotImplementedError. An exception ``function`` raises, in the forward
or in the backward's recompute, comes out of the call (``loss.backward()``) as raised."""

from pyodide.ffi import create_proxy

from .. import _bridge as b

# One JavaScript function per Python function (bound methods of one object compare equal), kept:
# borch-ts calls it again in the backward, after checkpoint() has returned.
_proxies = {}


def _proxy(function):
    """``function`` as a JavaScript function of borch-ts tensors returning one."""
    try:
        return _proxies[function]
    except KeyError:
        proxy = _proxies[function] = _wrap(function)
        return proxy
    except TypeError:  # an unhashable callable: its own proxy each call
        return _wrap(function)


def _wrap(function):
    return create_proxy(lambda *js_args: b.to_js_value(function(*[b.from_js(a) for a in js_args])))


def checkpoint(function, *args, **kwargs):
    """torch's ``checkpoint(function, *args, use_reentrant=None, preserve_rng_state=True,
    determinism_check='default', debug=False, early_stop=True)``."""
    return b.call(b.bt.utils.checkpoint.checkpoint, (_proxy(function), *args), kwargs)


__all__ = ["checkpoint"]
