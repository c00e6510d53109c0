"""Grad mode and memory scopes as Python context managers, forwarding to borch-ts's
``setGradEnabled`` and ``enterScope``/``exit``."""

import functools

from . import _bridge as b


class set_grad_enabled:
    """torch's ``set_grad_enabled(mode)``: a context manager and decorator."""

    def __init__(self, mode):
        self.mode = mode
        self.previous = []

    def __enter__(self):
        self.previous.append(b.bt.setGradEnabled(self.mode))
        return self

    def __exit__(self, *exc):
        b.bt.setGradEnabled(self.previous.pop())
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapped(*args, **kwargs):
            with set_grad_enabled(self.mode):
                return fn(*args, **kwargs)

        return wrapped


class no_grad(set_grad_enabled):
    """torch's ``no_grad()``: ``with torch.no_grad():`` or ``@torch.no_grad()``."""

    def __init__(self):
        super().__init__(False)


class enable_grad(set_grad_enabled):
    """torch's ``enable_grad()``."""

    def __init__(self):
        super().__init__(True)


class scope:
    """``with torch.scope() as s:``: tensors made inside are released at the end, except those
    kept with ``s.keep(t)`` (handed to the enclosing scope) or ``torch.keep_alive(t)``."""

    def __enter__(self):
        self._js = b.bt.enterScope()
        return self

    def keep(self, t):
        return b.call(self._js.keep, (t,), {})

    def __exit__(self, *exc):
        self._js.exit()
        return False
