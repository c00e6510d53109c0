// The side-by-side benchmark page: borch-ts, TF.js (WebGPU backend) and ONNX Runtime Web
// (WebGPU EP) in one Chromium, each on its own GPUDevice of the same adapter (checked). Prints
// one line per measurement with the adapter, and a `BENCH {json}` line that
// `cargo xtask bench browser` turns into its table. Any disagreement between the libraries'
// results fails the page.

import './counters.mjs';
import { borch, log, run, start } from '/tests/browser/pages/common.mjs';
import { adapterLine, ort, startOrt, startTf, tf } from './peers.mjs';
import { benchMatmul } from './matmul.mjs';
import { benchTrain } from './train.mjs';
import { benchInfer } from './infer.mjs';
import { benchResnet } from './resnet18.mjs';
import { benchVit } from './vit.mjs';

const query = new URLSearchParams(location.search);
const list = (key, fallback) => (query.get(key) ?? fallback).split(',').map(Number);
const number = (key, fallback) => Number(query.get(key) ?? fallback);
// Which parts run: matmul (a), mlp (b and c), resnet18 (d) and vit (e); d and e not by default
// (minutes on SwiftShader).
const cases = new Set((query.get('cases') ?? 'matmul,mlp').split(','));
const CASES = ['matmul', 'mlp', 'resnet18', 'vit'];
for (const c of cases) if (!CASES.includes(c)) throw new Error(`unknown case ${c} (${CASES.join(', ')})`);

const MLP = [64, 128, 10];
const OPTIMIZERS = [{ opt: 'SGD', lr: 0.1 }, { opt: 'Adam', lr: 1e-3 }];

function describe(r, adapter) {
  const parts = [`${r.bench} ${r.size} ${r.impl}: ${r.ms.toFixed(2)} ms (median of ${r.reps})`];
  if (r.gflops !== undefined) parts.push(`${r.gflops.toFixed(2)} GFLOP/s`);
  if (r.dispatches !== undefined) parts.push(`${r.dispatches} dispatches, ${r.submits} submits`);
  if (r.kernelMs !== undefined) parts.push(`TF.js's own GPU timestamps (one call): ${r.kernelMs === null ? 'none' : `${r.kernelMs.toFixed(2)} ms of kernels`}`);
  if (r.ownDispatches !== undefined) parts.push(`borch's own counters ${r.ownDispatches} / ${r.ownSubmits}`);
  if (r.diffVs !== '-') parts.push(`max abs diff vs ${r.diffVs} ${r.diff.toExponential(2)}`);
  return `${parts.join(', ')} [${adapter}]`;
}

async function main() {
  const borchAdapter = (await start()).slice('adapter: '.length);
  const tfInfo = await startTf();
  const ortInfo = await startOrt();
  const tfAdapter = adapterLine(tfInfo.info, tfInfo.software);
  const ortAdapter = adapterLine(ortInfo.info, ortInfo.software);
  log(`borch-ts: ${borchAdapter}`);
  log(`TF.js ${tfInfo.version} (webgpu backend): ${tfAdapter}`);
  log(`ONNX Runtime Web ${ortInfo.version} (webgpu EP): ${ortAdapter}`);
  log(`${navigator.userAgent}`);
  const key = (info) => `${info.vendor}/${info.architecture}`;
  const borchKey = borchAdapter.split(' (')[0].replace(' / ', '/');
  if (key(tfInfo.info) !== borchKey || key(ortInfo.info) !== borchKey) {
    throw new Error(`the libraries are not on the same adapter: borch ${borchAdapter}, TF.js ${tfAdapter}, ORT ${ortAdapter}`);
  }

  const warmup = number('warmup', 3);
  const reps = number('reps', 15);
  const libs = { borch, tf, ort: ortInfo };
  const records = [];
  const report = (rs) => {
    for (const r of rs) {
      r.adapter = borchAdapter;
      log(describe(r, borchAdapter));
      log(`BENCH ${JSON.stringify(r)}`);
      records.push(r);
    }
  };

  if (cases.has('matmul')) {
    report(await benchMatmul(libs, list('sizes', '1,128,256,512'), { warmup, reps }));
    if (!records.some((r) => r.impl === 'borch-ts')) throw new Error('no borch measurement');
  }

  let model = null;
  for (const optimizer of cases.has('mlp') ? OPTIMIZERS : []) {
    const train = await benchTrain(libs, MLP, number('batch', 64), optimizer, { warmup: number('train-warmup', 5), reps: number('steps', 30) });
    if (!(Number.parseFloat(train.records[0].dispatches) > 0)) throw new Error('the WebGPU dispatch counter saw no dispatch from borch: counting is broken');
    report(train.records);
    log(`train-step ${optimizer.opt}: loss ${train.records.loss[0].toFixed(4)} → ${train.records.loss[1].toFixed(4)} (both libraries; max abs loss diff ${train.records.lossDiff.toExponential(2)}, final parameters ${train.records.paramDiff.toExponential(2)}) [${borchAdapter}]`);
    model ??= train.model;
  }

  if (cases.has('mlp')) report(await benchInfer(libs, model, MLP, list('batches', '64,1024'), { warmup, reps }));
  if (cases.has('resnet18')) {
    // Each case is reported as soon as it is measured (a full-width run takes most of an hour).
    const parts = (query.get('resnet-parts') ?? 'eval,train').split(',');
    await benchResnet(libs, {
      width: number('width', 64), evalBatches: list('resnet-eval-batches', '1,16'), trainBatch: number('resnet-batch', 16),
      warmup: number('resnet-warmup', 1), reps: number('resnet-steps', 3), log, report, parts,
    });
  }
  if (cases.has('vit')) {
    await benchVit(libs, {
      batches: list('vit-batches', '1,16'), warmup: number('vit-warmup', 1), reps: number('vit-steps', 2),
      eps: (query.get('vit-eps') ?? 'webgpu,wasm').split(','), log, report,
    });
  }
  if (!records.some((r) => r.impl === 'borch-ts')) throw new Error('no borch measurement');
  return `${records.length} measurements on ${borchAdapter}`;
}

run(main);
