// The model catalogue through borch-ts under Node on Dawn (docs/vision.md, "Model catalogue"):
// tests/browser/pages/catalogue_suite.mjs on the shipped entries read from file: URLs. Node has no
// Cache API: every load reads the files and `cached` is false (the suite checks both).
// Run: VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json node tests/node/catalogue.mjs

import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { installWebGpu } from './webgpu.mjs';
import { checks } from '../browser/pages/checks.mjs';
import { catalogueSuite } from '../browser/pages/catalogue_suite.mjs';

const dir = resolve(process.env.CARGO_TARGET_DIR ?? 'target', 'borch-ts');

async function main() {
  const t0 = performance.now();
  await installWebGpu();
  const torch = await import(pathToFileURL(join(dir, 'index.js')).href);
  const { adapter, software } = await torch.init();
  const line = `${adapter.vendor} / ${adapter.architecture} (Dawn under Node ${process.version}${software ? ', software' : ''})`;
  check(typeof caches === 'undefined', 'Node has no Cache API (this test assumes none)');
  const base = new URL('../../catalogue/', import.meta.url);
  const read = async (url) => new Uint8Array(await readFile(url));
  const lines = await catalogueSuite(torch, { base, read, log: console.log, adapter: line, cacheApi: false });
  console.log(`catalogue[node]: ${lines.length} entries loaded and verified, ${checks()} checks passed (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
}

function check(ok, what) {
  if (!ok) throw new Error(what);
}

main().catch((e) => {
  console.error(`catalogue[node]: FAILED: ${e.stack ?? e}`);
  process.exit(1);
});
