#!/usr/bin/env node
// Grad mode and scopes across await (issue 13, docs/js.md "Grad mode"): noGrad / enableGrad take
// synchronous functions and refuse async ones (before they run) or a returned Promise (when it
// is returned) with a TypeError, the mode restored and the instance usable; setGradEnabled is a
// switch that lasts across awaits; two interleaved async training loops each get their own
// noGrad bodies and gradients; two interleaved async scopes reject with the interleaving error.
//
//   VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json node tests/node/grad_mode.mjs [--target-dir DIR]

import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { installWebGpu } from './webgpu.mjs';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const i = process.argv.indexOf('--target-dir');
const targetDir = resolve(i >= 0 ? process.argv[i + 1] : process.env.CARGO_TARGET_DIR ?? join(repo, 'target'));
const failures = [];
let passed = 0;
function check(what, ok, detail = '') {
  if (ok) passed++;
  else failures.push(`${what}${detail ? `: ${detail}` : ''}`);
}
const tick = () => new Promise((r) => setTimeout(r, 1));
const thrown = (f) => {
  try {
    f();
  } catch (e) {
    return e;
  }
  return null;
};

await installWebGpu();
const torch = await import(pathToFileURL(join(targetDir, 'borch-ts', 'index.js')).href);
await torch.init();
const x = torch.ones([2, 3], { requiresGrad: true });
const recording = () => x.mul(2).requiresGrad;

// 1. noGrad / enableGrad refuse async bodies, before they run; the mode is restored.
for (const name of ['noGrad', 'enableGrad']) {
  let ran = false;
  const e = thrown(() => torch[name](async () => {
    ran = true;
    await tick();
  }));
  check(`${name}(async fn) throws a TypeError`, e instanceof TypeError, String(e));
  check(`${name}(async fn) says why`, String(e?.message).startsWith(`${name}(): argument 'fn' must be a synchronous function, not an async function: grad mode is one switch`), e?.message);
  check(`${name}(async fn) is refused before it runs`, !ran);
  check(`${name}(async fn): recording is on after the refusal`, recording());
  const p = thrown(() => torch[name](() => tick().then(() => x.mul(2))));
  check(`${name}(() => promise) throws a TypeError`, p instanceof TypeError && /not a function that returned a Promise/.test(p.message), String(p));
  check(`${name}(() => promise): recording is on after the refusal`, recording());
  const g = thrown(() => torch[name](async function* () {}));
  check(`${name}(async generator) is refused`, g instanceof TypeError, String(g));
}
// Under noGrad, an enableGrad body records and the mode comes back off after it.
torch.noGrad(() => {
  check('noGrad body records nothing', !recording());
  check('enableGrad inside noGrad records', torch.enableGrad(() => recording()));
  const refused = thrown(() => torch.enableGrad(async () => {}));
  check('a refused enableGrad inside noGrad leaves it off', refused instanceof TypeError && !recording());
});
check('recording is on after noGrad', recording());
const boom = thrown(() => torch.noGrad(() => {
  throw new RangeError('inside');
}));
check("noGrad rethrows its body's error", boom instanceof RangeError && boom.message === 'inside', String(boom));
check('recording is on after a throwing noGrad body', recording());

// 2. setGradEnabled: a boolean switch that lasts across awaits.
check('setGradEnabled returns the previous mode', torch.setGradEnabled(false) === true);
await tick();
check('setGradEnabled(false) lasts across an await', !recording());
check('setGradEnabled(true) returns false', torch.setGradEnabled(true) === false && recording());
const notBool = thrown(() => torch.setGradEnabled('no'));
check("setGradEnabled('no') is torch's TypeError", notBool instanceof TypeError && /set_grad_enabled\(\): argument 'mode' \(position 1\) must be bool, not str/.test(notBool.message), String(notBool));
check('recording is on after a refused setGradEnabled', recording());

