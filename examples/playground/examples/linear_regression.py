# Linear regression: nn.Linear, MSELoss and SGD recover y = 2a - 3b + 0.5c + 1 from 64 samples;
# each step runs in a memory scope, and plot() draws the loss as it trains.
import borch_webgpu as torch
from borch_webgpu import nn, optim
from playground import plot

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
        plot(loss.item())
        if step % 20 == 0:
            print(f"step {step:3d} loss {loss.item():.6f}")
print("weight", model.weight)
print("bias", model.bias)
