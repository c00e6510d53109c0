// The model catalogue through borch_webgpu in Pyodide in Chromium: catalogue.py (Python, the
// same checks as catalogue_suite.mjs) on the shipped entries of /catalogue/. Run by run.mjs.

import { log, run, start } from './common.mjs';
import { loadBorchPython } from './pyodide_borch.mjs';

run(async () => {
  const adapter = (await start()).replace(/^adapter: /, '');
  const t0 = performance.now();
  const { pyodide } = await loadBorchPython();
  log(`pyodide ${pyodide.version} and borch_webgpu loaded in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const lines = [];
  pyodide.setStdout({ batched: (line) => { lines.push(line); log(line); } });
  pyodide.globals.set('ADAPTER', adapter);
  await pyodide.runPythonAsync(await (await fetch('./catalogue.py')).text());
  const summary = lines.findLast((l) => l.startsWith('catalogue[py]: '));
  if (summary === undefined) throw new Error('catalogue.py printed no summary');
  return summary;
});
