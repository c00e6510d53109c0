// (e) ViT-Tiny/16 eval forward (timm's vit_tiny_patch16_224, 224×224, 1000 classes; logits read
// back): borch-ts's `vision.models.vitTinyPatch16224()` (eval(), noGrad, in a scope; eager and
// `compiled(model)`) against ONNX Runtime Web on its WebGPU EP (GPU-buffer input) and on its wasm
// EP (one thread, CPU input; `vit-eps` picks, default both). Both run the same weights: the
// seeded ones of `cargo xtask bench vit` (tests/vision/vit_cases.py's), exported natively with
// `--export-weights` into $TARGET/bench-vit/, loaded here into borch-ts (strict) and turned into
// vit_tiny.onnx by scripts/make_bench_vit_onnx.py (timm's structure in torch, its logits checked
// against borch's first). Before any time: borch-ts's logits on the export's check input against
// native borch's, then every library's logits against borch-ts's, within 1e-3.

import { borchLogits, timeEval } from './evalbench.mjs';
import { ortFileSession, ortGpuTensor, ortRun, ort as ortLib } from './peers.mjs';
import { maxAbsDiff, uniform } from './timing.mjs';

const DIR = '/target/bench-vit/';

/** borch-ts's ViT-Tiny with the exported weights loaded (strict); also the export's check. */
async function borchVit(borch) {
  const manifest = await (await fetch(`${DIR}weights.json`)).json();
  const response = await fetch(`${DIR}weights.json.bin`);
  if (!response.ok) throw new Error(`${DIR}weights.json.bin: ${response.status} (cargo xtask bench browser --cases vit writes it)`);
  const data = new Float32Array(await response.arrayBuffer());
  const make = borch.vision?.models?.vitTinyPatch16224;
  if (!make) throw new Error('this borch-ts has no vision.models.vitTinyPatch16224 (borch-vision bindings)');
  const model = make({});
  const count = (shape) => shape.reduce((a, b) => a * b, 1);
  const state = {};
  for (const [name, shape, offset] of manifest.tensors) state[name] = borch.tensor(data.subarray(offset, offset + count(shape))).reshape(shape);
  model.loadStateDict(state, true);
  model.eval();
  const { input_offset: offset, input_shape: shape, logits } = manifest.check;
  const x = data.subarray(offset, offset + count(shape));
  return { model, check: { x, shape, logits: Float32Array.from(logits) } };
}

/** The ViT cases: eval forward at each of `batches`, `reps` timed calls after `warmup`. */
export async function benchVit({ borch, ort }, { batches, warmup, reps, eps, log, report }) {
  const { model, check } = await borchVit(borch);
  const fastForward = borch.compiled(model); // compiled(model): records once, replays
  const cx = borch.tensor(check.x).reshape(check.shape);
  const mine = await borchLogits(borch, () => model.call(cx))();
  const exportDiff = maxAbsDiff(mine, check.logits);
  log(`vit: borch-ts vs native borch on the export's check input ${JSON.stringify(check.shape)}: logits max abs diff ${exportDiff.toExponential(2)}`);
  if (!(exportDiff <= 1e-3)) throw new Error(`vit: borch-ts's logits differ from native borch's by ${exportDiff} (> 1e-3)`);
  cx.free();
  const sessions = {};
  for (const ep of eps) sessions[ep] = await ortFileSession(`${DIR}vit_tiny.onnx`, 'vit', ep);
  const records = [];
  for (const batch of batches) {
    const shape = [batch, 3, 224, 224];
    const data = uniform(batch * 3 * 224 * 224, 7000 + batch);
    const bx = borch.keepAlive(borch.tensor(data).reshape(shape));
    const gx = ortGpuTensor(ort.device, data, shape);
    const cpu = new ortLib.Tensor('float32', data, shape);
    const runs = {
      'borch-ts': borchLogits(borch, () => model.call(bx)),
      'borch-ts compiled': borchLogits(borch, () => fastForward(bx)),
    };
    for (const ep of eps) runs[ep === 'webgpu' ? 'ORT-Web' : `ORT-Web ${ep}`] = () => ortRun(sessions[ep], { x: ep === 'webgpu' ? gx : cpu });
    const size = `vit_tiny_patch16_224 batch ${batch}`;
    const rows = await timeEval(runs, { bench: 'vit-eval', size, label: `vit eval batch ${batch}`, warmup, reps, log });
    report(rows);
    records.push(...rows);
    bx.free();
    gx.dispose();
  }
  log(`vit eval: borch-ts compiled forward ${fastForward.recordings()} recordings, ${fastForward.replays()} replays, ${fastForward.divergences()} divergences`);
  for (const s of Object.values(sessions)) await s.release();
  return records;
}
