# Autograd: requires_grad, backward, .grad, no_grad as a context manager and a decorator.
import borch_webgpu as torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = (x * x).sum()
y.backward()
print(x.grad)
w = torch.tensor([[0.5, -1.0, 2.0]], requires_grad=True)
z = torch.sigmoid(w @ x[:, None]).sum()
z.backward()
print(w.grad)
print(f"{z.item():.6f}")

with torch.no_grad():
    q = x * 2
print(q.requires_grad)


@torch.no_grad()
def shifted(t):
    return t + 1


print(shifted(x).requires_grad, (x + 1).requires_grad)
print(x)
