// The digits MLP of `cargo xtask demo`, in the browser: data/digits/digits.csv.gz (fetched from
// this origin and gunzipped by the browser), the same 1,437 / 360 split (randperm after
// manualSeed(0)), an MLP 64→128→10 with ReLU, Adam lr 0.01, batches of 64 reshuffled every
// epoch, 30 epochs, each step inside a memory scope; a live loss plot and the held-out accuracy.

import * as borch from '/target/borch-ts/index.js';

const { nn, optim } = borch;
const EPOCHS = 30;
const BATCH = 64;
const LR = 1e-2;
const HELD_OUT = 360;
const SEED = 0;

const $ = (id) => document.getElementById(id);
function log(line) {
  console.log(line);
  $('log').textContent += `${line}\n`;
}

async function loadDigits() {
  const response = await fetch('/data/digits/digits.csv.gz');
  if (!response.ok) throw new Error(`digits.csv.gz: HTTP ${response.status}`);
  const gz = await response.blob();
  const text = await new Response(gz.stream().pipeThrough(new DecompressionStream('gzip'))).text();
  const rows = text.split('\n').filter((l) => l.trim() !== '').map((l) => l.split(',').map(Number));
  const pixels = new Float32Array(rows.length * 64);
  const labels = new Int32Array(rows.length);
  rows.forEach((r, i) => {
    for (let j = 0; j < 64; j++) pixels[i * 64 + j] = r[j] / 16;
    labels[i] = r[64];
  });
  return { pixels, labels, n: rows.length };
}

// The loss plot: per-step losses and per-epoch means, log-scaled, redrawn as they come.
function drawPlot(steps, epochs, stepsPerEpoch, totalSteps) {
  const canvas = $('plot');
  const g = canvas.getContext('2d');
  const W = canvas.width;
  const H = canvas.height;
  const pad = { l: 48, r: 12, t: 12, b: 28 };
  g.clearRect(0, 0, W, H);
  const all = steps.length ? steps : [1];
  const hi = Math.log10(Math.max(...all, 2.5));
  const lo = Math.log10(Math.max(Math.min(...all), 1e-3)) - 0.1;
  const x = (i) => pad.l + (i / Math.max(totalSteps - 1, 1)) * (W - pad.l - pad.r);
  const y = (v) => pad.t + ((hi - Math.log10(Math.max(v, 1e-6))) / (hi - lo)) * (H - pad.t - pad.b);
  g.strokeStyle = '#e2e5ec';
  g.fillStyle = '#6b7385';
  g.font = '11px system-ui, sans-serif';
  g.lineWidth = 1;
  for (let e = Math.ceil(lo); e <= Math.floor(hi); e++) {
    for (const m of [1, 2, 5]) {
      const v = m * 10 ** e;
      if (Math.log10(v) < lo || Math.log10(v) > hi) continue;
      g.beginPath();
      g.moveTo(pad.l, y(v));
      g.lineTo(W - pad.r, y(v));
      g.stroke();
      g.fillText(String(Number(v.toPrecision(2))), 4, y(v) + 4);
    }
  }
  for (let ep = 0; ep <= EPOCHS; ep += 5) {
    const px = x(ep * stepsPerEpoch);
    g.fillText(`${ep}`, px - 4, H - 10);
  }
  g.fillText('epoch →', pad.l - 44, H - 10);
  const line = (points, color, width) => {
    if (points.length < 2) return;
    g.strokeStyle = color;
    g.lineWidth = width;
    g.beginPath();
    points.forEach(([i, v], k) => (k ? g.lineTo(x(i), y(v)) : g.moveTo(x(i), y(v))));
    g.stroke();
  };
  line(steps.map((v, i) => [i, v]), '#b9cdf3', 1);
  line(epochs.map((v, i) => [(i + 1) * stepsPerEpoch - 1, v]), '#2f6fdb', 2.5);
}

function showSamples(pixels, labels, rows, predicted, count = 24) {
  const box = $('samples');
  for (let k = 0; k < count; k++) {
    const r = rows[k];
    const item = document.createElement('div');
    item.className = `sample${predicted[k] === labels[r] ? '' : ' wrong'}`;
    const c = document.createElement('canvas');
    c.width = 8;
    c.height = 8;
    const img = c.getContext('2d').createImageData(8, 8);
    for (let j = 0; j < 64; j++) {
      const v = 255 - Math.round(pixels[r * 64 + j] * 255);
      img.data.set([v, v, v, 255], j * 4);
    }
    c.getContext('2d').putImageData(img, 0, 0);
    item.append(c, document.createElement('br'), `${predicted[k]}`);
    box.append(item);
  }
}

