// What a call's outcome is: ok, a clean error, or a finding (trap, hang, wrong numel, unhealthy).
//
// - clean error: a thrown TypeError, RangeError or BorchError whose message is non-empty English
//   (letters; ASCII and a few typographic signs only);
// - trap: the wasm instance's own failures (`RuntimeError: unreachable`, `memory access out of
//   bounds`), wasm-bindgen's internal errors (`null pointer passed to rust`, `recursive use of an
//   object detected`, …), and any other thrown value that is not a clean error;
// - hang: a call, or the readback of what it returned, over the per-call limit; or a walk of more
//   than 100000 elements of the bounded Proxy (it would have walked 2**32);
// - wrong numel: a returned tensor whose shape is not a list of non-negative integers, whose
//   numel() differs from the product of its shape, whose product is smaller than one of its
//   dims > 0 (wrapped arithmetic), or whose toArray() (for results up to 4096 elements) has
//   another number of elements.

import { UNBOUNDED_MARK } from './fuzz_values.mjs';

const ENGLISH = /^[\x20-\x7e\n\t×→←…—–≤≥≠±·’]*$/;
// The message of every call after a trap (borch-js/js/guard.js).
const STOPPED = /borch-ts has stopped/;
const TRAPS = /unreachable|memory access out of bounds|null pointer passed to rust|recursive use of an object|cannot recursively acquire|already borrowed|already mutably borrowed|closure invoked/i;
const READ_LIMIT = 4096;

export class Timeout extends Error {}

/** `promise`, or a Timeout rejection after `ms`. */
export function within(promise, ms, what) {
  let timer;
  const limit = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Timeout(`${what} did not settle within ${ms} ms`)), ms);
  });
  return Promise.race([promise, limit]).finally(() => clearTimeout(timer));
}

const describe = (e) => {
  if (e instanceof Error) return `${e.constructor?.name ?? 'Error'}: ${e.message}`;
  try {
    return `a thrown ${typeof e}: ${String(e)}`;
  } catch {
    return `a thrown ${typeof e}`;
  }
};

/** `{ kind, why }` for a thrown value: 'clean', 'trap' or 'hang'. */
export function judgeError(e, torch) {
  if (e instanceof Timeout) return { kind: 'hang', why: e.message };
  const text = describe(e);
  if (text.includes(UNBOUNDED_MARK)) return { kind: 'hang', why: `walked the bounded Proxy: ${text}` };
  const classOk = e instanceof TypeError || e instanceof RangeError || e instanceof torch.BorchError;
  // A wasm trap leaves the instance in no known state (a Rust panic unwinds nothing: locks stay
  // held): `fatal`, the rest of the run needs a fresh instance.
  if (e instanceof WebAssembly.RuntimeError) return { kind: 'trap', why: text, fatal: true };
  // borch-ts's own error after a trap (borch-js/js/guard.js turns the trap into it).
  if (STOPPED.test(e?.message ?? '')) return { kind: 'trap', why: text, fatal: true };
  if (!classOk || TRAPS.test(e.message)) return { kind: 'trap', why: text };
  const m = e.message;
  if (!m || !/[a-z]/i.test(m) || !ENGLISH.test(m)) return { kind: 'trap', why: `not an English message: ${JSON.stringify(m)}` };
  return { kind: 'clean' };
}

/** The tensors in a call's result (itself, or inside an array, one level deep). */
export function tensorsIn(value, torch) {
  if (value instanceof torch.Tensor) return [value];
  if (Array.isArray(value)) return value.filter((v) => v instanceof torch.Tensor).slice(0, 4);
  return [];
}

function count(nested) {
  return Array.isArray(nested) ? nested.reduce((n, x) => n + count(x), 0) : 1;
}

/** null when `t` is sound, else `{ kind, why }`. */
export async function judgeTensor(t, torch, limitMs) {
  let shape;
  try {
    shape = t.shape;
  } catch (e) {
    return { kind: 'trap', why: `a returned tensor's shape cannot be read: ${describe(e)}` };
  }
  if (!Array.isArray(shape) || !shape.every((d) => Number.isSafeInteger(d) && d >= 0)) {
    return { kind: 'wrong numel', why: `shape ${JSON.stringify(shape)} is not a list of sizes` };
  }
  const product = shape.reduce((a, b) => a * b, 1);
  const biggest = Math.max(0, ...shape);
  if (!shape.includes(0) && product < biggest) return { kind: 'wrong numel', why: `shape ${JSON.stringify(shape)} has product ${product}` };
  if (typeof t.numel === 'function') {
    let numel;
    try {
      numel = Number(t.numel());
    } catch (e) {
      return judgeError(e, torch).kind === 'clean' ? null : { kind: 'trap', why: `numel(): ${describe(e)}` };
    }
    if (numel !== product) return { kind: 'wrong numel', why: `numel() ${numel} but shape ${JSON.stringify(shape)}` };
  }
  if (product > READ_LIMIT) return null;
  try {
    const data = await within(t.toArray(), limitMs, 'toArray()');
    const n = shape.length === 0 ? (Array.isArray(data) ? -1 : 1) : count(data);
    if (n !== product) return { kind: 'wrong numel', why: `shape ${JSON.stringify(shape)} but toArray() has ${n} elements` };
  } catch (e) {
    const j = judgeError(e, torch);
    // A check the GPU makes (an index out of range) is reported when the result is read.
    if (j.kind !== 'clean') return { kind: j.kind, why: `toArray(): ${j.why}` };
  }
  return null;
}

/** Whether the instance still computes: `torch.tensor([1, 2]).add(1).toArray()` is [2, 3]. */
export async function healthy(torch, limitMs) {
  try {
    const t = torch.tensor([1, 2]);
    const got = await within(t.add(1).toArray(), limitMs, 'the health probe');
    return JSON.stringify(got) === '[2,3]' ? null : `the probe gave ${JSON.stringify(got)}`;
  } catch (e) {
    return `the probe threw ${describe(e)}`;
  }
}
