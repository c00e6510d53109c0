# Linear regression: nn.Linear, nn.MSELoss, optim.SGD, 101 steps, each in a memory scope.
import borch_webgpu as torch
from borch_webgpu import nn, optim

torch.manual_seed(0)
X = torch.randn(64, 3)
true_w = torch.tensor([[2.0], [-3.0], [0.5]])
y = X @ true_w + 1.0

model = nn.Linear(3, 1)
opt = optim.SGD(model.parameters(), lr=0.1)
loss_fn = nn.MSELoss()
for step in range(101):
    with torch.scope():
        opt.zero_grad()
        loss = loss_fn(model(X), y)
        loss.backward()
        opt.step()
        if step % 20 == 0:
            print(f"step {step:3d} loss {loss.item():.6f}")
print(model.weight)
