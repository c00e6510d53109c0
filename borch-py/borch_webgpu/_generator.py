"""``torch.Generator``: borch-ts's ``Generator`` (a CPU Mersenne Twister of its own, seeded as
torch's), for the ``generator=`` of samplers, ``random_split`` and ``DataLoader``."""

from . import _bridge as b
from ._classes import JsBacked


class Generator(JsBacked):
    """``Generator()``; ``manual_seed(seed)`` returns the generator, as torch's does."""

    @property
    def _js_class(self):
        return b.bt.Generator

    def manual_seed(self, seed):
        b.call(self._js.manualSeed, (seed,), {})
        return self
