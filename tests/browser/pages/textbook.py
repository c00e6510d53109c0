# A textbook PyTorch program, run by the micropip page after micropip.install(wheel URL): only the
# imports name borch_webgpu (python_idioms_expected.py runs it with `import torch` to record
# torch's output). A Module subclass inside nn.Sequential, print(model), torch.device and .to,
# a training loop whose loss falls, loss.grad_fn, load_state_dict into a fresh model.
import borch_webgpu as torch
from borch_webgpu import nn


class Residual(nn.Module):
    """x + tanh(fc(x)): a Module subclass used inside nn.Sequential."""

    def __init__(self, width):
        super().__init__()
        self.fc = nn.Linear(width, width)
        self.act = nn.Tanh()

    def forward(self, x):
        return x + self.act(self.fc(x))


def make_model():
    return nn.Sequential(nn.Linear(2, 16), Residual(16), nn.ReLU(), nn.Linear(16, 1))


torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = make_model().to(device)
print(model)

x = torch.randn(128, 2).to(device)
y = x[:, :1] * x[:, 1:]
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
loss_fn = nn.MSELoss()
for epoch in range(80):
    model.train()
    opt.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    nn.utils.clip_grad_norm_(model.parameters(), max_norm=5.0)
    opt.step()
    if epoch % 10 == 0 or epoch == 79:
        print(f"epoch {epoch:2d} loss {loss.item():.6f}")

print(loss.grad_fn)

model.eval()
restored = make_model()
print(restored.load_state_dict(model.state_dict()))
with torch.no_grad():
    probe = torch.tensor([[0.5, -1.0], [1.0, 1.0]]).to(device)
    same = (model(probe) == restored(probe)).all().item()
print("restored model gives the same outputs:", same)
