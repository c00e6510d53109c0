// The golden page: fetches tests/golden/golden.json and bindings.json from the test server and
// runs the suite of golden_suite.mjs through borch-ts in this browser, printing
//   golden[js]: N agreeing / M cases, K not implemented, D disagreeing (…) [adapter]
// `?filter=sum` runs the cases whose name contains "sum"; `?verbose=1` lists every case with its
// outcome. Run by tests/browser/run.mjs.

import { borch, log, text } from './common.mjs';
import { runGoldenSuite } from './golden_suite.mjs';
import { runDataSuite } from '/tests/node/data_suite.mjs';
import { runVisionDatasets, runVisionSuite, visionCases } from '/tests/node/vision_suite.mjs';

// The "data" family: tests/data/cases.json (torch.utils.data, frozen from torch) through borch-ts's
// data namespace (tests/node/data_suite.mjs, shared with Node).
async function dataFamily(adapter) {
  const t0 = performance.now();
  const { cases } = JSON.parse(await text('/tests/data/cases.json'));
  const r = await runDataSuite(borch, cases);
  const missing = Object.entries(r.missing).map(([k, n]) => `${k} ${n}`).join(', ');
  const summary = `golden[js] data: ${r.agreeing} agreeing / ${r.disagreeing} disagreeing / ${r.notImplemented} not implemented (${missing}) [${adapter}] in ${((performance.now() - t0) / 1000).toFixed(1)} s`;
  log(summary);
  for (const f of r.failures.slice(0, 20)) log(f);
  const t1 = performance.now();
  const v = await runVisionSuite(borch, visionCases(await text('/tests/vision/cases.json')));
  const vm = Object.entries(v.missing).map(([k, n]) => `${k} ${n}`).join(', ');
  const vision = `golden[js] data (vision transforms): ${v.agreeing} agreeing / ${v.disagreeing} disagreeing / ${v.notImplemented} not implemented (${vm}), max |diff| ${v.worst.toExponential(2)} [${adapter}] in ${((performance.now() - t1) / 1000).toFixed(1)} s`;
  log(vision);
  for (const f of v.failures.slice(0, 20)) log(f);
  const read = async (f) => {
    const res = await fetch(`/tests/vision/files/${f}`);
    if (!res.ok) throw new Error(`${f}: HTTP ${res.status}`);
    return new Uint8Array(await res.arrayBuffer());
  };
  const d = await runVisionDatasets(borch, visionCases(await text('/tests/vision/cases.json')), read);
  const datasets = `golden[js] data (vision datasets): ${d.agreeing} splits agreeing / ${d.disagreeing} disagreeing, ${d.samples} samples (CIFAR-10, CIFAR-100, MNIST from bytes)`;
  log(datasets);
  for (const f of d.failures) log(f);
  const ok = r.disagreeing === 0 && r.agreeing > 0 && v.disagreeing === 0 && v.agreeing > 0 && d.disagreeing === 0 && d.agreeing > 0;
  return { ok, summary: `${summary}; ${vision}; ${datasets}` };
}

async function main() {
  const query = new URLSearchParams(location.search);
  const { adapter, software } = await borch.init();
  const adapterLine = `${adapter.vendor} / ${adapter.architecture} (WebGPU${software ? ', software' : ''})`;
  if (query.get('family') === 'data') return dataFamily(adapterLine);
  const [goldenText, bindingsText] = await Promise.all([text('/tests/golden/golden.json'), text('/tests/golden/bindings.json')]);
  const ops = await runGoldenSuite({
    torch: borch,
    log,
    goldenText,
    bindingsText,
    filter: query.get('filter') ?? '',
    verbose: query.get('verbose') === '1',
    label: 'js',
    via: 'WebGPU',
  });
  const data = await dataFamily(adapterLine);
  return { ok: ops.ok && data.ok, summary: `${ops.summary}; ${data.summary}` };
}

window.__borchDone = main().catch((e) => {
  log(`golden[js] failed to run: ${e.stack ?? e}`);
  return { ok: false, summary: `failed to run: ${e.message ?? e}` };
});
