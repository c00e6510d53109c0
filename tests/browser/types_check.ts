// Type-checks the generated index.d.ts of borch-ts (tsc --strict --noEmit, in scripts/test): the
// catalog's methods carry real parameter and result types, so the mistakes below are compile
// errors (each `@ts-expect-error` fails the check if its line type-checks).
import * as torch from '../../target/borch-ts/index.js';

export async function typed(): Promise<number> {
  await torch.init();
  const x: torch.Tensor = torch.tensor([[1, 2], [3, 4]]);
  const rows: torch.Tensor = x.sum(1, true);
  const cols: torch.Tensor = x.sum({ dim: 0, keepdim: false });
  const whole: torch.Tensor = x.max();
  const [values, indices]: [torch.Tensor, torch.Tensor] = x.max(1);
  const parts: torch.Tensor[] = x.split(1);
  const flat: torch.Tensor = x.view(4);
  const square: torch.Tensor = x.view(2, 2);
  const zeros: torch.Tensor = torch.zeros(2, 3);
  const dim0: number = x.size(0);
  const shape: number[] = x.size();
  const chained = x.add(1, { alpha: 2 }).mul(x).matmul(x.t()).logSoftmax(1);
  const spread: torch.Tensor = torch.var(x);
  const activated: torch.Tensor = torch.nn.functional.leakyRelu(x, { negativeSlope: 0.2 });
  const loss: torch.Tensor = torch.nn.functional.crossEntropy(x, torch.tensor([0, 1], { dtype: 'int64' }), { labelSmoothing: 0.1 });
  const projected: torch.Tensor = torch.nn.functional.linear(x, x, x.sum(0));
  // @ts-expect-error: a loss needs its target
  torch.nn.functional.mseLoss(x);
  const joined: torch.Tensor = torch.cat([rows, cols.unsqueeze(1)], 1);
  // @ts-expect-error a dim is a number or a list of numbers
  x.sum('a');
  // @ts-expect-error matmul takes a tensor
  x.matmul(3);
  // @ts-expect-error no such op
  x.fooBar();
  const seq = new torch.nn.Sequential(new torch.nn.Linear(2, 2), new torch.nn.ReLU());
  const first = seq.at(0);
  const weight: torch.Tensor | undefined = first.weight;
  // @ts-expect-error a module is not a tensor
  first.matmul(x);
  const layers: number = seq.length + new torch.nn.ModuleList([first]).length;
  const head: torch.Tensor = new torch.nn.ModuleDict({ head: new torch.nn.Tanh() }).get('head').call(x);
  const opt = new torch.optim.SGD(seq.parameters(), { lr: 0.1 });
  const group = opt.paramGroups[0];
  group.lr = 0.01;
  // @ts-expect-error a learning rate is a number
  group.lr = 'fast';
  const saved: Record<string, unknown> = new torch.optim.lrScheduler.StepLR(opt, 2).stateDict();
  const file: Uint8Array = await torch.save({ w: x });
  const loaded: Record<string, torch.Tensor> = torch.load(file);
  const ckpt: Uint8Array = await torch.saveCheckpoint(seq, opt, new torch.optim.lrScheduler.StepLR(opt, 2), 3);
  const resumedEpoch: number = torch.loadCheckpoint(ckpt, seq, opt, null);
  // @ts-expect-error the epoch is a number
  await torch.saveCheckpoint(seq, opt, null, '3');
  const images = torch.ones([2, 1, 8, 8]);
  const cnn = new torch.nn.Sequential(
    new torch.nn.Conv2d(1, 4, 3, { padding: 'same' }),
    new torch.nn.MaxPool2d(2),
    new torch.nn.Conv2d(4, 8, [3, 3], { stride: [1, 1], groups: 1, bias: false }),
    new torch.nn.AvgPool2d(2, { stride: 1, countIncludePad: false }),
    new torch.nn.AdaptiveAvgPool2d([1, null]),
  );
  const features: torch.Tensor = cnn.call(images);
  const convolved: torch.Tensor = torch.conv2d(images, torch.ones([2, 1, 3, 3]), undefined, [2], [1]);
  const pooled: torch.Tensor = torch.nn.functional.avgPool2d(images, [2], { ceilMode: true });
  // @ts-expect-error Conv2d needs a kernel size
  new torch.nn.Conv2d(1, 4);
  // The nn classes are generated from the module catalog: subclassable, with torch's signatures.
  class Scaled extends torch.nn.Linear {
    constructor() {
      super(2, 2, { bias: false });
    }
  }
  const scaled: torch.Tensor = new Scaled().call(x);
  const norm = new torch.nn.LayerNorm(2, { eps: 1e-6 });
  const isNorm: boolean = norm instanceof torch.nn.LayerNorm;
  // @ts-expect-error in_features is a number
  new torch.nn.Linear('a', 2);
  // @ts-expect-error no such keyword
  new torch.nn.Linear(2, 2, { bais: false });
  // A forward that returns a tuple is typed from its catalog row's ForwardSignature.
  const cell = new torch.nn.LSTMCell(2, 3);
  const [h1, c1]: [torch.Tensor, torch.Tensor] = cell.call(x, [torch.zeros([2, 3]), torch.zeros([2, 3])]);
  // @ts-expect-error an LSTMCell returns the pair (h', c'), not one tensor
  const notOne: torch.Tensor = cell.call(x);
  const lstm = new torch.nn.LSTM(2, 3, { numLayers: 2, batchFirst: true });
  const [seqOut, [hN, cN]]: [torch.Tensor, [torch.Tensor, torch.Tensor]] = lstm.call(torch.ones([1, 4, 2]));
  const [gruOut, gruH]: [torch.Tensor, torch.Tensor] = new torch.nn.GRU(2, 3).call(torch.ones([4, 2]), { hx: torch.zeros([1, 3]) });
  // TransformerEncoder/Decoder take a layer (deep-copied); forward's masks typed from its
  // ForwardSignature; nn.Transformer's static method from its catalog.
  const encLayer = new torch.nn.TransformerEncoderLayer(4, 2, { dimFeedforward: 8, dropout: 0.0 });
  const encoder = new torch.nn.TransformerEncoder(encLayer, 2, { norm: new torch.nn.LayerNorm(4) });
  const causal: torch.Tensor = torch.nn.Transformer.generateSquareSubsequentMask(3);
  const encoded: torch.Tensor = encoder.call(torch.ones([3, 1, 4]), { mask: causal, isCausal: true });
  const decoder = new torch.nn.TransformerDecoder(new torch.nn.TransformerDecoderLayer(4, 2), 1);
  const decoded: torch.Tensor = decoder.forward(torch.ones([3, 1, 4]), encoded, { tgtMask: causal });
  // @ts-expect-error the layer is a module, not a number
  new torch.nn.TransformerEncoder(4, 2);
  // @ts-expect-error TransformerEncoder.forward has no keyword tgtMask
  encoder.call(encoded, { tgtMask: causal });
  // Async entries (the result's shape depends on the values) resolve to what torch returns.
  const mask = x.gt(2);
  const where: torch.Tensor = await x.nonzero();
  const coords: torch.Tensor | torch.Tensor[] = await torch.nonzero(x, { asTuple: true });
  const picked: torch.Tensor = await x.maskedSelect(mask);
  const rowsOf: torch.Tensor = await x.indexAsync([mask]);
  const distinct: torch.Tensor | torch.Tensor[] = await x.unique({ returnCounts: true });
  const repeated: torch.Tensor = await x.repeatInterleaveAsync(torch.tensor([1, 2], { dtype: 'int64' }), 0);
  const tiled: torch.Tensor = x.repeatInterleave(2, 0);
  // @ts-expect-error nonzero resolves later: a Promise, not a Tensor
  const notYet: torch.Tensor = x.nonzero();
  // t[0] = 5 and t[mask] = 0, in place
  const written: torch.Tensor = x.clone().setitem([0], 5).setitem([mask], 0);
  // @ts-expect-error a subscript value is a tensor or a number
  x.setitem([0], 'five');
  // vision.models: torchvision's keyword-only builders, typed from borch-vision's catalog
  const resnet = torch.vision.models.resnet18({ numClasses: 10, zeroInitResidual: true });
  const cifar = torch.vision.models.cifarResnet18({ width: 8 });
  const cifarOut: torch.Tensor = cifar.call(x);
  // @ts-expect-error numClasses is a number
  torch.vision.models.resnet50({ numClasses: 'ten' });
  // vision.catalogue: the verified entry, its model a Module
  const entry: torch.CatalogueEntry = await torch.vision.catalogue.load('/catalogue/digits_cnn.json', { cache: false });
  const entryOut: torch.Tensor = entry.model.call(x);
  const diff: number = entry.maxSampleDiff + entry.manifest.sample.tolerance;
  const from: 'cache' | 'network' | 'bytes' = (await torch.vision.catalogue.loadFrom('{}', new Uint8Array(0))).source;
  // @ts-expect-error loadFrom takes the weights' bytes, not a URL
  torch.vision.catalogue.loadFrom('{}', '/catalogue/digits_cnn.safetensors');
  const used = [resnet, cifarOut, entryOut, diff, from, tiled, seqOut, encoded, decoded, hN, cN, gruOut, gruH, h1, c1, notOne, scaled, isNorm, features, convolved, pooled, whole, values, indices, parts[0], flat, square, zeros, chained, spread, joined, activated, loss, projected, head, saved, weight, where, coords, picked, rowsOf, distinct, repeated, notYet, written];
  const fastSeq = torch.compiled(seq);
  const fastOut: torch.Tensor = fastSeq(x);
  const fastFn = torch.compiled((a: torch.Tensor, b: torch.Tensor) => a.add(b));
  const summed: torch.Tensor = fastFn.forward(x, x);
  // @ts-expect-error: the compiled function keeps the function's parameter types
  fastFn(x, 'two');
  const replays: number = fastSeq.replays() + fastFn.recordings() + torch.bindGroupsCreated();
  // nn.utils.fusion, typed from borch_nn::utils::fusion_catalog
  const conv = new torch.nn.Conv2d(2, 3, 3);
  const bn = new torch.nn.BatchNorm2d(3);
  const folded: torch.Tensor = torch.nn.utils.fusion.fuseConvBnEval(conv, bn).call(x);
  const [fw, fb]: [torch.Tensor, torch.Tensor] = torch.nn.utils.fusion.fuseConvBnWeights(
    conv.weight!, null, x, x, 1e-5, null, null);
  torch.nn.utils.fusion.fuseForEval(seq);
  // @ts-expect-error conv_b is required (None may fill it: null)
  torch.nn.utils.fusion.fuseConvBnWeights(x, x, x, x);
  // @ts-expect-error a module, not a tensor
  torch.nn.utils.fusion.fuseForEval(x);
  void [folded, fw, fb];
  // LoRA (nn.LoRALinear, nn.utils.lora from borch_nn::utils::lora_catalog) and
  // utils.checkpoint.checkpoint (options typed from borch_autograd::CHECKPOINT_OPTIONS)
  const adapterLayer = new torch.nn.LoRALinear(4, 3, { r: 2, loraAlpha: 8 });
  const loraSeq = new torch.nn.Sequential(new torch.nn.Linear(4, 4), adapterLayer);
  const adaptedPaths: string[] = torch.nn.utils.lora.applyLora(loraSeq, 2, { targetModules: ['0'] });
  torch.nn.utils.lora.markOnlyLoraAsTrainable(loraSeq, { bias: 'lora_only' });
  const adapterState: Record<string, torch.Tensor> = torch.nn.utils.lora.loraStateDict(loraSeq);
  const mergedPaths: string[] = torch.nn.utils.lora.mergeLora(loraSeq);
  const checkpointed: torch.Tensor = torch.utils.checkpoint.checkpoint(
    (a: torch.Tensor) => loraSeq.call(a), x, { useReentrant: false });
  // @ts-expect-error the options object comes last
  torch.utils.checkpoint.checkpoint((a: torch.Tensor) => a, x);
  // @ts-expect-error target_modules is a list of names
  torch.nn.utils.lora.applyLora(loraSeq, 2, { targetModules: 'q' });
  void [adaptedPaths, adapterState, mergedPaths, checkpointed];
  // Autograd and reads (issue 13): backward's arguments are optional, item() is a number unless
  // the tensor is said to be bool, grad may be null, noGrad/enableGrad take synchronous bodies.
  const w = torch.ones([2], { requiresGrad: true });
  const l = w.mul(2).sum();
  l.backward();
  l.backward(null, true);
  l.backward(torch.ones([]), false);
  // @ts-expect-error retainGraph is a boolean
  l.backward(null, 'yes');
  const lossValue: number = await l.item();
  const flagValue: boolean = await w.gt(0).all().item<'bool'>();
  const asInt: number = await torch.tensor([3], { dtype: 'int64' }).item<'int64'>();
  // @ts-expect-error a float tensor's item is a number, not a boolean
  const notFlag: boolean = await l.item();
  const listed: torch.Nested<number> = await w.toArray();
  const flags: torch.Nested<boolean> = await w.gt(0).toArray<'bool'>();
  const elementOf: torch.ElementOf<'bool'> = true;
  const maybeGrad: torch.Tensor | null = w.grad;
  // @ts-expect-error grad may be null: check first
  w.grad.shape;
  const gradShape: number[] = w.grad !== null ? w.grad.shape : [];
  const frozen: torch.Tensor = torch.noGrad(() => w.mul(2));
  const thawed: torch.Tensor = torch.noGrad(() => torch.enableGrad(() => w.mul(2)));
  const nothing: void = torch.noGrad(() => {
    w.mul(2);
  });
  // @ts-expect-error an async body is refused (grad mode cannot follow it across await)
  torch.noGrad(async () => w.mul(2));
  // @ts-expect-error nor a function returning a Promise
  torch.enableGrad(() => w.mul(2).item());
  const previous: boolean = torch.setGradEnabled(false);
  void [lossValue, flagValue, asInt, notFlag, listed, flags, elementOf, maybeGrad, gradShape, frozen, thawed, nothing, previous];
  void fastOut;
  void summed;
  // torch.utils.data: an async-iterable DataLoader over a TensorDataset (borch-js/src/data.rs)
  const loader = new torch.data.DataLoader(new torch.data.TensorDataset([x, x]), {
    batchSize: 2,
    shuffle: true,
  });
  const batches: number = loader.length;
  for await (const batch of loader) {
    const [xb] = batch as torch.Tensor[];
    void xb.shape;
  }
  // @ts-expect-error the options are an object of torch's keywords
  new torch.data.DataLoader(new torch.data.TensorDataset([x]), 2);
  // An iterable dataset written in JavaScript (torch's IterableDataset), and a ChainDataset.
  class Numbers extends torch.data.IterableDataset {
    constructor(readonly n: number) {
      super();
    }
    *[Symbol.iterator]() {
      for (let i = 0; i < this.n; i += 1) yield torch.tensor([i]);
    }
  }
  const chain = new torch.data.ChainDataset([new Numbers(2), { *[Symbol.iterator]() { yield 1; }, length: 1 }]);
  const chainCount: number = chain.length + [...chain].length;
  new torch.data.DataLoader(new Numbers(10), { batchSize: 4, dropLast: false });
  new torch.data.DataLoader(chain, { batchSize: null });
  // @ts-expect-error a number is not a dataset
  new torch.data.DataLoader(3);
  void chainCount;
  return dim0 + shape.length + used.length + layers + replays + batches;
}
