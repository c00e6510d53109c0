// Python mode: Pyodide (npm pyodide, served from this origin) loaded on the first Python run,
// borch-ts registered as the JS module `borch_ts` (the page's instance, already initialised) and
// borch_webgpu's wheel (from `cargo xtask build-py`) unpacked into site-packages, as the test
// pages do (tests/browser/pages/pyodide_borch.mjs); `playground.py` (plot, load_digits) beside it.
// Each run gets fresh globals and runs with runPythonAsync (reads settle GPU work).

import hooksPy from './playground.py?raw';
import { paths } from './paths.js';

let ready = null;

function load(torch, hooks) {
  ready ??= (async () => {
    const { loadPyodide } = await import(/* @vite-ignore */ `${paths.pyodide}pyodide.mjs`);
    const pyodide = await loadPyodide({ indexURL: paths.pyodide });
    pyodide.registerJsModule('borch_ts', torch);
    pyodide.registerJsModule('_playground_js', hooks);
    const response = await fetch(paths.wheel);
    if (!response.ok) throw new Error(`${paths.wheel}: HTTP ${response.status} (run cargo xtask build-py)`);
    const sitePackages = pyodide.runPython('import site; site.getsitepackages()[0]');
    pyodide.unpackArchive(await response.arrayBuffer(), 'wheel', { extractDir: sitePackages });
    pyodide.FS.writeFile(`${sitePackages}/playground.py`, hooksPy);
    return pyodide;
  })();
  ready.catch(() => {
    ready = null;
  });
  return ready;
}

export async function runPy(code, print, torch, hooks, status) {
  status('loading Pyodide and borch_webgpu…');
  const pyodide = await load(torch, hooks);
  status('running');
  pyodide.setStdout({ batched: print });
  pyodide.setStderr({ batched: print });
  const globals = pyodide.toPy({ __name__: '__main__' });
  try {
    await pyodide.runPythonAsync(code, { globals, filename: '<playground>' });
  } finally {
    globals.destroy();
  }
}
