//! torch.utils.data in the package's `index.js` and `index.d.ts`: the `data` namespace over
//! borch-js's classes (borch-js/src/data.rs, samplers.rs), the `IterableDataset` base class a
//! JavaScript iterable dataset may extend, and the iterator protocols the classes get here
//! (a DataLoader async-iterable, samplers and a ChainDataset iterable), each step one core `next`.

/// The JavaScript, after `index.js`'s head (it uses `classes`, `wasm` and `BorchError`).
pub const DATA_JS: &str = r#"
// torch's IterableDataset to subclass: `[Symbol.iterator]()` is `__iter__` (an optional `length`
// is `__len__`); any JavaScript iterable is an iterable dataset to DataLoader and ChainDataset.
class IterableDataset {
  [Symbol.iterator]() {
    throw new BorchError('NotImplementedError', `Subclasses of IterableDataset should implement [Symbol.iterator]() (torch's __iter__); ${this.constructor.name} does not`);
  }
}

// torch.utils.data (borch-js/src/data.rs); `for await (const batch of loader)` forwards to iter().
export const data = Object.freeze({
  TensorDataset: classes.TensorDataset,
  Subset: classes.Subset,
  ConcatDataset: classes.ConcatDataset,
  IterableDataset,
  ChainDataset: classes.ChainDataset,
  randomSplit: wasm.randomSplit,
  defaultCollate: wasm.defaultCollate,
  SequentialSampler: classes.SequentialSampler,
  RandomSampler: classes.RandomSampler,
  SubsetRandomSampler: classes.SubsetRandomSampler,
  WeightedRandomSampler: classes.WeightedRandomSampler,
  BatchSampler: classes.BatchSampler,
  DataLoader: classes.DataLoader,
});
export const Generator = classes.Generator;
// Leaving the loop early (break, a throw) frees the pass at once: an iterable dataset's
// iterator is ended (its return(), a generator's finally), as for ... of ends it.
classes.DataLoader.prototype[Symbol.asyncIterator] = function () {
  const pass = this.iter();
  return {
    next: async () => pass.next(),
    return: async () => {
      pass.free();
      return { value: undefined, done: true };
    },
  };
};
// A sampler is iterable (`[...sampler]`, `for (const i of sampler)`): each step one core `next`.
// So is a ChainDataset (`[...chain]`: its samples, dataset after dataset).
for (const name of ['SequentialSampler', 'RandomSampler', 'SubsetRandomSampler', 'WeightedRandomSampler', 'BatchSampler', 'ChainDataset']) {
  classes[name].prototype[Symbol.iterator] = function () {
    const pass = this.iter();
    return { next: () => pass.next() };
  };
}

"#;

/// The declarations, after `index.d.ts`'s head.
pub const DATA_D_TS: &str = r#"
/**
 * torch's `IterableDataset`: subclass it with `*[Symbol.iterator]()` (torch's `__iter__`) and,
 * if it has one, a `length` (`__len__`); `new data.DataLoader(new Numbers(10), { batchSize: 4 })`.
 */
export declare abstract class IterableDataset implements Iterable<import('./borch_js.js').Batch> {
  abstract [Symbol.iterator](): Iterator<import('./borch_js.js').Batch>;
}
declare module './borch_js.js' {
  interface ChainDataset {
    /** `[...chain]`: each dataset's samples in turn. */
    [Symbol.iterator](): Iterator<Batch>;
  }
}
/** torch.utils.data: datasets, `randomSplit`, samplers, `new data.DataLoader(ds, { batchSize, shuffle, sampler, batchSampler, collateFn, dropLast, generator })`. */
export declare const data: {
  readonly TensorDataset: typeof import('./borch_js.js').TensorDataset;
  readonly Subset: typeof import('./borch_js.js').Subset;
  readonly ConcatDataset: typeof import('./borch_js.js').ConcatDataset;
  readonly IterableDataset: typeof IterableDataset;
  readonly ChainDataset: typeof import('./borch_js.js').ChainDataset;
  readonly randomSplit: typeof import('./borch_js.js').randomSplit;
  readonly defaultCollate: typeof import('./borch_js.js').defaultCollate;
  readonly SequentialSampler: typeof import('./borch_js.js').SequentialSampler;
  readonly RandomSampler: typeof import('./borch_js.js').RandomSampler;
  readonly SubsetRandomSampler: typeof import('./borch_js.js').SubsetRandomSampler;
  readonly WeightedRandomSampler: typeof import('./borch_js.js').WeightedRandomSampler;
  readonly BatchSampler: typeof import('./borch_js.js').BatchSampler;
  readonly DataLoader: typeof import('./borch_js.js').DataLoader;
};
/** `torch.Generator()`: `new Generator().manualSeed(0)`, for `generator:` options. */
export declare const Generator: typeof import('./borch_js.js').Generator;
"#;
