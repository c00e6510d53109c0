#!/usr/bin/env node
// borch-ts under Node on WebGPU from the npm package `webgpu` (Dawn): the committed golden suite
// (tests/golden/golden.json through the JavaScript surface, 0 disagreeing required) and the
// linear-regression and char-level GPT trajectories against torch's recorded runs, with the very
// modules the browser pages use (tests/browser/pages/golden_suite.mjs, linear_regression.mjs,
// gpt_trajectory.mjs) and the same package,
// $CARGO_TARGET_DIR/borch-ts/index.js (or target/, or --target-dir DIR). Fails when no adapter is
// found, when a case disagrees or a step leaves the tolerance, or on any uncaught error.
//
//   VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json node tests/node/run.mjs \
//     [--target-dir DIR] [--filter S] [--per-op N] [--verbose] [--timeout S]
//
// --per-op N: only the first N cases of each (op, kind, outcome) group of golden.json (CI runs
// every case in Chromium, golden[js], through the same package on the same Dawn/SwiftShader).

import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { runGoldenSuite, adapterName } from '../browser/pages/golden_suite.mjs';
import { trainGpt } from '../browser/pages/gpt_trajectory.mjs';
import { trainLinearRegression } from '../browser/pages/linear_regression.mjs';
import { installWebGpu } from './webgpu.mjs';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const JSON_SOURCE_FLAG = '--harmony-json-parse-with-source';

function usage(message) {
  console.error(`${message}\nusage: node tests/node/run.mjs [--target-dir DIR] [--filter S] [--per-op N] [--verbose] [--timeout S]`);
  process.exit(2);
}

function parseArgs(argv) {
  const args = {
    targetDir: process.env.CARGO_TARGET_DIR ? resolve(repo, process.env.CARGO_TARGET_DIR) : join(repo, 'target'),
    filter: '',
    perOp: 0,
    verbose: false,
    timeout: 600,
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => argv[++i] ?? usage(`${arg} needs a value`);
    if (arg === '--target-dir') args.targetDir = resolve(value());
    else if (arg === '--filter') args.filter = value();
    else if (arg === '--per-op') args.perOp = Number(value());
    else if (arg === '--verbose') args.verbose = true;
    else if (arg === '--timeout') args.timeout = Number(value());
    else usage(`unknown argument ${arg}`);
  }
  if (!(args.timeout > 0)) usage('--timeout needs a positive number of seconds');
  return args;
}

// The golden suite tells `2.0` from `2` through JSON.parse's source text access, which Node 20
// (V8 11.3) has only behind a flag: run again with it.
function jsonSourceAccess() {
  let seen = false;
  JSON.parse('1', (key, value, context) => {
    seen = context?.source !== undefined;
    return value;
  });
  return seen;
}

const fail = (message) => {
  console.error(`node: FAILED: ${message}`);
  process.exit(1);
};

async function main() {
  const args = parseArgs(process.argv.slice(2));
  setTimeout(() => fail(`still running after ${args.timeout} s (--timeout)`), args.timeout * 1000).unref();
  const started = performance.now();
  const webgpu = await installWebGpu();
  const index = join(args.targetDir, 'borch-ts', 'index.js');
  const borch = await import(pathToFileURL(index).href).catch((e) => fail(`cannot import ${index} (run cargo xtask build-js first): ${e.message}`));

  const found = await borch.probe();
  if (!found.ok) {
    const icd = process.env.VK_ICD_FILENAMES ?? 'unset';
    fail(`no WebGPU adapter in Node (probe() = ${JSON.stringify(found)}; webgpu ${webgpu}, VK_ICD_FILENAMES ${icd}). ` +
      'Without a GPU, point the Vulkan loader at SwiftShader: VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json (Debian package chromium).');
  }
  const via = `Node ${process.version}, npm webgpu ${webgpu} (Dawn)`;
  const adapter = adapterName(found, via);
  const a = found.adapter;
  console.log(`node: adapter ${adapter}: ${a.device} (${a.description}); Vulkan ICD ${process.env.VK_ICD_FILENAMES ?? '(loader default)'}`);

  const log = (line) => console.log(line);
  const text = (path) => readFileSync(join(repo, path), 'utf8');
  const golden = await runGoldenSuite({
    torch: borch,
    log,
    goldenText: text('tests/golden/golden.json'),
    bindingsText: text('tests/golden/bindings.json'),
    filter: args.filter,
    perOp: args.perOp,
    verbose: args.verbose,
    label: 'node',
    via,
  });
  if (!golden.ok) fail(golden.summary);

  const recipe = JSON.parse(text('tests/trajectories/linear_regression.json'));
  await trainLinearRegression({ borch, recipe, log, label: 'node', adapter });
  const gpt = JSON.parse(text('tests/trajectories/char_gpt.json'));
  await trainGpt({ borch, recipe: gpt, text: text(gpt.config.text), log, label: 'node', adapter });
  console.log(`node: all checks passed in ${((performance.now() - started) / 1000).toFixed(1)} s [${adapter}]`);
}

if (jsonSourceAccess()) {
  main().catch((e) => fail(e.stack ?? e));
} else if (process.execArgv.includes(JSON_SOURCE_FLAG)) {
  fail(`JSON.parse has no source text access even with ${JSON_SOURCE_FLAG}`);
} else {
  const again = spawnSync(process.execPath, [JSON_SOURCE_FLAG, ...process.execArgv, ...process.argv.slice(1)], { stdio: 'inherit' });
  process.exit(again.status ?? 1);
}
