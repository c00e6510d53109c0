// Timing and comparison helpers of the benchmark page.

/** The median of an array of numbers. */
export function median(values) {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/**
 * Times each entry of `runs` ({ name: async () => … }) `reps` times after `warmup` untimed calls,
 * interleaved (one call of each per round) so a change in the machine's load hits all alike.
 * Each call must end with its result read back to the CPU. Returns { name: [ms, …] }.
 */
export async function interleaved(runs, { warmup, reps }) {
  const names = Object.keys(runs);
  for (let i = 0; i < warmup; i++) for (const n of names) await runs[n]();
  const times = Object.fromEntries(names.map((n) => [n, []]));
  for (let i = 0; i < reps; i++) {
    for (const n of names) {
      const t0 = performance.now();
      await runs[n]();
      times[n].push(performance.now() - t0);
    }
  }
  return times;
}

/** The largest |a[i] - b[i]| of two flat arrays of equal length (throws on a length mismatch). */
export function maxAbsDiff(a, b) {
  if (a.length !== b.length) throw new Error(`results differ in length: ${a.length} vs ${b.length}`);
  let worst = 0;
  for (let i = 0; i < a.length; i++) {
    const d = Math.abs(a[i] - b[i]);
    if (Number.isNaN(d)) return NaN;
    if (d > worst) worst = d;
  }
  return worst;
}

/** Uniform draws in [-scale, scale) from a fixed seed (mulberry32), as a Float32Array. */
export function uniform(count, seed, scale = 1) {
  let s = seed >>> 0;
  const out = new Float32Array(count);
  for (let i = 0; i < count; i++) {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    out[i] = (((t ^ (t >>> 14)) >>> 0) / 4294967296 * 2 - 1) * scale;
  }
  return out;
}
