// The "data" golden family for borch-ts: tests/data/cases.json (frozen from real torch by
// tests/data/fixtures_torch.py) replayed through borch-ts's torch.utils.data — sampler passes,
// random_split, DataLoader passes (global or own Generator, sampler=, batchSampler=, a
// JavaScript dataset with collateFn), iterable datasets written in JavaScript (an
// IterableDataset subclass, a plain object with a generator method) and ChainDataset,
// ConcatDataset lookups and torch's construction errors.
// Expected values are torch's only. Shared by tests/node/data_samplers.mjs (Node) and usable from
// a page; `torch` is the loaded package.

const ERROR_ALIASES = { AssertionError: 'ValueError' };

const errorOf = (e) => ({ error: [e.kind ?? e.name, String(e.message)] });

function sameError(got, want) {
  if (!got || !got.error) return false;
  const wantClass = ERROR_ALIASES[want.error[0]] ?? want.error[0];
  const gotClass = got.error[0] === 'RangeError' ? 'IndexError' : got.error[0];
  return gotClass === wantClass && (got.error[1].includes(want.error[1]) || want.error[1].includes(got.error[1]));
}

// torch's JSON (tuples, float64 from Python floats) as borch-ts gives it (arrays, float32).
function asBorch(v) {
  if (Array.isArray(v)) return v.map(asBorch);
  if (v && typeof v === 'object') {
    const out = {};
    for (const [k, x] of Object.entries(v)) {
      if (k === 'tuple') out.list = asBorch(x);
      else out[k] = k === 'dtype' && x === 'float64' ? 'float32' : asBorch(x);
    }
    return out;
  }
  return v;
}

async function encode(s, torch) {
  if (s instanceof torch.Tensor) {
    return { t: await s.reshape([-1]).toArray(), shape: [...s.shape], dtype: s.dtype };
  }
  if (Array.isArray(s)) return { list: await Promise.all(s.map((x) => encode(x, torch))) };
  if (typeof s === 'number') return Number.isInteger(s) ? { i: s } : { f: s };
  if (typeof s === 'boolean') return { b: s };
  if (typeof s === 'string') return { s };
  const out = [];
  for (const [k, x] of Object.entries(s)) out.push([k, await encode(x, torch)]);
  return { dict: out };
}

const num = (x) => (typeof x === 'string' ? Number(x.replace('inf', 'Infinity')) : x);

function generatorFor(torch, c) {
  if (c.gen === 'global') {
    torch.manualSeed(c.seed);
    return undefined;
  }
  return new torch.Generator().manualSeed(c.seed);
}

function pass(iterable) {
  try {
    return [...iterable];
  } catch (e) {
    return errorOf(e);
  }
}

const agree = (got, want) => (want && want.error ? sameError(got, want) : JSON.stringify(got) === JSON.stringify(want));

function samplerCase(torch, c) {
  const g = generatorFor(torch, c);
  const d = torch.data;
  const source = { length: c.n ?? 0, getItem: (i) => i };
  let s;
  try {
    if (c.kind === 'random_sampler') {
      s = new d.RandomSampler(source, { replacement: c.replacement, numSamples: c.num_samples, generator: g });
    } else if (c.kind === 'subset_random') {
      s = new d.SubsetRandomSampler(c.indices, { generator: g });
    } else if (c.kind === 'weighted') {
      s = new d.WeightedRandomSampler(c.weights.map(num), c.num_samples, { replacement: c.replacement, generator: g });
    } else if (c.kind === 'batch_sampler') {
      const inner = c.inner === 'sequential' ? new d.SequentialSampler(source) : new d.RandomSampler(source, { generator: g });
      s = new d.BatchSampler(inner, c.batch_size, c.drop_last);
    } else if (c.kind === 'random_split') {
      const got = (() => {
        try {
          return d.randomSplit(source, c.lengths, { generator: g }).map((p) => p.indices);
        } catch (e) {
          return errorOf(e);
        }
      })();
      return agree(got, c.splits) ? null : `borch ${JSON.stringify(got)}\n  torch ${JSON.stringify(c.splits)}`;
    }
  } catch (e) {
    return `construction failed: ${e.message}`;
  }
  if (s.length !== c.len) return `length ${s.length}, torch ${c.len}`;
  for (const [i, want] of c.passes.entries()) {
    const got = pass(s);
    if (!agree(got, want)) return `pass ${i}: borch ${JSON.stringify(got)}\n  torch ${JSON.stringify(want)}`;
  }
  return null;
}

