// Every optimizer and scheduler of borch-ts's `optim` / `optim.lrScheduler` (generated from
// borch-optim's catalogs) under Node on Dawn: each is made by name with torch's arguments, is an
// instance of its class, steps, and gives the learning rates torch gives (values from
// tests/optim/cases.json, frozen from torch). LBFGS and SparseAdam refuse with their reasons.
// Run: VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json node tests/node/optim.mjs

import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { installWebGpu } from './webgpu.mjs';

const dir = resolve(process.env.CARGO_TARGET_DIR ?? 'target', 'borch-ts');
const failures = [];
let passed = 0;
function check(what, ok, detail = '') {
  if (ok) passed++;
  else failures.push(`${what} ${detail}`);
}

async function main() {
  await installWebGpu();
  const torch = await import(pathToFileURL(join(dir, 'index.js')).href);
  await torch.init();
  const { optim } = torch;
  const names = Object.keys(optim).filter((k) => k !== 'lrScheduler');
  check('14 optimizers', names.length === 14, String(names));
  check('15 schedulers', Object.keys(optim.lrScheduler).length === 15, String(Object.keys(optim.lrScheduler)));
  for (const name of names) {
    const p = torch.ones([3], { requiresGrad: true });
    let o;
    try {
      o = new optim[name]([p], { lr: 0.1 });
    } catch (e) {
      check(`${name} refuses with a reason`, (name === 'LBFGS' || name === 'SparseAdam') && e.kind === 'NotImplementedError', `${e.kind}: ${e.message}`);
      continue;
    }
    check(`${name} instanceof`, o instanceof optim[name] && o.optimizerName === name);
    p.square().sum().backward();
    o.step();
    const v = await p.toArray();
    check(`${name} moved the parameter`, v.every((x) => x < 1), JSON.stringify(v));
  }
  const e = (() => { try { new optim.Adam([torch.ones([1], { requiresGrad: true })], { capturable: true }); } catch (err) { return err; } })();
  check('capturable=True refused', e?.kind === 'NotImplementedError', String(e));
  const cases = JSON.parse(readFileSync(new URL('../optim/cases.json', import.meta.url)));
  const lambdas = { pow095: (e) => 0.95 ** e, warmup5: (e) => Math.min(1, (e + 1) / 5), inv_sqrt: (e) => 1 / Math.sqrt(e + 1) };
  const build = (c, opt) => {
    const args = { ...c.args };
    if (c.lambdas) args.lrLambda = c.lambdas.length === 1 ? lambdas[c.lambdas[0]] : c.lambdas.map((n) => lambdas[n]);
    if (c.children) args.schedulers = c.children.map((k) => build(k, opt));
    if (c.scheduler === 'ChainedScheduler') return new optim.lrScheduler.ChainedScheduler(args);
    return new optim.lrScheduler[c.scheduler](opt, args);
  };
  let n = 0;
  for (const c of cases.schedulers) {
    const groups = [{ params: [torch.zeros([2], { requiresGrad: true })], lr: 0.1 }, { params: [torch.zeros([3], { requiresGrad: true })], lr: 0.05 }];
    const opt = c.optimizer === 'SGD' ? new optim.SGD(groups, { momentum: 0.9 }) : new optim[c.optimizer](groups);
    const s = build(c, opt);
    let ok = s instanceof optim.lrScheduler[c.scheduler];
    for (let k = 0; k < c.lrs.length; k++) {
      if (k > 0) {
        opt.step();
        if (c.metrics) s.step(c.metrics[k - 1]); else s.step();
      }
      const got = opt.paramGroups.map((g) => g.lr);
      ok &&= got.every((x, g) => Math.abs(x - c.lrs[k][g]) <= 1e-12 * Math.abs(c.lrs[k][g]) + 1e-300);
    }
    const sd = JSON.stringify(s.stateDict());
    ok &&= sd.length > 2;
    check(`${c.name} follows torch`, ok);
    n++;
  }
  for (const f of failures) console.log(`FAILED ${f}`);
  console.log(`optim[node]: ${passed} checks passed, ${failures.length} failed (${n} scheduler cases)`);
  if (failures.length) process.exit(1);
}

main().catch((e) => {
  console.error(`optim[node]: FAILED: ${e.stack ?? e}`);
  process.exit(1);
});
