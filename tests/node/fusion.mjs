// nn.utils.fusion through borch-ts under Node on Dawn, against torch (tests/nn/intrinsic_cases.json,
// frozen from torch.nn.utils.fusion and torch.ao.quantization.fuse_modules by
// tests/nn/intrinsic_cases.py):
// - "fuse_eval": fuseConvBnEval / fuseLinearBnEval of eval modules: the fused module's class,
//   repr, weight and bias (and their requiresGrad), its output; the unfused conv → bn output;
//   fused within 1e-5 of unfused.
// - "fuse_errors": torch's refusals (message and kind).
// - "fuse_weights": fuseConvBnWeights / fuseLinearBnWeights on tensors (`null` bias and affine).
// - "fuse_modules" cases marked `auto`: borch's fuseForEval(model) must give what torch's
//   fuse_modules of the listed groups gives (repr, state dict keys, output), within 1e-5 of the
//   unfused eval output; then the fused eval forward's dispatches are pinned.
// - vision.models.cifarResnet18 at width 8 (what the browser trajectory uses): fused logits
//   within 1e-5 of the unfused ones (relative to the largest), the fused eval forward pinned at
//   22 dispatches (as borch-vision/tests/fusion.rs natively).
// - argument errors: a non-module, a missing module, a train-mode model.
// atol 1e-4, rtol 1e-4 against torch.
// Run: VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json node tests/node/fusion.mjs [filter]

import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { installWebGpu } from './webgpu.mjs';

const dir = resolve(process.env.CARGO_TARGET_DIR ?? 'target', 'borch-ts');
const filter = process.argv[2] ?? '';
const ATOL = 1e-4;
const RTOL = 1e-4;
// Dispatches of one fused eval forward (no_grad, steady state) of tests/nn/intrinsic_cases.json's
// `cnn_auto` model: ConvReLU2d, the folded Conv2d, ConvReLU2d, the Linear folded with its
// BatchNorm1d, LinearReLU (Flatten is a view).
const CNN_FUSED_DISPATCHES = 5;
// borch-vision/tests/fusion.rs: 20 convolutions, the adaptive average pool's mean, the linear.
const RESNET_FUSED_DISPATCHES = 22;

const num = (x) => (typeof x === 'string' ? Number(x.replace('inf', 'Infinity')) : x);
const camel = (k) => k.replace(/_([a-z])/g, (_, c) => c.toUpperCase());

