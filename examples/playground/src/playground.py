"""``from playground import plot, load_digits`` in the playground's Python mode: the page's
hooks. ``plot(value, name="loss")`` adds a point to the live chart; ``load_digits()`` gives the
bundled 8x8 digits as ``(X, y)``: X of shape (1797, 1, 8, 8), float32 in [0, 1], y int64 (like
scikit-learn's ``load_digits(return_X_y=True)``, as tensors)."""

import _playground_js
import borch_webgpu as torch


def plot(value, name="loss"):
    _playground_js.plot(float(value), name)


def load_digits():
    pixels, labels = _playground_js.digits()
    X = torch.tensor(pixels, dtype=torch.float32).reshape(-1, 1, 8, 8)
    y = torch.tensor(labels, dtype=torch.int64)
    return X, y
