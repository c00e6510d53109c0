# Autograd: requires_grad, backward, .grad, and no_grad.
import borch_webgpu as torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = (x * x).sum()
y.backward()
print("dy/dx =", x.grad)  # 2x
w = torch.tensor([[0.5, -1.0, 2.0]], requires_grad=True)
z = torch.sigmoid(w @ x[:, None]).sum()
z.backward()
print("dz/dw =", w.grad)
print(f"z = {z.item():.6f}")
with torch.no_grad():
    q = x * 2
print("requires_grad under no_grad:", q.requires_grad)
