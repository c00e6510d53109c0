// The recurrent, attention and transformer modules through borch_webgpu in Pyodide against torch:
// tests/nn/module_cases_runner.py (the rules of module_cases.mjs, the JavaScript runner) on the
// forward cases of tests/nn/cases.json with a tuple output or forward keywords and on every case of
// tests/nn/sequence_sweep.json, entered with runPythonAsync (reads use run_sync). Prints
//   sequence[py] <file>: N agreeing / M cases, D disagreeing [adapter]
// and passes only with none disagreeing. `?filter=<substring>` runs a subset.

import { log, start, text } from './common.mjs';
import { loadBorchPython } from './pyodide_borch.mjs';

async function main() {
  const adapter = (await start()).replace(/^adapter: /, '');
  const { pyodide, wheelName, sitePackages } = await loadBorchPython();
  pyodide.FS.writeFile(`${sitePackages}/module_cases_runner.py`, await text('/tests/nn/module_cases_runner.py'));
  log(`pyodide ${pyodide.version}, borch_webgpu from ${wheelName}`);
  const filter = new URLSearchParams(location.search).get('filter') ?? '';
  let count = 0;
  let bad = 0;
  for (const [file, what] of [['cases.json', 'cases.json (tuple outputs, forward keywords)'], ['sequence_sweep.json', 'sequence_sweep.json']]) {
    pyodide.globals.set('_seq_cases', await text(`/tests/nn/${file}`));
    pyodide.globals.set('_seq_tree', file === 'cases.json');
    pyodide.globals.set('_seq_filter', filter);
    const result = await pyodide.runPythonAsync(`
import json
import borch_webgpu as torch
import module_cases_runner as r
_c = json.loads(_seq_cases)
_c = r.tree_cases(_c) if _seq_tree else _c["forward"]
r.run(torch, [c for c in _c if _seq_filter in c["name"]])
`);
    const r = result.toJs({ dict_converter: Object.fromEntries });
    result.destroy();
    log(`sequence[py] ${what}: ${r.agreeing} agreeing / ${r.count} cases, ${r.count - r.agreeing} disagreeing [${adapter}]`);
    for (const f of r.failures.slice(0, 40)) log(`  ${f}`);
    count += r.count;
    bad += r.count - r.agreeing;
  }
  const summary = `sequence[py]: ${count - bad} agreeing / ${count} cases, ${bad} disagreeing [${adapter}]`;
  return { ok: count > 0 && bad === 0, summary };
}

window.__borchDone = main().catch((e) => {
  log(`sequence[py] failed to run: ${e.stack ?? e}`);
  return { ok: false, summary: `failed to run: ${e.message ?? e}` };
});
