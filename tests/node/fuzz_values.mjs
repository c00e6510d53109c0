// The values the fuzzer passes, as JavaScript source text: every call is built as one line of
// JavaScript and run from that text, so the line printed for a finding is exactly what ran.
// Tiny tensors (SwiftShader is slow), plausible values for each parameter kind of the catalog
// (tests: signatures.json's "kind"), and hostile ones: NaN, ±Infinity, -0, huge ints, negative
// sizes, empty, long, deep and holed arrays, a Proxy claiming length 2**32 (bounded: it throws
// after 100000 reads, so a binding that walks it shows up as a finding, not a stuck run), typed
// arrays, other classes where a tensor goes, freed and released tensors, strings, symbols,
// bigints, null and undefined.

/** A seeded generator (mulberry32): the same seed gives the same calls on every machine. */
export function rng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (n) => Math.floor(next() * n),
    chance: (p) => next() < p,
    pick: (list) => list[Math.floor(next() * list.length)],
  };
}

/** The bounded Proxy: `length` is 2**32, and the 100001st read of anything throws. */
export const UNBOUNDED_MARK = 'fuzz-unbounded';
const HUGE_PROXY = `(() => { let n = 0; return new Proxy([1, 2], { get: (a, k) => { if (++n > 1e5) throw new Error('${UNBOUNDED_MARK}: more than 100000 reads of a Proxy claiming length 2**32'); return k === 'length' ? 2 ** 32 : a[k]; } }); })()`;

export const TENSORS = [
  'torch.tensor([1, 2, 3])',
  'torch.tensor([[1, -2], [3, 4]])',
  'torch.zeros([2, 3])',
  'torch.ones([3, 1])',
  'torch.tensor(2.5)',
  'torch.tensor([0.5, -1.5, 2, 4, -3, 0.25])',
  'torch.randn([2, 3, 4])',
  'torch.ones([1, 1, 4, 4])',
  'torch.randn([1, 2, 5])',
  'torch.tensor([1, 2], { dtype: "int64" })',
  'torch.tensor([[0, 1], [1, 0]], { dtype: "int64" })',
  'torch.tensor([true, false, true])',
  'torch.ones([2, 3]).t()',
  'torch.ones([2], { requiresGrad: true })',
  'torch.ones([2, 2], { requiresGrad: true }).mul(2)',
];

const ODD_TENSORS = [
  'torch.zeros([0])',
  'torch.zeros([2, 0])',
  'torch.tensor([NaN, Infinity, -Infinity, -0])',
  'torch.tensor([2147483647, -2147483648], { dtype: "int64" })',
  'torch.ones([1, 1, 1, 1, 1, 1, 1, 1])',
  '(() => { const t = torch.ones([2]); t.free(); return t; })()',
  '(() => { const s = torch.enterScope(); const t = torch.ones([2]); s.exit(); return t; })()',
];

const NUMBERS = ['NaN', 'Infinity', '-Infinity', '-0', '2 ** 31', '2 ** 32', '2 ** 53', '1e12',
  '-1', '-2', '-(2 ** 31) - 1', '0.5', '1e-45', '1.7976931348623157e308', '0', '1', '3'];

const OTHERS = [
  'null', 'undefined', 'true', 'false', '""', '"abc"', '"float32"', '"int64"', '"float16"',
  '"mean"', '"same"', 'Symbol("s")', '2n ** 70n', '3n', '-1n', '{}', '[]', '[[]]', '[1, , 3]',
  'Array(5)', '[[1, 2], [3]]', 'Array(1000).fill(1)', 'Array(40).fill(1)',
  '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]',
  'JSON.parse("[".repeat(2000) + "]".repeat(2000))',
  HUGE_PROXY,
  'new Float32Array(3)', 'new Int32Array([1, 2])', 'new BigInt64Array(2)', 'new Uint8Array(0)',
  'new Float64Array([NaN, 1])',
  'new torch.nn.ReLU()', 'new torch.nn.Linear(2, 2)', 'new Map()', 'new Date(0)', '() => 1',
  'Promise.resolve(1)', 'torch.asFloat(2)', '{ __borchFloat: "x" }', '{ __borchFloat: 2 ** 53 }',
  '{ dim: 1 }', '{ dtype: "float16" }', '{ requiresGrad: "yes" }', 'Object.create(null)',
  '{ length: 2 ** 32 }', '{ 0: 1, length: 1 }', '[torch.ones([2]), 1]', '[1, "a"]',
  '[2 ** 31, 2]', '[-1, -1]', '[0, -5]', '[1e12]', '[NaN]',
];

/** Any value at all: mostly hostile, sometimes a plain tensor. */
export function hostile(r) {
  const roll = r.next();
  if (roll < 0.15) return r.pick(TENSORS);
  if (roll < 0.3) return r.pick(ODD_TENSORS);
  if (roll < 0.55) return r.pick(NUMBERS);
  return r.pick(OTHERS);
}

export function tensor(r) {
  return r.chance(0.9) ? r.pick(TENSORS) : r.pick(ODD_TENSORS);
}

const SMALL_INTS = ['0', '1', '2', '-1', '3', '-2'];
const BY_KIND = {
  Tensor: () => [...TENSORS],
  Operand: () => [...TENSORS, '2', '0.5', '-1', 'torch.asFloat(2)'],
  Scalar: () => ['2', '0.5', '-1', 'true', 'torch.asFloat(3)'],
  Float: () => ['0.5', '1', '-1.5', '1e-3', '2'],
  Int: () => SMALL_INTS,
  Bool: () => ['true', 'false'],
  Str: () => ['"mean"', '"sum"', '"none"', '"floor"', '"trunc"', '"tanh"', '"same"', '"valid"'],
  DType: () => ['"float32"', '"int64"', '"bool"'],
  Dims: () => [...SMALL_INTS, '[0, 1]', '[-1]', '[]'],
  Ints: () => ['[2, 3]', '[3, 2]', '[-1]', '[6]', '[1, 6]', '[2]', '[]', '[1, 1]', '[0, 1]'],
  Padding: () => ['0', '1', '[1, 0]', '"same"', '"valid"', '[2]'],
  SizesOrNone: () => ['1', '2', '[1, null]', '[null, 2]', '[2, 2]'],
  Tensors: () => ['[torch.ones([2]), torch.zeros([2])]', '[torch.ones([2, 3]), torch.ones([2, 3])]', '[torch.tensor([1, 2, 3])]'],
  Data: () => ['[1, 2]', '[[1.5, 2], [3, 4]]', '[true, false]', '3.5', '[1n, 2n]', '[]'],
  Indices: () => ['[0]', '[-1]', '[[0, 2, 1]]', '[null, 0]', '["..."]', '[torch.tensor([0, 1], { dtype: "int64" })]', '[[0, 2, 1], null]'],
};

/** A value for a parameter of `kind`: plausible most of the time, hostile otherwise. */
export function forKind(r, kind) {
  const plausible = BY_KIND[kind];
  return plausible && r.chance(0.85) ? r.pick(plausible()) : hostile(r);
}

/** snake_case to the package's camelCase (`keep_dim` → `keepDim`). */
export function camel(name) {
  return name.replace(/_([a-z0-9])/g, (_, c) => c.toUpperCase());
}
