// Python in the page, shared by the python and golden_py pages: Pyodide from the npm package
// (served from this origin), borch-ts registered as the JS module `borch_ts`, and the wheel from
// `cargo xtask build-py` unpacked into site-packages.

import { loadPyodide } from '/tests/browser/node_modules/pyodide/pyodide.mjs';
import { borch } from './common.mjs';

export async function loadBorchPython() {
  const pyodide = await loadPyodide({ indexURL: '/tests/browser/node_modules/pyodide/' });
  pyodide.registerJsModule('borch_ts', borch);
  const wheelName = document.querySelector('meta[name=borch-wheel]')?.content
    ?? 'borch_webgpu-0.1.0-py3-none-any.whl';
  const wheel = await (await fetch(`/target/borch-py/${wheelName}`)).arrayBuffer();
  const sitePackages = pyodide.runPython('import site; site.getsitepackages()[0]');
  pyodide.unpackArchive(wheel, 'wheel', { extractDir: sitePackages });
  return { pyodide, wheelName, sitePackages };
}
