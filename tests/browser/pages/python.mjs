// borch_webgpu in Pyodide: Pyodide from the npm package (served from this origin), borch-ts
// registered as the JS module `borch_ts`, the wheel from `cargo xtask build-py` unpacked into
// site-packages; then the four examples in Python and in JavaScript must print the same lines,
// and Python entered synchronously must get the runPythonAsync error. Run by run.mjs.

import { borch as torch, log, start } from './common.mjs';
import { loadBorchPython } from './pyodide_borch.mjs';
import * as jsExamples from '/examples/python/examples.mjs';

const EXAMPLES = ['tensors', 'autograd', 'linear_regression', 'mlp'];

async function main() {
  const adapter = (await start()).replace(/^adapter: /, '');
  let t0 = performance.now();
  const { pyodide, wheelName, sitePackages } = await loadBorchPython();
  log(`pyodide ${pyodide.version} loaded in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  await pyodide.runPythonAsync('import borch_webgpu');
  log(`borch_webgpu installed from ${wheelName} into ${sitePackages}`);

  let failures = 0;
  for (const name of EXAMPLES) {
    const pyLines = [];
    pyodide.setStdout({ batched: (line) => pyLines.push(line) });
    const source = await (await fetch(`/examples/python/${name}.py`)).text();
    t0 = performance.now();
    try {
      await pyodide.runPythonAsync(source);
    } catch (e) {
      pyLines.push(`<python raised> ${e.message}`);
    }
    const pySeconds = (performance.now() - t0) / 1000;
    const jsLines = [];
    await jsExamples[name](torch, (line) => jsLines.push(...String(line).split('\n')));
    const pyFlat = pyLines.flatMap((l) => l.split('\n'));
    const same = pyFlat.length === jsLines.length && pyFlat.every((l, i) => l === jsLines[i]);
    log(`example ${name}.py (${pySeconds.toFixed(1)} s): ${same ? 'same output as the JavaScript version' : 'DIFFERS from the JavaScript version'}`);
    for (let i = 0; i < Math.max(pyFlat.length, jsLines.length); i++) {
      const p = pyFlat[i] ?? '<missing>';
      const j = jsLines[i] ?? '<missing>';
      log(p === j ? `  py|js ${p}` : `  py    ${p}\n  js    ${j}`);
    }
    if (!same) failures += 1;
  }
  const exampleFailures = failures;

  // Containers, param groups and scheduler state, written as torch code (python_api.py).
  const apiLines = [];
  pyodide.setStdout({ batched: (line) => apiLines.push(line) });
  let apiOk = false;
  try {
    // torch's values for the checks that need them (python_expected.py writes the file).
    pyodide.globals.set('EXPECTED_JSON', await (await fetch('./python_expected.json')).text());
    // torch's own checkpoint files (tests/checkpoints/fixtures_torch.py) for torch.load.
    const fixture = async (name) => new Uint8Array(await (await fetch(`/tests/checkpoints/fixtures/${name}.safetensors`)).arrayBuffer());
    pyodide.globals.set('CHECKPOINT_FIXTURES', { mlp: await fixture('mlp'), mlp_io: await fixture('mlp_io') });
    await pyodide.runPythonAsync(await (await fetch('./python_api.py')).text());
    apiOk = apiLines.some((l) => /^python api: \d+ checks passed$/.test(l));
  } catch (e) {
    apiLines.push(`<python raised> ${e.message}`);
  }
  for (const line of apiLines) log(line);
  if (!apiOk) failures += 1;

  // LoRA (nn.LoRALinear, nn.utils.lora) and torch.utils.checkpoint against loralib and torch
  // (python_lora.py, tests/nn/lora_cases.json).
  const loraLines = [];
  pyodide.setStdout({ batched: (line) => loraLines.push(line) });
  let loraOk = false;
  try {
    pyodide.globals.set('LORA_JSON', await (await fetch('/tests/nn/lora_cases.json')).text());
    await pyodide.runPythonAsync(await (await fetch('./python_lora.py')).text());
    loraOk = loraLines.some((l) => /^python lora: \d+ checks passed/.test(l));
  } catch (e) {
    loraLines.push(`<python raised> ${e.message}`);
  }
  for (const line of loraLines) log(line);
  if (!loraOk) failures += 1;
  pyodide.setStdout({});

  // Entered synchronously, reads cannot settle a promise: the error names runPythonAsync.
  let syncMessage = null;
  try {
    pyodide.runPython('import borch_webgpu as torch\ntorch.tensor([1.5]).item()');
  } catch (e) {
    syncMessage = e.message.trim().split('\n').pop();
  }
  const syncOk = syncMessage !== null && syncMessage.includes('runPythonAsync');
  log(`runPython (synchronous) then item(): ${syncMessage}`);
  if (!syncOk) failures += 1;

  const summary = `python: ${EXAMPLES.length - exampleFailures} / ${EXAMPLES.length} examples print what borch-ts prints; sync entry ${syncOk ? 'raises the runPythonAsync error' : 'FAILED'}; python_api.py ${apiOk ? 'passed' : 'FAILED'}; python_lora.py ${loraOk ? 'passed' : 'FAILED'} [${adapter}]`;
  log(summary);
  return { ok: failures === 0, summary };
}

window.__borchDone = main().catch((e) => {
  log(`error: ${e.stack ?? e}`);
  return { ok: false, summary: String(e) };
});
