#!/usr/bin/env node
// README.md's Pyodide page (the ```html block under "## Python"), laid out as a user's site
// would be: target/readme-pyodide/index.html beside node_modules/pyodide (npm pyodide),
// node_modules/borch-ts (the built package), micropip's wheel and borch_webgpu's wheel (links).
// Its module script gets two lines appended: Python reads the quick start's value back and the
// page reports to run.mjs. The snippet's own URLs are all page-relative and BORCH_TS_URL is left
// at its default, so the page checks both. Then:
//   node tests/browser/run.mjs target/readme-pyodide/index.html

import { mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const target = join(repo, 'target');
const fail = (message) => {
  console.error(`readme_pyodide: FAILED: ${message}`);
  process.exit(1);
};

const readme = readFileSync(join(repo, 'README.md'), 'utf8');
const at = readme.indexOf('\n## Python');
const block = at < 0 ? null : /\n```html\n([\s\S]*?)\n```\n/.exec(readme.slice(at));
if (!block) fail('README.md has no ```html block under "## Python"');
const last = block[1].lastIndexOf('</script>');
if (last < 0) fail('the ```html block has no </script>');
const report = `
  const value = await pyodide.runPythonAsync('repr(torch.ones(2, 3).sum())');
  window.__borchDone = { ok: value === 'tensor(6.)', summary: \`README.md's Pyodide page ran as written: torch.ones(2, 3).sum() is \${value}\` };
`;
const site = join(target, 'readme-pyodide');
rmSync(site, { recursive: true, force: true });
mkdirSync(join(site, 'node_modules'), { recursive: true });
writeFileSync(join(site, 'index.html'), `${block[1].slice(0, last)}${report}${block[1].slice(last)}\n`);
symlinkSync(join(repo, 'tests/browser/node_modules/pyodide'), join(site, 'node_modules/pyodide'), 'dir');
symlinkSync(join(target, 'borch-ts'), join(site, 'node_modules/borch-ts'), 'dir');
for (const dir of ['pyodide-packages', 'borch-py']) {
  for (const wheel of readdirSync(join(target, dir)).filter((f) => f.endsWith('.whl'))) {
    symlinkSync(join(target, dir, wheel), join(site, wheel));
  }
}
console.log(`readme_pyodide: wrote ${site}/index.html from README.md's \`\`\`html block (${block[1].split('\n').length} lines)`);