// 3. Two interleaved async training loops: loop A evaluates under noGrad between its awaits,
// loop B trains; each sees its own mode at every step.
torch.manualSeed(0);
const a = new torch.nn.Linear(3, 1);
const b = new torch.nn.Linear(3, 1);
const opt = new torch.optim.SGD(b.parameters(), { lr: 0.1 });
const data = torch.randn([4, 3]);
const target = torch.randn([4, 1]);
const seen = { a: [], b: [] };
const order = [];
async function loopA() {
  for (let step = 0; step < 5; step++) {
    const out = torch.noGrad(() => a.call(data));
    seen.a.push(out.requiresGrad);
    order.push('a');
    await out.sum().item();
    await tick();
  }
}
async function loopB() {
  const losses = [];
  for (let step = 0; step < 5; step++) {
    opt.zeroGrad();
    const loss = b.call(data).sub(target).square().mean();
    seen.b.push(loss.requiresGrad);
    loss.backward();
    opt.step();
    order.push('b');
    losses.push(await loss.item());
    await tick();
  }
  return losses;
}
const [, losses] = await Promise.all([loopA(), loopB()]);
check('the loops interleaved', order.join('').includes('ab') && order.join('').includes('ba'), order.join(''));
check("loop A's noGrad outputs never record", seen.a.every((r) => r === false), JSON.stringify(seen.a));
check("loop B's losses always record", seen.b.every((r) => r === true), JSON.stringify(seen.b));
check("loop B's weights have gradients", b.parameters().every((p) => p.grad !== null));
check("loop A's weights have none (null)", a.parameters().every((p) => p.grad === null));
check('loop B trains', losses[4] < losses[0], JSON.stringify(losses));
check('recording is on after both loops', recording());

// 4. Two interleaved async scopes: the first to end while the other is open rejects, and so does
// the other; then scopes work again and nothing leaks.
const live = torch.memory().buffers;
let release;
const gate = new Promise((r) => {
  release = r;
});
const first = torch.scope(async () => {
  torch.ones([4]).add(1);
  await gate;
  return 1;
});
const second = torch.scope(async () => {
  torch.ones([4]).add(2);
  await tick();
  await tick();
  return 2;
});
release();
const [r1, r2] = await Promise.allSettled([first, second]);
const interleaved = /^scope\(\): two async scope\(\) bodies interleaved \(each ran while the other awaited\)/;
check('the scope that ended first rejects', r1.status === 'rejected' && interleaved.test(r1.reason?.message), r1.reason?.message ?? r1.value);
check('the interleaved one rejects too', r2.status === 'rejected' && interleaved.test(r2.reason?.message), r2.reason?.message ?? r2.value);
check('the error is a BorchError RuntimeError', r1.reason instanceof torch.BorchError && r1.reason.kind === 'RuntimeError');
check('the interleaved scopes released what they made', torch.memory().buffers === live, `${torch.memory().buffers} vs ${live}`);
// The other order: the later scope settles first and releases what the earlier body made
// meanwhile (nothing can tell this from nesting): a ReleasedError in the earlier body.
let go;
const held = new Promise((r) => {
  go = r;
});
const earlier = torch.scope(async () => {
  await held;
  const made = torch.ones([2]).add(1);
  await tick();
  await tick();
  return made.sum().item();
});
const later = torch.scope(async () => {
  await tick();
  return 2;
});
go();
const [e1, e2] = await Promise.allSettled([earlier, later]);
check('the later scope, settling first, resolves', e2.status === 'fulfilled' && e2.value === 2, e2.reason?.message);
check("the earlier body's tensor made meanwhile is released with it", e1.status === 'rejected' && e1.reason?.kind === 'ReleasedError', e1.reason?.message ?? e1.value);
check('and nothing leaked', torch.memory().buffers === live, `${torch.memory().buffers} vs ${live}`);
const nested = await torch.scope(async (s) => {
  const outer = torch.ones([2]);
  const inner = await torch.scope(async (t) => {
    await tick();
    return t.keep(outer.add(1));
  });
  await tick();
  return s.keep(inner.add(outer));
});
check('nested async scopes still work', JSON.stringify(await nested.toArray()) === '[3,3]');

if (failures.length > 0) {
  console.error(`grad_mode[node]: ${failures.length} FAILED, ${passed} passed`);
  for (const f of failures) console.error(`  FAILED: ${f}`);
  process.exit(1);
}
console.log(
  `grad_mode[node]: ${passed} checks passed (noGrad/enableGrad refuse async bodies with a TypeError, the mode restored; ` +
    'setGradEnabled lasts across await; two interleaved loops keep their own modes; interleaved scopes reject, or release the earlier body\'s tensors)',
);