async function main() {
  const probe = await borch.probe();
  if (!probe.ok) {
    $('adapter').textContent = `no WebGPU here (${probe.why})`;
    throw new Error(`WebGPU unavailable: ${probe.why}`);
  }
  await borch.init();
  const a = probe.adapter;
  const adapter = `${a.vendor} / ${a.architecture}${a.description ? ` (${a.description})` : ''}${probe.software ? ', software' : ''}`;
  $('adapter').textContent = adapter;
  log(`adapter: ${adapter}`);

  const { pixels, labels, n } = await loadDigits();
  borch.manualSeed(SEED);
  const order = await borch.randperm(n).toArray();
  const nTrain = n - HELD_OUT;
  const trainRows = order.slice(0, nTrain);
  const testRows = order.slice(nTrain);
  const gather = (rows) => {
    const x = new Float32Array(rows.length * 64);
    rows.forEach((r, i) => x.set(pixels.subarray(r * 64, r * 64 + 64), i * 64));
    return {
      x: borch.keepAlive(borch.tensor(x).reshape([rows.length, 64])),
      y: borch.keepAlive(borch.tensor(Int32Array.from(rows, (r) => labels[r]))),
    };
  };
  const train = gather(trainRows);
  const test = gather(testRows);
  $('data').textContent = `${n} images: ${nTrain} to train on, ${HELD_OUT} held out`;

  borch.manualSeed(SEED);
  const model = new nn.Sequential(new nn.Linear(64, 128), new nn.ReLU(), new nn.Linear(128, 10));
  const opt = new optim.Adam(model.parameters(), { lr: LR });
  const lossFn = new nn.CrossEntropyLoss();
  log(`model:\n${model}`);

  const stepsPerEpoch = Math.ceil(nTrain / BATCH);
  const totalSteps = EPOCHS * stepsPerEpoch;
  const stepLosses = [];
  const epochLosses = [];
  const d0 = borch.dispatches();
  const t0 = performance.now();
  for (let epoch = 1; epoch <= EPOCHS; epoch++) {
    const perm = borch.randperm(nTrain);
    let sum = 0;
    for (let b = 0; b < stepsPerEpoch; b++) {
      const start = b * BATCH;
      const len = Math.min(BATCH, nTrain - start);
      const loss = await borch.scope(async () => {
        const idx = perm.narrow(0, start, len);
        const x = train.x.indexSelect(0, idx);
        const y = train.y.indexSelect(0, idx);
        opt.zeroGrad();
        const loss = lossFn.call(model.call(x), y);
        loss.backward();
        opt.step();
        return loss.item();
      });
      sum += loss * len;
      stepLosses.push(loss);
      if (b % 4 === 0 || b === stepsPerEpoch - 1) {
        const done = stepLosses.length;
        const ms = (performance.now() - t0) / done;
        $('progress').textContent = `epoch ${epoch}/${EPOCHS}, step ${done}/${totalSteps}, ${ms.toFixed(1)} ms/step, loss ${loss.toFixed(4)}`;
        drawPlot(stepLosses, epochLosses, stepsPerEpoch, totalSteps);
        await new Promise(requestAnimationFrame);
      }
    }
    perm.free();
    epochLosses.push(sum / nTrain);
    log(`epoch ${String(epoch).padStart(2)}: loss ${(sum / nTrain).toFixed(4)}`);
  }
  const seconds = (performance.now() - t0) / 1000;
  drawPlot(stepLosses, epochLosses, stepsPerEpoch, totalSteps);

  model.eval();
  const predicted = await borch.noGrad(() => model.call(test.x).argmax(1)).toArray();
  const correct = predicted.filter((p, i) => p === labels[testRows[i]]).length;
  const accuracy = correct / HELD_OUT;
  $('accuracy').textContent = `${(accuracy * 100).toFixed(2)}% (${correct} / ${HELD_OUT})`;
  $('accuracy').className = 'done';
  const perStep = (seconds * 1000) / totalSteps;
  const dispatches = (borch.dispatches() - d0) / totalSteps;
  $('progress').textContent = `done: ${totalSteps} steps in ${seconds.toFixed(1)} s (${perStep.toFixed(1)} ms/step, ${dispatches.toFixed(0)} dispatches/step)`;
  showSamples(pixels, labels, testRows, predicted);
  const summary = `digits[js]: held-out accuracy ${(accuracy * 100).toFixed(2)}% (${correct}/${HELD_OUT}), final epoch loss ${epochLosses.at(-1).toFixed(4)}, ${totalSteps} steps in ${seconds.toFixed(1)} s (${perStep.toFixed(1)} ms/step) [${adapter}]`;
  log(summary);
  return { accuracy, summary };
}

window.__borchDone = main().then(
  ({ accuracy, summary }) => ({ ok: accuracy >= 0.9, accuracy, summary }),
  (e) => {
    log(`FAILED: ${e.stack ?? e}`);
    return { ok: false, summary: String(e.message ?? e) };
  },
);
