// (a) One n×n×n float32 matmul, inputs resident on the GPU, result read back to the CPU:
// borch-ts (`a.matmul(b)`, `toArray()`), TF.js (`tf.matMul`, `data()`), ONNX Runtime Web
// (MatMul model, GPU-buffer inputs, `getData()`). The same uniform draws in [-1, 1) for all;
// each result is compared with borch's, and borch's with a float64 product on the CPU.

import { interleaved, maxAbsDiff, median, uniform } from './timing.mjs';
import { countCall } from './counters.mjs';
import { ortGpuTensor, ortRun, tfKernelMs } from './peers.mjs';

// A float64 reference product of row-major n×n matrices.
function reference(a, b, n) {
  const c = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < n; k++) {
      const aik = a[i * n + k];
      for (let j = 0; j < n; j++) c[i * n + j] += aik * b[k * n + j];
    }
  }
  return c;
}

/** Times each size; returns one record per (size, library). */
export async function benchMatmul({ borch, tf, ort }, sizes, { warmup, reps }) {
  const records = [];
  for (const n of sizes) {
    const a = uniform(n * n, 1000 + n);
    const b = uniform(n * n, 2000 + n);
    const ba = borch.keepAlive(borch.tensor(a).reshape([n, n]));
    const bb = borch.keepAlive(borch.tensor(b).reshape([n, n]));
    const ta = tf.tensor2d(a, [n, n]);
    const tb = tf.tensor2d(b, [n, n]);
    const oa = ortGpuTensor(ort.device, a, [n, n]);
    const ob = ortGpuTensor(ort.device, b, [n, n]);
    const runs = {
      'borch-ts': () => borch.scope(async () => (await ba.matmul(bb).toArray()).flat()),
      'TF.js': async () => {
        const c = tf.matMul(ta, tb);
        const data = await c.data();
        c.dispose();
        return data;
      },
      'ORT-Web': () => ortRun(ort.sessions.matmul, { A: oa, B: ob }),
    };
    const got = {};
    const counts = {};
    for (const [name, run] of Object.entries(runs)) {
      await run(); // the first call compiles pipelines; count the second
      ({ value: got[name], ...counts[name] } = await countCall(run));
    }
    // Higham's bound for a float32 dot product of length n with |a|, |b| <= 1: n * 2^-24 * n.
    const tol = n * n * 2 ** -24;
    const ref = maxAbsDiff(got['borch-ts'], reference(a, b, n));
    if (!(ref <= tol)) throw new Error(`matmul ${n}: borch differs from the float64 product by ${ref} (> ${tol})`);
    const diffs = { 'borch-ts': ref };
    for (const name of ['TF.js', 'ORT-Web']) {
      diffs[name] = maxAbsDiff(got[name], got['borch-ts']);
      if (!(diffs[name] <= tol)) throw new Error(`matmul ${n}: ${name} differs from borch by ${diffs[name]} (> ${tol})`);
    }
    const times = await interleaved(runs, { warmup, reps });
    const kernelMs = { 'TF.js': await tfKernelMs(() => tf.matMul(ta, tb)) };
    for (const name of Object.keys(runs)) {
      const ms = median(times[name]);
      records.push({ bench: 'matmul', size: `${n}x${n}x${n}`, impl: name, ms, gflops: (2 * n ** 3) / (ms * 1e6), reps, ...counts[name], kernelMs: kernelMs[name], diff: diffs[name], diffVs: name === 'borch-ts' ? 'float64 CPU' : 'borch-ts' });
    }
    ba.free();
    bb.free();
    ta.dispose();
    tb.dispose();
    oa.dispose();
    ob.dispose();
  }
  return records;
}
