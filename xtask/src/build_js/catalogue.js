
// vision.catalogue (docs/vision.md, "Model catalogue"). Every check is borch-vision's, in the
// core (catalogueManifest, catalogueLoadFrom: manifest, weights size, weights sha256, build,
// weights, sample); what is here is the browser's part: fetching the manifest and the weights
// file next to it, and keeping the verified pair in the Cache API, where a cached copy is
// verified again (every step) before it is used, and evicted when it fails.
const CATALOGUE_CACHE = 'borch-catalogue-v1';

/** A catalogue entry that passed every check. */
class CatalogueEntry {
  constructor(manifest, model, maxSampleDiff, source, cached, refusedCache) {
    this.manifest = manifest;
    this.model = model;
    this.maxSampleDiff = maxSampleDiff;
    this.source = source;
    this.cached = cached;
    this.refusedCache = refusedCache;
    Object.freeze(this);
  }
}

async function verifiedEntry(manifestText, weights, source) {
  const [manifest, model, maxSampleDiff] = await wasm.catalogueLoadFrom(manifestText, weights);
  return [JSON.parse(manifest), model, maxSampleDiff, source];
}

/** The manifest checked by the core (step `manifest`), parsed. */
function checkedManifest(text) {
  return JSON.parse(wasm.catalogueManifest(text));
}

// The bytes at `url`: fetch(), or the file system for a file: URL under Node (whose fetch has
// no file: URLs). A failure is the loader's error for `step` (its `catalogue …: <step>` prefix).
async function readCatalogueFile(url, prefix) {
  try {
    if (url.protocol === 'file:') {
      const { readFile } = await import(/* @vite-ignore */ 'node:fs/promises');
      return new Uint8Array(await readFile(url));
    }
    const response = await fetch(url);
    if (!response.ok) throw new Error(`HTTP ${response.status} ${response.statusText}`.trim());
    return new Uint8Array(await response.arrayBuffer());
  } catch (e) {
    throw new BorchError('RuntimeError', `${prefix}: could not read ${url.href}: ${e.message ?? e}`);
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function manifestTextOf(bytes, url) {
  try {
    return utf8.decode(bytes);
  } catch (e) {
    throw new BorchError('RuntimeError', `catalogue: manifest: could not read ${url.href}: ${e.message}`);
  }
}

// The Cache API's cache of verified entries, or null: no Cache API here (Node; a page that is not
// a secure context), or `{ cache: false }`, or the browser refusing storage to this page.
async function catalogueCache(options) {
  if (options?.cache === false || typeof caches === 'undefined') return null;
  try {
    return await caches.open(CATALOGUE_CACHE);
  } catch {
    return null;
  }
}

// The cached copy of the entry at `manifestUrl`, verified again: [entry fields] or null when it is
// not cached. A copy that fails a check is evicted (both files) and its error returned instead.
async function cachedEntry(cache, manifestUrl) {
  const hit = await cache.match(manifestUrl);
  if (hit === undefined) return null;
  let weightsUrl = null;
  try {
    const text = await hit.text();
    const m = checkedManifest(text);
    weightsUrl = new URL(m.weights.file, manifestUrl);
    const weights = await cache.match(weightsUrl);
    if (weights === undefined) {
      throw new BorchError('RuntimeError', `catalogue '${m.name}': weights: ${weightsUrl.href} is not in the cache`);
    }
    return await verifiedEntry(text, new Uint8Array(await weights.arrayBuffer()), 'cache');
  } catch (e) {
    await cache.delete(manifestUrl);
    if (weightsUrl !== null) await cache.delete(weightsUrl);
    return e;
  }
}

// Stores a verified pair, the weights first: a cached manifest means its weights were written.
// Whether it was stored is the entry's `cached` (a full quota fails the write, not the load).
async function storeEntry(cache, manifestUrl, manifestText, weightsUrl, weights) {
  try {
    await cache.put(weightsUrl, new Response(weights));
    await cache.put(manifestUrl, new Response(manifestText, { headers: { 'content-type': 'application/json' } }));
    return true;
  } catch {
    return false;
  }
}

/** `vision.catalogue.load(url, { cache })`: the manifest at `url` and the weights file next to it
 * (from the Cache API when a verified copy is there), checked and loaded by the core. */
async function catalogueLoad(url, options = {}) {
  ready('catalogue.load');
  if (typeof url !== 'string' && !(url instanceof URL)) {
    throw Object.assign(new TypeError(`catalogue.load(): argument 1 must be a string or a URL, not ${url === null ? 'null' : typeof url}`), { kind: 'TypeError' });
  }
  const manifestUrl = new URL(url, globalThis.document?.baseURI ?? globalThis.location?.href);
  const cache = await catalogueCache(options);
  let refused = null;
  if (cache !== null) {
    const hit = await cachedEntry(cache, manifestUrl);
    if (Array.isArray(hit)) return new CatalogueEntry(...hit, true, null);
    if (hit !== null) refused = String(hit.message ?? hit);
  }
  try {
    const manifestText = manifestTextOf(await readCatalogueFile(manifestUrl, 'catalogue: manifest'), manifestUrl);
    const m = checkedManifest(manifestText);
    const weightsUrl = new URL(m.weights.file, manifestUrl);
    const weights = await readCatalogueFile(weightsUrl, `catalogue '${m.name}': weights`);
    const fields = await verifiedEntry(manifestText, weights, 'network');
    const cached = cache !== null && (await storeEntry(cache, manifestUrl, manifestText, weightsUrl, weights));
    return new CatalogueEntry(...fields, cached, refused);
  } catch (e) {
    // The refused cached copy is part of the story of a load that then failed.
    if (refused !== null && e instanceof Error) e.message += ` (a cached copy was refused and evicted first: ${refused})`;
    throw e;
  }
}

/** `vision.catalogue.loadFrom(manifestJson, weights)`: an entry already in memory, checked and
 * loaded by the core (nothing fetched, nothing cached). */
async function catalogueLoadFrom(manifestJson, weights) {
  ready('catalogue.loadFrom');
  return new CatalogueEntry(...(await verifiedEntry(manifestJson, weights, 'bytes')), false, null);
}

const catalogue = Object.freeze({
  load: catalogueLoad,
  loadFrom: catalogueLoadFrom,
  cacheName: CATALOGUE_CACHE,
});
