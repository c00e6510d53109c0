// LoRA and activation checkpointing through borch-ts (DOM-free: tests/node/lora.mjs runs it under
// Node on Dawn, pages/lora.html in Chromium), against loralib 0.1.2 and torch (tests/nn/lora_cases.json, written by tests/nn/lora_cases.py):
// - "linear" / "conv": new nn.LoRALinear / nn.LoRAConv2d after manualSeed(seed): repr, state dict
//   keys and init values as loralib's, requiresGrad flags; with lora_B set, the training forward,
//   the gradients of lora_A, lora_B and the input, eval()'s merged weight and output, train()'s
//   unmerged weight.
// - "conv r=0": loralib's default rank, a plain convolution in the wrapper (init, flags, output).
// - "refusals": loralib's arguments borch does not take (fanInFanOut, a Conv2d's loraDropout)
//   are NotImplementedError naming them.
// - "model": mark_only_lora_as_trainable and lora_state_dict keys for the three bias modes.
// - "training": nn.utils.lora.applyLora(model, 2, { loraAlpha: 4, targetModules: ['0', '2'] }),
//   the adapter loaded, markOnlyLoraAsTrainable, four SGD steps (losses as torch's), loraStateDict
//   (keys and values), mergeLora / unmergeLora, eval()'s merged weights and output.
// - "checkpoint": utils.checkpoint.checkpoint(block, h, { useReentrant: false }) over two blocks:
//   output and gradients as torch's; equal to the run without checkpoint; a deeper chain keeps
//   fewer bytes alive after the forward (memory()); dropout inside draws the same mask in the
//   recompute; use_reentrant left out or true refused; a throw in the function during backward is
//   that error, and the instance goes on working.
// atol 1e-4, rtol 1e-4 against torch (1e-5 for equalities within borch).

const ATOL = 1e-4;
const RTOL = 1e-4;

