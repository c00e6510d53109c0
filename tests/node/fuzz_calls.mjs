// The calls the fuzzer makes, each one line of JavaScript (an expression over `torch`), built from
// what the package itself lists: every entry of signatures.json (tensor ops as methods and
// functions, nn.functional), the classes of `nn`, `optim` and `optim.lrScheduler` with every
// method and accessor of their prototypes, Tensor's own methods and accessors, and the package's
// other functions. No second list of names: a new op or class is fuzzed without touching this.

import { camel, forKind, hostile, tensor } from './fuzz_values.mjs';

const INPUTS = [
  'torch.randn([4, 2])', 'torch.randn([2, 3])', 'torch.randn([1, 1, 4, 4])', 'torch.randn([1, 2, 6])',
  'torch.randn([3])', 'torch.tensor([0, 1, 1], { dtype: "int64" })', 'torch.randn([2, 2, 5, 5])',
];

// What the package exports, sorted into families once.
export function catalog(torch, signatures) {
  const isClass = (f) => typeof f === 'function' && /^class\b|^function [A-Z]/.test(Function.prototype.toString.call(f));
  const classes = (ns, skip) => Object.keys(ns).filter((k) => !skip.includes(k) && typeof ns[k] === 'function').sort();
  const catalogNames = new Set(signatures.map((e) => e.js));
  const functions = Object.keys(torch)
    .filter((k) => typeof torch[k] === 'function' && !isClass(torch[k]) && !catalogNames.has(k))
    .filter((k) => !['init', 'probe', 'enterScope'].includes(k))
    .sort();
  return {
    // Functions and methods; the nn classes' entries (`class: true`) are constructors.
    signatures: signatures.filter((e) => !e.class),
    modules: classes(torch.nn, ['functional']),
    optimizers: classes(torch.optim, ['lrScheduler']),
    schedulers: classes(torch.optim.lrScheduler, []),
    functions,
    tensorMembers: members(torch.Tensor.prototype, catalogNames),
    members: (cls) => members(cls.prototype, new Set()),
    constructors: new Map(signatures.filter((e) => e.class).map((e) => [e.js, e])),
  };
}

// A prototype's methods and settable accessors by name, its own and those it inherits from
// borch-ts's classes (nn.Linear's are nn.Module's): `{ methods, setters }`.
function members(proto, skip) {
  const methods = new Set();
  const setters = new Set();
  for (let p = proto; p !== null && p !== Object.prototype; p = Object.getPrototypeOf(p)) {
    for (const [name, d] of Object.entries(Object.getOwnPropertyDescriptors(p))) {
      if (name === 'constructor' || name.startsWith('__') || skip.has(name)) continue;
      if (typeof d.value === 'function') methods.add(name);
      if (d.set) setters.add(name);
    }
  }
  return { methods: [...methods].sort(), setters: [...setters].sort() };
}

function args(r, count, make) {
  return Array.from({ length: count }, () => make(r)).join(', ');
}

// The arguments of a catalog entry: plausible for each parameter's kind, mostly, with optional
// parameters often left out, sometimes a keyword object, sometimes an extra hostile argument.
function entryArgs(r, entry) {
  const out = [];
  for (const p of entry.params) {
    if (!p.required && r.chance(0.5)) break;
    if (p.varargs && r.chance(0.3)) {
      out.push(args(r, 1 + r.int(3), (r) => forKind(r, 'Int')));
      continue;
    }
    out.push(forKind(r, p.kind));
  }
  if (r.chance(0.2) && entry.params.length) {
    const p = r.pick(entry.params);
    const key = r.chance(0.9) ? camel(p.name) : 'bogusKey';
    out.push(`{ ${key}: ${forKind(r, p.kind)} }`);
  }
  if (r.chance(0.05)) out.push(hostile(r));
  return out.join(', ');
}

function signatureCall(r, cat) {
  const e = r.pick(cat.signatures);
  const where = e.module === 'torch' ? 'torch' : 'torch.nn.functional';
  const asMethod = e.method && (!e.function || r.chance(0.5));
  if (!asMethod) return `${where}.${e.js}(${entryArgs(r, { params: e.params })})`;
  if (r.chance(0.05)) return `torch.Tensor.prototype.${e.js}.call(${hostile(r)}${withComma(entryArgs(r, e))})`;
  return `(${tensor(r)}).${e.js}(${entryArgs(r, e)})`;
}

