# An MLP classifier: an nn.Module subclass with forward, nn.functional, CrossEntropyLoss, Adam and
# a StepLR schedule.
import borch_webgpu as torch
import borch_webgpu.nn.functional as F
from borch_webgpu import nn, optim


class MLP(nn.Module):
    def __init__(self, inputs, hidden, classes):
        super().__init__()
        self.fc1 = nn.Linear(inputs, hidden)
        self.fc2 = nn.Linear(hidden, classes)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


torch.manual_seed(0)
X = torch.randn(128, 8)
labels = (X @ torch.randn(8, 4)).argmax(dim=1)

model = MLP(8, 32, 4)
print(len(model.parameters()), [name for name, _ in model.named_parameters()])
opt = optim.Adam(model.parameters(), lr=0.01)
sched = optim.lr_scheduler.StepLR(opt, step_size=50, gamma=0.5)
loss_fn = nn.CrossEntropyLoss()
for step in range(151):
    opt.zero_grad()
    loss = loss_fn(model(X), labels)
    loss.backward()
    opt.step()
    sched.step()
    if step % 30 == 0:
        print(f"step {step:3d} loss {loss.item():.6f}")
model.eval()
with torch.no_grad():
    accuracy = (model(X).argmax(dim=1) == labels).float().mean().item()
print(f"accuracy {accuracy:.4f}")
