# A CNN with BatchNorm on the bundled 8x8 digits: the layers of the catalogue's digits_cnn
# (torch.vision.models.digits_cnn()) written out - two 3x3 convolutions, BatchNorm2d, ReLU,
# max-pooling, a linear head - trained with Adam on a shuffled DataLoader; plot() draws each
# step's loss. BatchNorm uses batch statistics in train() and its running statistics after eval().
import borch_webgpu as torch
from borch_webgpu import nn, optim
from borch_webgpu.utils.data import DataLoader, TensorDataset
from playground import load_digits, plot

EPOCHS = 2

torch.manual_seed(0)
X, y = load_digits()  # X: (1797, 1, 8, 8) in [0, 1], y: (1797,) int64
perm = torch.randperm(len(X))
train_idx, test_idx = perm[:1437], perm[1437:]
loader = DataLoader(TensorDataset(X[train_idx], y[train_idx]), batch_size=64, shuffle=True)

model = nn.Sequential(
    nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
    nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
    nn.MaxPool2d(2), nn.Flatten(), nn.Linear(32 * 4 * 4, 10),
)
opt = optim.Adam(model.parameters(), lr=0.01)
loss_fn = nn.CrossEntropyLoss()
print(model)

for epoch in range(1, EPOCHS + 1):
    model.train()
    total = 0.0
    with torch.scope():
        for xb, yb in loader:
            opt.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            opt.step()
            value = loss.item()
            plot(value)
            total += value * len(xb)
    print(f"epoch {epoch} loss {total / 1437:.4f}")

model.eval()
with torch.no_grad():
    correct = (model(X[test_idx]).argmax(dim=1) == y[test_idx]).sum().item()
print(f"held-out accuracy {100 * correct / 360:.2f}% ({correct}/360)")
