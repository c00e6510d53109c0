// borch-ts smoke test: the package loads, opens WebGPU, makes tensors and reads them back, runs
// kernels of each family (selfTest), and turns bad input into the right JavaScript errors while
// the wasm instance keeps working. Run by tests/browser/run.mjs.

import { borch, check, checks, log, thrown } from './common.mjs';
// The glue module index.js loads (the same instance): selfTest is a diagnostic outside the API.
import { kernelSources, selfTest } from '/target/borch-ts/borch_js.js';

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
function checkValue(what, got, want) {
  check(what, same(got, want), `(got ${JSON.stringify(got)}, want ${JSON.stringify(want)})`);
}

// `fn` must throw (or reject with) an instance of `cls` with `kind` and a message matching `re`.
async function checkThrows(what, fn, cls, kind, re) {
  const error = await thrown(fn);
  check(what, error !== null, '(nothing was thrown)');
  check(what, error instanceof cls, `(threw ${error?.constructor?.name}: ${error?.message}, want ${cls.name})`);
  if (kind !== undefined) check(what, error.kind === kind, `(kind ${error.kind}, want ${kind})`);
  check(what, re.test(error.message), `(message ${JSON.stringify(error.message)} does not match ${re})`);
  log(`  ${what}: ${error.constructor.name}${error.kind ? ` [${error.kind}]` : ''}: ${error.message}`);
}

