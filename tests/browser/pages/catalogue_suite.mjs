// The model catalogue through borch-ts (docs/vision.md, "Model catalogue"), DOM-free so that the
// catalogue page (Chromium, Cache API) and tests/node/catalogue.mjs (Node: no Cache API) run the
// same checks: both shipped entries load and verify, the model returned gives the sample's
// classes, a second load comes from the Cache API where there is one, tampered copies are
// refused naming their step (a flipped weights byte, one byte more, a changed expected output,
// a tampered cache entry, which is evicted), and wrong arguments are TypeErrors.
//
// `base`: the URL of the catalogue/ folder; `read(url)`: its files' bytes (fetch, or the file
// system under Node); `log(line)`; `adapter`: the adapter line's text.

import { check, thrown } from './checks.mjs';

export const ENTRIES = ['digits_mlp', 'digits_cnn'];
const CACHE = 'borch-catalogue-v1';

function refusedWith(what, e, step) {
  check(`${what}: refused`, e !== null, 'it loaded');
  check(`${what}: a BorchError`, e?.name === 'BorchError' && e?.kind === 'RuntimeError', `${e?.name} ${e?.kind}: ${e?.message}`);
  check(`${what}: names the step '${step}'`, e.message.includes(`: ${step}: `), e.message);
  return e.message;
}

const argmaxRows = (values, cols) => {
  const out = [];
  for (let r = 0; r < values.length / cols; r++) {
    const row = values.slice(r * cols, (r + 1) * cols);
    out.push(row.indexOf(Math.max(...row)));
  }
  return out;
};

// The returned model is the verified one: its output for the sample input gives the expected
// classes (and values within the tolerance), computed here through the ordinary API.
async function modelAgrees(torch, entry) {
  const s = entry.manifest.sample;
  const y = await torch.noGrad(() => entry.model.forward(torch.tensor(s.input).reshape(s.input_shape))).toArray();
  const got = y.flat();
  const cols = s.output_shape[1];
  const worst = Math.max(...got.map((v, i) => Math.abs(v - s.expected_output[i])));
  check(`${entry.manifest.name}: the model gives the sample's classes`,
    JSON.stringify(argmaxRows(got, cols)) === JSON.stringify(argmaxRows(s.expected_output, cols)));
  check(`${entry.manifest.name}: the model's output within the tolerance`, worst <= s.tolerance, String(worst));
}

