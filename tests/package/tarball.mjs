// The newest borch-ts-*.tgz that `cargo xtask build-js` packed, in $CARGO_TARGET_DIR (or target/).

import { readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

export function newestTarball() {
  const dir = process.env.CARGO_TARGET_DIR ? resolve(repo, process.env.CARGO_TARGET_DIR) : join(repo, 'target');
  const found = readdirSync(dir)
    .filter((f) => /^borch-ts-.*\.tgz$/.test(f))
    .map((f) => join(dir, f))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  if (found.length === 0) throw new Error(`no borch-ts-*.tgz in ${dir}: run cargo xtask build-js first`);
  return found[0];
}
