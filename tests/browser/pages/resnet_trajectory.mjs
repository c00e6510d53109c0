// borch's CIFAR ResNet-18 at width 8 (tests/trajectories/cifar_resnet18_w8.json) trained 20 steps
// through borch-ts: the model from `vision.models.cifarResnet18` after `manualSeed(0)` (torch's
// init bit for bit), the data from `randn` after `manualSeed(1)`, SGD momentum + weight decay,
// train mode; per step the loss and every parameter's gradient norm, at the end the BatchNorm
// running statistics' norms, every parameter's norm and the eval logits, judged as
// borch-vision/tests/trajectory.rs judges them: steps 0-4 within 1e-4, the rest (float32's
// chaotic regime, see docs/vision.md) within loose bounds, printed next to torch's own
// float32-vs-float64 spread. No DOM and no fetch: the page hands it the package and the recipe.

import { check } from './checks.mjs';

const RTOL = 1e-4;
const STRICT_STEPS = 5;
const LOOSE = {
  loss: 5e-2,
  'grad norm': 1.0,
  'running_mean norm': 5e-2,
  'running_var norm': 5e-2,
  'final parameter norm': 1e-1,
  'eval logits (max abs diff / max abs logit)': 5e-2,
};

const CONDITIONED = 1e-5;
const SPREAD_FACTOR = 10;

const rel = (got, want) => Math.abs(got - want) / Math.max(Math.abs(want), 1e-30);

// Every compared value, judged at the end (a loose bound is at least SPREAD_FACTOR times torch's
// own float32-vs-float64 spread of the quantity; a leading-step value is strict when float32
// leaves torch within CONDITIONED), as borch-vision/tests/trajectory.rs judges.
function judge() {
  const values = [];
  const quantities = () => {
    const q = new Map();
    for (const v of values) {
      const [d, d64] = q.get(v.what) ?? [0, 0];
      q.set(v.what, [Math.max(d, v.d), Math.max(d64, v.d64)]);
    }
    return new Map([...q].map(([k, [d, d64]]) => [k, [d, d64, Math.max(LOOSE[k], SPREAD_FACTOR * d64)]]));
  };
  return {
    check(what, at, leading, got, want, want64) {
      const d64 = rel(want, want64);
      values.push({ what, at, strict: leading && d64 <= CONDITIONED, got, want, d: rel(got, want), d64 });
    },
    strictWorst: () => values.filter((v) => v.strict).reduce((m, v) => Math.max(m, v.d), 0),
    failures() {
      const q = quantities();
      return values.filter((v) => !(v.d <= (v.strict ? RTOL : q.get(v.what)[2])))
        .map((v) => `${v.what} ${v.at}: borch ${v.got}, torch ${v.want} (rel diff ${v.d.toExponential(2)})`);
    },
    summary: () => [...quantities()].map(([k, [d, d64, b]]) => `${k} ${d.toExponential(2)} (torch f32 vs f64 ${d64.toExponential(2)}, bound ${b})`).join(', '),
  };
}

// The norm of every tensor, read back at once.
async function norms(borch, tensors) {
  return borch.scope(async () => (await borch.stack(tensors.map((t) => t.norm()), 0).toArray()));
}

export async function trainResnet({ borch, recipe, log, label, adapter }) {
  const c = recipe.config;
  const j = judge();
  const r64 = recipe.float64;
  borch.manualSeed(c.init_seed);
  const model = borch.vision.models.cifarResnet18({ numClasses: c.num_classes, width: c.width });
  borch.manualSeed(c.data_seed);
  const x = borch.keepAlive(borch.randn([c.n, 3, 32, 32]));
  const first = (await x.reshape([-1]).toArray()).slice(0, 4);
  check('randn after manualSeed is torch\'s', first.every((v, i) => v === Math.fround(recipe.x_check.first[i])), `${first} vs ${recipe.x_check.first}`);
  const y = borch.keepAlive(borch.tensor(BigInt64Array.from({ length: c.n }, (_, i) => BigInt(i % 10))));
  const names = model.namedParameters().map(([n]) => n);
  check('parameter names', JSON.stringify(names) === JSON.stringify(recipe.parameters), names.join(','));
  const params = model.parameters();
  const opt = new borch.optim.SGD(params, { lr: c.options.lr, momentum: c.options.momentum, weightDecay: c.options.weight_decay });
  model.train();
  log(`reference: tests/trajectories/${recipe.recipe}.json (torch ${recipe.torch}), ${recipe.steps} steps, ${JSON.stringify(c.options)}`);
  const t0 = performance.now();
  for (let step = 0; step < recipe.steps; step++) {
    const [loss, grads] = await borch.scope(async () => {
      opt.zeroGrad();
      const l = borch.nn.functional.crossEntropy(model.call(x), y);
      l.backward();
      const g = await norms(borch, params.map((p) => p.grad));
      const value = await l.item();
      opt.step();
      return [value, g];
    });
    const strict = step < STRICT_STEPS;
    j.check('loss', `step ${step}`, strict, loss, recipe.loss[step], r64.loss[step]);
    grads.forEach((g, i) => j.check('grad norm', `step ${step} ${names[i]}`, strict, g, recipe.grad_norms[step][i], r64.grad_norms[step][i]));
  }
  const perStep = (performance.now() - t0) / 1000 / recipe.steps;
  const buffers = model.namedBuffers();
  for (const [i, bn] of recipe.batchnorm.entries()) {
    for (const key of ['running_mean', 'running_var']) {
      const t = buffers.find(([n]) => n === `${bn.name}.${key}`)[1];
      const [got] = await norms(borch, [t]);
      j.check(`${key} norm`, bn.name, false, got, bn[key], r64.batchnorm[i][key]);
    }
  }
  const pn = await norms(borch, params);
  pn.forEach((g, i) => j.check('final parameter norm', names[i], false, g, recipe.param_norms[i], r64.param_norms[i]));
  model.eval();
  const logits = (await borch.scope(async () => borch.noGrad(() => model.call(x)).reshape([-1]).toArray()));
  const want = recipe.eval_logits;
  const scale = Math.max(...want.map(Math.abs));
  const d = Math.max(...logits.map((g, i) => Math.abs(g - want[i])));
  const d64 = Math.max(...want.map((w, i) => Math.abs(w - r64.eval_logits[i])));
  j.check('eval logits (max abs diff / max abs logit)', '', false, scale + d, scale, scale + d64);
  const line = `trajectory[${label}] ${recipe.recipe}: steps 0-${STRICT_STEPS - 1} agree within ${j.strictWorst().toExponential(2)} (loss, every gradient norm); all ${recipe.steps} steps and the end of the run: max rel diff ${j.summary()} (${perStep.toFixed(1)} s/step) [${adapter}]`;
  log(line);
  const failures = j.failures();
  check(`${failures.length} values outside their bounds`, failures.length === 0, failures.slice(0, 10).join('\n'));
  return line;
}
