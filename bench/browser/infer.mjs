// (c) MLP inference (Linear→ReLU→Linear, logits read back) with the same parameters in each
// library, all resident on the GPU: borch-ts (the nn.Sequential under noGrad, in a scope),
// TF.js (tf ops in tidy), ONNX Runtime Web (mlp.onnx: Gemm, Relu, Gemm; GPU-buffer inputs).
// The peers' logits are compared with borch's. Dispatches and submits per forward are counted
// at the WebGPU API.

import { countCall } from './counters.mjs';
import { ortGpuTensor, ortRun, tfKernelMs } from './peers.mjs';
import { interleaved, maxAbsDiff, median, uniform } from './timing.mjs';

/** Times one forward at each batch size; returns one record per (batch, library). */
export async function benchInfer({ borch, tf, ort }, model, sizes, batches, { warmup, reps }) {
  const [inputs, hidden, classes] = sizes;
  const named = Object.fromEntries(model.namedParameters());
  const p = {};
  for (const name of ['0.weight', '0.bias', '2.weight', '2.bias']) p[name] = Float32Array.from([await named[name].toArray()].flat(2));
  const tw = { w1: tf.tensor2d(p['0.weight'], [hidden, inputs]), b1: tf.tensor1d(p['0.bias']), w2: tf.tensor2d(p['2.weight'], [classes, hidden]), b2: tf.tensor1d(p['2.bias']) };
  const ow = {
    w1: ortGpuTensor(ort.device, p['0.weight'], [hidden, inputs]),
    b1: ortGpuTensor(ort.device, p['0.bias'], [hidden]),
    w2: ortGpuTensor(ort.device, p['2.weight'], [classes, hidden]),
    b2: ortGpuTensor(ort.device, p['2.bias'], [classes]),
  };
  const records = [];
  for (const batch of batches) {
    const xData = uniform(batch * inputs, 9000 + batch);
    const bx = borch.keepAlive(borch.tensor(xData).reshape([batch, inputs]));
    const tx = tf.tensor2d(xData, [batch, inputs]);
    const ox = ortGpuTensor(ort.device, xData, [batch, inputs]);
    const tfForward = () => tf.tidy(() => tf.add(tf.matMul(tf.relu(tf.add(tf.matMul(tx, tw.w1, false, true), tw.b1)), tw.w2, false, true), tw.b2));
    const plain = {
      'borch-ts': () => borch.scope(async () => (await borch.noGrad(() => model.call(bx)).toArray()).flat()),
      'TF.js': async () => {
        const logits = tfForward();
        const data = await logits.data();
        logits.dispose();
        return data;
      },
      'ORT-Web': () => ortRun(ort.sessions.mlp, { x: ox, ...ow }),
    };
    const got = {};
    const counts = {};
    for (const [name, run] of Object.entries(plain)) {
      await run(); // the first call compiles pipelines; count the second
      ({ value: got[name], ...counts[name] } = await countCall(run));
    }
    const tol = 1e-4;
    const diffs = { 'borch-ts': 0 };
    for (const name of ['TF.js', 'ORT-Web']) {
      diffs[name] = maxAbsDiff(got[name], got['borch-ts']);
      if (!(diffs[name] <= tol)) throw new Error(`mlp inference batch ${batch}: ${name} differs from borch by ${diffs[name]} (> ${tol})`);
    }
    const times = await interleaved(plain, { warmup, reps });
    const kernelMs = { 'TF.js': await tfKernelMs(tfForward) };
    for (const name of Object.keys(plain)) {
      records.push({ bench: 'mlp-infer', size: `${sizes.join('-')} batch ${batch}`, impl: name, ms: median(times[name]), reps, ...counts[name], kernelMs: kernelMs[name], diff: diffs[name], diffVs: name === 'borch-ts' ? '-' : 'borch-ts' });
    }
    bx.free();
    tx.dispose();
    ox.dispose();
  }
  for (const t of [...Object.values(tw), ...Object.values(ow)]) t.dispose();
  return records;
}
