// A checkpoint kept in the browser: torch.save(model.stateDict()) (safetensors bytes) stored in
// IndexedDB with the outputs it gave, then, after a reload, torch.load into a fresh model whose
// outputs are shown next to the saved ones. tests/browser/checkpoint_reload.mjs drives it
// (window.__borchDone: { ok, phase, outputs, savedOutputs }).

import * as torch from '/target/borch-ts/index.js';

const out = document.getElementById('log');
const log = (line) => {
  console.log(line);
  out.textContent += `${line}\n`;
};

const DB = 'borch-checkpoint-example';
const STORE = 'checkpoints';

function request(r) {
  return new Promise((ok, fail) => {
    r.onsuccess = () => ok(r.result);
    r.onerror = () => fail(r.error);
  });
}

async function store(mode) {
  const open = indexedDB.open(DB, 1);
  open.onupgradeneeded = () => open.result.createObjectStore(STORE);
  const db = await request(open);
  return db.transaction(STORE, mode).objectStore(STORE);
}

const mlp = () => new torch.nn.Sequential(new torch.nn.Linear(4, 8), new torch.nn.ReLU(), new torch.nn.Linear(8, 2));
// A fixed input (no RNG), so both visits forward the same values.
const input = () => torch.tensor([[0.5, -1, 2, 0.25], [-0.75, 1.5, 0, -2], [1, 1, -1, 0.125]], { dtype: 'float32' });

async function train() {
  torch.manualSeed(0);
  const model = mlp();
  const X = torch.randn(32, 4);
  const y = X.matmul(torch.tensor([[1, 0], [-1, 1], [0.5, 0], [0, 2]], { dtype: 'float32' })).sin();
  const opt = new torch.optim.Adam(model.parameters(), { lr: 0.05 });
  const lossFn = new torch.nn.MSELoss();
  for (let step = 0; step < 5; step++) {
    opt.zeroGrad();
    const loss = lossFn.call(model.call(X), y);
    loss.backward();
    opt.step();
    log(`step ${step} loss ${(await loss.item()).toFixed(6)}`);
  }
  return model;
}

async function main() {
  await torch.init();
  document.getElementById('forget').onclick = async () => {
    await request((await store('readwrite')).clear());
    log('checkpoint forgotten: reload to train again');
  };
  const saved = await request((await store('readonly')).get('mlp'));
  if (saved === undefined) {
    const model = await train();
    const bytes = await torch.save(model.stateDict());
    const outputs = await torch.noGrad(() => model.call(input())).toArray();
    await request((await store('readwrite')).put({ bytes, outputs }, 'mlp'));
    log(`saved ${bytes.length} bytes of safetensors in IndexedDB; outputs ${JSON.stringify(outputs)}`);
    log('reload the page to load it back');
    return { ok: true, phase: 'saved', outputs, summary: `trained 5 steps, saved ${bytes.length} bytes in IndexedDB` };
  }
  torch.manualSeed(123); // a fresh model with other weights, overwritten by the load
  const model = mlp();
  const keys = model.loadStateDict(torch.load(saved.bytes));
  const outputs = await torch.noGrad(() => model.call(input())).toArray();
  const same = JSON.stringify(outputs) === JSON.stringify(saved.outputs);
  log(`loaded ${saved.bytes.length} bytes from IndexedDB (missing ${keys.missingKeys.length}, unexpected ${keys.unexpectedKeys.length})`);
  log(`outputs now  ${JSON.stringify(outputs)}`);
  log(`outputs saved ${JSON.stringify(saved.outputs)}`);
  log(same ? 'the restored model gives the saved outputs' : 'the outputs DIFFER');
  return { ok: same, phase: 'restored', outputs, savedOutputs: saved.outputs, summary: same ? 'restored from IndexedDB: the saved outputs' : 'restored outputs DIFFER from the saved ones' };
}

window.__borchDone = main().catch((e) => {
  log(`error: ${e.stack ?? e}`);
  return { ok: false, phase: 'error', summary: String(e) };
});
