// The GPT trajectory through borch_webgpu in Pyodide: gpt_trajectory.py (torch code) against
// tests/trajectories/char_gpt.json and data/sonnets/sonnets.txt. Loading as golden_py.mjs
// (pyodide_borch.mjs).

import { log, start, text } from './common.mjs';
import { loadBorchPython } from './pyodide_borch.mjs';

async function main() {
  const adapter = (await start()).replace(/^adapter: /, '');
  const { pyodide, sitePackages } = await loadBorchPython();
  const [script, recipe, corpus] = await Promise.all(
    ['/tests/browser/pages/gpt_trajectory.py', '/tests/trajectories/char_gpt.json', '/data/sonnets/sonnets.txt'].map(text),
  );
  pyodide.FS.writeFile(`${sitePackages}/gpt_trajectory.py`, script);
  for (const [k, v] of Object.entries({ recipe, corpus, adapter, log })) pyodide.globals.set(`_gt_${k}`, v);
  const result = await pyodide.runPythonAsync(`
import gpt_trajectory
gpt_trajectory.run(_gt_recipe, _gt_corpus, _gt_adapter, _gt_log)
`);
  const r = result.toJs({ dict_converter: Object.fromEntries });
  result.destroy();
  return { ok: r.ok, summary: r.summary };
}

window.__borchDone = main().catch((e) => {
  log(`trajectory[py] failed to run: ${e.stack ?? e}`);
  return { ok: false, summary: `failed to run: ${e.message ?? e}` };
});
