// Memory scopes from JavaScript: 201 training steps (nn.Linear(4, 2), MSELoss, SGD with
// momentum) with every step's loss handle kept in an array, as a garbage-collected program keeps
// handles until a collection. Inside `scope` each step's buffers are released when the step
// ends and memory() stays flat; without it every kept loss holds its graph and memory() grows.

import { borch, check, checks, log, run, start } from './common.mjs';

const { nn, optim } = borch;
const STEPS = 201;

async function train(scoped) {
  borch.manualSeed(0);
  const x = borch.keepAlive(borch.randn(8, 4));
  const y = borch.keepAlive(borch.randn(8, 2));
  const model = new nn.Linear(4, 2);
  const opt = new optim.SGD(model.parameters(), { lr: 0.05, momentum: 0.9 });
  const mse = new nn.MSELoss();
  const kept = [];
  const step = () => {
    opt.zeroGrad();
    const loss = mse.call(model.call(x), y);
    loss.backward();
    opt.step();
    kept.push(loss); // held, never freed: what a GC'd language does until it collects
    return loss;
  };
  let first;
  let lastLoss;
  for (let i = 1; i <= STEPS; i++) {
    if (scoped) {
      lastLoss = await borch.scope(async () => step().item());
    } else {
      lastLoss = await step().item();
    }
    if (i === 1) first = borch.memory();
  }
  const last = borch.memory();
  const figures = { first, last, loss: lastLoss };
  for (const t of kept) t.free();
  for (const p of [x, y]) p.free();
  return figures;
}

const fmt = (m) => `${m.buffers} buffers / ${m.bytes} B`;

async function main() {
  const adapter = await start();
  const base = borch.memory();
  const t0 = performance.now();
  const scoped = await train(true);
  const t1 = performance.now();
  const plain = await train(false);
  const t2 = performance.now();
  log(`memory[js] ${STEPS} steps in scope:    after step 1 ${fmt(scoped.first)}, after step ${STEPS} ${fmt(scoped.last)} (${((t1 - t0) / STEPS).toFixed(2)} ms/step, last loss ${scoped.loss.toFixed(6)})`);
  log(`memory[js] ${STEPS} steps without scope: after step 1 ${fmt(plain.first)}, after step ${STEPS} ${fmt(plain.last)} (${((t2 - t1) / STEPS).toFixed(2)} ms/step, last loss ${plain.loss.toFixed(6)})`);
  log(`memory before both loops: ${fmt(base)}; after freeing the kept handles: ${fmt(borch.memory())}`);
  check('scoped loop is flat', scoped.last.buffers === scoped.first.buffers && scoped.last.bytes === scoped.first.bytes,
    `(${fmt(scoped.first)} → ${fmt(scoped.last)})`);
  check('loop without scope grows', plain.last.buffers >= plain.first.buffers + STEPS && plain.last.bytes > plain.first.bytes,
    `(${fmt(plain.first)} → ${fmt(plain.last)})`);
  check('both loops train the same', Math.abs(scoped.loss - plain.loss) <= 1e-6, `(${scoped.loss} vs ${plain.loss})`);
  return `${checks()} checks passed: in scope ${fmt(scoped.first)} → ${fmt(scoped.last)}; without ${fmt(plain.first)} → ${fmt(plain.last)} [${adapter.slice('adapter: '.length)}]`;
}

run(main);
