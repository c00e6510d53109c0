// The golden suite through borch-ts: every case of tests/golden/golden.json (frozen from real
// torch) run through the package's JavaScript surface as tests/golden/bindings.json says, with the
// tolerances of the Rust runner (borch-goldens/tests/golden/compare.rs): atol = rtol = 1e-4 for
// float32, NaN matches NaN, infinities exactly, int64 and bool exactly; dtype and shape must
// match; an expected error agrees when its kind is torch's exception class and one message
// contains the other. `runGoldenSuite` prints
//   golden[<label>]: N agreeing / M cases, K not implemented, D disagreeing (forward a / b, backward c / d) [adapter]
// and one line per disagreement (the first 30). No DOM and no fetch: the browser page
// (golden.mjs) and the Node runner (tests/node/run.mjs) hand it the package, the JSON texts and
// a log function.

// The package under test and the log, set by runGoldenSuite.
let torch;
let log;

const ATOL = 1e-4;
const RTOL = 1e-4;
const TORCH_ERRORS = ['RuntimeError', 'IndexError', 'TypeError', 'ValueError', 'NotImplementedError'];

// A whole number that golden.json writes as a float (`2.0`): Python's float, which a JavaScript
// number cannot distinguish from the int 2. Kept apart so the runner can tell.
class PyFloat {
  constructor(value) {
    this.value = value;
  }
}

// Parse golden.json keeping `2.0` apart from `2` (JSON.parse's source text access).
function parseGolden(text) {
  let sourceSeen = false;
  const root = JSON.parse(text, function (key, value, context) {
    if (typeof value === 'number' && context?.source !== undefined) {
      sourceSeen = true;
      if (Number.isInteger(value) && /[.eE]/.test(context.source)) return new PyFloat(value);
    }
    return value;
  });
  if (!sourceSeen) throw new Error('this JavaScript engine lacks JSON.parse source text access (Node 20: --harmony-json-parse-with-source): 2.0 and 2 cannot be told apart');
  return root;
}

// A golden value as JavaScript's: "nan", "inf", "-inf" strings are those numbers, a PyFloat its
// number; anything else (ints, booleans, other strings, null) unchanged.
function num(v) {
  if (v instanceof PyFloat) return v.value;
  if (v === 'nan') return NaN;
  if (v === 'inf') return Infinity;
  if (v === '-inf') return -Infinity;
  return v;
}

// As borch-ts names catalog entries (xtask/src/js_api/names.rs): a dunder loses its underscores
// (`__setitem__` is `setitem`).
const camel = (name) => {
  const dunder = /^__(.+)__$/.exec(name);
  if (dunder) return camel(dunder[1]);
  const tail = name.endsWith('_') ? '_' : '';
  const body = tail ? name.slice(0, -1) : name;
  return body.replace(/_([a-z0-9])/g, (_, c) => c.toUpperCase()) + tail;
};

// This runner's surface as bindings.json's `surfaces` names it (borch-ts, in a browser or Node).
const SURFACE = 'js';

// Reported as "not implemented", with the reason, instead of being run.
class NotExpressible extends Error {}

// ---- building inputs --------------------------------------------------------------------------

function nest(flat, shape) {
  if (shape.length === 0) return flat[0];
  let k = 0;
  const rows = (dims) => {
    if (dims.length === 0) return flat[k++];
    return Array.from({ length: dims[0] }, () => rows(dims.slice(1)));
  };
  return rows(shape);
}

// An encoded tensor {dtype, shape, data}: a leaf made by tensor(data, {dtype}). Nested arrays
// cannot say [0, 3], so an empty tensor is zeros(shape, {dtype}) (the same leaf).
function makeTensor(enc) {
  const shape = enc.shape;
  const numel = shape.reduce((a, b) => a * b, 1);
  if (numel === 0) return torch.zeros(shape, { dtype: enc.dtype });
  const flat = enc.data.map(num);
  return torch.tensor(nest(flat, shape), { dtype: enc.dtype });
}

