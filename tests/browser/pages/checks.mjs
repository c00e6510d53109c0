// Checks that throw with a description, counted; no DOM and no package, so the browser pages and
// the Node runner (tests/node/run.mjs) share them.

let count = 0;
export function check(what, ok, detail = '') {
  count += 1;
  if (!ok) throw new Error(`${what}: failed ${detail}`);
}
export const checks = () => count;

// What `fn` throws or rejects with, or null.
export async function thrown(fn) {
  try {
    await fn();
  } catch (e) {
    return e;
  }
  return null;
}
