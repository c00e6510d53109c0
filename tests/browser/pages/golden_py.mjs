// The golden suite through borch_webgpu: tests/golden/golden_runner.py, in Pyodide, runs every
// case of tests/golden/golden.json through `import borch_webgpu as torch` as
// tests/golden/bindings.json says (the same case names, semantics and tolerances as golden.mjs,
// the JavaScript runner), entered with runPythonAsync (reads use run_sync). Prints
//   golden[py]: N agreeing / M cases, K not implemented, D disagreeing (forward a / b, backward c / d) [adapter]
// and the first 30 disagreements; passes only with 0 disagreeing. `?filter=sum` runs the cases
// whose name contains "sum"; `?verbose=1` lists every case; `?every=k` every k-th case of each op.
// Loading by pyodide_borch.mjs: Pyodide from the npm package, borch-ts registered as `borch_ts`, the
// wheel from `cargo xtask build-py` unpacked into site-packages. Run by tests/browser/run.mjs.

import { log, start, text } from './common.mjs';
import { loadBorchPython } from './pyodide_borch.mjs';

const query = new URLSearchParams(location.search);
const FILTER = query.get('filter') ?? '';
const VERBOSE = query.get('verbose') === '1';
const EVERY = Number(query.get('every') ?? 1);

async function main() {
  const started = performance.now();
  const adapter = (await start()).replace(/^adapter: /, '');
  const { pyodide, wheelName, sitePackages } = await loadBorchPython();
  const [runner, golden, bindings] = await Promise.all(
    ['/tests/golden/golden_runner.py', '/tests/golden/golden.json', '/tests/golden/bindings.json'].map(text),
  );
  pyodide.FS.writeFile(`${sitePackages}/golden_runner.py`, runner);
  log(`pyodide ${pyodide.version}, borch_webgpu from ${wheelName}: ready in ${((performance.now() - started) / 1000).toFixed(1)} s`);

  // The "data" family (tests/data/data_runner.py: torch.utils.data against tests/data/cases.json).
  pyodide.FS.writeFile(`${sitePackages}/data_runner.py`, await text('/tests/data/data_runner.py'));
  pyodide.globals.set('_data_cases', await text('/tests/data/cases.json'));
  pyodide.globals.set('_data_adapter', adapter);
  pyodide.globals.set('_data_log', log);
  const dataFamily = async () => {
    const r = await pyodide.runPythonAsync(`
import data_runner
data_runner.run(_data_cases, adapter=_data_adapter, log=_data_log)
`);
    const out = r.toJs({ dict_converter: Object.fromEntries });
    r.destroy();
    pyodide.globals.set('_vision_cases', await text('/tests/vision/cases.json'));
    const v = await pyodide.runPythonAsync(`data_runner.run_vision(_vision_cases, adapter=_data_adapter, log=_data_log)`);
    const vision = v.toJs({ dict_converter: Object.fromEntries });
    v.destroy();
    // The synthetic CIFAR / MNIST files, written into Pyodide's file system.
    const files = ['cifar-10-batches-bin/data_batch_1.bin', 'cifar-10-batches-bin/data_batch_2.bin', 'cifar-10-batches-bin/data_batch_3.bin',
      'cifar-10-batches-bin/data_batch_4.bin', 'cifar-10-batches-bin/data_batch_5.bin', 'cifar-10-batches-bin/test_batch.bin',
      'cifar-100-binary/train.bin', 'cifar-100-binary/test.bin', 'MNIST/raw/train-images-idx3-ubyte', 'MNIST/raw/train-labels-idx1-ubyte',
      'MNIST/raw/t10k-images-idx3-ubyte.gz', 'MNIST/raw/t10k-labels-idx1-ubyte.gz'];
    for (const f of files) {
      const res = await fetch(`/tests/vision/files/${f}`);
      if (!res.ok) throw new Error(`${f}: HTTP ${res.status}`);
      pyodide.FS.mkdirTree(`/tmp/vision_files/${f.slice(0, f.lastIndexOf('/'))}`);
      pyodide.FS.writeFile(`/tmp/vision_files/${f}`, new Uint8Array(await res.arrayBuffer()));
    }
    const d = await pyodide.runPythonAsync(`data_runner.run_vision_datasets("/tmp/vision_files", _vision_cases, log=_data_log)`);
    const datasets = d.toJs({ dict_converter: Object.fromEntries });
    d.destroy();
    return { ok: out.ok && vision.ok && datasets.ok, summary: `${out.summary}; ${vision.summary}; ${datasets.summary}` };
  };
  if (query.get('family') === 'data') return dataFamily();

  // Entered with runPythonAsync: reads inside borch_webgpu settle promises with run_sync.
  const args = { golden, bindings, adapter, filter: FILTER, verbose: VERBOSE, every: EVERY, log };
  for (const [k, v] of Object.entries(args)) pyodide.globals.set(`_golden_${k}`, v);
  const result = await pyodide.runPythonAsync(`
import golden_runner
golden_runner.run(_golden_golden, _golden_bindings, adapter=_golden_adapter, filter=_golden_filter,
                  verbose=_golden_verbose, every=int(_golden_every), log=_golden_log)
`);
  const r = result.toJs({ dict_converter: Object.fromEntries });
  result.destroy();
  const data = await dataFamily();
  log(`golden[py]: page total ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return { ok: r.ok && data.ok, summary: `${r.summary}; ${data.summary}` };
}

window.__borchDone = main().catch((e) => {
  log(`golden[py] failed to run: ${e.stack ?? e}`);
  return { ok: false, summary: `failed to run: ${e.message ?? e}` };
});