function applyView(t, step) {
  const [name, ...args] = step;
  const method = t[camel(name)];
  if (typeof method !== 'function') throw new Error(`view step ${name}: Tensor has no method ${camel(name)}`);
  return method.apply(t, args.map(num));
}

// Inputs as values (tensors through their view chain, or numbers) and, per input, the base
// whose gradient is compared (float tensors when `requiresGrad`).
function buildInputs(inputs, requiresGrad) {
  const values = [];
  const bases = [];
  for (const input of inputs) {
    if ('scalar' in input) {
      const s = input.scalar;
      values.push(input.kind === 'bool' ? Boolean(s) : argValue(s));
      bases.push(null);
      continue;
    }
    const base = makeTensor(input.tensor);
    const float = base.dtype === 'float32';
    if (requiresGrad && float) base.requiresGrad = true;
    let t = base;
    for (const step of input.view ?? []) t = applyView(t, step);
    values.push(t);
    bases.push(float ? base : null);
  }
  return { values, bases };
}

// ---- calling through the catalog, as bindings.json says -----------------------------------------

let bindings;

// The op's rule: its prefix's (with `name`, the op's name after the prefix), then its own keys.
function bindingOf(op) {
  for (const [prefix, b] of Object.entries(bindings.prefixes ?? {})) {
    if (op.startsWith(prefix)) return { ...b, name: op.slice(prefix.length), ...(bindings.ops[op] ?? {}) };
  }
  return bindings.ops[op] ?? {};
}

// `torch`, or a namespace object of it such as `nn.functional`.
function namespaceOf(path) {
  let obj = torch;
  for (const part of (path ?? '').split('.').filter(Boolean)) obj = obj?.[part];
  if (!obj) throw new Error(`borch-ts has no ${path}`);
  return obj;
}

// Python ints in nested data as BigInt (a plain JavaScript number implies float32).
function dataValue(v) {
  if (Array.isArray(v)) return v.map(dataValue);
  if (v instanceof PyFloat) return v.value;
  if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
  return num(v);
}

// An argument as borch-ts takes it: a Python float that is a whole number (`2.0`) through
// `asFloat`, since a plain integral number binds as an int.
function argValue(v) {
  if (Array.isArray(v)) return v.map(argValue);
  return v instanceof PyFloat ? torch.asFloat(v.value) : num(v);
}

function invoke(name, form, self, positional, keywords, namespace) {
  const js = camel(name);
  if (form === 'function') {
    const fn = namespaceOf(namespace)[js];
    if (typeof fn !== 'function') throw new Error(`borch-ts exports no function ${namespace ? `${namespace}.` : ''}${js}`);
    return fn(...positional, keywords);
  }
  if (self === undefined || typeof self !== 'object') throw new Error(`${name}: input 0 is not a tensor`);
  const method = self[js];
  if (typeof method !== 'function') throw new Error(`Tensor has no method ${js}`);
  return method.call(self, ...positional, keywords);
}

