// borch_webgpu as a Pyodide package: the page's JavaScript only loads Pyodide (npm pyodide, this
// origin; BORCH_TS_URL in its env), loads micropip (PyPI's wheel, from this origin: npm pyodide
// ships none; tests/browser/pyodide-packages.txt pins it) and runs Python. Python then does the
// rest: `await micropip.install(<wheel URL>)`, `import borch_webgpu as torch` (which imports
// borch-ts with import() and opens the device itself: no registerJsModule, no init() here), then
//  - an import with a wrong BORCH_TS_URL (not a module) fails with an ImportError naming the URL, and the next
//    import with the right one works;
//  - an import entered with runPython (synchronous) raises the runPythonAsync error;
//  - README.md's Python quick start (the first ```python block under "## Python") as written: its
//    print(model) is torch's, its loss falls, f(1, 1) is near 2;
//  - textbook.py: a Module subclass inside nn.Sequential, print(model), a training loop whose
//    loss falls, load_state_dict into a fresh model (its model repr and key report are torch's);
//  - python_idioms.py: torch.device / .to / .cpu, .data, .grad_fn, refused dtypes, .numpy(),
//    nn.init, nn.utils, load_state_dict, against python_idioms_expected.json (real torch).
// The page does not import borch-ts or common.mjs. Run by tests/browser/run.mjs.

import { loadPyodide } from '/tests/browser/node_modules/pyodide/pyodide.mjs';

const out = document.getElementById('log');
const log = (line) => {
  console.log(line);
  out.textContent += `${line}\n`;
};
const text = async (path) => {
  const res = await fetch(path);
  if (!res.ok) throw new Error(`${path}: HTTP ${res.status}`);
  return res.text();
};
const seconds = (t0) => ((performance.now() - t0) / 1000).toFixed(1);