function tensorDataset(torch, n) {
  const x = torch.arange(n * 3, { dtype: 'float32' }).reshape([n, 3]);
  const y = torch.arange(n).mul(10);
  return { x, y, ds: new torch.data.TensorDataset([x, y]) };
}

// `js`: the same dataset written in JavaScript (getItem/length) with a collateFn that stacks, so
// batches go sample by sample through the callbacks.
function loaderFor(torch, c, g, js) {
  const d = torch.data;
  const o = c.options;
  const { x, y, ds } = tensorDataset(torch, c.n);
  const dataset = js ? { length: c.n, getItem: (i) => [x.select(0, i), y.select(0, i)] } : ds;
  const options = { generator: g };
  if ('batch_size' in o) options.batchSize = o.batch_size;
  if ('shuffle' in o) options.shuffle = o.shuffle;
  if ('drop_last' in o) options.dropLast = o.drop_last;
  if (js && o.batch_size !== null) {
    options.collateFn = (samples) => [0, 1].map((k) => torch.stack(samples.map((s) => s[k])));
  }
  if (o.sampler) {
    options.generator = undefined;
    options.sampler = new d.SubsetRandomSampler(o.sampler.subset_random, { generator: g });
  }
  if (o.batch_sampler) {
    options.generator = undefined;
    const inner = new d.RandomSampler(ds, { generator: g });
    options.batchSampler = new d.BatchSampler(inner, o.batch_sampler.random, o.batch_sampler.drop_last);
  }
  return new d.DataLoader(dataset, options);
}

async function loaderPass(torch, loader) {
  const out = [];
  try {
    for await (const batch of loader) out.push(await encode(batch, torch));
  } catch (e) {
    return errorOf(e);
  }
  return out;
}

async function dataloaderCase(torch, c) {
  for (const js of [false, true]) {
    const g = generatorFor(torch, c);
    const loader = loaderFor(torch, c, g, js);
    if (loader.length !== c.len) return `length ${loader.length}, torch ${c.len}`;
    for (const [i, want] of c.passes.entries()) {
      const got = (await loaderPass(torch, loader)).map((b) => b.list ?? b);
      const w = asBorch(want).map((b) => b.list ?? b);
      if (!agree(got, w)) return `pass ${i} (js dataset ${js}): borch ${JSON.stringify(got)}\n  torch ${JSON.stringify(w)}`;
    }
  }
  return null;
}

async function composedCase(torch, c) {
  const g = generatorFor(torch, c);
  const { ds } = tensorDataset(torch, 10);
  const [train, test] = torch.data.randomSplit(ds, [0.7, 0.3], { generator: g });
  const splits = [train.indices, test.indices];
  if (JSON.stringify(splits) !== JSON.stringify(c.splits)) return `splits: borch ${JSON.stringify(splits)}, torch ${JSON.stringify(c.splits)}`;
  const loader = new torch.data.DataLoader(train, { batchSize: 3, shuffle: true, generator: g });
  for (const [i, want] of c.passes.entries()) {
    const got = await loaderPass(torch, loader);
    if (!agree(got, asBorch(want))) return `pass ${i}: borch ${JSON.stringify(got)}\n  torch ${JSON.stringify(want)}`;
  }
  const got = await loaderPass(torch, new torch.data.DataLoader(test, { batchSize: 2 }));
  return agree(got, asBorch(c.test)) ? null : `test part: borch ${JSON.stringify(got)}`;
}

async function concatCase(torch, c) {
  let start = 0;
  const parts = c.sizes.map((n) => {
    const part = new torch.data.TensorDataset([torch.arange(n).add(100 * start)]);
    start += 1;
    return part;
  });
  const cat = new torch.data.ConcatDataset(parts);
  if (JSON.stringify(cat.cumulativeSizes) !== JSON.stringify(c.cumulative_sizes)) return `cumulative sizes ${cat.cumulativeSizes}`;
  let got;
  try {
    got = await encode(cat.getItem(c.index), torch);
  } catch (e) {
    got = errorOf(e);
  }
  const want = asBorch(c.expected);
  return agree(got, want) ? null : `borch ${JSON.stringify(got)}, torch ${JSON.stringify(want)}`;
}