// The op's outputs as a list of tensors. Async entries (nonzero, unique, indexAsync, …) return a
// Promise, awaited here; awaiting a synchronous result is that result.
async function callOp(c, values) {
  const b = bindingOf(c.op);
  const applies = !b.surfaces || b.surfaces.includes(SURFACE);
  if (applies && b.not_implemented) throw new NotExpressible(b.not_implemented);
  const when = applies ? b.not_implemented_when : undefined;
  if (when && Object.entries(when.args).every(([k, v]) => num(c.args[k]) === v)) throw new NotExpressible(when.reason);
  if ('seed' in c.args) torch.manualSeed(num(c.args.seed));
  if (b.sequence) {
    const seq = b.sequence;
    const calls = seq.calls ?? c.args[seq.over].map((item) => ({ call: seq.call, form: seq.form, args: { [seq.as]: item } }));
    const outs = [];
    for (const k of calls) {
      const kw = Object.fromEntries(Object.entries(k.args).map(([n, v]) => [n, argValue(v)]));
      outs.push(await invoke(k.call, k.form ?? 'method', values[0], [], kw));
    }
    return outs;
  }
  const form = b.form ?? 'method';
  // Inputs present only when a flag arg is true (`has_bias`), passed by keyword; flags themselves
  // are not arguments. `detach_inputs` flags detach an input before the call.
  const optional = Object.entries(b.optional_inputs ?? {});
  const detach = Object.entries(b.detach_inputs ?? {});
  const flags = new Set([...optional, ...detach].map(([flag]) => flag));
  values = values.slice();
  for (const [flag, i] of detach) if (c.args[flag] === true) values[i] = values[i].detach();
  const present = optional.filter(([flag]) => c.args[flag] === true);
  const optionalValues = values.splice(values.length - present.length, present.length);
  // input_refs: an arg {"input": k} is input k, which is then passed only there.
  const refs = new Set();
  const arg = (v) => {
    if (v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof PyFloat) && 'input' in v) {
      refs.add(v.input);
      return values[v.input];
    }
    return Array.isArray(v) ? v.map(arg) : argValue(v);
  };
  const keywords = {};
  const positional = [];
  for (const name of b.positional ?? []) {
    positional.push(b.data_ints === 'integer' ? dataValue(c.args[name]) : arg(c.args[name]));
  }
  for (const [name, v] of Object.entries(c.args)) {
    if (name === 'seed' || flags.has(name) || (b.positional ?? []).includes(name)) continue;
    keywords[b.rename?.[name] ?? name] = arg(v);
  }
  values = values.filter((_, i) => !refs.has(i));
  Object.assign(keywords, b.fixed ?? {});
  present.forEach(([, param], i) => {
    keywords[param] = optionalValues[i];
  });
  let self;
  if (b.inputs === 'list') {
    if (b.args_first) positional.push(values);
    else positional.unshift(values);
  } else if (Array.isArray(b.inputs)) {
    // A case may have fewer inputs than the rule names (scatter_ with a value): those left out
    // are not passed.
    b.inputs.slice(0, values.length).forEach((name, i) => {
      if (name === 'self') self = values[i];
      else keywords[name] = values[i];
    });
  } else if (form === 'function') {
    positional.unshift(...values);
  } else {
    self = values[0];
    positional.unshift(...values.slice(1));
  }
  const result = await invoke(b.call ?? b.name ?? c.op, form, self, positional, keywords, b.namespace);
  return Array.isArray(result) ? result : [result];
}

// ---- comparing, as compare.rs -------------------------------------------------------------------

function flatten(v, into = []) {
  if (Array.isArray(v)) for (const x of v) flatten(x, into);
  else into.push(typeof v === 'boolean' ? (v ? 1 : 0) : v);
  return into;
}

// Encoded expected values as compare.rs reads them: float32 rounded to f32, int64, bool as 0/1.
function wanted(enc) {
  if (enc.dtype === 'float32') return enc.data.map((x) => Math.fround(num(x)));
  if (enc.dtype === 'bool') return enc.data.map((x) => (x === true ? 1 : 0));
  return enc.data.map((x) => num(x));
}

function compareValues(have, want, exact) {
  const n = Math.min(have.length, want.length);
  for (let k = 0; k < n; k++) {
    const a = have[k];
    const b = want[k];
    let ok;
    if (exact) ok = a === b;
    else if (Number.isNaN(b)) ok = Number.isNaN(a);
    else if (!Number.isFinite(b)) ok = a === b;
    else ok = Math.abs(a - b) <= ATOL + RTOL * Math.abs(b);
    if (!ok) return `element ${k}: ${a} but torch ${b}`;
  }
  return null;
}

