// nn containers, param groups and scheduler state through borch-ts: `seq.at(i)` / `length`,
// ModuleList and ModuleDict, `optimizer.paramGroups[i].lr = …` driving the next step, and a
// scheduler's `stateDict()` surviving JSON and resuming the same schedule. Error messages are
// torch 2.15's; training resumed from saveCheckpoint / loadCheckpoint matches the uninterrupted
// run bit for bit. Run by run.mjs.

import { borch, check, checks, log, run, start, thrown } from './common.mjs';

const { nn, optim } = borch;

async function same(what, a, b) {
  const [x, y] = [await a.toArray(), await b.toArray()];
  check(what, JSON.stringify(x) === JSON.stringify(y), `${JSON.stringify(x)} vs ${JSON.stringify(y)}`);
}

async function expectThrow(what, fn, kind, message) {
  const e = await thrown(fn);
  check(what, e !== null && e.kind === kind && e.message === message,
    e === null ? '(nothing thrown)' : `${e.kind}: ${e.message}`);
  log(`  ${what}: ${e.constructor.name} [${e.kind}] ${e.message}`);
}

async function containers() {
  borch.manualSeed(0);
  const first = new nn.Linear(2, 3);
  const seq = new nn.Sequential(first, new nn.ReLU(), new nn.Linear(3, 1));
  check('len(seq)', seq.length === 3, String(seq.length));
  check('seq[-1] is the last Linear', seq.at(-1).toString() === 'Linear(in_features=3, out_features=1, bias=True)', seq.at(-1).toString());
  // seq[0] shares the module: its weight is the container's, and editing through one handle
  // shows through the other.
  await same('seq[0].weight is the first layer weight', seq.at(0).weight, first.weight);
  borch.noGrad(() => seq.at(0).weight.fill_(0.5));
  await same('a write through seq[0] reaches the container', first.weight, borch.full([3, 2], 0.5));
  const x = borch.ones(4, 2);
  await same('seq[0](x) is the first layer applied', seq.at(0).call(x), first.call(x));
  seq.at(1).eval();
  check('seq[1].eval() reaches the container', seq.at(1).training === false);
  await expectThrow('seq[5]', () => seq.at(5), 'IndexError', 'index 5 is out of range');
  await expectThrow("seq['a']", () => seq.at('a'), 'TypeError', "__getitem__(): argument 'idx' (position 1) must be int, not str");

  const list = new nn.ModuleList([new nn.Linear(2, 2), new nn.Linear(2, 2)]);
  check('len(ModuleList)', list.length === 2);
  check('ModuleList parameters', list.parameters().length === 4, String(list.parameters().length));
  check('ModuleList state dict keys', Object.keys(list.stateDict()).join() === '0.weight,0.bias,1.weight,1.bias', Object.keys(list.stateDict()).join());
  await expectThrow('ModuleList[-3]', () => list.at(-3), 'IndexError', 'index -3 is out of range');
  await expectThrow('ModuleList(x)', () => list.call(x), 'NotImplementedError', 'Module [ModuleList] is missing the required "forward" function');

  const dict = new nn.ModuleDict({ encoder: new nn.Linear(2, 4), act: new nn.Tanh() });
  check('ModuleDict keys', dict.keys().join() === 'encoder,act', dict.keys().join());
  check("ModuleDict['act']", dict.get('act').toString() === 'Tanh()');
  check('len(ModuleDict)', dict.length === 2);
  await expectThrow("ModuleDict['b']", () => dict.get('b'), 'KeyError', "'b'");
  check('an empty ModuleList', new nn.ModuleList().length === 0);
  const owned = new nn.ReLU();
  new nn.ModuleList([owned]);
  const twice = await thrown(() => new nn.Sequential(owned));
  check('one module in two containers is refused', twice instanceof TypeError, String(twice));

  // The nn classes are generated from the core's module catalog: every object is an nn.Module of
  // its class, the ones from a container too, and a JavaScript class can extend one.
  check('new nn.Linear is an nn.Linear and an nn.Module', first instanceof nn.Linear && first instanceof nn.Module);
  check('seq.at(0) is an nn.Linear', seq.at(0) instanceof nn.Linear && seq.at(0).constructor === nn.Linear, seq.at(0).constructor.name);
  check("dict.get('act') is an nn.Tanh", dict.get('act') instanceof nn.Tanh && !(dict.get('act') instanceof nn.ReLU));
  class Doubled extends nn.Linear {
    constructor(n) {
      super(n, n, { bias: false });
      this.n = n;
    }
    twice(x) {
      return this.call(x).mul(2);
    }
  }
  const doubled = new Doubled(2);
  check('a subclass of nn.Linear', doubled instanceof Doubled && doubled instanceof nn.Linear && doubled.n === 2);
  await same('its own method over the module', doubled.twice(x), doubled.call(x).add(doubled.call(x)));
  check('its repr is the module', doubled.toString() === 'Linear(in_features=2, out_features=2, bias=False)', doubled.toString());
  check('its parameters', doubled.parameters().length === 1);
  check('inside a Sequential', new nn.Sequential(doubled).at(0).toString() === doubled.toString());
  await expectThrow('nn.Linear(2, 2, { device: "cuda" })', () => new nn.Linear(2, 2, { device: 'cuda' }), 'NotImplementedError',
    "Linear(device=...): borch has one device (its WebGPU adapter); leave device out");
}