function withComma(s) {
  return s ? `, ${s}` : '';
}

// A value that usually fits a constructor or a method of nn/optim: a small size, a rate, an
// option object; hostile otherwise.
function ctorArg(r) {
  const roll = r.next();
  if (roll < 0.55) return r.pick(['1', '2', '3', '4', '2', '3']);
  if (roll < 0.65) return r.pick(['0.5', '0.1', '[2, 2]', '[3]', '"mean"']);
  if (roll < 0.75) return r.pick(['new torch.nn.ReLU()', 'new torch.nn.Linear(2, 2)', '[new torch.nn.Tanh(), new torch.nn.Linear(2, 3)]', '{ a: new torch.nn.ReLU() }']);
  if (roll < 0.85) return r.pick(['{ bias: false }', '{ padding: "same" }', '{ stride: 2 }', '{ dim: 1 }', '{ eps: 1e-5 }', '{ reduction: "sum" }', '{ inplace: true }', '{ padding: -1 }', '{ kernelSize: 2 ** 31 }']);
  return hostile(r);
}

// `obj.method(…)` with fitting or hostile arguments, or `obj.accessor = hostile` (a statement).
function memberUse(r, obj, cls) {
  const { methods, setters } = cls;
  if (setters.length && r.chance(0.15)) return { statement: `${obj}.${r.pick(setters)} = ${hostile(r)}` };
  const m = r.pick(methods);
  const inputs = (r) => (r.chance(0.8) ? r.pick(INPUTS) : hostile(r));
  const a = m === 'call' ? args(r, 1 + r.int(2), inputs) : args(r, r.int(3), (r) => (r.chance(0.5) ? ctorArg(r) : hostile(r)));
  return { expression: `${obj}.${m}(${a})` };
}

// `return obj.method(…)`, or the assignment and then `return obj`.
function useAndReturn(r, obj, cls) {
  const use = memberUse(r, obj, cls);
  return use.statement ? `${use.statement}; return ${obj};` : `return ${use.expression};`;
}

// nn.Transformer() with torch's defaults holds 44M parameters: drawing and uploading them takes
// about 4 s on SwiftShader, past the hang limit (the next call's read waits for it), so the
// fuzzer gives it small sizes first (d_model 8, nhead 2, one layer each, dim_feedforward 16) and
// fuzzes the rest of its arguments.
const SMALL_FIRST = { Transformer: '8, 2, 1, 1, 16' };

function moduleCall(r, torch, cat) {
  const name = r.pick(cat.modules);
  const entry = cat.constructors.get(name);
  const fuzzed = entry && r.chance(0.7) ? entryArgs(r, entry) : args(r, r.int(4), ctorArg);
  const ctor = SMALL_FIRST[name] ? [SMALL_FIRST[name], fuzzed].filter(Boolean).join(', ') : fuzzed;
  const make = `new torch.nn.${name}(${ctor})`;
  if (r.chance(0.15)) return make;
  const misuse = r.chance(0.1) ? 'm.free(); ' : '';
  return `(() => { const m = ${make}; ${misuse}${useAndReturn(r, 'm', cat.members(torch.nn[name]))} })()`;
}

const PARAMS = ['[p]', '[p]', '[p]', '[p, q]', '[]', '[torch.ones([2])]', '[p.mul(2)]', 'p', '[p, p]',
  '[new torch.nn.ReLU()]', '[{ params: [p], lr: 0.1 }]', '[{ params: "x" }]', '[{ params: [p] }, { params: [p] }]',
  'new torch.nn.Linear(2, 2).parameters()', '[(() => { const t = torch.ones([2], { requiresGrad: true }); t.free(); return t; })()]'];
const OPTS = ['{ lr: 0.1 }', '{ lr: 0.1 }', '{}', '{ lr: NaN }', '{ lr: -1 }', '{ lr: Infinity }', '{ momentum: 2 ** 53 }',
  '{ betas: [0.9] }', '{ betas: [2, 2] }', '{ weightDecay: "x" }', '{ eps: -0 }', '{ lr: 0.1, foreach: true }', '{ lr: 1n }'];