// `got` tensors with their read-back data, against torch's encoded outputs.
function compareOutputs(got, data, expect) {
  if (got.length !== expect.length) return `${got.length} outputs, torch gave ${expect.length}`;
  for (let i = 0; i < got.length; i++) {
    const g = got[i];
    const e = expect[i];
    if (g.dtype !== e.dtype) return `output ${i}: dtype ${g.dtype} but torch ${e.dtype}`;
    const shape = Array.from(g.shape);
    if (JSON.stringify(shape) !== JSON.stringify(e.shape)) return `output ${i}: shape [${shape.join(', ')}] but torch [${e.shape.join(', ')}]`;
    const why = compareValues(flatten(data[i]), wanted(e), e.dtype !== 'float32');
    if (why) return `output ${i}: ${why}`;
  }
  return null;
}

function describeError(e) {
  return e?.kind ? `${e.kind}: ${e.message}` : `${e?.constructor?.name ?? 'error'} (not from borch): ${e?.message ?? e}`;
}

function compareError(e, expect) {
  const torchType = expect.type ?? '';
  const contains = expect.contains ?? '';
  const message = String(e?.message ?? e);
  if (!(TORCH_ERRORS.includes(torchType) && e?.kind === torchType)) {
    return `error kind ${e?.kind ?? `none (${e?.constructor?.name}, not from borch)`} (${message}) but torch raised ${torchType}`;
  }
  if (!message.includes(contains) && !contains.includes(message)) return `message «${message}» but torch said «${contains}»`;
  return null;
}

// A case's verdict: null (agrees), or why not; "not implemented" for what the surface cannot run.
const NOT_IMPLEMENTED = (why) => ({ missing: why });

function outcome(why) {
  if (why === null) return null;
  if (why.includes('borch has no') || why.includes('not implemented yet')) return NOT_IMPLEMENTED(why);
  return why;
}

async function readAll(tensors) {
  const data = [];
  for (const t of tensors) data.push(await t.toArray());
  return data;
}

async function runForward(c) {
  const { values } = buildInputs(c.inputs, false);
  let got;
  let data;
  let error = null;
  try {
    got = await callOp(c, values);
    // Index errors found on the GPU arrive at the next readback (as on CUDA): read every output.
    data = await readAll(got);
  } catch (e) {
    if (e instanceof NotExpressible) throw e;
    error = e;
  }
  if (error === null && c.expect) return outcome(compareOutputs(got, data, c.expect));
  if (error !== null && c.error) return outcome(compareError(error, c.error));
  if (error === null && c.error) return outcome(`succeeded but torch raised ${c.error.type}`);
  if (error !== null && c.expect) return outcome(`failed: ${describeError(error)}`);
  return 'case has neither expect nor error';
}

async function runBackward(c) {
  const { values, bases } = buildInputs(c.inputs, true);
  let outputs;
  try {
    outputs = await callOp(c, values);
  } catch (e) {
    if (e instanceof NotExpressible) throw e;
    return outcome(`forward failed: ${describeError(e)}`);
  }
  const first = outputs[0];
  if (!first) return outcome('no output');
  if (!first.requiresGrad) return outcome('not implemented yet: the op records no autograd node');
  try {
    first.backward(makeTensor(c.grad_output));
  } catch (e) {
    return outcome(`backward: ${describeError(e)}`);
  }
  const n = Math.min(bases.length, c.grads.length);
  for (let i = 0; i < n; i++) {
    const want = c.grads[i];
    const got = bases[i]?.grad;
    if (!got && want === null) continue;
    if (got && want === null) return outcome(`input ${i} got a gradient, torch none`);
    if (!got) return outcome(`input ${i} got no gradient`);
    let data;
    try {
      data = await readAll([got]);
    } catch (e) {
      return outcome(`grad of input ${i}: readback failed: ${describeError(e)}`);
    }
    const why = compareOutputs([got], data, [want]);
    if (why) return outcome(`grad of input ${i}: ${why}`);
  }
  return null;
}

