// The vision part of the "data" golden family for borch-ts: tests/vision/cases.json (frozen from
// torchvision 0.29 by tests/vision/fixtures_torchvision.py) through `vision.transforms`: each
// seeded pipeline's output shape, values (within 1e-5, as the native test) and sum, torchvision's
// errors, and ToTensor / PILToTensor of raw HWC bytes (exact). Expected values are torchvision's.

const TOLERANCE = 1e-5;

// The script's deterministic input: element i is ((i * 37) % 101) / 100 (as float32).
function image(torch, shape) {
  const n = shape.reduce((a, b) => a * b, 1);
  const v = Array.from({ length: n }, (_, i) => Math.fround(((i * 37) % 101) / 100));
  return torch.tensor(v, { dtype: 'float32' }).reshape(shape);
}

const kind = (e) => (e.kind ?? e.name) === 'RangeError' ? 'IndexError' : (e.kind ?? e.name);

async function pipelineCase(torch, c) {
  const T = torch.vision.transforms;
  torch.manualSeed(c.seed);
  const x = image(torch, c.shape);
  let y;
  try {
    const pipeline = T.Compose(c.transforms.map(([name, kw]) => T[name](kw)));
    y = pipeline.forward(x);
  } catch (e) {
    const got = `${kind(e)}: ${e.message}`;
    if (c.error && got === c.error) return null;
    return `borch ${got}${c.error ? `, torchvision ${c.error}` : ''}`;
  }
  if (c.error) return `no error, torchvision ${c.error}`;
  if (JSON.stringify([...y.shape]) !== JSON.stringify(c.out_shape)) return `shape ${y.shape}, torchvision ${c.out_shape}`;
  const values = await y.reshape([-1]).toArray();
  // The script keeps every value of outputs up to 200 elements, else the first 32 (and the sum).
  let worst = 0;
  c.values.forEach((w, i) => { worst = Math.max(worst, Math.abs(values[i] - w)); });
  if (Number.isNaN(worst)) return 'a value is NaN';
  const sum = values.reduce((a, b) => a + b, 0);
  if (worst > TOLERANCE || Math.abs(sum - c.sum) > TOLERANCE * Math.max(values.length, 1)) {
    return `max |diff| ${worst}, sum ${sum} (torchvision ${c.sum})`;
  }
  return { worst };
}

// ToTensor's values exactly (as float32) and PILToTensor's bytes, or what differs.
function differs(a, b, c) {
  if (JSON.stringify(a) !== JSON.stringify(c.values.map(Math.fround))) return `ToTensor ${a}`;
  if (JSON.stringify(b) !== JSON.stringify(c.pil_values)) return `PILToTensor ${b}`;
  return null;
}

// Also an ImageData-like RGBA picture (alpha 255) of a 3-channel case: its first three channels.
async function toTensorCase(torch, c) {
  const T = torch.vision.transforms;
  const bytes = new Uint8Array(c.bytes);
  const a = await T.ToTensor().forward(bytes, c.hwc).reshape([-1]).toArray();
  const b = await T.PILToTensor().forward(bytes, c.hwc).reshape([-1]).toArray();
  const [h, w, channels] = c.hwc;
  if (channels !== 3) return differs(a, b, c);
  const rgba = new Uint8Array(h * w * 4);
  for (let i = 0; i < h * w; i++) rgba.set([...c.bytes.slice(i * 3, i * 3 + 3), 255], i * 4);
  const fromImage = await T.PILToTensor().forward({ data: rgba, width: w, height: h }).reshape([4, -1]).toArray();
  const bad = differs(a, b, c);
  if (bad) return bad;
  if (JSON.stringify(fromImage.slice(0, 3).flat()) !== JSON.stringify(c.pil_values)) return 'PILToTensor of an ImageData';
  return null;
}

/** Runs the transform cases; returns { agreeing, disagreeing, notImplemented, failures, worst }. */
export async function runVisionSuite(torch, cases) {
  const r = { agreeing: 0, disagreeing: 0, notImplemented: 0, failures: [], worst: 0, missing: {} };
  for (const c of cases) {
    const run = { pipeline: pipelineCase, to_tensor: toTensorCase }[c.kind];
    if (!run) {
      r.notImplemented += 1;
      r.missing[c.kind] = (r.missing[c.kind] ?? 0) + 1;
      continue;
    }
    let out;
    try {
      out = await run(torch, c);
    } catch (e) {
      out = `threw ${e.stack ?? e}`;
    }
    if (typeof out === 'string') {
      r.disagreeing += 1;
      r.failures.push(`${c.kind} seed ${c.seed} ${JSON.stringify(c.transforms ?? c.hwc)}: ${out}`);
    } else {
      r.agreeing += 1;
      r.worst = Math.max(r.worst, out?.worst ?? 0);
    }
  }
  return r;
}

/** tests/vision/cases.json (one case a line) as objects. */
export const visionCases = (text) => text.split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));

// What torchvision's CIFAR10 / CIFAR100 / MNIST read from the synthetic files
// (tests/vision/files/), through vision.datasets.<Class>.fromBytes: length, labels, shapes and
// each image's ToTensor sum (within 1e-3) and first values (exact, float32). `read(path)` gives a
// file's bytes (Node: the file system; a page: fetch).
export async function runVisionDatasets(torch, cases, read) {
  const D = torch.vision.datasets;
  const files = {
    CIFAR10: async (train) => [D.CIFAR10.fromBytes(await Promise.all((train ? [1, 2, 3, 4, 5].map((i) => `data_batch_${i}.bin`) : ['test_batch.bin']).map((f) => read(`cifar-10-batches-bin/${f}`))))],
    CIFAR100: async (train) => [D.CIFAR100.fromBytes(await read(`cifar-100-binary/${train ? 'train' : 'test'}.bin`))],
    MNIST: async (train) => [train
      ? D.MNIST.fromBytes(await read('MNIST/raw/train-images-idx3-ubyte'), await read('MNIST/raw/train-labels-idx1-ubyte'))
      : D.MNIST.fromBytes(await read('MNIST/raw/t10k-images-idx3-ubyte.gz'), await read('MNIST/raw/t10k-labels-idx1-ubyte.gz'))],
  };
  const r = { agreeing: 0, disagreeing: 0, failures: [], samples: 0 };
  for (const c of cases.filter((k) => k.kind === 'dataset')) {
    const [ds] = await files[c.class](c.train);
    let failure = ds.length === c.len ? null : `length ${ds.length}, torchvision ${c.len}`;
    for (const [i, want] of c.items.entries()) {
      if (failure) break;
      const [img, label] = ds.getItem(i);
      const v = await img.reshape([-1]).toArray();
      const sum = v.reduce((a, b) => a + b, 0);
      const first = v.slice(0, want.first.length);
      if (label !== want.label || JSON.stringify([...img.shape]) !== JSON.stringify(want.shape)
        || Math.abs(sum - want.sum) > 1e-3 || JSON.stringify(first) !== JSON.stringify(want.first.map(Math.fround))) {
        failure = `item ${i}: label ${label} shape ${img.shape} sum ${sum} first ${first}`;
      }
      r.samples += 1;
    }
    if (!failure && JSON.stringify(ds.targets) !== JSON.stringify(c.items.map((x) => x.label))) failure = `targets ${ds.targets}`;
    if (failure) {
      r.disagreeing += 1;
      r.failures.push(`${c.class} train=${c.train}: ${failure}`);
    } else {
      r.agreeing += 1;
    }
  }
  return r;
}
