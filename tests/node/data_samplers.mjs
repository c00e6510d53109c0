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
  // Errors from JavaScript callbacks and wrong arguments: the instance survives each.
  const errors = [];
  let checked = 0;
  const expectThrow = async (what, f, kind, words) => {
    checked += 1;
    try {
      await f();
      errors.push(`${what}: no error`);
    } catch (e) {
      if ((e.kind ?? e.name) !== kind || !String(e.message).includes(words)) errors.push(`${what}: ${e.kind ?? e.name}: ${e.message}`);
    }
  };
  const D = torch.data;
  const bad = { length: 3, getItem: (i) => { if (i === 1) throw new RangeError('no sample 1'); return i; } };
  await expectThrow('getItem throws', async () => { for await (const b of new D.DataLoader(bad, { batchSize: 2 })) void b; }, 'IndexError', 'no sample 1');
  await expectThrow('collateFn throws', async () => { for await (const b of new D.DataLoader({ length: 2, getItem: (i) => i }, { batchSize: 2, collateFn: () => { throw new TypeError('bad batch'); } })) void b; }, 'TypeError', 'bad batch');
  await expectThrow('not a dataset', () => new D.DataLoader(42), 'TypeError', 'getItem(i) and');
  await expectThrow('a sample of a Map', async () => { for await (const b of new D.DataLoader({ length: 1, getItem: () => new Map() })) void b; }, 'TypeError', 'a sample must be');
  await expectThrow('generator not a Generator', () => new D.RandomSampler({ length: 3, getItem: (i) => i }, { generator: 3 }), 'TypeError', 'generator must be a Generator');
  await expectThrow('sampler and shuffle', () => new D.DataLoader({ length: 3, getItem: (i) => i }, { sampler: new D.SequentialSampler({ length: 3, getItem: (i) => i }), shuffle: true }), 'ValueError', 'mutually exclusive with shuffle');
  await expectThrow('ToTensor inside a dataset transform', () => torch.vision.datasets.CIFAR100.fromBytes(new Uint8Array(0), { transform: torch.vision.transforms.Compose([torch.vision.transforms.ToTensor()]) }), 'TypeError', 'leave ToTensor');
  await expectThrow('ToTensor not first', () => torch.vision.transforms.Compose([torch.vision.transforms.RandomHorizontalFlip(), torch.vision.transforms.ToTensor()]), 'TypeError', 'first');
  await expectThrow('unknown transform option', () => torch.vision.transforms.RandomCrop(4, { paddingMod: 'edge' }), 'TypeError', 'padding_mod');
  // Iterable datasets written in JavaScript: a subclass without [Symbol.iterator], a generator
  // that throws, an iterator that is not one; an array is no dataset (as before).
  const drain = async (loader) => { for await (const b of loader) void b; };
  await expectThrow('IterableDataset without [Symbol.iterator]', () => drain(new D.DataLoader(new (class Empty extends D.IterableDataset {})())), 'NotImplementedError', 'should implement [Symbol.iterator]()');
  await expectThrow('an iterable dataset throws', () => drain(new D.DataLoader({ *[Symbol.iterator]() { yield 0; throw new RangeError('no sample 1'); } }, { batchSize: 2 })), 'IndexError', 'no sample 1');
  await expectThrow('[Symbol.iterator]() returns no iterator', () => drain(new D.DataLoader({ [Symbol.iterator]: () => 5 })), 'TypeError', 'not an iterator');
  await expectThrow('an array as a dataset', () => new D.DataLoader([1, 2]), 'TypeError', 'getItem(i) and');
  await expectThrow('len of an iterable dataset without length', () => new D.DataLoader({ *[Symbol.iterator]() { yield 0; } }).length, 'TypeError', "object of type 'Object' has no len()");
  // Leaving a pass early (break) ends the dataset's generator (its finally runs), as for ... of.
  checked += 1;
  let finished = false;
  const endless = { *[Symbol.iterator]() { try { for (let i = 0; ; i += 1) yield i; } finally { finished = true; } } };
  for await (const b of new D.DataLoader(endless, { batchSize: 2 })) { void b; break; }
  if (!finished) errors.push('break out of a loader pass: the iterable dataset\'s generator was not ended');
  const alive = (await torch.ones([2]).sum().item()) === 2;
  console.log(`data[node] errors: ${checked - errors.length} / ${checked} raise torch's error kind with the message; instance ${alive ? 'alive' : 'DEAD'}`);
  if (!alive) errors.push('the instance did not survive');
  const failures = [...r.failures.slice(0, 20), ...v.failures.slice(0, 20), ...d.failures, ...errors];
  if (failures.length || r.agreeing === 0 || v.agreeing === 0 || d.agreeing === 0) {
    console.log(failures.join('\n'));
    process.exit(1);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