async function runCase(c) {
  try {
    return await torch.scope(async () => (c.kind === 'backward' ? runBackward(c) : runForward(c)));
  } catch (e) {
    if (e instanceof NotExpressible) return NOT_IMPLEMENTED(e.message);
    return `threw: ${describeError(e)}`;
  }
}

// ---- the suite ----------------------------------------------------------------------------------

// The adapter as the golden line names it: "google / swiftshader (WebGPU, software)", `via`
// saying through what ("WebGPU" in a browser).
export function adapterName(found, via) {
  const a = found.adapter;
  return `${a.vendor} / ${a.architecture} (${via}${found.software ? ', software' : ''})`;
}

// Runs the suite (init() first) and resolves to { ok, summary }: ok when no case disagrees and
// at least one ran. `goldenText` / `bindingsText`: tests/golden/golden.json and bindings.json;
// `filter`: only cases whose name contains it; `perOp`: when above 0, only the first `perOp`
// cases of each op, kind (forward, backward) and outcome (a result, an error), in file order;
// `verbose`: a line per case; `label`: the name in `golden[label]`; `via`: see adapterName.
export async function runGoldenSuite(options) {
  const { goldenText, bindingsText, filter = '', perOp = 0, verbose = false, label, via } = options;
  torch = options.torch;
  log = options.log;
  const started = performance.now();
  const adapter = adapterName(await torch.init(), via);
  bindings = JSON.parse(bindingsText);
  const golden = parseGolden(goldenText);
  const loaded = performance.now();
  const taken = new Map();
  const sampled = (c) => {
    if (!(perOp > 0)) return true;
    const group = `${c.op}|${c.kind}|${'error' in c}`;
    taken.set(group, (taken.get(group) ?? 0) + 1);
    return taken.get(group) <= perOp;
  };
  const cases = golden.cases.filter((c) => c.name.includes(filter) && sampled(c));
  let agree = 0;
  let backwardAgree = 0;
  let backwardTotal = 0;
  const disagreements = [];
  const missing = new Map();
  for (const c of cases) {
    const isBackward = c.kind === 'backward';
    backwardTotal += isBackward ? 1 : 0;
    const verdict = await runCase(c);
    if (verdict === null) {
      agree += 1;
      backwardAgree += isBackward ? 1 : 0;
    } else if (typeof verdict === 'object') {
      const key = `${c.family}:${c.op}: ${verdict.missing}`;
      missing.set(key, (missing.get(key) ?? 0) + 1);
    } else {
      disagreements.push(`${c.name}: ${verdict}`);
    }
    if (verbose) log(`case ${c.name}: ${verdict === null ? 'agrees' : typeof verdict === 'object' ? `not implemented (${verdict.missing})` : verdict}`);
  }
  const seconds = (performance.now() - started) / 1000;
  for (const d of disagreements.slice(0, 30)) log(`DISAGREE ${d}`);
  if (disagreements.length > 30) log(`… and ${disagreements.length - 30} more disagreements`);
  let missingCount = 0;
  for (const [key, count] of missing) {
    missingCount += count;
    log(`not implemented (${count}): ${key}`);
  }
  const total = cases.length;
  const line =
    `golden[${label}]: ${agree} agreeing / ${total} cases, ${missingCount} not implemented, ${disagreements.length} disagreeing ` +
    `(forward ${agree - backwardAgree} / ${total - backwardTotal}, backward ${backwardAgree} / ${backwardTotal}) [${adapter}]`;
  log(line);
  if (perOp > 0) log(`golden[${label}]: a sample, the first ${perOp} cases of each of ${taken.size} (op, kind, outcome) groups of ${golden.cases.length} cases`);
  log(`golden[${label}]: ${seconds.toFixed(1)} s (loading ${((loaded - started) / 1000).toFixed(1)} s)${filter ? `, filter "${filter}"` : ''}; memory after: ${JSON.stringify(torch.memory())}`);
  return { ok: disagreements.length === 0 && total > 0, summary: line };
}
