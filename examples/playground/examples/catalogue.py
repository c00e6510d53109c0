# A model from borch's catalogue: catalogue/digits_cnn.json names the architecture, the weights
# file with its sha256 and size, and a sample input with the output the model must give.
# vision.catalogue.load checks the size and the digest, builds the model, loads the weights and
# runs the sample before it returns; a second run reads the verified files from the Cache API.
import borch_webgpu as torch
from borch_webgpu.vision import catalogue
from playground import load_digits

entry = catalogue.load("/catalogue/digits_cnn.json")
manifest, model = entry.manifest, entry.model
print(f"{manifest['name']}: loaded and verified from the {entry.source}, sample max |diff| {entry.max_sample_diff:.2e} (tolerance {manifest['sample']['tolerance']})")
print(f"weights {manifest['weights']['bytes']} bytes, sha256 {manifest['weights']['sha256'][:16]}…, licence {manifest['licence']}")
print(f"trained by: {manifest['provenance']['command']}")
print(model)

X, y = load_digits()
with torch.no_grad():
    predicted = model(X).argmax(dim=1)
correct = (predicted == y).sum().item()
print(f"accuracy on all 1797 digits (1437 of them seen in training): {100 * correct / 1797:.2f}%")
print("first ten predictions:", " ".join(str(v) for v in predicted[:10].tolist()))
