#!/usr/bin/env node
// The packed tarball judged by the npm ecosystem's two package linters: publint (package.json
// fields, `exports` order, files that exist) in strict mode, where a warning fails too, and
// @arethetypeswrong/cli (whether TypeScript resolves the types the runtime resolves, under
// node16 ESM and bundler resolution: profile esm-only, since borch-ts is ESM only). Both are
// pinned in tests/package/package.json (`npm ci` there).
//
//   node tests/package/lint.mjs [path/to/borch-ts-<version>.tgz]

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { newestTarball } from './tarball.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const version = (name) => JSON.parse(readFileSync(join(here, 'node_modules', name, 'package.json'), 'utf8')).version;

async function main() {
  const tgz = resolve(process.argv[2] ?? newestTarball());
  const { publint } = await import('publint');
  const { formatMessage } = await import('publint/utils');
  const tarball = readFileSync(tgz);
  const { messages, pkg } = await publint({ pack: { tarball: tarball.buffer.slice(tarball.byteOffset, tarball.byteOffset + tarball.byteLength) }, strict: true });
  if (messages.length > 0) {
    console.error(`publint ${version('publint')}: ${messages.length} findings on ${tgz}:`);
    for (const m of messages) console.error(`  ${m.type}: ${formatMessage(m, pkg)}`);
    process.exit(1);
  }
  const attw = join(here, 'node_modules', '@arethetypeswrong', 'cli', 'dist', 'index.js');
  try {
    execFileSync(process.execPath, [attw, tgz, '--profile', 'esm-only', '--format', 'ascii', '--no-color'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      encoding: 'utf8',
    });
  } catch (e) {
    console.error(`attw ${version('@arethetypeswrong/cli')} --profile esm-only failed on ${tgz}:\n${e.stdout}${e.stderr}`);
    process.exit(1);
  }
  console.log(
    `publint: ok (${version('publint')}, strict), attw: ok (@arethetypeswrong/cli ${version('@arethetypeswrong/cli')}, ` +
      `--profile esm-only: node16 ESM and bundler resolve the types) on ${tgz.split('/').pop()}`,
  );
}

main().catch((e) => {
  console.error(`package lint failed: ${e.stack ?? e}`);
  process.exit(1);
});
