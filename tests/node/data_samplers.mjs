// The "data" golden family under Node on Dawn: every case of tests/data/cases.json (frozen from
// torch) that borch-ts's torch.utils.data can replay (tests/node/data_suite.mjs), reported as
// agreeing / disagreeing / not implemented with the adapter.
// Run: VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json node tests/node/data_samplers.mjs [filter]

import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { installWebGpu } from './webgpu.mjs';
import { runDataSuite } from './data_suite.mjs';
import { runVisionDatasets, runVisionSuite, visionCases } from './vision_suite.mjs';

const dir = resolve(process.env.CARGO_TARGET_DIR ?? 'target', 'borch-ts');

async function main() {
  const t0 = performance.now();
  await installWebGpu();
  const torch = await import(pathToFileURL(join(dir, 'index.js')).href);
  const { adapter: a, software } = await torch.init();
  const { cases } = JSON.parse(readFileSync(new URL('../data/cases.json', import.meta.url)));
  const r = await runDataSuite(torch, cases, process.argv[2] ?? '');
  const adapter = `${a.vendor} / ${a.architecture} (Dawn under Node ${process.version}${software ? ', software' : ''})`;
  const missing = Object.entries(r.missing).map(([k, n]) => `${k} ${n}`).join(', ');
  console.log(`golden[node] data: ${r.agreeing} agreeing / ${r.disagreeing} disagreeing / ${r.notImplemented} not implemented (${missing}) [${adapter}] in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const t1 = performance.now();
  const v = await runVisionSuite(torch, visionCases(readFileSync(new URL('../vision/cases.json', import.meta.url), 'utf8')));
  const vm = Object.entries(v.missing).map(([k, n]) => `${k} ${n}`).join(', ');
  console.log(`golden[node] data (vision transforms): ${v.agreeing} agreeing / ${v.disagreeing} disagreeing / ${v.notImplemented} not implemented (${vm}), max |diff| ${v.worst.toExponential(2)} [${adapter}] in ${((performance.now() - t1) / 1000).toFixed(1)} s`);
  const read = async (f) => new Uint8Array(readFileSync(new URL(`../vision/files/${f}`, import.meta.url)));
  const d = await runVisionDatasets(torch, visionCases(readFileSync(new URL('../vision/cases.json', import.meta.url), 'utf8')), read);
  console.log(`golden[node] data (vision datasets): ${d.agreeing} splits agreeing / ${d.disagreeing} disagreeing, ${d.samples} samples (CIFAR-10, CIFAR-100, MNIST from bytes)`);
  const failures = [...r.failures.slice(0, 20), ...v.failures.slice(0, 20), ...d.failures];
  if (failures.length || r.agreeing === 0 || v.agreeing === 0 || d.agreeing === 0) {
    console.log(failures.join('\n'));
    process.exit(1);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
