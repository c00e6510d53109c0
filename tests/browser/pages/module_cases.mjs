// Replays forward cases of tests/nn/*.json (the format of tests/nn/recurrent_cases.py: a module
// spec, a state dict, inputs that may be lists or null, optional forward keywords, an output tree
// with a gout per tensor output) through borch-ts: each module is built by name (a module
// argument from its own spec), loaded, called as `m.call(...inputs, keywords)` (tuples come back
// as nested arrays, None as null) and checked: outputs, then the gradients of sum(output · gout)
// over every tensor output (torch.autograd.backward) for every input and parameter. atol 1e-4,
// rtol 1e-4. Shared by tests/node/recurrent.mjs (Node on Dawn) and pages/sequence.html
// (Chromium).

const ATOL = 1e-4;
const RTOL = 1e-4;

const num = (x) => (typeof x === 'string' ? Number(x.replace('inf', 'Infinity')) : x);

/**
 * Pushes onto `out` a line for `actual` (a borch-ts tensor) not matching `expected` (a case's
 * `{shape, data}`) in shape or within atol/rtol 1e-4.
 */
export async function compare(what, actual, expected, out) {
  const shape = [...actual.shape];
  if (JSON.stringify(shape) !== JSON.stringify(expected.shape)) {
    out.push(`${what}: shape ${JSON.stringify(shape)}, expected ${JSON.stringify(expected.shape)}`);
    return;
  }
  const got = (await actual.reshape([-1]).toArray()).map(Number);
  const want = expected.data.map(num);
  const bad = got.findIndex((a, i) => !(Math.abs(a - want[i]) <= ATOL + RTOL * Math.abs(want[i])));
  if (bad >= 0) out.push(`${what}: element ${bad}: got ${got[bad]}, expected ${want[bad]}`);
}

/**
 * Runs every case of `cases` (forward-case objects) through `torch` (borch-ts); returns
 * { count, agreeing, failures } with one line per disagreement, named by case.
 */
export async function runModuleCases(torch, cases) {
  const tensor = (spec) => torch.tensor(spec.data.map(num), { dtype: spec.dtype }).reshape(spec.shape);
  const failures = [];
  let disagreeing = 0;

  // An input spec (a tensor, a list of them, null) as an argument; leaves in visiting order.
  const argument = (spec, leaves) => {
    if (spec === null) {
      leaves.push(null);
      return null;
    }
    if (Array.isArray(spec)) return spec.map((s) => argument(s, leaves));
    const leaf = tensor(spec).detach();
    if (spec.requires_grad) leaf.requiresGrad = true;
    leaves.push(leaf);
    return spec.transpose ? leaf.transpose(-2, -1) : leaf;
  };
  const keyword = (v) => (Array.isArray(v) ? v.map(keyword) : v !== null && typeof v === 'object' ? tensor(v) : v);
  const flat = (tree) => (Array.isArray(tree) ? tree.flatMap(flat) : [tree]);
  // A module spec built by name; an argument that is itself a spec (TransformerEncoder's layer and
  // norm) is built first and passed as a module. The stack deep-copies it: the layer stays usable.
  const isSpec = (v) => v !== null && typeof v === 'object' && !Array.isArray(v) && typeof v.type === 'string';
  const build = (spec) => {
    const inner = [];
    const arg = (v) => (isSpec(v) ? (inner.push(build(v)), inner.at(-1)) : keyword(v));
    const kwargs = Object.fromEntries(Object.entries(spec.kwargs).map(([k, v]) => [k, arg(v)]));
    const m = new torch.nn[spec.type](...spec.args.map(arg), kwargs);
    for (const layer of inner) {
      if (layer.namedParameters().length === 0 && layer.className !== 'Identity') {
        throw new Error(`${spec.type}: its ${layer.className} argument lost its parameters`);
      }
    }
    return m;
  };

  // Compare an output tree; collect [output, gout] for tensor outputs with a gout.
  async function outputs(what, y, expected, gout, roots, out) {
    if (expected === null) {
      if (y !== null) out.push(`${what}: got ${y}, expected null`);
      return;
    }
    if (Array.isArray(expected)) {
      if (!Array.isArray(y) || y.length !== expected.length) {
        out.push(`${what}: got ${Array.isArray(y) ? `${y.length} items` : typeof y}, expected ${expected.length} items`);
        return;
      }
      for (let i = 0; i < y.length; i++) await outputs(`${what}[${i}]`, y[i], expected[i], gout?.[i] ?? null, roots, out);
      return;
    }
    if (!(y instanceof torch.Tensor)) {
      out.push(`${what}: not a Tensor`);
      return;
    }
    await compare(what, y, expected, out);
    if (y.requiresGrad && gout) roots.push([y, tensor(gout)]);
  }

  for (const c of cases) {
    const out = [];
    try {
      torch.manualSeed(c.seed);
      const m = build(c.module);
      m.loadStateDict(Object.fromEntries(c.state_dict.map(([k, v]) => [k, tensor(v)])), true);
      m.train(c.train);
      const leaves = [];
      const args = c.inputs.map((s) => argument(s, leaves));
      const kwargs = Object.fromEntries(Object.entries(c.forward_kwargs ?? {}).map(([k, v]) => [k, keyword(v)]));
      torch.manualSeed(c.seed);
      const y = Object.keys(kwargs).length ? m.call(...args, kwargs) : m.call(...args);
      const roots = [];
      await outputs('output', y, c.output, c.gout, roots, out);
      if (roots.length) torch.autograd.backward(roots.map((r) => r[0]), roots.map((r) => r[1]));
      const expected = flat(c.input_grads);
      for (let i = 0; i < leaves.length; i++) {
        const g = leaves[i]?.grad;
        if (g && expected[i]) await compare(`input ${i} grad`, g, expected[i], out);
        else if (g || expected[i]) out.push(`input ${i}: ${g ? 'a grad torch does not have' : 'no grad'}`);
      }
      const params = new Map(m.namedParameters());
      for (const [k, e] of c.param_grads) {
        const g = params.get(k)?.grad;
        if (g) await compare(`${k} grad`, g, e, out);
        else out.push(`${k}: no grad`);
      }
    } catch (e) {
      out.push(`threw ${e.kind ?? e.name}: ${e.message}`);
    }
    if (out.length) disagreeing++;
    failures.push(...out.map((m) => `${c.name}: ${m}`));
  }
  return { count: cases.length, agreeing: cases.length - disagreeing, failures };
}

/** The forward cases of cases.json that need the tree rules (a tuple output or keywords). */
export const treeCases = (cases) => cases.forward.filter((c) => Array.isArray(c.output) || c.forward_kwargs);
