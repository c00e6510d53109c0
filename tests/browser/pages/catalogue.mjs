// The model catalogue through borch-ts in Chromium (catalogue_suite.mjs): the shipped entries of
// /catalogue/ (served by run.mjs from the repository), the Cache API, tampered copies. Run by
// run.mjs.

import { borch, checks, log, run, start } from './common.mjs';
import { catalogueSuite } from './catalogue_suite.mjs';

const read = async (url) => new Uint8Array(await (await fetch(url)).arrayBuffer());

run(async () => {
  const adapter = (await start()).replace(/^adapter: /, '');
  const base = new URL('/catalogue/', location.href);
  const lines = await catalogueSuite(borch, { base, read, log, adapter, cacheApi: typeof caches !== 'undefined' });
  return `catalogue[js]: ${lines.length} entries loaded and verified, ${checks()} checks passed`;
});
