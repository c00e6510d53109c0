"""``torchvision`` for borch_webgpu: ``vision.models`` forwards by name to borch-ts's
``vision.models`` (generated from borch-vision's model catalog). ``import borch_webgpu.vision as
torchvision`` then ``torchvision.models.resnet18(num_classes=10)`` reads as torchvision code.
``vision.transforms`` forwards to borch-ts's ``vision.transforms`` (borch-vision's transform
catalog). ``vision.catalogue`` is borch's verified model catalogue (borch-ts's ``vision.catalogue``)."""

from . import catalogue, datasets, models, transforms

__all__ = ["catalogue", "datasets", "models", "transforms"]
