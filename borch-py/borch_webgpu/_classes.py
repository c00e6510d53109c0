"""Python classes for borch-ts's classes (``nn.Linear``, ``optim.SGD``, ``StepLR``, ...): made on
first use from the JavaScript class of the same name; the constructor and every method forward."""

from . import _bridge as b


def js_class(namespace, name, where, base):
    """The Python class forwarding to ``namespace[name]`` (cached on first use)."""
    cache = CLASSES.setdefault(where, {})
    if name not in cache:
        js_cls = getattr(namespace, name, None) if namespace is not None else None
        if js_cls is None:
            raise AttributeError(
                f"module '{where}' has no attribute '{name}' — borch-ts does not have '{name}'"
            )
        cache[name] = JsClass(name, (base,), {"_js_class": js_cls, "__module__": where})
    return cache[name]


CLASSES = {}


class JsClass(type):
    """The class of a borch-ts class: its static methods (``nn.Transformer.
    generate_square_subsequent_mask``) forward by name to the JavaScript class's."""

    def __getattr__(cls, name):
        return b.attribute(None, cls.__dict__["_js_class"], name, f"type object '{cls.__name__}'")


class JsBacked(b.JsObject):
    """An instance of a borch-ts class: constructed with converted arguments (keyword arguments
    as a trailing plain object); attributes forward by name."""

    _js_class = None

    def __init__(self, *args, **kwargs):
        try:
            js_obj = self._js_class.new(
                *[b.to_js_value(a) for a in args], *([b.keywords(kwargs)] if kwargs else [])
            )
        except b.JsException as e:
            b.reraise(e)
        object.__setattr__(self, "_js", js_obj)
