// (b) One training step of an MLP (inputs→hidden→classes, ReLU, cross-entropy, SGD or Adam,
// the loss read back every step): borch-ts (nn.Sequential, nn.CrossEntropyLoss, optim.SGD /
// optim.Adam, in a scope) against TF.js (the same layers written with tf ops,
// optimizer.minimize; tf.train.adam computes torch's Adam, given torch's epsilon 1e-8). TF.js starts from
// borch's initial parameters (torch's init, drawn by borch from seed 0) and both train on the
// same batch, so their losses and final parameters must agree. Dispatches and submits per step
// are counted at the WebGPU API for both, and for borch also by its own counters.

import { gpuCounts } from './counters.mjs';
import { tfKernelMs } from './peers.mjs';
import { interleaved, maxAbsDiff, median, uniform } from './timing.mjs';

// A run that records its result and its dispatch and submit counts in `acc` (one entry a call).
function counted(acc, step, own) {
  return async () => {
    const api = gpuCounts();
    const mine = own?.();
    const value = await step();
    const after = gpuCounts();
    const m = own?.();
    acc.push({
      value,
      dispatches: after.dispatches - api.dispatches,
      submits: after.submits - api.submits,
      ownDispatches: m && m.dispatches - mine.dispatches,
      ownSubmits: m && m.submits - mine.submits,
    });
    return value;
  };
}

// The mean of `key` over the calls, with its range when it varies: "34" or "34 (33–35)".
function perCall(calls, key) {
  const v = calls.map((c) => c[key]);
  const mean = v.reduce((a, b) => a + b, 0) / v.length;
  const [lo, hi] = [Math.min(...v), Math.max(...v)];
  return { mean, range: lo === hi ? `${lo}` : `${+mean.toFixed(2)} (${lo}–${hi})` };
}

/** The borch model and what the peers need to build the same one. */
export async function borchMlp(borch, [inputs, hidden, classes]) {
  const { nn } = borch;
  borch.manualSeed(0);
  const model = new nn.Sequential(new nn.Linear(inputs, hidden), new nn.ReLU(), new nn.Linear(hidden, classes));
  const params = {};
  for (const [name, t] of model.namedParameters()) params[name] = Float32Array.from([await t.toArray()].flat(2));
  return { model, params };
}

// The optimizers compared: borch's constructor and TF.js's with the same settings.
const OPTIMIZERS = {
  SGD: { borch: (optim, params, lr) => new optim.SGD(params, { lr }), tf: (tf, lr) => tf.train.sgd(lr) },
  Adam: { borch: (optim, params, lr) => new optim.Adam(params, { lr }), tf: (tf, lr) => tf.train.adam(lr, 0.9, 0.999, 1e-8) },
};

/**
 * Times `reps` training steps of each library after `warmup` with optimizer `opt` ('SGD' or
 * 'Adam') at rate `lr`; returns one record per library.
 */
