
/** A catalogue manifest (docs/vision.md, "Model catalogue"): `catalogue/<name>.json`, its keys as
 * in the file (borch_vision::catalogue::Manifest). */
export interface CatalogueManifest {
  format: number;
  name: string;
  architecture: { name: string; kwargs: Record<string, unknown> };
  weights: { file: string; sha256: string; bytes: number };
  sample: {
    input_shape: number[];
    input: number[];
    output_shape: number[];
    expected_output: number[];
    tolerance: number;
  };
  licence: string;
  provenance: { command: string; data: string; notes: string };
}

/** A catalogue entry that passed every check (manifest, weights size, weights sha256, build,
 * weights, sample). */
export interface CatalogueEntry {
  readonly manifest: CatalogueManifest;
  /** The model, in eval mode, with the verified weights loaded. */
  readonly model: import('./borch_js.js').Module;
  /** The largest absolute difference between the sample's output and the expected one. */
  readonly maxSampleDiff: number;
  /** Where the files came from: the Cache API, the network (or a file: URL under Node), or
   * `loadFrom`'s bytes. */
  readonly source: 'cache' | 'network' | 'bytes';
  /** Whether the verified files are (now) in the Cache API. */
  readonly cached: boolean;
  /** The error of a cached copy that failed its checks (and was evicted) before this load
   * fetched the files again; null when there was none. */
  readonly refusedCache: string | null;
}

export interface CatalogueLoadOptions {
  /** Read and keep the verified files in the Cache API (default true; where there is no Cache
   * API, as under Node, nothing is cached). */
  cache?: boolean;
}

/** borch's model catalogue: a model arrives with the sample it must reproduce and is returned
 * only after every check passed; a failure rejects with a BorchError
 * `catalogue '<name>': <step>: <detail>`. */
export interface Catalogue {
  /** The manifest at `url` (resolved against the page) and the weights file next to it. */
  load(url: string | URL, options?: CatalogueLoadOptions): Promise<CatalogueEntry>;
  /** An entry already in memory: the manifest's JSON text and the weights' bytes. */
  loadFrom(manifestJson: string, weights: Uint8Array): Promise<CatalogueEntry>;
  /** The Cache API cache the verified files are kept in. */
  readonly cacheName: 'borch-catalogue-v1';
}