// Runs the suite on `torch` (borch-ts, init() done) with the fixture's text; resolves to
// { ok, summary }. `filter`: only cases whose name contains it; `log`: a line out; `label`: the
// surface in the lines (`node`, `js`).
export async function runLoraSuite(torch, fixtureText, { filter = '', log = console.log, label = 'js' } = {}) {
  const { nn } = torch;
  const lora = nn.utils.lora;
  const { checkpoint } = torch.utils.checkpoint;
  const fx = JSON.parse(fixtureText);
  const t = (data, shape) => torch.tensor(data).reshape(shape);
  const stateDict = (obj) => Object.fromEntries(Object.entries(obj).map(([k, [shape, data]]) => [k, t(data, shape)]));
  const flat = async (x) => (await x.reshape([-1]).toArray()).map(Number);
  const failures = [];
  const counts = {};
  async function compare(what, actual, want, out, atol = ATOL, rtol = RTOL) {
    const got = await flat(actual);
    if (got.length !== want.length) {
      out.push(`${what}: ${got.length} elements, expected ${want.length}`);
      return;
    }
    const bad = got.findIndex((a, i) => !(Math.abs(a - want[i]) <= atol + rtol * Math.abs(want[i])));
    if (bad >= 0) out.push(`${what}: element ${bad}: got ${got[bad]}, expected ${want[bad]}`);
  }
  const run = async (name, body) => {
    if (!name.includes(filter)) return;
    const out = [];
    try {
      await body(out);
    } catch (err) {
      out.push(`threw ${err.kind ?? err.name}: ${err.message}`);
    }
    failures.push(...out.map((m) => `${name}: ${m}`));
    const family = name.split(' ')[0];
    counts[family] = (counts[family] ?? 0) + 1;
  };
  const refused = (out, what, f, kind, needle) => {
    try {
      f();
      out.push(`${what}: accepted`);
    } catch (err) {
      if (err.kind !== kind || !err.message.includes(needle)) out.push(`${what}: ${err.kind} ${err.message}`);
    }
  };

  // One layer case: as tests/nn/lora_cases.py's replay.
  async function replay(c, m, weight, out) {
    if (m.toString() !== c.repr) out.push(`repr ${m.toString()} vs ${c.repr}`);
    const sd = m.stateDict();
    const keys = Object.keys(sd);
    const wantKeys = c.init.map((e) => e[0]);
    if (JSON.stringify(keys) !== JSON.stringify(wantKeys)) out.push(`keys ${keys} vs ${wantKeys}`);
    for (const [k, , data] of c.init) await compare(`init ${k}`, sd[k], data, out, 1e-7, 0);
    for (const [n, p] of m.namedParameters()) {
      if (p.requiresGrad !== c.requires_grad[n]) out.push(`${n}.requiresGrad ${p.requiresGrad}`);
    }
    const params = Object.fromEntries(m.namedParameters());
    torch.noGrad(() => params.lora_B.copy_(t(c.lora_B, params.lora_B.shape)));
    const x = t(c.input, c.x);
    x.requiresGrad = true;
    const y = m.call(x);
    await compare('output', y, c.output, out);
    y.mul(t(c.grad_output, c.output_shape)).sum().backward();
    await compare('grad lora_A', params.lora_A.grad, c.grad_lora_A, out);
    await compare('grad lora_B', params.lora_B.grad, c.grad_lora_B, out);
    await compare('grad input', x.grad, c.grad_input, out);
    if (weight().grad !== null) out.push('the frozen weight has a gradient');
    m.eval();
    await compare('merged weight', weight(), c.merged_weight, out);
    await compare('eval output', torch.noGrad(() => m.call(x)), c.eval_output, out);
    m.train();
    await compare('unmerged weight', weight(), c.unmerged_weight, out);
  }

  for (const c of fx.cases) {
    await run(`linear seed ${c.seed}`, async (out) => {
      torch.manualSeed(c.seed);
      const m = new nn.LoRALinear(c.in, c.out, { r: c.r, loraAlpha: c.alpha, bias: c.bias });
      await replay(c, m, () => m.stateDict().weight, out);
    });
  }
  for (const c of fx.conv_cases) {
    await run(`conv seed ${c.seed}`, async (out) => {
      torch.manualSeed(c.seed);
      const m = new nn.LoRAConv2d(c.in, c.out, c.k, { r: c.r, loraAlpha: c.alpha, padding: c.padding, stride: c.stride });
      await replay(c, m, () => m.stateDict()['conv.weight'], out);
    });
  }
  await run('conv r=0 (loralib default)', async (out) => {
    const c = fx.conv_r0;
    torch.manualSeed(c.seed);
    const m = new nn.LoRAConv2d(2, 3, 3, { padding: 1 });
    const sd = m.stateDict();
    if (JSON.stringify(Object.keys(sd)) !== JSON.stringify(c.init.map((e) => e[0]))) out.push(`keys ${Object.keys(sd)}`);
    for (const [k, , data] of c.init) await compare(`init ${k}`, sd[k], data, out, 1e-7, 0);
    for (const [n, p] of m.namedParameters()) if (p.requiresGrad !== c.requires_grad[n]) out.push(`${n}.requiresGrad`);
    await compare('output', m.call(t(c.input, c.x)), c.output, out);
  });
  await run('refusals', async (out) => {
    refused(out, 'fanInFanOut', () => new nn.LoRALinear(3, 4, { r: 2, fanInFanOut: true }), 'NotImplementedError', 'fan_in_fan_out');
    refused(out, 'conv loraDropout', () => new nn.LoRAConv2d(3, 4, 3, { r: 2, loraDropout: 0.1 }), 'NotImplementedError', 'lora_dropout');
    refused(out, 'bias mode', () => lora.markOnlyLoraAsTrainable(new nn.LoRALinear(3, 4, { r: 2 }), 'some'), 'NotImplementedError', 'some');
    refused(out, 'no targets', () => lora.applyLora(new nn.Sequential(new nn.Linear(2, 2)), 2), 'ValueError', 'target_modules is required');
    refused(out, 'no match', () => lora.applyLora(new nn.Sequential(new nn.Linear(2, 2)), 2, { targetModules: ['q'] }), 'ValueError', 'not found');
    refused(out, 'not a module', () => lora.loraStateDict(3), 'TypeError', 'must be a Module');
  });
  await run('model bias modes', async (out) => {
    const m = new nn.Sequential(new nn.LoRALinear(4, 6, { r: 2, loraAlpha: 2 }), new nn.ReLU(), new nn.Linear(6, 3));
    for (const [bias, want] of Object.entries(fx.model)) {
      for (const p of m.parameters()) p.requiresGrad = true;
      lora.markOnlyLoraAsTrainable(m, { bias });
      const trainable = m.namedParameters().filter(([, p]) => p.requiresGrad).map(([n]) => n);
      if (JSON.stringify(trainable) !== JSON.stringify(want.trainable)) out.push(`${bias}: trainable ${trainable}`);
      const keys = Object.keys(lora.loraStateDict(m, bias));
      if (JSON.stringify(keys) !== JSON.stringify(want.lora_state_dict)) out.push(`${bias}: lora_state_dict ${keys}`);
    }
  });
  await run('training apply_lora + SGD + lora_state_dict + merge', async (out) => {
    const c = fx.training;
    const m = new nn.Sequential(new nn.Linear(4, 6), new nn.ReLU(), new nn.Linear(6, 3));
    m.loadStateDict(stateDict(c.base), true);
    const adapted = lora.applyLora(m, 2, { loraAlpha: 4, targetModules: ['0', '2'] });
    if (JSON.stringify(adapted) !== '["0","2"]') out.push(`adapted ${JSON.stringify(adapted)}`);
    m.loadStateDict(stateDict(c.adapter), false);
    lora.markOnlyLoraAsTrainable(m);
    const trainable = m.namedParameters().filter(([, p]) => p.requiresGrad).map(([n]) => n);
    if (JSON.stringify(trainable) !== JSON.stringify(c.trainable)) out.push(`trainable ${trainable}`);
    const [x, y] = [t(c.x, [5, 4]), t(c.y, [5, 3])];
    const opt = new torch.optim.SGD(m.parameters().filter((p) => p.requiresGrad), { lr: c.lr });
    for (const [step, want] of c.losses.entries()) {
      opt.zeroGrad();
      const loss = nn.functional.mseLoss(m.call(x), y);
      loss.backward();
      opt.step();
      const got = await loss.item();
      if (!(Math.abs(got - want) <= ATOL + RTOL * Math.abs(want))) out.push(`step ${step}: loss ${got} vs ${want}`);
    }
    const sd = lora.loraStateDict(m);
    if (JSON.stringify(Object.keys(sd)) !== JSON.stringify(Object.keys(c.lora_state_dict))) out.push(`lora_state_dict keys ${Object.keys(sd)}`);
    for (const [k, [, data]] of Object.entries(c.lora_state_dict)) if (sd[k]) await compare(`lora_state_dict ${k}`, sd[k], data, out);
    await compare('train output', torch.noGrad(() => m.call(x)), c.train_output, out);
    const merged = lora.mergeLora(m);
    if (JSON.stringify(merged) !== '["0","2"]') out.push(`merged ${JSON.stringify(merged)}`);
    await compare('mergeLora output', torch.noGrad(() => m.call(x)), c.train_output, out);
    lora.unmergeLora(m);
    m.eval();
    for (const i of ['0', '2']) await compare(`merged weight ${i}`, m.stateDict()[`${i}.weight`], c.merged_weights[i], out);
    await compare('eval output', torch.noGrad(() => m.call(x)), c.eval_output, out);
    log(`lora[${label}]: apply_lora + ${c.losses.length} SGD steps + lora_state_dict + merge as loralib's`);
  });

  // Two blocks, each the fixture's Sequential(Linear(5, 8), Tanh(), Linear(8, 5), Tanh()).
  const block = (state) => {
    const b = new nn.Sequential(new nn.Linear(5, 8), new nn.Tanh(), new nn.Linear(8, 5), new nn.Tanh());
    b.loadStateDict(stateDict(state), true);
    return b;
  };
  await run('checkpoint two blocks', async (out) => {
    const c = fx.checkpoint;
    const blocks = c.blocks.map(block);
    const x = t(c.x, c.x_shape);
    x.requiresGrad = true;
    const g = t(c.grad_output, c.x_shape);
    const pass = async (wrap) => {
      for (const b of blocks) b.zeroGrad();
      x.grad = null;
      let h = x;
      for (const b of blocks) h = wrap(b, h);
      h.mul(g).sum().backward();
      const grads = blocks.flatMap((b, i) => b.namedParameters().map(([n, p]) => [`${i}.${n}`, p.grad]));
      return { h, gx: x.grad, grads };
    };
    const ck = await pass((b, h) => checkpoint((v) => b.call(v), h, { useReentrant: false }));
    await compare('output', ck.h, c.output, out);
    await compare('grad input', ck.gx, c.grad_input, out);
    for (const [n, gr] of ck.grads) await compare(`grad ${n}`, gr, c.grads[n], out);
    const plain = await pass((b, h) => b.call(h));
    await compare('plain = checkpoint output', plain.h, await flat(ck.h), out, 1e-5, 0);
    await compare('plain = checkpoint grad input', plain.gx, await flat(ck.gx), out, 1e-5, 0);
  });
  await run('checkpoint memory', async (out) => {
    // 8 blocks of width 64 on a batch of 256: after the forward, the plain graph holds every
    // block's activations, the checkpointed one only each block's input.
    torch.manualSeed(1);
    const blocks = Array.from({ length: 8 }, () => new nn.Sequential(new nn.Linear(64, 64), new nn.Tanh(), new nn.Linear(64, 64), new nn.Tanh()));
    const x = torch.keepAlive(torch.randn(256, 64));
    x.requiresGrad = true;
    const measure = (wrap) => torch.scope(async () => {
      const before = torch.memory().bytes;
      let h = x;
      for (const b of blocks) h = wrap(b, h);
      const held = torch.memory().bytes - before;
      h.sum().backward();
      return { held, grad: await flat(x.grad) };
    });
    const plain = await measure((b, h) => b.call(h));
    x.grad = null;
    const ck = await measure((b, h) => checkpoint((v) => b.call(v), h, { useReentrant: false }));
    log(`checkpoint[${label}]: 8 blocks (width 64, batch 256): ${ck.held} B held after the forward with checkpoint, ${plain.held} B without (${(100 * (1 - ck.held / plain.held)).toFixed(0)}% less)`);
    if (!(ck.held < plain.held / 2)) out.push(`checkpointed forward holds ${ck.held} B, plain ${plain.held} B`);
    const d = ck.grad.reduce((m, v, i) => Math.max(m, Math.abs(v - plain.grad[i])), 0);
    if (!(d <= 1e-5)) out.push(`input gradients differ by ${d}`);
  });
  await run('checkpoint dropout recompute', async (out) => {
    const drop = new nn.Dropout(0.5);
    const w = torch.randn(6, 6);
    w.requiresGrad = true;
    const f = (v) => drop.call(v.matmul(w)).tanh();
    const x = torch.randn(4, 6);
    torch.manualSeed(5);
    f(x).sum().backward();
    const plain = await flat(w.grad);
    w.grad = null;
    torch.manualSeed(5);
    checkpoint(f, x, { useReentrant: false }).sum().backward();
    await compare('dropout grads', w.grad, plain, out, 1e-5, 0);
  });
  await run('checkpoint refusals and throws', async (out) => {
    const x = torch.randn(2, 3);
    x.requiresGrad = true;
    refused(out, 'no useReentrant', () => checkpoint((v) => v.tanh(), x), 'NotImplementedError', 'use_reentrant=False');
    refused(out, 'useReentrant true', () => checkpoint((v) => v.tanh(), x, { useReentrant: true }), 'NotImplementedError', 'use_reentrant=True');
    refused(out, 'not a function', () => checkpoint(3, x, { useReentrant: false }), 'TypeError', 'must be a function');
    refused(out, 'a number input', () => checkpoint((v) => v, x, 2, { useReentrant: false }), 'TypeError', 'must be a Tensor');
    refused(out, 'returns a number', () => checkpoint(() => 3, x, { useReentrant: false }), 'TypeError', 'must return one Tensor');
    refused(out, 'an async function', () => checkpoint(async (v) => v, x, { useReentrant: false }), 'TypeError', 'not Promise');
    refused(out, 'a freed input', () => {
      const f = torch.ones(2);
      f.free();
      return checkpoint((v) => v, f, { useReentrant: false });
    }, 'TypeError', 'freed');
    refused(out, 'an unknown option', () => checkpoint((v) => v, x, { useReentrant: false, foo: 1 }), 'TypeError', "unexpected keyword argument 'foo'");
    refused(out, 'determinismCheck', () => checkpoint((v) => v, x, { useReentrant: false, determinismCheck: 'x' }), 'ValueError', "should be one of ['default', 'none']");
    const nested = checkpoint((v) => checkpoint((w) => w.tanh(), v, { useReentrant: false }).mul(2), x, { useReentrant: false });
    x.grad = null;
    nested.sum().backward();
    const xs = await flat(x);
    await compare('nested checkpoints', x.grad, xs.map((v) => 2 * (1 - Math.tanh(v) ** 2)), out, 1e-5, 1e-5);
    let calls = 0;
    class Boom extends Error {}
    const y = checkpoint((v) => {
      calls += 1;
      if (calls === 2) throw new Boom('recompute failed');
      return v.tanh();
    }, x, { useReentrant: false });
    try {
      y.sum().backward();
      out.push('backward did not throw');
    } catch (err) {
      if (!(err instanceof Boom) || err.message !== 'recompute failed') out.push(`backward threw ${err.name} ${err.message}`);
    }
    try {
      checkpoint(() => { throw new RangeError('in the forward'); }, x, { useReentrant: false });
      out.push('forward did not throw');
    } catch (err) {
      if (!(err instanceof RangeError) || err.message !== 'in the forward') out.push(`forward threw ${err.name} ${err.message}`);
    }
    // A function with a borchRelease method (borch_webgpu's Python callables) has it called
    // once the core drops it: with its checkpoint node, or at once when the call is refused.
    let released = 0;
    const releasable = Object.assign((v) => v.tanh(), { borchRelease: () => { released += 1; } });
    refused(out, 'refused releasable', () => checkpoint(releasable, x), 'NotImplementedError', 'use_reentrant');
    if (released !== 1) out.push(`a refused call released ${released} times`);
    const yr = checkpoint(releasable, x, { useReentrant: false });
    const sr = yr.sum();
    sr.backward();
    if (released !== 1) out.push(`released while the node lives (${released})`);
    sr.free();
    yr.free();
    if (released !== 2) out.push(`released ${released - 1} times after the node went`);
    const z = checkpoint((v) => v.mul(v), x, { useReentrant: false });
    x.grad = null;
    z.sum().backward();
    await compare('still working', x.grad, (await flat(x)).map((v) => 2 * v), out, 1e-5, 0);
  });

  const summary = `lora[${label}]: ${Object.entries(counts).map(([k, n]) => `${k} ${n}`).join(', ')}; ${failures.length} failures`;
  for (const f of failures) log(f);
  return { ok: failures.length === 0 && Object.keys(counts).length > 0, summary };
}
