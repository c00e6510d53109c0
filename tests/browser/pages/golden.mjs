// The golden page: fetches tests/golden/golden.json and bindings.json from the test server and
// runs the suite of golden_suite.mjs through borch-ts in this browser, printing
//   golden[js]: N agreeing / M cases, K not implemented, D disagreeing (…) [adapter]
// `?filter=sum` runs the cases whose name contains "sum"; `?verbose=1` lists every case with its
// outcome. Run by tests/browser/run.mjs.

import { borch, log } from './common.mjs';
import { runGoldenSuite } from './golden_suite.mjs';

async function text(path) {
  const res = await fetch(path);
  if (!res.ok) throw new Error(`${path}: HTTP ${res.status}`);
  return res.text();
}

async function main() {
  const query = new URLSearchParams(location.search);
  const [goldenText, bindingsText] = await Promise.all([text('/tests/golden/golden.json'), text('/tests/golden/bindings.json')]);
  return runGoldenSuite({
    torch: borch,
    log,
    goldenText,
    bindingsText,
    filter: query.get('filter') ?? '',
    verbose: query.get('verbose') === '1',
    label: 'js',
    via: 'WebGPU',
  });
}

window.__borchDone = main().catch((e) => {
  log(`golden[js] failed to run: ${e.stack ?? e}`);
  return { ok: false, summary: `failed to run: ${e.message ?? e}` };
});
