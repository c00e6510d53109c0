#!/usr/bin/env node
// Memory stays flat over a long training loop (issue 9): 10,000 scoped SGD steps of a small MLP
// under Node on Dawn, each uploading its batch from JavaScript and reading its loss back, as a
// user's loop does. After warm-up `pooled()` and `memory()` must not move, and the process's RSS
// may not grow past a small allowance. Prints all three at warm-up and at the end.
//
//   VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json node tests/node/steady.mjs \
//     [--target-dir DIR] [--steps N]

import { join, resolve, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { installWebGpu } from './webgpu.mjs';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const args = process.argv.slice(2);
const flag = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const targetDir = resolve(flag('--target-dir', process.env.CARGO_TARGET_DIR ?? join(repo, 'target')));
const steps = Number(flag('--steps', 10000));
const warmup = Math.min(500, Math.floor(steps / 10));
// RSS may move by allocator noise and V8's heap; a leak of one buffer per step would be
// ≥ 16 bytes of GPU memory plus Dawn's bookkeeping per step, far above this over 10,000 steps.
const RSS_ALLOWANCE_MB = 48;

const fail = (message) => {
  console.error(`steady[node]: FAILED: ${message}`);
  process.exit(1);
};

const mb = (bytes) => (bytes / 2 ** 20).toFixed(1);
const snapshot = (torch) => ({ pooled: torch.pooled(), memory: torch.memory(), rss: process.memoryUsage().rss });
const show = (s) =>
  `pooled ${s.pooled.buffers} buffers / ${s.pooled.bytes} B, live ${s.memory.buffers} buffers / ${s.memory.bytes} B, RSS ${mb(s.rss)} MB`;

async function main() {
  const webgpu = await installWebGpu();
  const torch = await import(pathToFileURL(join(targetDir, 'borch-ts', 'index.js')).href);
  const found = await torch.init();
  const adapter = `${found.adapter.vendor} / ${found.adapter.architecture} (Node ${process.version}, npm webgpu ${webgpu} (Dawn)${found.software ? ', software' : ''})`;
  torch.manualSeed(0);
  const model = new torch.nn.Sequential(new torch.nn.Linear(8, 16), new torch.nn.ReLU(), new torch.nn.Linear(16, 1));
  const opt = new torch.optim.SGD(model.parameters(), { lr: 0.01 });
  const lossFn = new torch.nn.MSELoss();
  const batch = (i) => Array.from({ length: 4 }, (_, r) => Array.from({ length: 8 }, (_, c) => Math.sin(i + r * 8 + c)));
  const target = (i) => Array.from({ length: 4 }, (_, r) => [Math.cos(i + r)]);
  const step = (i) =>
    torch.scope(async () => {
      opt.zeroGrad();
      const loss = lossFn.call(model.call(torch.tensor(batch(i))), torch.tensor(target(i)));
      loss.backward();
      opt.step();
      return loss.item();
    });
  const started = performance.now();
  let first;
  for (let i = 0; i < warmup; i++) {
    const loss = await step(i);
    if (i === 0) first = loss;
  }
  globalThis.gc?.();
  const warm = snapshot(torch);
  let last;
  for (let i = warmup; i < steps; i++) last = await step(i);
  globalThis.gc?.();
  const end = snapshot(torch);
  const seconds = (performance.now() - started) / 1000;
  console.log(`steady[node]: after ${warmup} warm-up steps: ${show(warm)}`);
  console.log(`steady[node]: after ${steps} steps:        ${show(end)}`);
  if (!Number.isFinite(last) || !(last < first)) fail(`the loss did not fall (${first} → ${last})`);
  if (end.pooled.buffers !== warm.pooled.buffers || end.pooled.bytes !== warm.pooled.bytes) fail('pooled() grew after warm-up');
  if (end.memory.buffers !== warm.memory.buffers || end.memory.bytes !== warm.memory.bytes) fail('memory() grew after warm-up');
  const grew = (end.rss - warm.rss) / 2 ** 20;
  if (grew > RSS_ALLOWANCE_MB) fail(`RSS grew by ${grew.toFixed(1)} MB over ${steps - warmup} steps (allowance ${RSS_ALLOWANCE_MB} MB)`);
  console.log(
    `steady[node]: ${steps} steps flat (pooled and live unchanged after warm-up, RSS ${grew >= 0 ? '+' : ''}${grew.toFixed(1)} MB), loss ${first.toFixed(4)} → ${last.toFixed(4)}, ${((seconds * 1000) / steps).toFixed(2)} ms/step [${adapter}]`,
  );
  process.exit(0);
}

main().catch((e) => fail(e.stack ?? e));