async function main() {
  await installWebGpu();
  const torch = await import(pathToFileURL(join(dir, 'index.js')).href);
  await torch.init();
  const { nn } = torch;
  const fusion = nn.utils.fusion;
  const cases = JSON.parse(readFileSync(new URL('../nn/intrinsic_cases.json', import.meta.url)));
  const tensor = (spec) => torch.tensor(spec.data.map(num), { dtype: spec.dtype }).reshape(spec.shape);
  const build = (spec) => {
    if (spec.type === 'Sequential') return new nn.Sequential(...spec.children.map(build));
    const kwargs = Object.fromEntries(Object.entries(spec.kwargs).map(([k, v]) => [camel(k), v]));
    return new nn[spec.type](...spec.args, kwargs);
  };
  const stateDict = (pairs) => Object.fromEntries(pairs.map(([k, v]) => [k, tensor(v)]));
  const flat = async (t) => (await t.reshape([-1]).toArray()).map(Number);
  async function compare(what, actual, expected, out) {
    const shape = [...actual.shape];
    if (JSON.stringify(shape) !== JSON.stringify(expected.shape)) {
      out.push(`${what}: shape ${JSON.stringify(shape)}, expected ${JSON.stringify(expected.shape)}`);
      return;
    }
    const got = await flat(actual);
    const want = expected.data.map(num);
    const bad = got.findIndex((a, i) => !(Math.abs(a - want[i]) <= ATOL + RTOL * Math.abs(want[i])));
    if (bad >= 0) out.push(`${what}: element ${bad}: got ${got[bad]}, expected ${want[bad]}`);
  }
  async function maxDiff(a, b) {
    const [x, y] = [await flat(a), await flat(b)];
    return x.reduce((m, v, i) => Math.max(m, Math.abs(v - y[i])), 0);
  }
  const dispatchesOf = (f) => {
    const start = torch.dispatches();
    const y = torch.noGrad(f);
    return [y, torch.dispatches() - start];
  };

  const failures = [];
  const counts = { eval: 0, errors: 0, weights: 0, models: 0 };
  const run = async (name, body) => {
    if (!name.includes(filter)) return false;
    const out = [];
    try {
      await body(out);
    } catch (err) {
      out.push(`threw ${err.kind ?? err.name}: ${err.message}`);
    }
    failures.push(...out.map((m) => `${name}: ${m}`));
    return true;
  };

  for (const c of cases.fuse_eval) {
    const ran = await run(`fuse_eval ${c.name}`, async (out) => {
      const conv = build(c.conv);
      const bn = build(c.bn);
      conv.loadStateDict(stateDict(c.conv_state), true);
      bn.loadStateDict(stateDict(c.bn_state), true);
      conv.eval();
      bn.eval();
      const e = c.expect;
      const fused = c.conv.type === 'Linear'
        ? fusion.fuseLinearBnEval(conv, bn)
        : fusion.fuseConvBnEval(conv, bn, c.transpose);
      if (!(fused instanceof nn[c.conv.type])) out.push(`not an nn.${c.conv.type}`);
      if (fused.toString() !== e.repr) out.push(`repr ${fused.toString()} vs ${e.repr}`);
      await compare('weight', fused.weight, e.weight, out);
      await compare('bias', fused.bias, e.bias, out);
      if (fused.weight.requiresGrad !== e.weight_requires_grad || fused.bias.requiresGrad !== e.bias_requires_grad) {
        out.push('requiresGrad differs');
      }
      const x = tensor(c.input);
      const y = torch.noGrad(() => fused.call(x));
      const unfused = torch.noGrad(() => bn.call(conv.call(x)));
      await compare('output', y, e.output, out);
      await compare('unfused', unfused, e.unfused, out);
      const d = await maxDiff(y, unfused);
      if (!(d <= 1e-5)) out.push(`fused output ${d} from the unfused eval output`);
    });
    if (ran) counts.eval++;
  }

  for (const c of cases.fuse_errors) {
    const ran = await run(`fuse_errors ${c.name}`, async (out) => {
      const conv = build(c.conv);
      const bn = build(c.bn);
      conv.train(c.conv_train);
      bn.train(c.bn_train);
      try {
        fusion[camel(c.call)](conv, bn);
        out.push('accepted');
      } catch (err) {
        if (err.message !== c.error || err.kind !== 'RuntimeError') out.push(`${err.kind}: ${err.message} vs ${c.error}`);
      }
    });
    if (ran) counts.errors++;
  }

  for (const c of cases.fuse_weights) {
    const ran = await run(`fuse_weights ${c.name}`, async (out) => {
      const args = c.args.map((a) => (a !== null && typeof a === 'object' ? tensor(a) : a));
      args[0].requiresGrad = true;
      if (args[1] && c.call === 'fuse_linear_bn_weights') args[1].requiresGrad = true;
      const bnEps = torch.asFloat(args[4]);
      const result = fusion[camel(c.call)](...args.slice(0, 4), bnEps, ...args.slice(5));
      if (!Array.isArray(result) || result.length !== 2) {
        out.push(`returned ${result}`);
        return;
      }
      const [w, b] = result;
      const e = c.expect;
      await compare('weight', w, e.weight, out);
      await compare('bias', b, e.bias, out);
      if (w.requiresGrad !== e.weight_requires_grad || b.requiresGrad !== e.bias_requires_grad) out.push('requiresGrad differs');
    });
    if (ran) counts.weights++;
  }

  // fuseForEval: the `auto` cases whose model borch-ts can build (a Sequential of modules; the
  // nested ones name their children, which borch-ts's Sequential cannot yet).
  const skipped = [];
  for (const c of cases.fuse_modules.filter((c) => c.auto)) {
    if (c.model.children.some(Array.isArray)) {
      skipped.push(`${c.name} (named children)`);
      continue;
    }
    const ran = await run(`fuseForEval ${c.name}`, async (out) => {
      const model = build(c.model);
      model.loadStateDict(stateDict(c.state_dict), true);
      model.train(c.train);
      const e = c.expect;
      const x = tensor(c.input);
      const [before, unfusedDispatches] = dispatchesOf(() => model.call(x));
      await compare('unfused', before, e.unfused, out);
      fusion.fuseForEval(model);
      if (model.toString() !== e.repr) out.push(`repr:\n${model.toString()}\nexpected\n${e.repr}`);
      const keys = Object.keys(model.stateDict());
      if (JSON.stringify(keys) !== JSON.stringify(e.keys)) out.push(`keys ${keys} vs ${e.keys}`);
      torch.noGrad(() => model.call(x));
      const [after, fusedDispatches] = dispatchesOf(() => model.call(x));
      await compare('output', after, e.output, out);
      const d = await maxDiff(after, before);
      if (!(d <= 1e-5)) out.push(`fused output ${d} from the unfused eval output`);
      console.log(`fusion[node]: ${c.name}: eval forward ${unfusedDispatches} dispatches unfused, ${fusedDispatches} fused`);
      if (c.name === 'cnn_auto' && fusedDispatches !== CNN_FUSED_DISPATCHES) {
        out.push(`fused eval forward ${fusedDispatches} dispatches, expected ${CNN_FUSED_DISPATCHES}`);
      }
    });
    if (ran) counts.models++;
  }

  const resnet = await run('cifar_resnet18 width 8', async (out) => {
    torch.manualSeed(0);
    const model = torch.vision.models.cifarResnet18({ numClasses: 10, width: 8 });
    const x = torch.keepAlive(torch.randn(2, 3, 32, 32));
    // Two train forwards move the running statistics away from 0 and 1.
    for (let i = 0; i < 2; i++) torch.noGrad(() => model.call(x));
    model.eval();
    const [before, unfusedDispatches] = dispatchesOf(() => model.call(x));
    fusion.fuseForEval(model);
    torch.noGrad(() => model.call(x));
    const [after, fusedDispatches] = dispatchesOf(() => model.call(x));
    const scale = (await flat(before)).reduce((m, v) => Math.max(m, Math.abs(v)), 1);
    const d = await maxDiff(after, before);
    console.log(`fusion[node]: cifar_resnet18 width 8 b2: eval forward ${unfusedDispatches} dispatches unfused, ${fusedDispatches} fused; logits within ${d.toExponential(2)} (largest |logit| ${scale.toFixed(3)})`);
    if (!(d <= 1e-5 * scale)) out.push(`fused logits differ by ${d} (scale ${scale})`);
    if (fusedDispatches !== RESNET_FUSED_DISPATCHES) out.push(`fused eval forward ${fusedDispatches} dispatches, expected ${RESNET_FUSED_DISPATCHES}`);
  });

  const errors = [
    ['a number for bn', () => fusion.fuseConvBnEval(new nn.Conv2d(1, 1, 1), 3), 'TypeError', 'fuse_conv_bn_eval(): argument 2 must be a Module (nn.Conv2d, …), not number'],
    ['no bn', () => fusion.fuseConvBnEval(new nn.Conv2d(1, 1, 1)), 'TypeError', "fuse_conv_bn_eval() missing 1 required positional argument: 'bn'"],
    ['bn twice', () => fusion.fuseConvBnEval(new nn.Conv2d(1, 1, 1), new nn.BatchNorm2d(1), { bn: new nn.BatchNorm2d(1) }), 'TypeError', "fuse_conv_bn_eval() got multiple values for argument 'bn'"],
    ['train model', () => fusion.fuseForEval(new nn.Sequential(new nn.Conv2d(1, 1, 1))), 'RuntimeError', 'Fusion only for eval!'],
  ];
  let errorCount = 0;
  for (const [what, f, kind, message] of errors) {
    if (!what.includes(filter)) continue;
    errorCount++;
    try {
      f();
      failures.push(`${what}: accepted`);
    } catch (err) {
      if (err.kind !== kind || err.message !== message) failures.push(`${what}: ${err.kind} ${err.message}`);
    }
  }

  console.log(
    `fusion[node]: fuse_eval ${counts.eval}, refusals ${counts.errors}, fuse_*_weights ${counts.weights}, ` +
    `fuseForEval models ${counts.models}${resnet ? ' + CIFAR ResNet-18 w8' : ''}, argument errors ${errorCount}; ` +
    `${failures.length} failures${skipped.length ? `; not run: ${skipped.join(', ')}` : ''}`,
  );
  if (failures.length) {
    console.log(failures.join('\n'));
    process.exit(1);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
