// The argument half of tests/node/hostile.mjs: JavaScript arrays that lie (a Proxy whose length
// is 1e9, 2**32 - 1 holes, an array containing itself, traps that throw, a revoked Proxy) and
// arguments of the wrong type, which must name the op, the argument and its position as torch
// does (`add(): argument 'other' (position 1) must be Tensor, not dict`; JavaScript's type names:
// `Object`, `Map`, `function`, the class of an instance).

const longProxy = (length) => new Proxy([], { get: (target, key) => (key === 'length' ? length : 0) });

export function argumentCases(torch) {
  const { nn, optim } = torch;
  const x = torch.ones(2, 3);
  const selfish = [1];
  selfish[0] = selfish;
  const throwing = new Proxy([], {
    get() {
      throw new Error('boom from a trap');
    },
  });
  const revocable = Proxy.revocable([], {});
  revocable.revoke();
  const sgd = () => new optim.SGD([torch.ones(2, { requiresGrad: true })], { lr: 0.1 });
  const group = () => new optim.SGD([torch.ones(2, { requiresGrad: true })], { lr: 0.1 }).paramGroups[0];
  const list = (n) => `list (of ${n} elements; borch-ts reads at most 65536)`;
  const setter = (t, v) => {
    t.requiresGrad = v;
  };
  return [
    // Arrays: bounded before they are read.
    ['take(Proxy with length 1e9)', () => x.take(longProxy(1e9)), TypeError, 'TypeError',
      `take(): argument 'index' (position 1) must be Tensor, not ${list(1000000000)}`],
    ['view(an array of 1e7 holes)', () => x.view(new Array(1e7)), TypeError, 'TypeError',
      `view(): argument 'shape' (position 1) must be tuple of ints, not ${list(10000000)}`],
    ['zeros([2]).view(new Array(2**32 - 1))', () => torch.zeros([2]).view(new Array(2 ** 32 - 1)), TypeError, 'TypeError',
      `view(): argument 'shape' (position 1) must be tuple of ints, not ${list(4294967295)}`],
    ['tensor(an array of 1e7 holes)', () => torch.tensor(new Array(1e7)), TypeError, 'TypeError',
      "tensor(): invalid data type 'undefined'"],
    ['tensor(Proxy with length 1e12)', () => torch.tensor(longProxy(1e12)), torch.BorchError, 'RuntimeError',
      'tensor(): 1000000000000 elements are more than borch-ts can hold in wasm memory (at most 67108864)'],
    ['tensor([[1e5 rows] x 1e5])', () => torch.tensor(new Array(1e5).fill(longProxy(1e5))), torch.BorchError, 'RuntimeError',
      'tensor(): 10000000000 elements are more than borch-ts can hold in wasm memory (at most 67108864)'],
    ['tensor(an array that contains itself)', () => torch.tensor(selfish), torch.BorchError, 'ValueError',
      'tensor(): too many dimensions (more than 64; an array that contains itself nests forever)'],
    ['view(an array that contains itself)', () => x.view(selfish), TypeError, 'TypeError',
      "view(): argument 'shape' (position 1) must be tuple of ints, not list"],
    ['view(a Proxy whose traps throw)', () => x.view(throwing), Error, undefined, 'boom from a trap'],
    ['tensor(a Proxy whose traps throw)', () => torch.tensor(throwing), Error, undefined, 'boom from a trap'],
    ['view(a revoked Proxy)', () => x.view(revocable.proxy), TypeError, undefined,
      "Cannot perform 'IsArray' on a proxy that has been revoked"],
    ['new nn.ModuleList(Proxy with length 1e9)', () => new nn.ModuleList(longProxy(1e9)), TypeError, 'TypeError',
      'an array of 1000000000 elements is longer than borch-ts reads (at most 65536)'],
    ['new optim.SGD(Proxy with length 1e9)', () => new optim.SGD(longProxy(1e9), { lr: 0.1 }), TypeError, 'TypeError',
      'an array of 1000000000 elements is longer than borch-ts reads (at most 65536)'],
    // Argument types: the op, the parameter, its position (none for a keyword), JavaScript's type.
    ['x.add(new Map())', () => x.add(new Map()), TypeError, 'TypeError',
      "add(): argument 'other' (position 1) must be Tensor or Number, not Map"],
    ['torch.add(x, new Map())', () => torch.add(x, new Map()), TypeError, 'TypeError',
      "add(): argument 'other' (position 2) must be Tensor or Number, not Map"],
    ['x.add({ other: new Set() })', () => x.add({ other: new Set() }), TypeError, 'TypeError',
      "add(): argument 'other' must be Tensor or Number, not Set"],
    ['x.matmul(ReLU)', () => x.matmul(new nn.ReLU()), TypeError, 'TypeError',
      "matmul(): argument 'other' (position 1) must be Tensor, not ReLU"],
    ['x.sum(a function)', () => x.sum(() => 1), TypeError, 'TypeError',
      "sum(): argument 'dim' (position 1) must be tuple of ints, not function"],
    ['x.transpose(Symbol(), 0)', () => x.transpose(Symbol('s'), 0), TypeError, 'TypeError',
      "transpose(): argument 'dim0' (position 1) must be int, not symbol"],
    ['x.add({}, 1) (a plain object not last)', () => x.add({}, 1), TypeError, 'TypeError',
      "add(): argument 'other' (position 1) must be Tensor or Number, not Object"],
    ['torch.cat([x, new Date()])', () => torch.cat([x, new Date(0)]), TypeError, 'TypeError',
      "cat(): argument 'tensors' (position 1) must be tuple of Tensors, not list"],
    ['nn.functional.relu(Map)', () => nn.functional.relu(new Map()), TypeError, 'TypeError',
      "relu(): argument 'input' (position 1) must be Tensor, not Map"],
    ['new nn.Linear(new Map(), 2)', () => new nn.Linear(new Map(), 2), TypeError, 'TypeError',
      "Linear(): argument 'in_features' (position 1) must be int, not Map"],
    ["t.requiresGrad = 'yes'", () => setter(torch.ones(1), 'yes'), torch.BorchError, 'RuntimeError',
      'requires_grad must be a bool'],
    ["paramGroups[0].lr = 'fast'", () => {
      group().lr = 'fast';
    }, TypeError, 'TypeError', "lr(): argument 'lr' (position 1) must be float, not str"],
    ["seq.at('a') after a ModuleDict key (one signature per name and shape)", () => {
      new nn.ModuleDict({ a: new nn.ReLU() }).get('a');
      return new nn.Sequential(new nn.ReLU()).at('a');
    }, TypeError, 'TypeError', "__getitem__(): argument 'idx' (position 1) must be int, not str"],
    ["model.train('no')", () => new nn.ReLU().train('no'), TypeError, 'TypeError',
      "train(): argument 'mode' (position 1) must be bool, not str"],
    ['loss.backward(null, 1)', () => torch.ones(1, { requiresGrad: true }).sum().backward(null, 1), TypeError, 'TypeError',
      "backward(): argument 'retain_graph' (position 2) must be bool, not int"],
    ['loss.backward(new Map())', () => torch.ones(1, { requiresGrad: true }).sum().backward(new Map()), TypeError, 'TypeError',
      "backward(): argument 'gradient' (position 1) must be Tensor, not Map"],
    ['paramGroups[0].get(5)', () => group().get(5), TypeError, 'TypeError',
      "__getitem__(): argument 'key' (position 1) must be str, not int"],
    ['ModuleDict.get(Map)', () => new nn.ModuleDict({ a: new nn.ReLU() }).get(new Map()), TypeError, 'TypeError',
      "__getitem__(): argument 'key' (position 1) must be str, not Map"],
    ["LambdaLR whose lrLambda returns '0.5'", () => new optim.lrScheduler.LambdaLR(sgd(), () => '0.5'), TypeError, 'TypeError',
      'LambdaLR: lr_lambda(0) must return a number, not string'],
    ['LambdaLR whose lrLambda throws at epoch 1', () => {
      const opt = sgd();
      const s = new optim.lrScheduler.LambdaLR(opt, (e) => {
        if (e > 0) throw new RangeError('no schedule past epoch 0');
        return 1;
      });
      try {
        s.step();
      } finally {
        if (opt.paramGroups[0].lr !== 0.1) throw new Error(`lr became ${opt.paramGroups[0].lr}`);
      }
    }, RangeError, undefined, 'no schedule past epoch 0'],
    ["asFloat('2')", () => torch.asFloat('2'), TypeError, 'TypeError',
      "asFloat(): argument 'x' (position 1) must be float, not str"],
    ['noGrad(5)', () => torch.noGrad(5), TypeError, 'TypeError', 'noGrad(): argument 1 must be a function, not number'],
    // Async entries (the result's shape depends on the values) bind their arguments at the call.
    ['x.maskedSelect(new Map())', () => x.maskedSelect(new Map()), TypeError, 'TypeError',
      "masked_select(): argument 'mask' (position 1) must be Tensor, not Map"],
    ['torch.nonzero(x, { asTuple: 1 })', () => torch.nonzero(x, { asTuple: 1 }), TypeError, 'TypeError',
      "nonzero(): argument 'as_tuple' must be bool, not int"],
    ['x.indexAsync([new Map()])', () => x.indexAsync([new Map()]), RangeError, 'IndexError',
      'only integers, slices (`:`), ellipsis (`...`), None and long or boolean tensors are valid indices (got Map)'],
    ['x.setitem([0], new Map())', () => x.setitem([0], new Map()), TypeError, 'TypeError',
      "__setitem__(): argument 'value' (position 2) must be Tensor or Number, not Map"],
    ['x.index([a bool mask]) (synchronous: a browser cannot read the mask)', () => x.index([torch.tensor([true, false])]), torch.BorchError, 'NotImplementedError',
      'boolean mask indexing (t[mask]): its result\'s shape depends on the mask\'s values, which borch cannot read back inside a synchronous call in a browser: await the async form (the catalog\'s index_async; borch-ts: await t.indexAsync([mask]))'],
    ['scope(null)', () => torch.scope(null), TypeError, 'TypeError', 'scope(): argument 1 must be a function, not null'],
  ];
}
