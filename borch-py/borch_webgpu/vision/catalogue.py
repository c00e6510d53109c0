"""borch's model catalogue (docs/vision.md, "Model catalogue"), forwarded to borch-ts's
``vision.catalogue``: ``load(url, cache=True)`` fetches the manifest and the weights file next to
it (kept in the browser's Cache API once verified, and verified again when read from there),
``load_from(manifest_json, weights)`` takes them from memory. Every check is the core's; the
result (``manifest``, ``model``, ``max_sample_diff``, ``source``, ``cached``, ``refused_cache``)
is returned only after all of them passed, else a RuntimeError ``catalogue '<name>': <step>:
<detail>``. Settled as ``item()`` settles its read (``runPythonAsync``)."""

from .. import _bridge as b


def load(url, *, cache=True):
    return b.call(b.bt.vision.catalogue.load, (url,), {"cache": cache})


def load_from(manifest_json, weights):
    return b.call(b.bt.vision.catalogue.loadFrom, (manifest_json, b.bytes_in(weights)), {})


__all__ = ["load", "load_from"]
