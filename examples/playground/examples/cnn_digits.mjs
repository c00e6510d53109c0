// A CNN with BatchNorm on the bundled 8×8 digits: the layers of the catalogue's digits_cnn
// (torch.vision.models.digitsCnn()) written out — two 3×3 convolutions, BatchNorm2d, ReLU,
// max-pooling, a linear head — trained with Adam on a shuffled DataLoader; plot() draws each
// step's loss. BatchNorm uses batch statistics in train() and its running statistics after eval().
import * as torch from 'borch-ts';
import { loadDigits, plot } from 'playground';

await torch.init();
const { nn, optim, data } = torch;
const EPOCHS = 2;

torch.manualSeed(0);
const { X, y } = loadDigits(); // X: [1797, 1, 8, 8] in [0, 1], y: [1797] int64
const perm = torch.randperm(X.shape[0]);
const [trainIdx, testIdx] = [perm.narrow(0, 0, 1437), perm.narrow(0, 1437, 360)];
const train = new data.TensorDataset([X.indexSelect(0, trainIdx), y.indexSelect(0, trainIdx)]);
const loader = new data.DataLoader(train, { batchSize: 64, shuffle: true });

const model = new nn.Sequential(
  new nn.Conv2d(1, 16, 3, { padding: 1 }), new nn.BatchNorm2d(16), new nn.ReLU(),
  new nn.Conv2d(16, 32, 3, { padding: 1 }), new nn.BatchNorm2d(32), new nn.ReLU(),
  new nn.MaxPool2d(2), new nn.Flatten(), new nn.Linear(32 * 4 * 4, 10),
);
const opt = new optim.Adam(model.parameters(), { lr: 0.01 });
const lossFn = new nn.CrossEntropyLoss();
console.log(`${model}`);

for (let epoch = 1; epoch <= EPOCHS; epoch++) {
  model.train();
  const total = await torch.scope(async () => {
    let sum = 0;
    for await (const [xb, yb] of loader) {
      opt.zeroGrad();
      const loss = lossFn.call(model.call(xb), yb);
      loss.backward();
      opt.step();
      const value = await loss.item();
      plot(value);
      sum += value * xb.shape[0];
    }
    return sum;
  });
  console.log(`epoch ${epoch} loss ${(total / 1437).toFixed(4)}`);
}

model.eval();
const [Xtest, ytest] = [X.indexSelect(0, testIdx), y.indexSelect(0, testIdx)];
const correct = torch.noGrad(() => model.call(Xtest).argmax(1).eq(ytest).sum());
const n = await correct.item();
console.log(`held-out accuracy ${((100 * n) / 360).toFixed(2)}% (${n}/360)`);