async function main() {
  // Before init: probe instantiates the wasm itself; sync functions say init() is needed.
  const probe = await borch.probe();
  check('probe ok', probe.ok === true, JSON.stringify(probe));
  await checkThrows('tensor() before init()', () => borch.tensor([1]), borch.BorchError, 'DeviceError', /init\(\) first/);

  const found = await borch.init();
  const a = found.adapter;
  log(`adapter: vendor=${a.vendor} architecture=${a.architecture} device=${JSON.stringify(a.device)} description=${JSON.stringify(a.description)} software=${found.software}`);
  check('init matches probe', same(found, probe), `${JSON.stringify(found)} vs ${JSON.stringify(probe)}`);
  const again = await borch.init({ powerPreference: 'low-power' });
  check('a second init returns an adapter', again.ok === true);

  // Creation and readback.
  const x = borch.tensor([[1, 2, 3], [4, 5, 6]]);
  checkValue('shape', x.shape, [2, 3]);
  check('shape is an Array', Array.isArray(x.shape));
  checkValue('dtype', x.dtype, 'float32');
  checkValue('toArray', await x.toArray(), [[1, 2, 3], [4, 5, 6]]);
  const ints = borch.tensor([[7, -8], [9, 10]], { dtype: 'int64' });
  checkValue('int64 dtype', ints.dtype, 'int64');
  checkValue('int64 toArray', await ints.toArray(), [[7, -8], [9, 10]]);
  const bools = borch.tensor([true, false, true]);
  checkValue('bool dtype', bools.dtype, 'bool');
  checkValue('bool toArray', await bools.toArray(), [true, false, true]);
  const typed = borch.tensor([Float32Array.of(0.5, 1.5), Float32Array.of(2.5, 3.5)]);
  checkValue('rows of Float32Array', await typed.toArray(), [[0.5, 1.5], [2.5, 3.5]]);
  const int32 = borch.tensor(Int32Array.of(1, 2, 3));
  checkValue('Int32Array dtype', int32.dtype, 'int64');
  const scalar = borch.tensor(2.5);
  checkValue('0-d shape', scalar.shape, []);
  checkValue('0-d item', await scalar.item(), 2.5);
  checkValue('0-d toArray', await scalar.toArray(), 2.5);
  checkValue('bool item', await borch.tensor([true]).item(), true);
  checkValue('empty', await borch.tensor([[], []]).toArray(), [[], []]);
  log(`tensors: ${JSON.stringify(await x.toArray())} ${x.dtype}; ${JSON.stringify(await ints.toArray())} ${ints.dtype}; ${JSON.stringify(await bools.toArray())} ${bools.dtype}`);

  // Kernels of each family through the device layer.
  const self = await selfTest();
  checkValue('a + 1.5', self.add, [[2.5, 3.5, 4.5], [5.5, 6.5, 7.5]]);
  checkValue('a.t()', self.t, [[1, 4], [2, 5], [3, 6]]);
  checkValue('a @ a.t()', self.matmul, [[14, 32], [32, 77]]);
  checkValue('a.sum()', self.sum, 21);
  check('index error is a RangeError', self.indexError instanceof RangeError && self.indexError.kind === 'IndexError', String(self.indexError));
  log(`kernels: add ${JSON.stringify(self.add)}, t ${JSON.stringify(self.t)}, matmul ${JSON.stringify(self.matmul)}, sum ${self.sum}`);
  log(`  a.transpose(0, 5): ${self.indexError.constructor.name} [${self.indexError.kind}]: ${self.indexError.message}`);

  // Every generated kernel through Chromium's own WGSL compiler (Tint), stricter than naga.
  const kernelStart = performance.now();
  const sources = kernelSources();
  const gpuAdapter = await navigator.gpu.requestAdapter();
  const gpu = await gpuAdapter.requestDevice();
  const rejected = [];
  for (const [name, code] of sources) {
    const module = gpu.createShaderModule({ code, label: name });
    const info = await module.getCompilationInfo();
    const errors = info.messages.filter((m) => m.type === 'error');
    if (errors.length > 0) rejected.push(`${name}: ${errors.map((m) => `${m.lineNum}:${m.linePos} ${m.message}`).join('; ')}`);
  }
  gpu.destroy();
  for (const r of rejected.slice(0, 20)) log(`  rejected by Tint: ${r}`);
  log(`wgsl[tint]: ${sources.length - rejected.length} / ${sources.length} generated kernels compile in Chromium (${((performance.now() - kernelStart) / 1000).toFixed(1)} s)`);
  check('every kernel compiles in Tint', rejected.length === 0, `(${rejected.length} rejected)`);

  // Bad input: the right error class, and the instance keeps working.
  log('errors:');
  await checkThrows('tensor("abc")', () => borch.tensor('abc'), TypeError, 'TypeError', /^tensor\(\): invalid data type 'string'$/);
  await checkThrows('tensor([{}])', () => borch.tensor([{}]), TypeError, 'TypeError', /invalid data type 'object'/);
  await checkThrows('tensor(new DataView)', () => borch.tensor(new DataView(new ArrayBuffer(4))), TypeError, 'TypeError', /invalid data type 'DataView'/);
  await checkThrows('ragged rows', () => borch.tensor([[1, 2], [3]]), borch.BorchError, 'ValueError', /^expected sequence of length 2 at dim 1 \(got 1\)$/);
  await checkThrows('bad dtype', () => borch.tensor([1], { dtype: 'float16' }), TypeError, 'TypeError', /invalid dtype 'float16'/);
  await checkThrows('options not an object', () => borch.tensor([1], 'float32'), TypeError, 'TypeError', /options must be an object/);
  await checkThrows('int64 out of range', () => borch.tensor([2 ** 40], { dtype: 'int64' }), Error, undefined, /./);
  await checkThrows('item() of 3 elements', () => bools.item(), borch.BorchError, 'RuntimeError', /^a Tensor with 3 elements cannot be converted to Scalar$/);
  await checkThrows('init({ powerPreference: 3 })', () => borch.init({ powerPreference: 3 }), TypeError, 'TypeError', /powerPreference must be/);
  await checkThrows('manualSeed(0.5)', () => borch.manualSeed(0.5), TypeError, 'TypeError', /must be an integer/);

  // A freed handle: borch-ts's TypeError naming the class and method (js/guard.js), not a trap.
  const before = borch.memory();
  const freed = borch.tensor([1, 2, 3, 4]);
  check('a new tensor takes a buffer', borch.memory().buffers === before.buffers + 1, JSON.stringify([before, borch.memory()]));
  freed.free();
  check('free() releases the buffer', borch.memory().buffers === before.buffers, JSON.stringify([before, borch.memory()]));
  await checkThrows('use after free()', () => freed.toArray(), TypeError, 'TypeError',
    /^Tensor\.toArray\(\): this Tensor has been freed \(free\(\) was called on it\)$/);

  // Still alive: the same instance makes and reads tensors.
  borch.manualSeed(0);
  const after = borch.tensor([[1.5, -2], [3, 4]]);
  checkValue('after the errors', await after.toArray(), [[1.5, -2], [3, 4]]);
  const self2 = await selfTest();
  checkValue('kernels after the errors', self2.matmul, [[14, 32], [32, 77]]);
  borch.emptyCache();
  log(`memory ${JSON.stringify(borch.memory())}, pooled ${JSON.stringify(borch.pooled())}, dispatches ${borch.dispatches()}, submits ${borch.submits()}`);
  const soft = found.software ? ', software' : '';
  return `${checks()} checks passed [${a.vendor} / ${a.architecture} (WebGPU${soft})]`;
}

window.__borchDone = main().then(
  (summary) => ({ ok: true, summary }),
  (e) => {
    log(`FAILED: ${e.stack ?? e}`);
    return { ok: false, summary: String(e.message ?? e) };
  },
);