export async function catalogueSuite(torch, { base, read, log, adapter, cacheApi }) {
  const { catalogue } = torch.vision;
  const surface = cacheApi ? 'js' : 'node';
  check('cacheName', catalogue.cacheName === CACHE, catalogue.cacheName);
  if (cacheApi) await caches.delete(CACHE);
  const lines = [];
  for (const name of ENTRIES) {
    const url = new URL(`${name}.json`, base);
    const t0 = performance.now();
    const first = await catalogue.load(url);
    const ms = performance.now() - t0;
    const m = first.manifest;
    check(`${name}: manifest`, m.name === name && m.weights.file === `${name}.safetensors`, JSON.stringify(m.weights));
    check(`${name}: from the network`, first.source === 'network', first.source);
    check(`${name}: cached only where there is a Cache API`, first.cached === cacheApi, String(first.cached));
    check(`${name}: no refused cache`, first.refusedCache === null, String(first.refusedCache));
    check(`${name}: max sample diff within the tolerance`, first.maxSampleDiff >= 0 && first.maxSampleDiff <= m.sample.tolerance, String(first.maxSampleDiff));
    check(`${name}: in eval mode`, first.model.training === false, String(first.model.training));
    await modelAgrees(torch, first);
    lines.push(`catalogue[${surface}] ${name}: loaded and verified (${first.source}, ${ms.toFixed(0)} ms), ${m.weights.bytes} bytes of weights, sample [${m.sample.input_shape}] -> [${m.sample.output_shape}], max sample diff ${first.maxSampleDiff.toExponential(2)} (tolerance ${m.sample.tolerance}) [${adapter}]`);
    log(lines.at(-1));

    const t1 = performance.now();
    const second = await catalogue.load(url);
    const expected = cacheApi ? 'cache' : 'network';
    check(`${name}: second load from the ${expected}`, second.source === expected, second.source);
    check(`${name}: second load verified`, second.maxSampleDiff <= m.sample.tolerance, String(second.maxSampleDiff));
    log(`catalogue[${surface}] ${name}: second load from the ${second.source} (${(performance.now() - t1).toFixed(0)} ms), verified again, max sample diff ${second.maxSampleDiff.toExponential(2)}`);

    // Tampered copies in memory: loadFrom refuses each at its step.
    const text = new TextDecoder().decode(await read(url));
    const weights = await read(new URL(m.weights.file, base));
    const flipped = weights.slice();
    flipped[flipped.length >> 1] ^= 1;
    log(`  flipped byte: ${refusedWith(`${name} flipped byte`, await thrown(() => catalogue.loadFrom(text, flipped)), 'weights sha256')}`);
    const longer = new Uint8Array(weights.length + 1);
    longer.set(weights);
    refusedWith(`${name} one byte more`, await thrown(() => catalogue.loadFrom(text, longer)), 'weights size');
    const changed = JSON.parse(text);
    changed.sample.expected_output[3] += 0.01;
    log(`  changed expected output: ${refusedWith(`${name} changed expected output`, await thrown(() => catalogue.loadFrom(JSON.stringify(changed), weights)), 'sample')}`);
    const good = await catalogue.loadFrom(text, weights);
    check(`${name}: loadFrom of the good copy`, good.source === 'bytes' && good.cached === false && good.maxSampleDiff <= m.sample.tolerance, `${good.source} ${good.maxSampleDiff}`);

    if (cacheApi) {
      // A tampered cache entry is refused (verified again on use), evicted, and the files are
      // fetched again; the re-stored copy is the good one.
      const cache = await caches.open(CACHE);
      const weightsUrl = new URL(m.weights.file, url);
      check(`${name}: both files in the Cache API`, (await cache.match(url)) !== undefined && (await cache.match(weightsUrl)) !== undefined);
      await cache.put(weightsUrl, new Response(flipped));
      const afterFlip = await catalogue.load(url);
      check(`${name}: tampered cached weights refused`, afterFlip.source === 'network' && afterFlip.refusedCache?.includes(`catalogue '${name}': weights sha256: mismatch`), `${afterFlip.source} ${afterFlip.refusedCache}`);
      log(`  tampered cache entry (weights): refused, evicted, fetched again: ${afterFlip.refusedCache}`);
      const restored = new Uint8Array(await (await cache.match(weightsUrl)).arrayBuffer());
      check(`${name}: the good weights are cached again`, restored.length === weights.length && restored.every((b, i) => b === weights[i]));
      await cache.put(url, new Response(JSON.stringify(changed)));
      const afterSample = await catalogue.load(url);
      check(`${name}: tampered cached manifest refused at the sample`, afterSample.source === 'network' && afterSample.refusedCache?.includes(`catalogue '${name}': sample: output differs`), `${afterSample.source} ${afterSample.refusedCache}`);
      check(`${name}: third load from the cache again`, (await catalogue.load(url)).source === 'cache');
    }
  }

  if (cacheApi) {
    // Eviction seen on its own: a tampered pair cached under a URL the server does not have is
    // refused, evicted, and the load then fails at the network (nothing left in the cache).
    const cache = await caches.open(CACHE);
    const gone = new URL('missing_entry.json', base);
    const text = new TextDecoder().decode(await read(new URL('digits_mlp.json', base)));
    const weights = await read(new URL('digits_mlp.safetensors', base));
    const flipped = weights.slice();
    flipped[7] ^= 0x80;
    await cache.put(gone, new Response(text));
    await cache.put(new URL('digits_mlp.safetensors', gone), new Response(flipped));
    const e = await thrown(() => catalogue.load(gone));
    refusedWith('a tampered entry with no network copy', e, 'manifest');
    check('its load fails at the network, naming the refused copy', e.message.startsWith('catalogue: manifest: could not read') && e.message.includes('HTTP 404') && e.message.includes("a cached copy was refused and evicted first: catalogue 'digits_mlp': weights sha256"), e.message);
    check('the tampered entry was evicted', (await cache.match(gone)) === undefined);
    log(`tampered cache entry with no network copy: refused and evicted, then ${e.message}`);
    const uncached = await catalogue.load(new URL('digits_mlp.json', base), { cache: false });
    check('{ cache: false }: from the network, not cached', uncached.source === 'network' && uncached.cached === false);
  }

  const missing = await thrown(() => catalogue.load(new URL('no_such_entry.json', base)));
  refusedWith('a missing manifest', missing, 'manifest');
  check('a missing manifest: could not read', missing.message.startsWith('catalogue: manifest: could not read'), missing.message);
  const typeError = async (what, fn) => {
    const err = await thrown(fn);
    check(`${what}: TypeError`, err instanceof TypeError && err.kind === 'TypeError', `${err?.name}: ${err?.message}`);
    return err.message;
  };
  log(`wrong arguments: ${await typeError('load(42)', () => catalogue.load(42))}; ${await typeError('loadFrom(text, [1, 2])', () => catalogue.loadFrom('{}', [1, 2]))}`);
  const notJson = await thrown(() => catalogue.loadFrom('{"name": "x"', new Uint8Array(0)));
  check('truncated manifest: refused at the manifest', notJson?.kind === 'RuntimeError' && notJson.message.startsWith('catalogue: manifest is not valid: EOF'), String(notJson?.message));
  return lines;
}
