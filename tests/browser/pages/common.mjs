// Helpers shared by the borch-ts browser pages: a log on the page and the console, checks that
// throw with a description (checks.mjs), and the adapter line from probe().

import * as borch from '/target/borch-ts/index.js';
import { check } from './checks.mjs';

export { borch };
export { check, checks, thrown } from './checks.mjs';

const out = document.getElementById('log');

export function log(line) {
  console.log(line);
  if (out) out.textContent += `${line}\n`;
}

// The text of a file the test server serves (an HTTP error is an exception).
export async function text(path) {
  const res = await fetch(path);
  if (!res.ok) throw new Error(`${path}: HTTP ${res.status}`);
  return res.text();
}

// probe() then init(); logs and returns the adapter line, e.g.
// "adapter: google / swiftshader (WebGPU, software)".
export async function start() {
  const probe = await borch.probe();
  check('probe', probe.ok === true, JSON.stringify(probe));
  await borch.init();
  const a = probe.adapter;
  const line = `adapter: ${a.vendor} / ${a.architecture}${a.description ? ` (${a.description})` : ''} (WebGPU${probe.software ? ', software' : ''})`;
  log(line);
  return line;
}

// Run `main` and publish its outcome as window.__borchDone.
export function run(main) {
  const t0 = performance.now();
  window.__borchDone = main().then(
    (summary) => {
      const s = ((performance.now() - t0) / 1000).toFixed(1);
      log(`done in ${s} s: ${summary}`);
      return { ok: true, summary: `${summary} (${s} s)` };
    },
    (e) => {
      log(`FAILED: ${e.stack ?? e}`);
      return { ok: false, summary: String(e.message ?? e) };
    },
  );
}
