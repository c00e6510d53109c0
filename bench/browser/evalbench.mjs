// Eval-forward timing shared by the model cases (resnet18.mjs, vit.mjs): each library's first
// call timed on its own (pipeline compiles), every result checked against the reference
// library's within a tolerance before any time is reported, then interleaved timed calls (one of
// each per round, `warmup` untimed first), each to its logits read back, with the dispatches and
// submits of every call counted at the WebGPU API.

import { countCall } from './counters.mjs';
import { interleaved, maxAbsDiff, median } from './timing.mjs';

/** A borch-ts eval call: `forward()` under noGrad in a scope, its 2-D logits read back flat. */
export const borchLogits = (borch, forward) => () => borch.scope(async () => Float32Array.from((await borch.noGrad(forward).toArray()).flat()));

/** Calls wrapped to record each call's API-level dispatch and submit counts. */
export function countedRuns(runs) {
  const counts = {};
  const wrapped = {};
  for (const [name, run] of Object.entries(runs)) {
    counts[name] = [];
    wrapped[name] = async () => {
      const t0 = performance.now();
      const r = await countCall(run);
      counts[name].push({ ...r, ms: performance.now() - t0 });
      return r.value;
    };
  }
  return { wrapped, counts };
}

/** A count per call over `calls`: the value, or "mean (min–max)" when it varies. */
export function perCall(calls, key) {
  const v = calls.map((c) => c[key]);
  const mean = v.reduce((a, b) => a + b, 0) / v.length;
  const [lo, hi] = [Math.min(...v), Math.max(...v)];
  return lo === hi ? `${lo}` : `${+mean.toFixed(2)} (${lo}–${hi})`;
}

/**
 * Times `runs` ({ library: async () => Float32Array of logits }) on one batch: first calls, the
 * check against `runs[reference]` (throws beyond `tol`), then `reps` interleaved timed calls.
 * Returns one record per library ({ bench, size, impl, ms, reps, firstMs, dispatches, submits,
 * diff, diffVs }) and logs the agreement line under `label`.
 */
export async function timeEval(runs, { bench, size, label, reference = 'borch-ts', tol = 1e-3, warmup, reps, log }) {
  const got = {};
  const first = {};
  for (const [name, run] of Object.entries(runs)) {
    const t0 = performance.now();
    got[name] = await run();
    first[name] = performance.now() - t0;
  }
  const diffs = { [reference]: 0 };
  for (const name of Object.keys(runs)) {
    if (name === reference) continue;
    diffs[name] = maxAbsDiff(got[name], got[reference]);
    if (!(diffs[name] <= tol)) throw new Error(`${label}: ${name}'s logits differ from ${reference}'s by ${diffs[name]} (> ${tol})`);
  }
  const others = Object.keys(runs).filter((n) => n !== reference);
  log(`${label}: logits agree (max abs diff ${others.map((n) => `${n} ${diffs[n].toExponential(2)}`).join(', ')}; tolerance ${tol}); first calls ${Object.entries(first).map(([n, ms]) => `${n} ${ms.toFixed(0)} ms`).join(', ')}`);
  const { wrapped, counts } = countedRuns(runs);
  const times = await interleaved(wrapped, { warmup, reps });
  return Object.keys(runs).map((name) => {
    const timed = counts[name].slice(warmup);
    return {
      bench, size, impl: name, ms: median(times[name]), reps, firstMs: first[name],
      dispatches: perCall(timed, 'dispatches'), submits: perCall(timed, 'submits'),
      diff: diffs[name], diffVs: name === reference ? '-' : `${reference} (logits)`,
    };
  });
}