async function main() {
  const t0 = performance.now();
  const pins = await text('/tests/browser/pyodide-packages.txt');
  const micropipVersion = /^micropip==([\w.]+)/m.exec(pins)[1];
  const pyodide = await loadPyodide({
    indexURL: '/tests/browser/node_modules/pyodide/',
    env: { BORCH_TS_URL: '/target/borch-ts/index.js' },
  });
  await pyodide.loadPackage(`/target/pyodide-packages/micropip-${micropipVersion}-py3-none-any.whl`);
  log(`pyodide ${pyodide.version} and micropip ${micropipVersion} loaded in ${seconds(t0)} s`);

  const printed = [];
  pyodide.setStdout({ batched: (line) => printed.push(...line.split('\n')) });
  const python = async (source) => {
    printed.length = 0;
    await pyodide.runPythonAsync(source);
    return [...printed];
  };
  let t = performance.now();
  await python(`
import micropip
await micropip.install("/target/borch-py/borch_webgpu-0.1.0-py3-none-any.whl")
print(micropip.list()["borch_webgpu"].source)
`);
  log(`micropip.install: borch_webgpu ${printed.at(-1)} (${seconds(t)} s)`);

  // A wrong BORCH_TS_URL (a JSON file: not a module; a missing script would be a 404, which
  // run.mjs fails the page for): the import fails, names the URL, and leaves nothing
  // half-imported (the next import works).
  const wrong = await python(`
import os
right = os.environ["BORCH_TS_URL"]
os.environ["BORCH_TS_URL"] = "/tests/browser/pages/python_idioms_expected.json"
try:
    import borch_webgpu
    print("imported?!")
except ImportError as e:
    print(str(e))
os.environ["BORCH_TS_URL"] = right
`);
  const wrongOk = wrong.length === 1 && wrong[0].includes('/tests/browser/pages/python_idioms_expected.json') && wrong[0].includes('BORCH_TS_URL');
  log(`import with a wrong BORCH_TS_URL: ${wrong.join(' | ')}`);

  const expected = JSON.parse(await text('./python_idioms_expected.json'));
  const results = [];
  const judge = (name, ok, detail) => {
    results.push({ name, ok });
    log(`${name}: ${ok ? 'ok' : 'FAILED'} ${detail}`);
  };
  // The pin follows npm pyodide: its lock file names the micropip version it was built with.
  const lock = JSON.parse(await text('/tests/browser/node_modules/pyodide/pyodide-lock.json'));
  judge('micropip pin', lock.packages.micropip?.version === micropipVersion,
    `(pyodide-packages.txt ${micropipVersion}, npm pyodide's lock file ${lock.packages.micropip?.version})`);
  judge('wrong BORCH_TS_URL', wrongOk, '(ImportError naming the URL and BORCH_TS_URL)');

  // Entered synchronously, the import cannot settle import() / init(): the error names
  // runPythonAsync, and nothing is left half-imported.
  let syncMessage = null;
  try {
    pyodide.runPython('import borch_webgpu');
  } catch (e) {
    syncMessage = e.message.trim().split('\n').pop();
  }
  judge('import under runPython', syncMessage?.includes('use runPythonAsync') ?? false, `(${syncMessage})`);

  // README.md's Python quick start, exactly as written.
  const readme = await text('/README.md');
  const section = readme.slice(readme.indexOf('\n## Python'));
  const block = /\n```python\n([\s\S]*?)\n```\n/.exec(section);
  if (readme.indexOf('\n## Python') < 0 || !block) throw new Error('README.md has no ```python block under "## Python"');
  t = performance.now();
  const qs = await python(block[1]);
  const qsSeconds = seconds(t);
  for (const line of qs) log(`  quickstart| ${line}`);
  const losses = qs.map((l) => /^step (\d+): loss ([\d.]+)$/.exec(l)).filter(Boolean).map((m) => Number(m[2]));
  const pred = qs.map((l) => /^f\(1, 1\) = (-?[\d.e-]+)$/.exec(l)).find(Boolean);
  // Losses as torch prints them for the same seed (borch draws torch's numbers): within 1e-3
  // relative (f32 sums in another order), not only falling.
  const near = (ours, torchs) => ours.length === torchs.length && ours.every((v, k) => Math.abs(v - torchs[k]) <= 1e-4 + 1e-3 * Math.abs(torchs[k]));
  const torchLosses = (lines, re) => lines.map((l) => re.exec(l)).filter(Boolean).map((m) => Number(m.at(-1)));
  const reprOf = (lines) => lines.filter((l) => !/^(step|epoch|f\(1, 1\)) /.test(l));
  const qsRepr = JSON.stringify(reprOf(qs)) === JSON.stringify(reprOf(expected.quickstart));
  judge(
    `README.md's Python quick start (${qsSeconds} s)`,
    losses.length >= 2 && losses.at(-1) < losses[0] / 4 && pred && Math.abs(Number(pred[1]) - 2) < 0.5 && qsRepr &&
      near(losses, torchLosses(expected.quickstart, /^step (\d+): loss ([\d.]+)$/)),
    `loss ${losses[0]} → ${losses.at(-1)} (torch ${expected.quickstart[0].split(' ').pop()} → ${expected.quickstart[4].split(' ').pop()}, each within 1e-3), ` +
      `f(1, 1) = ${pred ? Number(pred[1]).toFixed(4) : '?'}, print(model) ${qsRepr ? "is torch's" : "DIFFERS from torch's"}`,
  );

  // The textbook program: a Module subclass inside Sequential, print(model), training.
  t = performance.now();
  const tb = await python(await text('./textbook.py'));
  const tbSeconds = seconds(t);
  for (const line of tb) log(`  textbook| ${line}`);
  const epochs = tb.map((l) => /^epoch +\d+ loss ([\d.]+)$/.exec(l)).filter(Boolean).map((m) => Number(m[1]));
  const tbRepr = tb.slice(0, 9).join('\n') === expected.textbook.slice(0, 9).join('\n');
  const tail = tb.slice(-2).join('\n') === expected.textbook.slice(-2).join('\n');
  const node = (line) => line?.replace(/ at 0x[0-9a-f…]+>$/, '>');
  // The core's node for the loss (borch's MSELoss is mean((a - b)^2): MeanBackward0; torch's is
  // MseLossBackward0): a node in torch's repr form, named by the core.
  const gradFn = tb.length === expected.textbook.length && /^<\w+Backward\d object at 0x[0-9a-f]+>$/.test(tb.at(-3));
  judge(
    `textbook.py (${tbSeconds} s)`,
    tbRepr && tail && gradFn && epochs.length === 9 && epochs.at(-1) < epochs[0] / 4 &&
      near(epochs, torchLosses(expected.textbook, /^epoch +\d+ loss ([\d.]+)$/)),
    `print(model) ${tbRepr ? "is torch's" : "DIFFERS from torch's"}, loss ${epochs[0]} → ${epochs.at(-1)} ` +
      `(torch ${expected.textbook[9].split(' ').pop()} → ${expected.textbook[17].split(' ').pop()}, each within 1e-3), ` +
      `loss.grad_fn ${node(tb.at(-3))} (the core's node; torch's ${node(expected.textbook.at(-3))}), load_state_dict and outputs ${tail ? "as torch's" : 'DIFFER'}`,
  );

  // The idioms, checked against torch's values.
  pyodide.globals.set('EXPECTED_JSON', JSON.stringify(expected));
  t = performance.now();
  let idioms;
  try {
    idioms = await python(await text('./python_idioms.py'));
  } catch (e) {
    idioms = [...printed, `<python raised> ${e.message}`];
  }
  for (const line of idioms) log(`  idioms| ${line}`);
  const passed = idioms.map((l) => /^python idioms: (\d+) checks passed$/.exec(l)).find(Boolean);
  judge(`python_idioms.py (${seconds(t)} s)`, Boolean(passed), passed ? `${passed[1]} checks` : '');
  pyodide.setStdout({});

  const failed = results.filter((r) => !r.ok).map((r) => r.name);
  const summary = `micropip: borch_webgpu installed by micropip.install and imported with no JavaScript glue; ` +
    `${results.length - failed.length} / ${results.length} parts passed${failed.length ? ` (FAILED: ${failed.join(', ')})` : ''} in ${seconds(t0)} s`;
  log(summary);
  return { ok: failed.length === 0, summary };
}

window.__borchDone = main().catch((e) => {
  log(`error: ${e.stack ?? e}`);
  return { ok: false, summary: String(e) };
});
