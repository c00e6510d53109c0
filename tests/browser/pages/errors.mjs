// Bad input through borch-ts: wrong shapes, wrong types, out-of-range dims, a tensor released by
// its scope, a freed handle, and wrong arguments to nn and optim. Each must throw the right
// JavaScript error class with torch's message, and the same wasm instance must keep working after
// each one.

import { borch, check, checks, log, run, start, thrown } from './common.mjs';

const { nn, optim, BorchError } = borch;

const mismatches = [];

// `fn` must throw (or reject with) an instance of `cls`, with `kind` (undefined: none checked)
// and exactly `message`; then the instance must still compute.
async function expectError(what, fn, cls, kind, message) {
  const error = await thrown(fn);
  check(what, error !== null, '(nothing was thrown)');
  const got = `${error.constructor.name}${error.kind ? ` [${error.kind}]` : ''}: ${error.message}`;
  log(`  ${what}: ${got}`);
  const wrong = [];
  if (!(error instanceof cls && error.constructor === cls)) wrong.push(`class ${error.constructor.name}, want ${cls.name}`);
  if (kind !== undefined && error.kind !== kind) wrong.push(`kind ${error.kind}, want ${kind}`);
  if (error.message !== message) wrong.push(`message ${JSON.stringify(error.message)}, want ${JSON.stringify(message)}`);
  if (wrong.length) mismatches.push(`${what}: ${wrong.join('; ')}`);
  check(what, true);
  const alive = await borch.tensor([1, 2]).add(1).mul(2).toArray();
  check(`${what}: the instance still works`, JSON.stringify(alive) === '[4,6]', JSON.stringify(alive));
}

const RELEASED = 'a tensor of shape [2, 3] (float32) was used after it was released at the end of its scope: '
  + 'tensors created inside scope(...) are freed when it ends. To use one afterwards, return it through the '
  + "scope's keep() (s.keep(&t) hands it to the enclosing scope), or mark it with keep_alive(&t) to exempt it "
  + 'from every scope (parameters, optimizer state)';

