// nanoGPT's GPT at character level trained 20 steps with AdamW on data/sonnets through borch-ts,
// against tests/trajectories/char_gpt.json (tests/trajectories/char_gpt.py), judged as
// borch-nn/tests/gpt_trajectory.rs judges it: the model of the example page
// (examples/browser/gpt_model.mjs: borch-ts's Embedding, LayerNorm, Linear, GELU and
// nn.functional.scaledDotProductAttention with isCausal),
// built after manualSeed(0) in nanoGPT's order (torch's init bit for bit: every parameter's first
// values compared exactly), the batches at the offsets of randint after manualSeed(1) (compared
// to torch's), then per step the loss within 1e-4 of torch's and every gradient norm within 1e-4
// relative, at the end every parameter's norm (1e-4, or 10x torch's own float32-vs-float64
// spread: see the Rust test). No DOM and no fetch: the page hands it the package, recipe, text.

import { check } from './checks.mjs';
import { buildGpt, charCorpus } from '../../../examples/browser/gpt_model.mjs';

const LOSS_ATOL = 1e-4;
const NORM_RTOL = 1e-4;
const SPREAD_FACTOR = 10;

const rel = (got, want) => Math.abs(got - want) / Math.max(Math.abs(want), 1e-30);

async function norms(borch, tensors) {
  return borch.scope(async () => (await borch.stack(tensors.map((t) => t.norm()), 0).toArray()));
}

export async function trainGpt({ borch, recipe, text, log, label, adapter }) {
  const c = recipe.config;
  const o = c.optimizer;
  const corpus = charCorpus(text);
  const { vocab } = corpus;
  check('vocabulary', vocab.join('') === c.vocab, vocab.join(''));
  borch.manualSeed(c.init_seed);
  const model = buildGpt(borch, c, vocab.length);
  const names = model.named.map(([n]) => n);
  check('parameter names', JSON.stringify(names) === JSON.stringify(recipe.parameters), names.join(','));
  for (const [n, p] of model.named) {
    const first = (await borch.scope(async () => p.reshape([-1]).toArray())).slice(0, 4);
    const want = recipe.init_first[n];
    check(`${n} after manualSeed is torch's init`, first.every((v, i) => v === Math.fround(want[i])), `${first} vs ${want}`);
  }
  const params = model.parameters;
  const opt = new borch.optim.AdamW(params, { lr: o.lr, betas: o.betas, eps: o.eps, weightDecay: o.weight_decay });
  log(`reference: tests/trajectories/${recipe.recipe}.json (torch ${recipe.torch}), ${c.steps} steps, ${recipe.parameter_count} parameters, ${JSON.stringify(o)}`);
  borch.manualSeed(c.data_seed);
  const T = c.block_size;
  const failures = [];
  let [worstLoss, worstGrad] = [0, 0];
  const losses = [];
  const t0 = performance.now();
  for (let step = 0; step < c.steps; step++) {
    const [loss, grads, offsets] = await borch.scope(async () => {
      const offsets = await corpus.offsets(borch, c.batch, T);
      const [x, y] = [corpus.window(borch, offsets, T, 0), corpus.window(borch, offsets, T, 1)];
      opt.zeroGrad();
      const l = model.loss(x, y);
      l.backward();
      const g = await norms(borch, params.map((p) => p.grad));
      const value = await l.item();
      opt.step();
      return [value, g, offsets];
    });
    check(`step ${step}: randint's batch offsets`, JSON.stringify(offsets) === JSON.stringify(recipe.offsets[step]), `${offsets} vs ${recipe.offsets[step]}`);
    losses.push(loss);
    const d = Math.abs(loss - recipe.loss[step]);
    worstLoss = Math.max(worstLoss, d);
    if (!(d <= LOSS_ATOL)) failures.push(`step ${step}: loss ${loss}, torch ${recipe.loss[step]}`);
    grads.forEach((g, i) => {
      const dg = rel(g, recipe.grad_norms[step][i]);
      worstGrad = Math.max(worstGrad, dg);
      if (!(dg <= NORM_RTOL)) failures.push(`step ${step}: grad norm of ${names[i]}: ${g}, torch ${recipe.grad_norms[step][i]}`);
    });
  }
  const perStep = (performance.now() - t0) / c.steps;
  let worstParam = 0;
  (await norms(borch, params)).forEach((p, i) => {
    const d = rel(p, recipe.param_norms[i]);
    worstParam = Math.max(worstParam, d);
    const bound = Math.max(NORM_RTOL, SPREAD_FACTOR * rel(recipe.param_norms[i], recipe.float64.param_norms[i]));
    if (!(d <= bound)) failures.push(`final norm of ${names[i]}: ${p}, torch ${recipe.param_norms[i]}`);
  });
  const line = `trajectory[${label}] char_gpt: ${c.steps} steps, loss ${losses[0].toFixed(4)} -> ${losses.at(-1).toFixed(4)}; max loss diff ${worstLoss.toExponential(2)}, gradient norms ${worstGrad.toExponential(2)} rel, final parameter norms ${worstParam.toExponential(2)} rel; ${perStep.toFixed(0)} ms/step [${adapter}]`;
  log(line);
  check(`${failures.length} values outside their bounds`, failures.length === 0, failures.slice(0, 10).join('\n'));
  return line;
}
