// The four Python examples written against borch-ts in JavaScript, line for line: the browser
// page runs both and requires the same printed lines. Each takes the package and `print`.

const size = (t) => `torch.Size([${t.shape.join(', ')}])`;
const fixed = (v, d) => v.toFixed(d);

export async function tensors(torch, print) {
  const x = torch.tensor([[1, 2, 3], [4, 5, 6]], { dtype: 'float32' });
  print(await x.repr());
  print(`${size(x)} torch.${x.dtype}`);
  print(await x.index([[1, null, null], [null, null, 2]]).repr());
  print(size(x.index(['...', null])));
  print(`${await x.index([0]).repr()} ${fixed(await x.index([-1, 1]).item(), 1)}`);
  const y = torch.arange(6).view(2, 3);
  print(`${await y.repr()} torch.${y.dtype}`);
  print(await x.add(y.mul(2)).repr());
  print(await x.matmul(x.t()).sum({ dim: 1 }).repr());
  print(`${fixed(await x.mean().item(), 6)} ${fixed(await x.std().item(), 6)}`);
  print(await x.gt(2.5).repr());
  print(await torch.zeros(2, 2, { dtype: 'int64' }).repr());
  print('False');
}

export async function autograd(torch, print) {
  const x = torch.tensor([1, 2, 3], { dtype: 'float32' });
  x.requiresGrad = true;
  const y = x.mul(x).sum();
  y.backward();
  print(await x.grad.repr());
  const w = torch.tensor([[0.5, -1, 2]], { dtype: 'float32' });
  w.requiresGrad = true;
  const z = torch.sigmoid(w.matmul(x.index([[null, null, null], null]))).sum();
  z.backward();
  print(await w.grad.repr());
  print(fixed(await z.item(), 6));
  const q = torch.noGrad(() => x.mul(2));
  print(q.requiresGrad ? 'True' : 'False');
  const shifted = torch.noGrad(() => x.add(1));
  print(`${shifted.requiresGrad ? 'True' : 'False'} ${x.add(1).requiresGrad ? 'True' : 'False'}`);
  print(await x.repr());
}

export async function linear_regression(torch, print) {
  torch.manualSeed(0);
  const X = torch.randn(64, 3);
  const trueW = torch.tensor([[2], [-3], [0.5]], { dtype: 'float32' });
  const y = X.matmul(trueW).add(1);
  const model = new torch.nn.Linear(3, 1);
  const opt = new torch.optim.SGD(model.parameters(), { lr: 0.1 });
  const lossFn = new torch.nn.MSELoss();
  for (let step = 0; step < 101; step++) {
    await torch.scope(async () => {
      opt.zeroGrad();
      const loss = lossFn.call(model.call(X), y);
      loss.backward();
      opt.step();
      if (step % 20 === 0) print(`step ${String(step).padStart(3)} loss ${fixed(await loss.item(), 6)}`);
    });
  }
  print(await model.weight.repr());
}

export async function mlp(torch, print) {
  torch.manualSeed(0);
  const X = torch.randn(128, 8);
  const labels = X.matmul(torch.randn(8, 4)).argmax({ dim: 1 });
  const fc1 = new torch.nn.Linear(8, 32);
  const fc2 = new torch.nn.Linear(32, 4);
  const forward = (x) => fc2.call(torch.relu(fc1.call(x)));
  const params = [...fc1.parameters(), ...fc2.parameters()];
  const names = [...fc1.namedParameters().map(([n]) => `fc1.${n}`), ...fc2.namedParameters().map(([n]) => `fc2.${n}`)];
  print(`${params.length} [${names.map((n) => `'${n}'`).join(', ')}]`);
  const opt = new torch.optim.Adam(params, { lr: 0.01 });
  const sched = new torch.optim.lrScheduler.StepLR(opt, { stepSize: 50, gamma: 0.5 });
  const lossFn = new torch.nn.CrossEntropyLoss();
  for (let step = 0; step < 151; step++) {
    opt.zeroGrad();
    const loss = lossFn.call(forward(X), labels);
    loss.backward();
    opt.step();
    sched.step();
    if (step % 30 === 0) print(`step ${String(step).padStart(3)} loss ${fixed(await loss.item(), 6)}`);
  }
  const accuracy = torch.noGrad(() => forward(X).argmax({ dim: 1 }).eq(labels).float().mean());
  print(`accuracy ${fixed(await accuracy.item(), 4)}`);
}
