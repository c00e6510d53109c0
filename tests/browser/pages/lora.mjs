// LoRA (nn.LoRALinear, nn.utils.lora) and utils.checkpoint.checkpoint through borch-ts in
// Chromium against loralib 0.1.2 and torch: the suite of lora_suite.mjs (shared with
// tests/node/lora.mjs) on tests/nn/lora_cases.json. `?filter=<substring>` runs a subset.

import { borch, log, run, start } from './common.mjs';
import { runLoraSuite } from './lora_suite.mjs';

async function main() {
  const adapter = await start();
  const text = await (await fetch('/tests/nn/lora_cases.json')).text();
  const filter = new URLSearchParams(location.search).get('filter') ?? '';
  const { ok, summary } = await runLoraSuite(borch, text, { filter, log, label: 'js' });
  if (!ok) throw new Error(summary);
  return `${summary} [${adapter.slice('adapter: '.length)}]`;
}

run(main);
