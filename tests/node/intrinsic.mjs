// nn.intrinsic's fused modules through borch-ts under Node on Dawn: every "modules" case of
// tests/nn/intrinsic_cases.json (frozen from torch.ao.nn.intrinsic by tests/nn/intrinsic_cases.py)
// built as `new nn.intrinsic.<Class>(...modules)` from float modules made by name (ConvAdd2d's
// `add` is the package's `add`), loaded, run in its mode, then checked: repr-free structure
// (state dict keys), output, gradients of sum(output · gout) for every input and parameter, the
// buffers after the forward, and for train cases an eval forward after it. Also torch's type
// checks and the modules' sharing (the float modules' objects reach the fused module's children).
// atol 1e-4, rtol 1e-4.
// Run: VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json node tests/node/intrinsic.mjs [filter]

import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { installWebGpu } from './webgpu.mjs';
import { compare } from '../browser/pages/module_cases.mjs';

const dir = resolve(process.env.CARGO_TARGET_DIR ?? 'target', 'borch-ts');
const filter = process.argv[2] ?? '';

const num = (x) => (typeof x === 'string' ? Number(x.replace('inf', 'Infinity')) : x);
const camel = (k) => k.replace(/_([a-z])/g, (_, c) => c.toUpperCase());

async function main() {
  await installWebGpu();
  const torch = await import(pathToFileURL(join(dir, 'index.js')).href);
  await torch.init();
  const cases = JSON.parse(readFileSync(new URL('../nn/intrinsic_cases.json', import.meta.url)));
  const tensor = (spec) => torch.tensor(spec.data.map(num), { dtype: spec.dtype }).reshape(spec.shape);
  const build = (spec) => {
    const kwargs = Object.fromEntries(Object.entries(spec.kwargs).map(([k, v]) => [camel(k), v]));
    return new torch.nn[spec.type](...spec.args, kwargs);
  };
  const fused = (cls, specs) => {
    const mods = specs.map(build);
    const args = cls.startsWith('ConvAdd') ? [mods[0], torch.add, ...mods.slice(1)] : mods;
    return [new torch.nn.intrinsic[cls](...args), mods];
  };

  const failures = [];
  let count = 0;
  for (const c of cases.modules) {
    if (!c.name.includes(filter)) continue;
    count++;
    const out = [];
    const e = c.expect;
    try {
      const [m, mods] = fused(c.class, c.modules);
      if (!(m instanceof torch.nn.intrinsic[c.class]) || m.className !== c.class) out.push('class');
      m.loadStateDict(Object.fromEntries(c.state_dict.map(([k, v]) => [k, tensor(v)])), true);
      m.train(c.train);
      const keys = Object.keys(m.stateDict());
      if (JSON.stringify(keys) !== JSON.stringify(e.keys)) out.push(`keys ${keys} vs ${e.keys}`);
      // The float modules' objects now reach the fused module's children (as into a Sequential).
      const own = new Map(mods[0].namedParameters());
      const shared = new Map(m.namedParameters());
      if (own.get('weight') !== undefined && shared.get('0.weight') === undefined) out.push('no 0.weight');
      const inputs = c.inputs.map((s) => {
        const t = tensor(s).detach();
        t.requiresGrad = true;
        return t;
      });
      const y = m.call(...inputs);
      await compare('output', y, e.output, out);
      torch.autograd.backward([y], [tensor(e.gout)]);
      for (let i = 0; i < inputs.length; i++) await compare(`input ${i} grad`, inputs[i].grad, e.input_grads[i], out);
      const params = new Map(m.namedParameters());
      for (const [k, g] of e.param_grads) {
        const got = params.get(k)?.grad;
        if (got) await compare(`${k} grad`, got, g, out);
        else out.push(`${k}: no grad`);
      }
      const buffers = new Map(m.namedBuffers());
      for (const [k, b] of e.buffers) await compare(k, buffers.get(k), b, out);
      if (e.eval_output) {
        m.eval();
        await compare('eval output', torch.noGrad(() => m.call(...inputs)), e.eval_output, out);
      }
    } catch (err) {
      out.push(`threw ${err.kind ?? err.name}: ${err.message}`);
    }
    failures.push(...out.map((msg) => `${c.name}: ${msg}`));
  }
  for (const c of cases.construct_errors) {
    try {
      fused(c.class, c.modules);
      failures.push(`${c.class}: accepted`);
    } catch (err) {
      if (err.message !== c.error) failures.push(`${c.class}: ${err.message} vs ${c.error}`);
    }
  }
  try {
    new torch.nn.intrinsic.ConvAdd2d(new torch.nn.Conv2d(1, 1, 1), (a, b) => a.mul(b));
    failures.push('ConvAdd2d accepted a function other than add');
  } catch (err) {
    if (err.kind !== 'NotImplementedError') failures.push(`ConvAdd2d: ${err.kind} ${err.message}`);
  }
  console.log(`intrinsic[node]: ${count - new Set(failures.map((f) => f.split(':')[0])).size} / ${count} module cases agree, ${cases.construct_errors.length} construction errors`);
  if (failures.length) {
    console.log(failures.join('\n'));
    process.exit(1);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
