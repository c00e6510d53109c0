#!/usr/bin/env node
// The npm tarball installs into a fresh folder and imports under Node: `npm install <tgz>` in a
// new temporary project, then `import('borch-ts')` there. Node has no WebGPU, so probe() must
// answer { ok: false, why: "no-api" } and init() must reject with a BorchError.
//
//   node tests/browser/install_check.mjs [path/to/borch-ts-<version>.tgz]
//
// Without an argument: the newest borch-ts-*.tgz in $CARGO_TARGET_DIR (or target/).

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

function newestTarball() {
  const dir = process.env.CARGO_TARGET_DIR ? resolve(repo, process.env.CARGO_TARGET_DIR) : join(repo, 'target');
  const found = readdirSync(dir)
    .filter((f) => /^borch-ts-.*\.tgz$/.test(f))
    .map((f) => join(dir, f))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  if (found.length === 0) throw new Error(`no borch-ts-*.tgz in ${dir}: run cargo xtask build-js first`);
  return found[0];
}

// Runs inside the fresh project, importing the package by name.
const CHECK = `
const borch = await import('borch-ts');
const fail = (m) => { console.error('install check: ' + m); process.exit(1); };
for (const name of ['init', 'probe', 'tensor', 'memory', 'pooled', 'emptyCache', 'manualSeed']) {
  if (typeof borch[name] !== 'function') fail(name + ' is not a function');
}
if (typeof borch.Tensor !== 'function') fail('Tensor is not a class');
if (!(new borch.BorchError('RuntimeError', 'x') instanceof Error)) fail('BorchError is not an Error');
const probe = await borch.probe();
if (probe.ok !== false || probe.why !== 'no-api') fail('probe() under Node gave ' + JSON.stringify(probe));
let error = null;
try { await borch.init(); } catch (e) { error = e; }
if (!(error instanceof borch.BorchError) || error.kind !== 'DeviceError') fail('init() under Node: ' + error);
console.log('install check: import("borch-ts") under Node ' + process.version + ': probe() = ' + JSON.stringify(probe) + '; init() rejects: ' + error.message);
`;

function main() {
  const tgz = resolve(process.argv[2] ?? newestTarball());
  const dir = mkdtempSync(join(tmpdir(), 'borch-ts-install-'));
  try {
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'borch-ts-install-check', private: true, type: 'module' }));
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', tgz], { cwd: dir, stdio: 'inherit' });
    writeFileSync(join(dir, 'check.mjs'), CHECK);
    execFileSync(process.execPath, ['check.mjs'], { cwd: dir, stdio: 'inherit' });
    console.log(`install check: ${tgz} installs into a fresh folder and imports`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

try {
  main();
} catch (e) {
  console.error(`install check failed: ${e.message ?? e}`);
  process.exit(1);
}
