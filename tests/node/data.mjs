// torch.utils.data through borch-ts under Node on Dawn: every DataLoader case of
// tests/data/cases.json (frozen from torch by tests/data/fixtures_torch.py) that uses the global
// generator and what borch-ts takes (TensorDataset(x, y), batchSize, shuffle, dropLast), replayed
// with `for await (const [x, y] of loader)` after `manualSeed(seed)`: two passes, each batch's
// values, shapes and dtypes exactly, and `loader.length`.
// Run: VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json node tests/node/data.mjs [filter]

import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { installWebGpu } from './webgpu.mjs';

const dir = resolve(process.env.CARGO_TARGET_DIR ?? 'target', 'borch-ts');
const filter = process.argv[2] ?? '';

async function main() {
  await installWebGpu();
  const torch = await import(pathToFileURL(join(dir, 'index.js')).href);
  await torch.init();
  const { cases } = JSON.parse(readFileSync(new URL('../data/cases.json', import.meta.url)));
  const runnable = cases.filter((c) => c.kind === 'dataloader' && c.gen === 'global'
    && c.name.includes(filter) && c.options.batch_size !== null
    && !('sampler' in c.options) && !('batch_sampler' in c.options));
  const encode = async (t) => ({ t: await t.reshape([-1]).toArray(), shape: [...t.shape], dtype: t.dtype });
  const failures = [];
  for (const c of runnable) {
    torch.manualSeed(c.seed);
    const x = torch.arange(c.n * 3, { dtype: 'float32' }).reshape([c.n, 3]);
    const y = torch.arange(c.n).mul(10);
    const options = { shuffle: c.options.shuffle ?? false, dropLast: c.options.drop_last ?? false };
    if ('batch_size' in c.options) options.batchSize = c.options.batch_size;
    const loader = new torch.data.DataLoader(new torch.data.TensorDataset([x, y]), options);
    if (loader.length !== c.len) failures.push(`${c.name}: length ${loader.length}, torch ${c.len}`);
    for (const [i, want] of c.passes.entries()) {
      const got = [];
      for await (const [xb, yb] of loader) got.push({ list: [await encode(xb), await encode(yb)] });
      if (JSON.stringify(got) !== JSON.stringify(want)) {
        failures.push(`${c.name} pass ${i}: borch ${JSON.stringify(got)}\n  torch ${JSON.stringify(want)}`);
      }
    }
  }
  // torch's errors, through the binder.
  const ds = new torch.data.TensorDataset([torch.zeros([4, 2])]);
  for (const [what, call, message] of [
    ['batchSize 0', () => new torch.data.DataLoader(ds, { batchSize: 0 }), 'batch_size should be a positive integer value, but got batch_size=0'],
    ['size mismatch', () => new torch.data.TensorDataset([torch.zeros([2]), torch.zeros([3])]), 'Size mismatch between tensors'],
  ]) {
    try {
      call();
      failures.push(`${what}: no error`);
    } catch (e) {
      if (!String(e.message).includes(message)) failures.push(`${what}: ${e.message}`);
    }
  }
  console.log(`data[node]: ${runnable.length - failures.length} agreeing / ${runnable.length} DataLoader cases`);
  if (failures.length) {
    console.log(failures.join('\n'));
    process.exit(1);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
