#!/usr/bin/env node
// README.md's JavaScript quick start, run as it is under Node on WebGPU from npm webgpu (Dawn):
// the block (the first ```js under "## JavaScript", as `cargo xtask build-js` takes it for the
// npm README) is written to target/quickstart/quickstart.mjs, where node_modules/borch-ts is the
// built package, and imported after installWebGpu(). Its printed losses must fall and its
// prediction f(1, 1) must be near 2. (tests/browser/snippets_check.mjs type-checks it.)
//
//   VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json node tests/node/quickstart.mjs [--target-dir DIR]

import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { installWebGpu } from './webgpu.mjs';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const i = process.argv.indexOf('--target-dir');
const targetDir = resolve(i >= 0 ? process.argv[i + 1] : process.env.CARGO_TARGET_DIR ?? join(repo, 'target'));
const fail = (message) => {
  console.error(`quickstart[node]: FAILED: ${message}`);
  process.exit(1);
};

const readme = readFileSync(join(repo, 'README.md'), 'utf8');
const section = readme.slice(readme.indexOf('\n## JavaScript'));
const block = /\n```js\n([\s\S]*?)\n```\n/.exec(section);
if (readme.indexOf('\n## JavaScript') < 0 || !block) fail('README.md has no ```js block under "## JavaScript"');
const dir = join(targetDir, 'quickstart');
rmSync(dir, { recursive: true, force: true });
mkdirSync(join(dir, 'node_modules'), { recursive: true });
symlinkSync(join(targetDir, 'borch-ts'), join(dir, 'node_modules', 'borch-ts'), 'dir');
writeFileSync(join(dir, 'quickstart.mjs'), `${block[1]}\n`);

const version = await installWebGpu();
const printed = [];
const log = console.log;
console.log = (...args) => printed.push(args.join(' '));
const start = performance.now();
try {
  await import(pathToFileURL(join(dir, 'quickstart.mjs')).href);
} catch (e) {
  console.log = log;
  fail(`it threw: ${e.stack ?? e}\nprinted so far:\n${printed.join('\n')}`);
}
console.log = log;
const seconds = (performance.now() - start) / 1000;
const losses = printed.map((l) => /^step (\d+): loss ([\d.]+)$/.exec(l)).filter(Boolean).map((m) => Number(m[2]));
const pred = printed.map((l) => /^f\(1, 1\) = (-?[\d.e-]+)$/.exec(l)).find(Boolean);
if (losses.length < 2) fail(`no "step N: loss L" lines:\n${printed.join('\n')}`);
if (!(losses.at(-1) < losses[0] / 4)) fail(`the loss did not fall: ${losses.join(', ')}`);
if (!pred || Math.abs(Number(pred[1]) - 2) > 0.5) fail(`f(1, 1) is not near 2:\n${printed.join('\n')}`);
if (!printed.some((l) => l.startsWith('first layer grad'))) fail(`no gradient line:\n${printed.join('\n')}`);
const { adapter } = await (await import(pathToFileURL(join(targetDir, 'borch-ts', 'index.js')).href)).init();
console.log(
  `quickstart[node]: README.md's JavaScript quick start ran in ${seconds.toFixed(1)} s: loss ${losses[0]} → ${losses.at(-1)}, ` +
    `f(1, 1) = ${Number(pred[1]).toFixed(3)} [${adapter.vendor} / ${adapter.architecture} (Node ${process.version}, npm webgpu ${version} (Dawn))]`,
);