async function main() {
  const adapter = await start();
  borch.manualSeed(0);
  const x = borch.randn(2, 3);
  log('errors:');

  await expectError('matmul 2x3 @ 4x5', () => x.matmul(borch.randn(4, 5)), BorchError, 'RuntimeError',
    'mm: mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)');
  await expectError("tensor('a')", () => borch.tensor('a'), TypeError, 'TypeError',
    "tensor(): invalid data type 'string'");
  await expectError('tensor([1], { requiresgrad: true })', () => borch.tensor([1], { requiresgrad: true }),
    TypeError, 'TypeError', "tensor() got an unexpected keyword argument 'requiresgrad' (it takes dtype and requiresGrad)");
  await expectError("tensor([1], { requiresGrad: 'yes' })", () => borch.tensor([1], { requiresGrad: 'yes' }),
    TypeError, 'TypeError', "tensor(): argument 'requires_grad' must be bool, not string");
  await expectError("tensor([1], { dtype: 'int64', requiresGrad: true })",
    () => borch.tensor([1], { dtype: 'int64', requiresGrad: true }), BorchError, 'RuntimeError',
    'only Tensors of floating point and complex dtype can require gradients');
  const leaf = borch.tensor([1, 2], { requiresGrad: true });
  if (leaf.requiresGrad !== true) throw new Error('tensor(data, { requiresGrad: true }) is not a leaf that requires grad');
  leaf.mul(leaf).sum().backward();
  if ((await leaf.grad.toArray()).join() !== '2,4') throw new Error('tensor(..., { requiresGrad: true }).grad is wrong');
  log('  tensor(data, { requiresGrad: true }): a leaf, grad [2, 4]');
  await expectError("x.sum('a')", () => x.sum('a'), TypeError, 'TypeError',
    "sum(): argument 'dim' (position 1) must be tuple of ints, not str");
  await expectError('x.sum(5)', () => x.sum(5), RangeError, 'IndexError',
    'Dimension out of range (expected to be in range of [-2, 1], but got 5)');
  await expectError('x.transpose(0, -3)', () => x.transpose(0, -3), RangeError, 'IndexError',
    'Dimension out of range (expected to be in range of [-2, 1], but got -3)');

  let released;
  await borch.scope(async () => {
    released = borch.ones(2, 3);
  });
  check('a scope releases what it made', released.shape.join() === '2,3');
  await expectError('a tensor released by its scope', () => released.add(1), BorchError, 'ReleasedError',
RELEASED);
  await expectError('a released tensor read back', () => released.toArray(), BorchError, 'ReleasedError',
RELEASED);

  const freed = borch.ones(3);
  freed.free();
  await expectError('a freed tensor (free() then add)', () => freed.add(1), TypeError, 'TypeError',
    'Tensor.add(): this Tensor has been freed (free() was called on it)');
  await expectError('a freed tensor as an argument', () => x.add(freed), TypeError, 'TypeError',
    "add(): argument 'other' (position 1) must be Tensor or Number, not a freed Tensor (free() was called on it)");
  await expectError("a freed tensor's own getter", () => freed.shape, TypeError, 'TypeError',
    'Tensor.shape: this Tensor has been freed (free() was called on it)');
  freed.free();
  check('a second free() does nothing', true);

  // Receivers and argument types (issue 9; tests/node/hostile.mjs has the rest).
  await expectError('Tensor.prototype.item.call(ReLU)', () => borch.Tensor.prototype.item.call(new nn.ReLU()), TypeError, 'TypeError',
    "Tensor.item(): 'this' is not a Tensor (got ReLU)");
  await expectError('x.add(new Map())', () => x.add(new Map()), TypeError, 'TypeError',
    "add(): argument 'other' (position 1) must be Tensor or Number, not Map");
  await expectError('view(new Array(2 ** 32 - 1))', () => x.view(new Array(2 ** 32 - 1)), TypeError, 'TypeError',
    "view(): argument 'shape' (position 1) must be tuple of ints, not list (of 4294967295 elements; borch-ts reads at most 65536)");

  // nn and optim.
  await expectError("new nn.Linear('a', 2)", () => new nn.Linear('a', 2), TypeError, 'TypeError',
    "Linear(): argument 'in_features' (position 1) must be int, not str");
  await expectError('new nn.Linear(3)', () => new nn.Linear(3), TypeError, 'TypeError',
    "Linear() missing 1 required positional argument: 'out_features'");
  await expectError('new nn.Linear(3, 2, { bais: false })', () => new nn.Linear(3, 2, { bais: false }), TypeError, 'TypeError',
    "Linear() got an unexpected keyword argument 'bais'");
  const lin = new nn.Linear(3, 2);
  await expectError('Linear(3, 2) on a 4x5 input', () => lin.call(borch.randn(4, 5)), BorchError, 'RuntimeError',
    'addmm: mat1 and mat2 shapes cannot be multiplied (4x5 and 3x2)');
  await expectError('a loss without its target', () => new nn.MSELoss().call(x), TypeError, 'TypeError',
    "MSELoss.forward() missing 1 required positional argument: 'target'");
  await expectError("new nn.MSELoss({ reduction: 'avg' })", () => new nn.MSELoss({ reduction: 'avg' }), BorchError, 'ValueError',
    'avg is not a valid value for reduction');
  await expectError('new nn.Sequential(lin, 5)', () => new nn.Sequential(lin, 5), TypeError, 'TypeError',
    'Sequential(): argument 2 must be a Module (nn.Linear, nn.ReLU, …), not number');
  await expectError('loadStateDict without bias', () => lin.loadStateDict({ weight: borch.zeros(2, 3) }), BorchError, 'RuntimeError',
    'Error(s) in loading state_dict for Linear:\n\tMissing key(s) in state_dict: "bias". ');
  await expectError('loadStateDict with a wrong shape', () => lin.loadStateDict({ weight: borch.zeros(3, 3), bias: borch.zeros(2) }), BorchError, 'RuntimeError',
    'Error(s) in loading state_dict for Linear:\n\tsize mismatch for weight: copying a param with shape torch.Size([3, 3]) from checkpoint, the shape in current model is torch.Size([2, 3]).');
  await expectError('new optim.SGD([])', () => new optim.SGD([], { lr: 0.1 }), BorchError, 'ValueError',
    'optimizer got an empty parameter list');
  await expectError('new optim.SGD(params, { lr: -1 })', () => new optim.SGD(lin.parameters(), { lr: -1 }), BorchError, 'ValueError',
    'Invalid learning rate: -1.0');
  await expectError('new optim.Adam(params, { betas: 0.9 })', () => new optim.Adam(lin.parameters(), { betas: 0.9 }), TypeError, 'TypeError',
    "'betas' must be a pair of numbers, got Float(0.9)");
  await expectError('new optim.SGD(params, { foo: 1 })', () => new optim.SGD(lin.parameters(), { foo: 1 }), TypeError, 'TypeError',
    "SGD() got an unexpected keyword argument 'foo'");
  await expectError('new StepLR(notAnOptimizer, 3)', () => new optim.lrScheduler.StepLR({}, 3), TypeError, 'TypeError',
    'StepLR(): argument 1 must be an optimizer (optim.SGD, optim.Adam, …), not Object');

  for (const m of mismatches) log(`MISMATCH ${m}`);
  check('every error has the expected class, kind and message', mismatches.length === 0, mismatches.join('\n'));

  // The same instance trains after all of it.
  const opt = new optim.SGD(lin.parameters(), { lr: 0.1 });
  const input = borch.randn(4, 3);
  const before = await new nn.MSELoss().call(lin.call(input), borch.ones(4, 2)).item();
  for (let i = 0; i < 5; i++) {
    opt.zeroGrad();
    const loss = new nn.MSELoss().call(lin.call(input), borch.ones(4, 2));
    loss.backward();
    opt.step();
  }
  const after = await new nn.MSELoss().call(lin.call(input), borch.ones(4, 2)).item();
  log(`after the errors: 5 SGD steps take the loss from ${before.toFixed(6)} to ${after.toFixed(6)}`);
  check('training after the errors', after < before, `(${before} → ${after})`);
  return `${checks()} checks passed [${adapter.slice('adapter: '.length)}]`;
}

run(main);
