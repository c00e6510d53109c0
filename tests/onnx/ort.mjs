// ONNX Runtime itself (npm onnxruntime-web, its wasm backend, under Node) runs every model
// borch-onnx wrote to a folder (default ../../target/onnx-models: the models of
// borch-onnx/tests/ort_models.rs) at each recorded batch size and compares with borch's outputs
// (max abs difference ≤ 1e-5, and relative to the output's scale). Exit 1 on any mismatch.
import { readFileSync, readdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as ort from 'onnxruntime-web';

const here = dirname(fileURLToPath(import.meta.url));
const folder = process.argv[2] ?? join(here, '../../target/onnx-models');
const version = JSON.parse(readFileSync(join(here, 'node_modules/onnxruntime-web/package.json'), 'utf8')).version;
ort.env.wasm.numThreads = 1;
const TOL = 1e-5;

const files = readdirSync(folder).filter((f) => f.endsWith('.json')).sort();
if (files.length === 0) {
  console.error(`ort: no models in ${folder} (run cargo test -p borch-onnx --test ort_models)`);
  process.exit(1);
}
let bad = 0;
let runs = 0;
for (const f of files) {
  const spec = JSON.parse(readFileSync(join(folder, f), 'utf8'));
  let session;
  try {
    session = await ort.InferenceSession.create(readFileSync(join(folder, spec.model)), {
      executionProviders: ['wasm'],
      logSeverityLevel: 4,
    });
  } catch (e) {
    bad += spec.cases.length;
    runs += spec.cases.length;
    console.log(`ort: ${spec.model}: ORT refused the model: ${String(e.message).slice(0, 300)}`);
    continue;
  }
  const parts = [];
  for (const c of spec.cases) {
    const x = new ort.Tensor('float32', Float32Array.from(c.input.data), c.input.shape);
    let y;
    try {
      const out = await session.run({ [session.inputNames[0]]: x }, { logSeverityLevel: 4 });
      y = out[session.outputNames[0]];
    } catch (e) {
      bad++;
      runs++;
      console.log(`ort: ${spec.model} batch ${c.input.shape[0]}: FAILED in ORT: ${String(e.message).slice(0, 300)}`);
      continue;
    }
    const want = c.output.data;
    const sameShape = JSON.stringify(Array.from(y.dims)) === JSON.stringify(c.output.shape);
    let max = 0;
    for (let i = 0; i < want.length; i++) max = Math.max(max, Math.abs(y.data[i] - want[i]));
    if (!sameShape || y.data.length !== want.length || !(max <= TOL)) {
      bad++;
      console.log(`ort: ${spec.model} batch ${c.input.shape[0]}: MISMATCH (shape ${JSON.stringify(Array.from(y.dims))} vs ${JSON.stringify(c.output.shape)}, max abs diff ${max})`);
    }
    runs++;
    parts.push(`batch ${c.input.shape[0]} max abs diff ${max.toExponential(2)}`);
  }
  console.log(`ort: ${spec.model}: ${parts.join(', ')}`);
}
console.log(`ort[node]: ${runs - bad} / ${runs} runs within ${TOL} of borch (onnxruntime-web ${version}, wasm backend, Node ${process.version}; borch's side on the native default adapter)`);
process.exit(bad ? 1 : 0);