const MISUSE = ['', '', 'p.mul(3).sum().backward(); ', 'p.grad = torch.zeros([3]); ', 'p.grad = torch.zeros([2], { dtype: "int64" }); ',
  'p.grad = 5; ', 'p.grad = new torch.nn.ReLU(); ', 'p.grad = torch.ones([1, 2]); ', 'p.free(); ', 'o.free(); ',
  'p.grad = torch.tensor([NaN, Infinity]); ', 'p.requiresGrad = false; ', 'p.mul(2).sum().backward(); p.free(); '];

// An optimizer built over a parameter `p` (and `q`), optionally misused, then one of its methods.
function optimizerCall(r, torch, cat) {
  const name = r.pick(cat.optimizers);
  const setup = 'const p = torch.ones([2], { requiresGrad: true }); const q = torch.ones([2, 2], { requiresGrad: true }); ';
  const make = `const o = new torch.optim.${name}(${r.chance(0.9) ? r.pick(PARAMS) : hostile(r)}, ${r.chance(0.9) ? r.pick(OPTS) : hostile(r)}); `;
  const misuse = r.pick(MISUSE) + (r.chance(0.3) ? 'p.mul(p).sum().backward(); ' : '');
  const roll = r.next();
  const use = roll < 0.4 ? 'return o.step();' : roll < 0.5 ? 'return o.loadStateDict(o.stateDict());' : useAndReturn(r, 'o', cat.members(torch.optim[name]));
  return `(() => { ${setup}${make}${misuse}${use} })()`;
}

function schedulerCall(r, torch, cat) {
  const name = r.pick(cat.schedulers);
  const setup = 'const p = torch.ones([2], { requiresGrad: true }); const o = new torch.optim.SGD([p], { lr: 0.1 }); ';
  const make = `const s = new torch.optim.lrScheduler.${name}(${r.chance(0.9) ? 'o' : hostile(r)}${withComma(args(r, r.int(3), ctorArg))}); `;
  const misuse = r.pick(['', '', '', 'o.free(); ', 's.step(); s.step(); ', 'o.step(); ']);
  const use = useAndReturn(r, 's', cat.members(torch.optim.lrScheduler[name]));
  return `(() => { ${setup}${make}${misuse}${use} })()`;
}

// Tensor's own members (backward, grad, requiresGrad, item, toArray, free, …) misused.
function tensorMemberCall(r, cat) {
  const { methods, setters } = cat.tensorMembers;
  const t = r.chance(0.5) ? 'torch.ones([2], { requiresGrad: true })' : tensor(r);
  if (setters.length && r.chance(0.4)) return `(() => { const t = ${t}; t.${r.pick(setters)} = ${hostile(r)}; return t; })()`;
  const graph = r.pick(['', 'const y = t.mul(2).sum(); y.backward(); ', 'const y = t.mul(2); ', 't.free(); ']);
  const who = graph.startsWith('const y') ? 'y' : 't';
  return `(() => { const t = ${t}; ${graph}return ${who}.${r.pick(methods)}(${args(r, r.int(3), hostile)}); })()`;
}

function functionCall(r, cat) {
  const name = r.chance(0.4) ? 'tensor' : r.pick(cat.functions);
  if (name === 'setGradEnabled') return `(() => { try { return torch.setGradEnabled(${hostile(r)}); } finally { torch.setGradEnabled(true); } })()`;
  return `torch.${name}(${args(r, r.int(3), hostile)})`;
}

/** One call's source text, drawn with `r`. */
export function drawCall(r, torch, cat) {
  const roll = r.next();
  if (roll < 0.55) return signatureCall(r, cat);
  if (roll < 0.7) return moduleCall(r, torch, cat);
  if (roll < 0.8) return optimizerCall(r, torch, cat);
  if (roll < 0.85) return schedulerCall(r, torch, cat);
  if (roll < 0.93) return tensorMemberCall(r, cat);
  return functionCall(r, cat);
}
