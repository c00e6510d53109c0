"""``torch.utils.checkpoint``: ``checkpoint(function, *args, use_reentrant=False)`` forwards to
borch-ts's ``utils.checkpoint.checkpoint`` (the core's ``checkpoint_with_options``): ``function``
runs without keeping its intermediate values and runs again in the backward. borch has torch's
non-reentrant variant only: ``use_reentrant=True``, or leaving it out (torch then warns and runs
the reentrant one), is a NotImplementedError. An exception ``function`` raises, in the forward
or in the backward's recompute, comes out of the call (``loss.backward()``) as raised."""

from .. import _bridge as b


def _function(function):
    """``function`` as the core calls it: on borch-ts tensors (natively: the core's), returning
    one; released with its checkpoint node."""
    return b.releasable(lambda *args: b.to_js_value(function(*[b.from_js(a) for a in args])))


def checkpoint(function, *args, **kwargs):
    """torch's ``checkpoint(function, *args, use_reentrant=None, preserve_rng_state=True,
    determinism_check='default', debug=False, early_stop=True)``."""
    return b.call(b.bt.utils.checkpoint.checkpoint, (_function(function), *args), kwargs)


__all__ = ["checkpoint"]
