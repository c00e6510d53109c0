// borch-ts's compiled(fn) / compiled(module) under Node on Dawn: an eval forward and a whole
// training step (zeroGrad, forward, loss, backward, Adam step) compiled equal the same eagerly
// run bit for bit; replays reuse bind groups; a new shape records a second trace; a function
// whose ops depend on a JavaScript flag falls back to eager and stays correct.
// Run: VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json node tests/node/compiled.mjs

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
const bits = (xs) => Array.from(new Uint32Array(new Float32Array(xs).buffer));
const same = (a, b) => JSON.stringify(bits(a.flat(Infinity))) === JSON.stringify(bits(b.flat(Infinity)));

async function main() {
  await installWebGpu();
  const torch = await import(pathToFileURL(join(dir, 'index.js')).href);
  await torch.init();
  const { nn, optim } = torch;
  const cnn = () => new nn.Sequential(
    new nn.Conv2d(1, 4, 3, { padding: 1 }), new nn.ReLU(), new nn.MaxPool2d(2),
    new nn.Flatten(), new nn.Linear(64, 3),
  );

  // Eval forward of a module.
  torch.manualSeed(0);
  const model = cnn();
  model.eval();
  const x = torch.randn([2, 1, 8, 8]);
  const eager = await model.forward(x).toArray();
  const fast = torch.compiled(model);
  for (let call = 0; call < 3; call++) {
    const b0 = torch.bindGroupsCreated();
    const out = fast(x);
    const made = torch.bindGroupsCreated() - b0;
    check(`compiled(module) call ${call} equals eager`, same(await out.toArray(), eager));
    if (call > 0) check(`replay ${call} creates no bind group`, made === 0, `made ${made}`);
  }
  check('fast.forward is the call', same(await fast.forward(x).toArray(), eager));
  check('one recording, three replays', fast.recordings() === 1 && fast.replays() === 3, `${fast.recordings()} ${fast.replays()}`);
  const other = torch.randn([3, 1, 8, 8]);
  const wantOther = await model.forward(other).toArray();
  check('a new shape is right', same(await fast(other).toArray(), wantOther));
  check('a new shape records a second trace', fast.recordings() === 2);

  // A whole training step with Adam (its bias correction changes every step).
  const y = torch.tensor([0n, 1n]);
  const lossFn = new nn.CrossEntropyLoss();
  const run = (m, o) => (xb, yb) => {
    o.zeroGrad();
    const loss = lossFn.call(m.call(xb), yb);
    loss.backward();
    o.step();
    return loss;
  };
  torch.manualSeed(1);
  const a = cnn();
  torch.manualSeed(1);
  const b = cnn();
  const stepA = run(a, new optim.Adam(a.parameters(), { lr: 0.01 }));
  const stepB = torch.compiled(run(b, new optim.Adam(b.parameters(), { lr: 0.01 })));
  const lossesA = [];
  const lossesB = [];
  for (let i = 0; i < 5; i++) {
    lossesA.push(await stepA(x, y).item());
    lossesB.push(await stepB(x, y).item());
  }
  check('compiled training step losses equal eager', same(lossesA, lossesB), `${lossesA} vs ${lossesB}`);
  const pa = await Promise.all(a.parameters().map((p) => p.toArray()));
  const pb = await Promise.all(b.parameters().map((p) => p.toArray()));
  check('compiled training step parameters equal eager', same(pa, pb));
  check('training steps replay', stepB.replays() >= 3, `replays ${stepB.replays()}`);

  // An op sequence that depends on a flag.
  let flag = false;
  const f = (t) => { const r = t.relu(); return (flag ? r.mul(2) : r).add(1); };
  const g = torch.compiled(f);
  for (const on of [false, false, true, true, false]) {
    flag = on;
    check(`flag ${on}: compiled equals eager`, same(await g(x).toArray(), await f(x).toArray()));
  }
  check('each flip diverges', g.divergences() === 2 && g.replays() === 2, `${g.divergences()} ${g.replays()}`);

  const e = (() => { try { torch.compiled(3); } catch (err) { return err; } })();
  check('compiled(3) is a TypeError', e?.kind === 'TypeError', String(e));

  for (const fl of failures) console.log(`FAILED ${fl}`);
  console.log(`compiled[node]: ${passed} checks passed, ${failures.length} failed`);
  if (failures.length) process.exit(1);
}

main().catch((e) => {
  console.error(`compiled[node]: FAILED: ${e.stack ?? e}`);
  process.exit(1);
});