// Two SGD optimizers on equal parameters, one made with lr 0.5 and one changed to 0.5 through
// its param group: the same step must give the same parameters.
async function paramGroups() {
  const p = borch.tensor([1, 2, 3]).requiresGrad_();
  const q = borch.tensor([1, 2, 3]).requiresGrad_();
  const edited = new optim.SGD([p], { lr: 0.1, momentum: 0.9 });
  const made = new optim.SGD([q], { lr: 0.5, momentum: 0.5 });
  const [g] = edited.paramGroups;
  check('paramGroups[0].lr', g.lr === 0.1 && g.get('lr') === 0.1, String(g.lr));
  check("paramGroups[0]['params']", g.get('params').length === 1 && g.params.length === 1);
  g.lr = 0.5;
  g.set('momentum', 0.5);
  check('the edit reads back', edited.paramGroups[0].lr === 0.5 && edited.paramGroups[0].get('momentum') === 0.5);
  for (let i = 0; i < 3; i++) {
    for (const [opt, t] of [[edited, p], [made, q]]) {
      opt.zeroGrad();
      t.square().sum().backward();
      opt.step();
    }
  }
  await same('3 steps after editing lr and momentum = 3 steps made with them', p, q);
  check('stateDict sees the edit', edited.stateDict().paramGroups[0].lr === 0.5);
  await expectThrow("paramGroups[0]['foo']", () => g.get('foo'), 'KeyError', "'foo'");
  const badType = await thrown(() => { g.set('lr', 'fast'); });
  check('a string lr is refused', badType instanceof TypeError, String(badType));
  check('and changes nothing', g.lr === 0.5);
  // Tensors handed to `grad =` and `backward(gradient)` stay usable by their owner.
  const given = borch.ones(3);
  p.grad = given;
  check('a tensor assigned to .grad stays usable', (await given.sum().item()) === 3);
  const y = borch.tensor([1, 2]).requiresGrad_();
  const seed = borch.ones(2);
  y.mul(2).backward(seed);
  check('the gradient given to backward stays usable', (await seed.sum().item()) === 2);
  await same('backward(gradient) gave d(2y)/dy', y.grad, borch.full([2], 2));
}

