// LoRA and activation checkpointing of borch-ts under Node on Dawn against loralib 0.1.2 and torch:
// the suite of tests/browser/pages/lora_suite.mjs (which says what it checks) on
// tests/nn/lora_cases.json; pages/lora.html runs the same suite in Chromium.
// Run: VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json node tests/node/lora.mjs [filter]

import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { adapterName } from '../browser/pages/golden_suite.mjs';
import { runLoraSuite } from '../browser/pages/lora_suite.mjs';
import { installWebGpu } from './webgpu.mjs';

const dir = resolve(process.env.CARGO_TARGET_DIR ?? 'target', 'borch-ts');

async function main() {
  await installWebGpu();
  const torch = await import(pathToFileURL(join(dir, 'index.js')).href);
  const adapter = await torch.init();
  const text = readFileSync(new URL('../nn/lora_cases.json', import.meta.url), 'utf8');
  const { ok, summary } = await runLoraSuite(torch, text, { filter: process.argv[2] ?? '', label: 'node' });
  console.log(`${summary} [${adapterName(adapter, `Node ${process.version}, npm webgpu (Dawn)`)}]`);
  if (!ok) process.exit(1);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
