// torch.save / torch.load of borch-ts under Node on Dawn (docs/checkpoints.md): a state dict
// round-trips through safetensors bytes into another model, torch's own file
// (tests/checkpoints/fixtures/mlp.safetensors, written by tests/checkpoints/fixtures_torch.py)
// loads with model.loadStateDict(torch.load(bytes)) and gives torch's logits, and hostile bytes
// throw an error with a kind (no wasm trap: the instance still computes afterwards); training
// resumed through torch.saveCheckpoint / torch.loadCheckpoint matches the uninterrupted run's
// losses bit for bit.
// Run: VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json node tests/node/checkpoints.mjs

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
const fixture = (name) => new Uint8Array(readFileSync(new URL(`../checkpoints/fixtures/${name}`, import.meta.url)));

async function main() {
  await installWebGpu();
  const torch = await import(pathToFileURL(join(dir, 'index.js')).href);
  await torch.init();
  const { nn } = torch;
  const mlp = () => new nn.Sequential(new nn.Linear(8, 16), new nn.ReLU(), new nn.Linear(16, 4));

  torch.manualSeed(0);
  const a = mlp();
  const bytes = await torch.save(a.stateDict());
  check('save gives a Uint8Array', bytes instanceof Uint8Array && bytes.length > 8, String(bytes));
  torch.manualSeed(1);
  const b = mlp();
  const keys = b.loadStateDict(torch.load(bytes));
  check('load_state_dict strict, no missing keys', keys.missingKeys.length === 0 && keys.unexpectedKeys.length === 0, JSON.stringify(keys));
  const x = torch.randn([3, 8]);
  const [ya, yb] = [await a.forward(x).toArray(), await b.forward(x).toArray()];
  check('round trip gives the same forward', JSON.stringify(ya) === JSON.stringify(yb));

  const m = mlp();
  m.loadStateDict(torch.load(fixture('mlp.safetensors')));
  const io = torch.load(fixture('mlp_io.safetensors'));
  const got = (await m.forward(io.input).toArray()).flat();
  const want = (await io.logits.toArray()).flat();
  const err = Math.max(...got.map((v, i) => Math.abs(v - want[i])));
  check("torch's file gives torch's logits within 1e-5", err <= 1e-5, String(err));
  const counts = torch.load(fixture('resnet18_io.safetensors'));
  check('load keeps names', Object.keys(counts).sort().join() === 'input,logits', Object.keys(counts).join());

  const hostile = [
    ['truncated', bytes.slice(0, bytes.length - 3)],
    ['empty', new Uint8Array(0)],
    ['header length past the file', (() => { const c = bytes.slice(); c[0] = 0xff; c[1] = 0xff; return c; })()],
    ['garbage', new Uint8Array(64).fill(0x7b)],
    ['huge header length', (() => { const c = bytes.slice(); c.fill(0xff, 0, 8); return c; })()],
    ['not a Uint8Array', 'abc'],
    ['an array of numbers', [1, 2, 3]],
  ];
  for (const [what, input] of hostile) {
    let e;
    try { torch.load(input); } catch (err) { e = err; }
    check(`load(${what}) throws with a kind`, e instanceof Error && typeof e.kind === 'string', String(e));
  }
  let e;
  try { await torch.save({ w: 3 }); } catch (err) { e = err; }
  check('save of a non-tensor value throws TypeError', e?.kind === 'TypeError', String(e));
  const still = await torch.tensor([1, 2]).add(1).toArray();
  check('the instance still computes', JSON.stringify(still) === '[2,3]', JSON.stringify(still));

  // The native resumed_training_matches_uninterrupted_bit_for_bit (borch-nn/tests/checkpoints.rs)
  // through borch-ts: dropout draws from the RNG, Adam and StepLR carry state, fresh data each step.
  const run = (seed) => {
    torch.manualSeed(seed);
    const model = new nn.Sequential(new nn.Linear(8, 16), new nn.ReLU(), new nn.Linear(16, 4), new nn.Dropout(0.25));
    const opt = new torch.optim.Adam(model.parameters(), { lr: 1e-2 });
    const sched = new torch.optim.lrScheduler.StepLR(opt, 2, 0.5);
    return { model, opt, sched };
  };
  const step = async (r) => {
    const x = torch.randn([6, 8]);
    r.opt.zeroGrad();
    const loss = r.model.forward(x).square().mean();
    loss.backward();
    r.opt.step();
    r.sched.step();
    return loss.item();
  };
  const whole = run(11);
  const expected = [];
  for (let i = 0; i < 6; i++) expected.push(await step(whole));
  const first = run(11);
  const resumedLosses = [];
  for (let i = 0; i < 3; i++) resumedLosses.push(await step(first));
  const ckpt = await torch.saveCheckpoint(first.model, first.opt, first.sched, 3);
  check('saveCheckpoint gives a Uint8Array', ckpt instanceof Uint8Array && ckpt.length > 8, String(ckpt));
  const resumed = run(12345);
  torch.randn([17]);
  const epoch = torch.loadCheckpoint(ckpt, resumed.model, resumed.opt, resumed.sched);
  check('loadCheckpoint returns the saved epoch', epoch === 3, String(epoch));
  check("the scheduler's lr is restored", resumed.sched.getLastLr()[0] === first.sched.getLastLr()[0], JSON.stringify([resumed.sched.getLastLr(), first.sched.getLastLr()]));
  for (let i = 3; i < 6; i++) resumedLosses.push(await step(resumed));
  check('resumed losses === the uninterrupted run\'s, bit for bit', resumedLosses.every((v, i) => v === expected[i]), JSON.stringify([resumedLosses, expected]));
  check('the losses change from step to step', new Set(expected).size === expected.length, JSON.stringify(expected));
  const noSched = run(5);
  const bytesNoSched = await torch.saveCheckpoint(noSched.model, noSched.opt, null, 0);
  let se;
  try { torch.loadCheckpoint(bytesNoSched, resumed.model, resumed.opt, resumed.sched); } catch (err) { se = err; }
  check('loadCheckpoint of a file without the scheduler throws ValueError', se?.kind === 'ValueError', String(se));
  const badArgs = [
    ['saveCheckpoint epoch 1.5', () => torch.saveCheckpoint(noSched.model, noSched.opt, null, 1.5)],
    ['saveCheckpoint of a non-module', () => torch.saveCheckpoint({}, noSched.opt, null, 0)],
    ['saveCheckpoint of a non-optimizer', () => torch.saveCheckpoint(noSched.model, {}, null, 0)],
  ];
  for (const [what, f] of badArgs) {
    let e;
    try { await f(); } catch (err) { e = err; }
    check(`${what} throws TypeError`, e?.kind === 'TypeError', String(e));
  }
  let le;
  try { torch.loadCheckpoint(bytes, resumed.model, resumed.opt, null); } catch (err) { le = err; }
  check('loadCheckpoint of a plain state dict file throws ValueError', le?.kind === 'ValueError', String(le));

  for (const f of failures) console.log(`FAILED ${f}`);
  console.log(`checkpoints[node]: ${passed} checks passed, ${failures.length} failed`);
  if (failures.length) process.exit(1);
}

main().catch((e) => {
  console.error(`checkpoints[node]: FAILED: ${e.stack ?? e}`);
  process.exit(1);
});
