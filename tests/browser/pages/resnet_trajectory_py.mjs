// The ResNet trajectory through borch_webgpu in Pyodide: resnet_trajectory.py (torch code) against
// tests/trajectories/cifar_resnet18_w8.json. Loading as golden_py.mjs (pyodide_borch.mjs).

import { log, start, text } from './common.mjs';
import { loadBorchPython } from './pyodide_borch.mjs';

async function main() {
  const adapter = (await start()).replace(/^adapter: /, '');
  const { pyodide, sitePackages } = await loadBorchPython();
  const [script, recipe] = await Promise.all(
    ['/tests/browser/pages/resnet_trajectory.py', '/tests/trajectories/cifar_resnet18_w8.json'].map(text),
  );
  pyodide.FS.writeFile(`${sitePackages}/resnet_trajectory.py`, script);
  for (const [k, v] of Object.entries({ recipe, adapter, log })) pyodide.globals.set(`_rt_${k}`, v);
  const result = await pyodide.runPythonAsync(`
import resnet_trajectory
resnet_trajectory.run(_rt_recipe, _rt_adapter, _rt_log)
`);
  const r = result.toJs({ dict_converter: Object.fromEntries });
  result.destroy();
  return { ok: r.ok, summary: r.summary };
}

window.__borchDone = main().catch((e) => {
  log(`trajectory[py] failed to run: ${e.stack ?? e}`);
  return { ok: false, summary: `failed to run: ${e.message ?? e}` };
});
