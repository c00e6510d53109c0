// borch-ts's onnx.exportOnnx under Node on Dawn (npm webgpu): an MLP, a CIFAR ResNet-18 of
// width 4 (vision.models.cifarResnet18) and timm's ViT-Tiny at 32×32 exported from the package, run by ONNX Runtime
// (onnxruntime-web, wasm backend) at the traced batch and another, compared with borch-ts's
// forward (max abs diff ≤ 1e-5); torch's dynamicAxes and names honoured; bad options refused
// with clear errors.
// Run: VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json node tests/onnx/surface.mjs
import { join, resolve, dirname } from 'node:path';
import { pathToFileURL, fileURLToPath } from 'node:url';
import * as ort from 'onnxruntime-web';
import { installWebGpu } from '../node/webgpu.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const dir = resolve(process.env.CARGO_TARGET_DIR ?? join(here, '../../target'), 'borch-ts');
ort.env.wasm.numThreads = 1;
await installWebGpu();
const torch = await import(pathToFileURL(join(dir, 'index.js')).href);
await torch.init();
torch.manualSeed(0);
const { nn } = torch;

let failures = 0;
const check = (ok, what) => {
  if (!ok) {
    failures++;
    console.log(`onnx surface: FAILED: ${what}`);
  }
};

async function compare(name, model, shape, options) {
  model.eval();
  const bytes = await torch.onnx.exportOnnx(model, torch.randn(shape), options);
  check(bytes instanceof Uint8Array && bytes.length > 0, `${name}: bytes`);
  const session = await ort.InferenceSession.create(bytes, { executionProviders: ['wasm'] });
  const parts = [];
  for (const batch of [shape[0], shape[0] + 1]) {
    const s = [batch, ...shape.slice(1)];
    const x = torch.randn(s);
    const want = (await torch.noGrad(() => model.forward(x)).toArray()).flat(Infinity);
    const data = Float32Array.from((await x.toArray()).flat(Infinity));
    const out = await session.run({ [session.inputNames[0]]: new ort.Tensor('float32', data, s) });
    const got = out[session.outputNames[0]].data;
    let max = 0;
    for (let i = 0; i < want.length; i++) max = Math.max(max, Math.abs(got[i] - want[i]));
    check(got.length === want.length && max <= 1e-5, `${name} batch ${batch}: max abs diff ${max}`);
    parts.push(`batch ${batch} ${max.toExponential(2)}`);
  }
  console.log(`onnx surface: ${name}: ${parts.join(', ')}; inputs ${session.inputNames}, outputs ${session.outputNames}`);
  return session;
}

const mlp = new nn.Sequential(new nn.Linear(8, 16), new nn.ReLU(), new nn.Linear(16, 4));
const s = await compare('mlp', mlp, [2, 8], {
  inputNames: ['x'],
  outputNames: ['logits'],
  dynamicAxes: { x: { 0: 'n' }, logits: [0] },
});
check(s.inputNames[0] === 'x' && s.outputNames[0] === 'logits', 'names');
const resnet = torch.vision.models.cifarResnet18({ numClasses: 10, width: 4 });
await compare('cifar_resnet18 width 4', resnet, [2, 3, 16, 16]);
// timm's ViT-Tiny (vision.models from borch-vision's catalog) on 32×32 images: 4 patches + class token.
const vit = torch.vision.models.vitTinyPatch16224({ imgSize: 32, numClasses: 10 });
await compare('vit_tiny_patch16_224 img_size 32', vit, [2, 3, 32, 32]);

for (const [what, options, kind] of [
  ['opsetVersion 18', { opsetVersion: 18 }, 'NotImplementedError'],
  ['an unknown keyword', { verbose: true }, 'TypeError'],
  ['dynamic axes of an unknown name', { dynamicAxes: { y: [0] } }, 'ValueError'],
]) {
  try {
    await torch.onnx.exportOnnx(mlp, torch.randn([2, 8]), options);
    check(false, `${what} accepted`);
  } catch (e) {
    check(e.kind === kind || e.name === kind, `${what}: ${e.kind ?? e.name}: ${e.message}`);
  }
}
try {
  await torch.onnx.exportOnnx({}, torch.randn([2, 8]));
  check(false, 'a non-module accepted');
} catch (e) {
  check(e instanceof TypeError, `a non-module: ${e}`);
}
console.log(`onnx surface[node]: ${failures === 0 ? 'all checks passed' : `${failures} failed`} (onnxruntime-web wasm; borch-ts on npm webgpu (Dawn))`);
process.exit(failures ? 1 : 0);