// A fixture's encoded sample as a JavaScript value (a Python float marked with asFloat).
function decode(torch, v) {
  if ('t' in v) return torch.tensor(v.t, { dtype: v.dtype }).reshape(v.shape);
  if ('i' in v) return v.i;
  if ('f' in v) return torch.asFloat(v.f);
  if ('b' in v) return v.b;
  if ('s' in v) return v.s;
  if ('tuple' in v || 'list' in v) return (v.tuple ?? v.list).map((x) => decode(torch, x));
  return Object.fromEntries(v.dict.map(([k, x]) => [k, decode(torch, x)]));
}

async function collateCase(torch, c) {
  let got;
  try {
    got = await encode(torch.data.defaultCollate(c.batch.map((s) => decode(torch, s))), torch);
  } catch (e) {
    got = errorOf(e);
  }
  const want = asBorch(c.expected);
  return agree(got, want) ? null : `borch ${JSON.stringify(got)}, torch ${JSON.stringify(want)}`;
}

// torch's `Numbers(data.IterableDataset)`: the ints 0..n (or float tensors [i]), a generator
// method as `__iter__`, `length` as `__len__` (none when `sized` is false).
const NUMBERS = new WeakMap();
function numbersClass(torch) {
  if (!NUMBERS.has(torch)) {
    class Numbers extends torch.data.IterableDataset {
      constructor(n, tensors = false) {
        super();
        this.n = n;
        this.tensors = tensors;
      }

      *[Symbol.iterator]() {
        for (let i = 0; i < this.n; i += 1) yield this.tensors ? torch.tensor([i], { dtype: 'float32' }) : i;
      }
    }
    class SizedNumbers extends Numbers {
      get length() {
        return this.n;
      }
    }
    NUMBERS.set(torch, { Numbers, SizedNumbers });
  }
  return NUMBERS.get(torch);
}

// `plain`: the same samples from a plain object (a generator method and a length), with
// defaultCollate as the collateFn when batching, so the callback path runs too.
async function iterableCase(torch, c) {
  const { SizedNumbers } = numbersClass(torch);
  const tensors = c.samples === 'tensor';
  for (const plain of [false, true]) {
    torch.manualSeed(c.seed);
    const dataset = plain
      ? { length: c.n, *[Symbol.iterator]() { for (let i = 0; i < c.n; i += 1) yield tensors ? torch.tensor([i], { dtype: 'float32' }) : i; } }
      : new SizedNumbers(c.n, tensors);
    const options = { batchSize: c.options.batch_size, dropLast: c.options.drop_last };
    if (plain && options.batchSize !== null) options.collateFn = (samples) => torch.data.defaultCollate(samples);
    const loader = new torch.data.DataLoader(dataset, options);
    if (loader.length !== c.len) return `length ${loader.length}, torch ${c.len} (plain ${plain})`;
    for (const [i, want] of c.passes.entries()) {
      const got = await loaderPass(torch, loader);
      if (!agree(got, asBorch(want))) return `pass ${i} (plain ${plain}): borch ${JSON.stringify(got)}\n  torch ${JSON.stringify(want)}`;
    }
  }
  return null;
}

// ChainDataset of Numbers (and a TensorDataset, which torch refuses when the pass reaches it);
// torch's `a + b` is the same chain of two.
async function chainCase(torch, c) {
  const { SizedNumbers } = numbersClass(torch);
  const parts = c.parts.map((p) => ('n' in p ? new SizedNumbers(p.n) : new torch.data.TensorDataset([torch.arange(p.map)])));
  const chain = new torch.data.ChainDataset(parts);
  const loader = new torch.data.DataLoader(chain, { batchSize: c.options.batch_size });
  let len;
  try {
    len = loader.length;
  } catch (e) {
    len = errorOf(e);
  }
  if (!agree(len, c.len)) return `length: borch ${JSON.stringify(len)}, torch ${JSON.stringify(c.len)}`;
  for (const [i, want] of c.passes.entries()) {
    const got = await loaderPass(torch, loader);
    if (!agree(got, asBorch(want))) return `pass ${i}: borch ${JSON.stringify(got)}\n  torch ${JSON.stringify(want)}`;
  }
  let samples = pass(chain);
  if (Array.isArray(samples)) samples = await Promise.all(samples.map((s) => encode(s, torch)));
  return agree(samples, asBorch(c.samples)) ? null : `samples: borch ${JSON.stringify(samples)}, torch ${JSON.stringify(c.samples)}`;
}

