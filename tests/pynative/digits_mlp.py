"""A textbook training script on the bundled digits (data/digits/digits.csv.gz, 8×8 images of
10 digits): torchvision-style dataset with a transform, a shuffled DataLoader, an nn.Module
subclass, CrossEntropyLoss, SGD with momentum, a StepLR schedule, evaluation under no_grad and
torch.save / torch.load — PyTorch code where only the imports name borch. Run by scripts/test
in the fresh virtualenv (the wheel alone); prints the loss per epoch and the test accuracy."""

import pathlib
import tempfile

import borch as torch
import borch.vision as torchvision
from borch import nn, optim
from borch.utils.data import DataLoader, random_split

ROOT = pathlib.Path(__file__).resolve().parents[2]


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.fc1 = nn.Linear(64, 64)
        self.fc2 = nn.Linear(64, 10)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(self.flatten(x))))


torch.manual_seed(0)
normalize = torchvision.transforms.Normalize((0.5,), (0.5,))
digits = torchvision.datasets.Digits.from_bytes((ROOT / "data/digits/digits.csv.gz").read_bytes(),
                                                transform=normalize)
train_set, test_set = random_split(digits, [0.8, 0.2], generator=torch.Generator().manual_seed(0))
train_loader = DataLoader(train_set, batch_size=64, shuffle=True)
test_loader = DataLoader(test_set, batch_size=256)

model = MLP()
loss_fn = nn.CrossEntropyLoss()
opt = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
sched = optim.lr_scheduler.StepLR(opt, step_size=4, gamma=0.5)
for epoch in range(8):
    model.train()
    total, batches = 0.0, 0
    for x, y in train_loader:
        with torch.scope():
            opt.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            opt.step()
            total += loss.item()
            batches += 1
    sched.step()
    print(f"epoch {epoch} loss {total / batches:.4f}")

model.eval()
correct = seen = 0
with torch.no_grad():
    for x, y in test_loader:
        correct += (model(x).argmax(dim=1) == y).sum().item()
        seen += len(y)
accuracy = correct / seen
print(f"test accuracy {accuracy:.4f} on {seen} digits ({len(train_set)} trained on)")

checkpoint = pathlib.Path(tempfile.mkdtemp()) / "digits-mlp.safetensors"
torch.save(model.state_dict(), checkpoint)
restored = MLP()
restored.load_state_dict(torch.load(checkpoint))
x, _ = next(iter(test_loader))
with torch.no_grad():
    same = (restored(x) - model(x)).abs().max().item() == 0.0
print(f"restored from torch.save: same outputs {same}")
assert accuracy > 0.9 and same
