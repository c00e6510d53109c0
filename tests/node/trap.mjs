#!/usr/bin/env node
// What follows a trap (issue 9): a Rust panic traps the wasm instance, which cannot run again
// (wasm32 cannot unwind). borch-ts must then refuse every call with a clear error naming the
// panic, never run on the broken heap. The panic is borch-js's deliberate `selfTestPanic` (a
// diagnostic export of the glue, not of the package), in a process of its own.
//
//   VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json node tests/node/trap.mjs [--target-dir DIR]

import { join, resolve, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { installWebGpu } from './webgpu.mjs';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const i = process.argv.indexOf('--target-dir');
const targetDir = resolve(i >= 0 ? process.argv[i + 1] : process.env.CARGO_TARGET_DIR ?? join(repo, 'target'));
const fail = (message) => {
  console.error(`trap[node]: FAILED: ${message}`);
  process.exit(1);
};

await installWebGpu();
const pkg = join(targetDir, 'borch-ts');
const torch = await import(pathToFileURL(join(pkg, 'index.js')).href);
const glue = await import(pathToFileURL(join(pkg, 'borch_js.js')).href);
await torch.init();
const t = torch.tensor([1, 2]);
// ones() goes through the same callFunction as arange() below, which must still be named arange().
const before = await t.add(torch.ones(2)).toArray();
if (JSON.stringify(before) !== '[2,3]') fail(`before the trap: ${JSON.stringify(before)}`);
const quiet = console.error;
console.error = () => {};
try {
  glue.selfTestPanic();
  fail('selfTestPanic returned');
} catch (e) {
  if (!(e instanceof WebAssembly.RuntimeError)) fail(`selfTestPanic threw ${e}`);
} finally {
  console.error = quiet;
}
// Each call, and the name its error gives it.
const attempts = {
  'torch.tensor([1, 2])': [() => torch.tensor([1, 2]), 'tensor()'],
  't.add(1)': [() => t.add(1), 'Tensor.add()'],
  't.shape': [() => t.shape, 'Tensor.shape'],
  'await t.toArray()': [() => t.toArray(), 'Tensor.toArray()'],
  'new torch.nn.Linear(2, 2)': [() => new torch.nn.Linear(2, 2), 'new Linear()'],
  'torch.arange(3)': [() => torch.arange(3), 'arange()'],
  'torch.memory()': [() => torch.memory(), 'memoryStats()'],
};
let checked = 0;
for (const [code, [run, what]] of Object.entries(attempts)) {
  let error;
  try {
    await run();
  } catch (e) {
    error = e;
  }
  if (error === undefined) fail(`${code} ran after the trap`);
  const m = String(error.message);
  const named = m.startsWith(`${what}: borch-ts has stopped: its WebAssembly instance trapped in an earlier call`);
  if (!(error instanceof torch.BorchError) || error.kind !== 'RuntimeError' || !named || !m.includes('selfTestPanic: a deliberate panic')) {
    fail(`${code} after the trap threw ${error?.name}: ${m}`);
  }
  checked++;
}
console.log(`trap[node]: after a panic every call (${checked} checked) throws "borch-ts has stopped: its WebAssembly instance trapped … (borch panicked …)"; nothing runs on the broken instance`);
process.exit(0);