// torch's construction checks and lookups (torch's `sampler=[0, 1]` is a SequentialSampler here:
// borch-ts's sampler option takes its samplers only).
const CONSTRUCT = {
  dataloader_sampler_and_shuffle: (t, ds) => new t.data.DataLoader(ds, { sampler: new t.data.SequentialSampler(ds), shuffle: true }),
  dataloader_batch_sampler_and_batch_size: (t, ds) => new t.data.DataLoader(ds, { batchSampler: new t.data.BatchSampler(new t.data.SequentialSampler(ds), 2, false), batchSize: 2 }),
  dataloader_batch_sampler_and_drop_last: (t, ds) => new t.data.DataLoader(ds, { batchSampler: new t.data.BatchSampler(new t.data.SequentialSampler(ds), 2, false), dropLast: true }),
  dataloader_no_batch_and_drop_last: (t, ds) => new t.data.DataLoader(ds, { batchSize: null, dropLast: true }),
  dataloader_batch_size_0: (t, ds) => new t.data.DataLoader(ds, { batchSize: 0 }),
  iterable_shuffle: (t) => new t.data.DataLoader(new (numbersClass(t).Numbers)(3), { shuffle: true }),
  iterable_shuffle_false: (t) => new t.data.DataLoader(new (numbersClass(t).Numbers)(3), { shuffle: false }),
  iterable_sampler: (t, ds) => new t.data.DataLoader(new (numbersClass(t).Numbers)(3), { sampler: new t.data.SequentialSampler(ds) }),
  iterable_batch_sampler: (t, ds) => new t.data.DataLoader(new (numbersClass(t).Numbers)(3), { batchSampler: new t.data.BatchSampler(new t.data.SequentialSampler(ds), 2, false) }),
  iterable_len: (t) => new t.data.DataLoader(new (numbersClass(t).Numbers)(3)).length,
  batch_sampler_0: (t, ds) => new t.data.BatchSampler(new t.data.SequentialSampler(ds), 0, false),
  random_sampler_num_samples_0: (t, ds) => new t.data.RandomSampler(ds, { numSamples: 0 }),
  random_sampler_empty: (t) => new t.data.RandomSampler({ length: 0, getItem: () => 0 }),
  weighted_num_samples_0: (t) => new t.data.WeightedRandomSampler([1], 0),
  tensor_dataset_mismatch: (t) => new t.data.TensorDataset([t.zeros([2]), t.zeros([3])]),
  concat_empty: (t) => new t.data.ConcatDataset([]),
  subset_out_of_range: (t, ds) => new t.data.Subset(ds, [0, 1]).getItem(2),
  tensor_dataset_out_of_range: (t, ds) => ds.getItem(4),
  tensor_dataset_negative: (t, ds) => ds.getItem(-1),
};

async function constructCase(torch, c) {
  const ds = new torch.data.TensorDataset([torch.zeros([4, 2])]);
  let got;
  try {
    const r = CONSTRUCT[c.what](torch, ds);
    got = Array.isArray(r) || r instanceof torch.Tensor ? await encode(r, torch) : 'ok';
  } catch (e) {
    got = errorOf(e);
  }
  const want = asBorch(c.expected);
  return agree(got, want) ? null : `borch ${JSON.stringify(got)}, torch ${JSON.stringify(want)}`;
}

/** Runs every case borch-ts can replay; returns { agreeing, disagreeing, notImplemented, failures }. */
export async function runDataSuite(torch, cases, filter = '') {
  const handlers = {
    random_sampler: samplerCase,
    subset_random: samplerCase,
    weighted: samplerCase,
    batch_sampler: samplerCase,
    random_split: samplerCase,
    dataloader: dataloaderCase,
    composed: composedCase,
    iterable: iterableCase,
    chain: chainCase,
    concat: concatCase,
    collate: collateCase,
    construct: constructCase,
  };
  const result = { agreeing: 0, disagreeing: 0, notImplemented: 0, failures: [], missing: {} };
  for (const c of cases.filter((k) => k.name.includes(filter))) {
    const run = c.kind === 'construct' && !CONSTRUCT[c.what] ? undefined : handlers[c.kind];
    if (!run) {
      result.notImplemented += 1;
      result.missing[c.kind] = (result.missing[c.kind] ?? 0) + 1;
      continue;
    }
    let failure;
    try {
      failure = await run(torch, c);
    } catch (e) {
      failure = `threw ${e.stack ?? e}`;
    }
    if (failure) {
      result.disagreeing += 1;
      result.failures.push(`${c.name}: ${failure}`);
    } else {
      result.agreeing += 1;
    }
  }
  return result;
}
