# Tensors: creation, dtypes, views and subscripts, arithmetic, reductions. Unchanged PyTorch code
# apart from the import.
import borch_webgpu as torch

x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
print(x)
print(x.shape, x.dtype)
print(x[1:, ::2])
print(x[..., None].shape)
print(x[0], f"{x[-1, 1].item():.1f}")
y = torch.arange(6).view(2, 3)
print(y, y.dtype)
print(x + y * 2)
print((x @ x.t()).sum(dim=1))
print(f"{x.mean().item():.6f} {x.std().item():.6f}")
print(x > 2.5)
print(torch.zeros(2, 2, dtype=torch.int64))
print(torch.cuda.is_available())
