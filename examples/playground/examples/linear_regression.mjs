// Linear regression: nn.Linear, MSELoss and SGD recover y = 2a - 3b + 0.5c + 1 from 64
// samples; each step runs in a memory scope, and plot() draws the loss as it trains.
import * as torch from 'borch-ts';
import { plot } from 'playground';

await torch.init();
torch.manualSeed(0);
const X = torch.randn(64, 3);
const trueW = torch.tensor([[2], [-3], [0.5]]);
const y = X.matmul(trueW).add(1);

const model = new torch.nn.Linear(3, 1);
const opt = new torch.optim.SGD(model.parameters(), { lr: 0.1 });
const lossFn = new torch.nn.MSELoss();
for (let step = 0; step <= 100; step++) {
  await torch.scope(async () => {
    opt.zeroGrad();
    const loss = lossFn.call(model.call(X), y);
    loss.backward();
    opt.step();
    const value = await loss.item();
    plot(value);
    if (step % 20 === 0) console.log(`step ${String(step).padStart(3)} loss ${value.toFixed(6)}`);
  });
}
console.log('weight', await model.weight.repr());
console.log('bias', await model.bias.repr());