// A scheduler saved after 4 steps (through JSON, as a page would store it) and loaded into a new
// scheduler on a new optimizer continues with the same learning rates.
async function schedulerState() {
  const make = () => {
    const opt = new optim.SGD([borch.zeros(1).requiresGrad_()], { lr: 0.1 });
    return [opt, new optim.lrScheduler.CosineAnnealingLR(opt, 7, 0.001)];
  };
  const [optA, a] = make();
  for (let i = 0; i < 4; i++) a.step();
  const saved = JSON.parse(JSON.stringify(a.stateDict()));
  const keys = Object.keys(saved).sort().join();
  log(`  CosineAnnealingLR stateDict keys: ${keys}`);
  // torch 2.15's keys for CosineAnnealingLR's state_dict().
  check('torch keys', keys === ['T_max', 'eta_min', 'base_lrs', 'last_epoch', '_step_count', '_is_initial', '_get_lr_called_within_step', '_last_lr'].sort().join(), keys);
  const [optB, b] = make();
  optB.loadStateDict(optA.stateDict());
  b.loadStateDict(saved);
  check('lastEpoch restored', b.lastEpoch === 4, String(b.lastEpoch));
  for (let i = 0; i < 10; i++) {
    a.step();
    b.step();
    const [la, lb] = [a.getLastLr()[0], b.getLastLr()[0]];
    check(`step ${i} after resuming`, la === lb, `${la} vs ${lb}`);
  }
  const plateau = new optim.lrScheduler.ReduceLROnPlateau(optA, { patience: 0 });
  plateau.step(1);
  plateau.step(2);
  const p2 = new optim.lrScheduler.ReduceLROnPlateau(optB);
  p2.loadStateDict(plateau.stateDict());
  check('ReduceLROnPlateau state restored', p2.stateDict().num_bad_epochs === plateau.stateDict().num_bad_epochs
    && p2.stateDict().patience === 0, JSON.stringify(p2.stateDict()));
  const bad = await thrown(() => b.loadStateDict(42));
  check('a number is not a state dict', bad instanceof TypeError, String(bad));
  const missing = await thrown(() => b.loadStateDict({ last_epoch: 1 }));
  check('a state dict without baseLrs', missing !== null && missing.message === "KeyError: 'base_lrs'", String(missing));
}

// The native resumed_training_matches_uninterrupted_bit_for_bit (borch-nn/tests/checkpoints.rs)
// in Chromium: dropout, Adam and StepLR trained 6 steps; separately 3 steps, saveCheckpoint, a
// fresh model/optimizer/scheduler from another seed, loadCheckpoint, 3 more; the losses equal.
async function checkpointResume() {
  const newRun = (seed) => {
    borch.manualSeed(seed);
    const model = new nn.Sequential(new nn.Linear(8, 16), new nn.ReLU(), new nn.Linear(16, 4), new nn.Dropout(0.25));
    const opt = new optim.Adam(model.parameters(), { lr: 1e-2 });
    return { model, opt, sched: new optim.lrScheduler.StepLR(opt, 2, 0.5) };
  };
  const step = async (r) => {
    r.opt.zeroGrad();
    const loss = r.model.forward(borch.randn([6, 8])).square().mean();
    loss.backward();
    r.opt.step();
    r.sched.step();
    return loss.item();
  };
  const whole = newRun(11);
  const expected = [];
  for (let i = 0; i < 6; i++) expected.push(await step(whole));
  const first = newRun(11);
  const losses = [];
  for (let i = 0; i < 3; i++) losses.push(await step(first));
  const bytes = await borch.saveCheckpoint(first.model, first.opt, first.sched, 3);
  const resumed = newRun(12345);
  borch.randn([17]);
  const epoch = borch.loadCheckpoint(bytes, resumed.model, resumed.opt, resumed.sched);
  check('loadCheckpoint returns the epoch', epoch === 3, String(epoch));
  for (let i = 3; i < 6; i++) losses.push(await step(resumed));
  check('resumed losses === uninterrupted, bit for bit', losses.every((v, i) => v === expected[i]) && new Set(expected).size === 6,
    `${JSON.stringify(losses)} vs ${JSON.stringify(expected)}`);
  log(`  resumed = uninterrupted: ${JSON.stringify(losses)}`);
}

run(async () => {
  const adapter = await start();
  log('containers:');
  await containers();
  log('param groups:');
  await paramGroups();
  log('scheduler state:');
  await schedulerState();
  log('checkpoint resume:');
  await checkpointResume();
  return `containers: ${checks()} checks passed (Sequential/ModuleList/ModuleDict indexing, param-group edits, scheduler state dicts, a resumed training checkpoint) [${adapter.replace(/^adapter: /, '')}]`;
});
