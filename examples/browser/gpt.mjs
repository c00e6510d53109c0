// The char_gpt example (borch-nn/examples/char_gpt.rs) in the browser: data/sonnets fetched from
// this origin, nanoGPT's GPT from gpt_model.mjs (the code tests/browser/pages/gpt_trajectory.html
// holds to torch's losses) built after manualSeed(0), batches at randint offsets after
// manualSeed(1), AdamW (lr 3e-3, betas (0.9, 0.99), weight decay 0.1), each step in a memory
// scope; a live loss plot, then text sampled from the softmax of the last position.

import * as borch from '/target/borch-ts/index.js';
import { buildGpt, charCorpus } from './gpt_model.mjs';

const params = new URLSearchParams(location.search);
const num = (k, d) => Number(params.get(k) ?? d);
const CONFIG = { n_layer: num('layers', 2), n_head: 4, n_embd: num('width', 32), block_size: 32 };
const STEPS = num('steps', 200);
const BATCH = 8;
const SAMPLE = 240;

const $ = (id) => document.getElementById(id);
function log(line) {
  console.log(line);
  $('log').textContent += `${line}\n`;
}

function drawPlot(losses) {
  const canvas = $('plot');
  const g = canvas.getContext('2d');
  const [W, H, pad] = [canvas.width, canvas.height, 36];
  g.clearRect(0, 0, W, H);
  const hi = 4.5;
  const x = (i) => pad + (i / Math.max(STEPS - 1, 1)) * (W - pad - 8);
  const y = (v) => 8 + ((hi - Math.min(v, hi)) / hi) * (H - 8 - pad);
  g.fillStyle = '#6b7385';
  g.strokeStyle = '#e2e5ec';
  g.font = '11px system-ui, sans-serif';
  for (let v = 0; v <= 4; v++) {
    g.beginPath();
    g.moveTo(pad, y(v));
    g.lineTo(W - 8, y(v));
    g.stroke();
    g.fillText(String(v), 12, y(v) + 4);
  }
  g.fillText(`step → ${STEPS}`, W - 80, H - 10);
  g.strokeStyle = '#2f6fdb';
  g.lineWidth = 2;
  g.beginPath();
  losses.forEach((v, i) => (i ? g.lineTo(x(i), y(v)) : g.moveTo(x(i), y(v))));
  g.stroke();
}

// A draw from `probs` by its cumulative sum, with a uniform from the seeded generator.
async function draw(probs) {
  const u = (await borch.rand([1]).toArray())[0];
  let acc = 0;
  for (let i = 0; i < probs.length; i++) {
    acc += probs[i];
    if (u < acc) return i;
  }
  return probs.length - 1;
}

async function generate(model, corpus, n) {
  const ids = [corpus.vocab.indexOf('\n')];
  for (let k = 0; k < n; k++) {
    const ctx = ids.slice(-CONFIG.block_size);
    const probs = await borch.scope(async () => borch.noGrad(() => {
      const idx = borch.tensor(BigInt64Array.from(ctx, BigInt)).reshape([1, ctx.length]);
      return model.forward(idx).narrow(1, -1, 1).reshape([-1]).softmax(-1);
    }).toArray());
    ids.push(await draw(probs));
    $('sample').textContent = corpus.decode(ids.slice(1));
  }
  return corpus.decode(ids.slice(1));
}

async function main() {
  const probe = await borch.probe();
  if (!probe.ok) throw new Error(`no WebGPU here: ${JSON.stringify(probe)}`);
  await borch.init();
  const a = probe.adapter;
  $('adapter').textContent = `${a.vendor} / ${a.architecture}${probe.software ? ' (software)' : ''}`;
  const res = await fetch('/data/sonnets/sonnets.txt');
  if (!res.ok) throw new Error(`sonnets.txt: HTTP ${res.status}`);
  const corpus = charCorpus(await res.text());
  borch.manualSeed(0);
  const model = buildGpt(borch, CONFIG, corpus.vocab.length);
  const count = model.parameters.reduce((n, p) => n + p.shape.reduce((m, s) => m * s, 1), 0);
  $('model').textContent = `${CONFIG.n_layer} blocks, ${CONFIG.n_head} heads, width ${CONFIG.n_embd}, context ${CONFIG.block_size}: ${count.toLocaleString('en')} parameters; vocabulary ${corpus.vocab.length}`;
  const opt = new borch.optim.AdamW(model.parameters, { lr: 3e-3, betas: [0.9, 0.99], weightDecay: 0.1 });
  borch.manualSeed(1);
  const losses = [];
  const t0 = performance.now();
  for (let step = 0; step < STEPS; step++) {
    const loss = await borch.scope(async () => {
      const offsets = await corpus.offsets(borch, BATCH, CONFIG.block_size);
      const x = corpus.window(borch, offsets, CONFIG.block_size, 0);
      const y = corpus.window(borch, offsets, CONFIG.block_size, 1);
      opt.zeroGrad();
      const l = model.loss(x, y);
      l.backward();
      opt.step();
      return l.item();
    });
    losses.push(loss);
    if (step % 10 === 0 || step === STEPS - 1) log(`step ${step}: loss ${loss.toFixed(4)}`);
    const ms = (performance.now() - t0) / (step + 1);
    $('progress').textContent = `step ${step + 1} / ${STEPS}, loss ${loss.toFixed(3)}, ${ms.toFixed(0)} ms/step`;
    drawPlot(losses);
  }
  const perStep = (performance.now() - t0) / STEPS;
  const text = await generate(model, corpus, SAMPLE);
  const summary = `char_gpt: ${STEPS} steps, loss ${losses[0].toFixed(4)} -> ${losses.at(-1).toFixed(4)}, ${perStep.toFixed(0)} ms/step; ${SAMPLE} characters sampled`;
  log(summary);
  log(text);
  if (!(losses.at(-1) < losses[0])) throw new Error(`the loss did not fall: ${losses[0]} -> ${losses.at(-1)}`);
  return summary;
}

window.__borchDone = main().then(
  (summary) => ({ ok: true, summary }),
  (e) => {
    log(`FAILED: ${e.stack ?? e}`);
    return { ok: false, summary: String(e.message ?? e) };
  },
);