export async function benchTrain({ borch, tf }, sizes, batch, { opt: optName, lr }, { warmup, reps }) {
  const [inputs, hidden, classes] = sizes;
  const { nn, optim } = borch;
  const xData = uniform(batch * inputs, 7);
  const labels = Int32Array.from(uniform(batch, 8), (u) => Math.min(classes - 1, Math.floor((u + 1) / 2 * classes)));

  const { model, params } = await borchMlp(borch, sizes);
  const x = borch.keepAlive(borch.tensor(xData).reshape([batch, inputs]));
  const y = borch.keepAlive(borch.tensor(labels));
  const opt = OPTIMIZERS[optName].borch(optim, model.parameters(), lr);
  const lossFn = new nn.CrossEntropyLoss();
  const borchStep = () => borch.scope(async () => {
    opt.zeroGrad();
    const loss = lossFn.call(model.call(x), y);
    loss.backward();
    opt.step();
    return loss.item();
  });

  const w1 = tf.variable(tf.tensor2d(params['0.weight'], [hidden, inputs]));
  const b1 = tf.variable(tf.tensor1d(params['0.bias']));
  const w2 = tf.variable(tf.tensor2d(params['2.weight'], [classes, hidden]));
  const b2 = tf.variable(tf.tensor1d(params['2.bias']));
  const tx = tf.tensor2d(xData, [batch, inputs]);
  const ty = tf.tidy(() => tf.cast(tf.oneHot(tf.tensor1d(labels, 'int32'), classes), 'float32'));
  const tfOpt = OPTIMIZERS[optName].tf(tf, lr);
  const tfTensors = []; // TF.js's live tensors after each step: flat once the optimizer's state exists
  const tfMinimize = () => tfOpt.minimize(() => {
    const h = tf.relu(tf.add(tf.matMul(tx, w1, false, true), b1));
    const logits = tf.add(tf.matMul(h, w2, false, true), b2);
    return tf.losses.softmaxCrossEntropy(ty, logits);
  }, true, [w1, b1, w2, b2]);
  const tfStep = async () => {
    const cost = tfMinimize();
    const value = (await cost.data())[0];
    cost.dispose();
    tfTensors.push(tf.memory().numTensors);
    return value;
  };

  const acc = { 'borch-ts': [], 'TF.js': [] };
  const own = () => ({ dispatches: borch.dispatches(), submits: borch.submits() });
  const runs = { 'borch-ts': counted(acc['borch-ts'], borchStep, own), 'TF.js': counted(acc['TF.js'], tfStep) };
  const times = await interleaved(runs, { warmup, reps });
  const live = tfTensors.slice(warmup);
  if (live.some((n) => n !== live[0])) throw new Error(`TF.js leaks tensors in the timed steps: ${live.join(', ')}`);

  const values = (name) => acc[name].map((c) => c.value);
  const lossDiff = maxAbsDiff(values('TF.js'), values('borch-ts'));
  const final = [['0.weight', w1], ['0.bias', b1], ['2.weight', w2], ['2.bias', b2]];
  let paramDiff = 0;
  const named = Object.fromEntries(model.namedParameters());
  for (const [name, v] of final) {
    const mine = Float32Array.from([await named[name].toArray()].flat(2));
    paramDiff = Math.max(paramDiff, maxAbsDiff(await v.data(), mine));
  }
  const tol = 1e-4;
  const losses = values('borch-ts');
  if (!(lossDiff <= tol && paramDiff <= tol)) throw new Error(`training (${optName}): TF.js differs from borch (max abs loss diff ${lossDiff}, final parameters ${paramDiff}; tolerance ${tol})`);
  // One more TF.js step, after the comparison, timed by TF.js's own GPU timestamps.
  const kernelMs = { 'TF.js': await tfKernelMs(tfMinimize) };
  // Counts of the timed steps (the first steps also make the optimizer's state).
  const records = Object.keys(runs).map((name) => {
    const timed = acc[name].slice(warmup);
    const count = (key) => perCall(timed, key);
    const record = {
      bench: 'train-step', size: `${sizes.join('-')} batch ${batch} ${optName}`, impl: name, ms: median(times[name]), reps,
      dispatches: count('dispatches').range, submits: count('submits').range, kernelMs: kernelMs[name],
      diff: name === 'borch-ts' ? 0 : Math.max(lossDiff, paramDiff), diffVs: name === 'borch-ts' ? '-' : 'borch-ts (losses, final params)',
    };
    if (name === 'borch-ts') Object.assign(record, { ownDispatches: count('ownDispatches').range, ownSubmits: count('ownSubmits').range });
    return record;
  });
  records.loss = [losses[0], losses[losses.length - 1]];
  records.lossDiff = lossDiff;
  records.paramDiff = paramDiff;
  for (const v of [w1, b1, w2, b2, tx, ty]) v.dispose();
  tfOpt.dispose();
  return { records, model };
}
