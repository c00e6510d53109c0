// The modules whose forward takes more than tensors or returns a tuple (LSTMCell, RNN, LSTM, GRU,
// MultiheadAttention, Transformer*, TransformerEncoder/Decoder built from a layer) through
// borch-ts under Node on Dawn: every forward case of tests/nn/cases.json with a tuple output or
// forward keywords (frozen from torch by tests/nn/recurrent_cases.py and attention_cases.py) and
// every case of the option sweep tests/nn/sequence_sweep.json (tests/nn/sequence_sweep.py), by the
// rules of tests/browser/pages/module_cases.mjs (shared with pages/sequence.html in Chromium):
// outputs, then the gradients of sum(output · gout) for every input and parameter. atol 1e-4,
// rtol 1e-4.
// Run: VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json node tests/node/recurrent.mjs [filter]

import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { installWebGpu } from './webgpu.mjs';
import { runModuleCases, treeCases } from '../browser/pages/module_cases.mjs';

const dir = resolve(process.env.CARGO_TARGET_DIR ?? 'target', 'borch-ts');
const filter = process.argv[2] ?? '';
const read = (file) => JSON.parse(readFileSync(new URL(`../nn/${file}`, import.meta.url)));

async function main() {
  await installWebGpu();
  const torch = await import(pathToFileURL(join(dir, 'index.js')).href);
  const { adapter: a, software } = await torch.probe();
  await torch.init();
  const adapter = `${a.vendor} / ${a.architecture} (WebGPU${software ? ', software' : ''})`;
  const picked = (cases) => cases.filter((c) => c.name.includes(filter));
  const tree = await runModuleCases(torch, picked(treeCases(read('cases.json'))));
  const sweep = await runModuleCases(torch, picked(read('sequence_sweep.json').forward));
  const failures = [...tree.failures, ...sweep.failures];
  let count = tree.count;
  // The stack deep-copies its layer (torch's _get_clones): the caller's layer stays its own; and
  // nn.Transformer's static mask is torch's (tests/browser/pages/python_expected.json).
  {
    const layer = new torch.nn.TransformerEncoderLayer(4, 2, { dimFeedforward: 6, dropout: 0.0 });
    const encoder = new torch.nn.TransformerEncoder(layer, 2);
    const key = 'linear1.weight';
    const before = await encoder.stateDict()[`layers.1.${key}`].toArray();
    const same = JSON.stringify(before) === JSON.stringify(await layer.stateDict()[key].toArray());
    layer.loadStateDict({ [key]: torch.zeros([6, 4]) }, false);
    const after = await encoder.stateDict()[`layers.1.${key}`].toArray();
    if (!same || JSON.stringify(after) !== JSON.stringify(before)) failures.push('TransformerEncoder: the layer is not deep-copied');
    if ([...layer.call(torch.ones([3, 1, 4])).shape].join() !== '3,1,4') failures.push('TransformerEncoder: the layer is no longer usable');
    count++;
    const expected = JSON.parse(readFileSync(new URL('../browser/pages/python_expected.json', import.meta.url))).mask;
    const mask = await torch.nn.Transformer.generateSquareSubsequentMask(3).toArray();
    const str = (v) => (v === -Infinity ? '-inf' : v.toFixed(1));
    if (JSON.stringify(mask.map((r) => r.map(str))) !== JSON.stringify(expected)) failures.push(`generateSquareSubsequentMask(3): ${JSON.stringify(mask)}`);
    count++;
  }
  console.log(`recurrent: ${count} cases of cases.json with tuple outputs or forward keywords, ${failures.length - sweep.failures.length} disagreements; sequence sweep: ${sweep.agreeing} agreeing / ${sweep.count} cases, ${sweep.count - sweep.agreeing} disagreeing [${adapter}]`);
  for (const f of failures) console.log(`  ${f}`);
  if (count + sweep.count === 0 || failures.length) process.exit(1);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
