# Tensors: creation, shape and dtype, subscripts, broadcasting, matmul, reductions, comparisons.
import borch_webgpu as torch

x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
print(x)
print(x.shape, x.dtype)
print(x[1:, ::2])
y = torch.arange(6).view(2, 3)
print(y, y.dtype)
print(x + y * 2)
print((x @ x.t()).sum(dim=1))
print(f"mean {x.mean().item():.6f} std {x.std().item():.6f}")
print(x > 2.5)
print(torch.softmax(x, dim=1))
