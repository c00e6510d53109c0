#!/usr/bin/env node
// Every ```js and ```ts block of the documentation compiles with `tsc --strict` against the built
// package, as a user's file would: each block becomes its own module in target/snippets/ that
// imports `borch-ts` by name (node_modules/borch-ts there is the built package folder), compiled
// with TypeScript's default libs for es2022 and `skipLibCheck: false`, so the package's own .d.ts
// files are checked too. Two control files that must NOT compile (a number read as a boolean, an
// async noGrad body) prove that the check checks. Fails on any error in a snippet, printing it at
// its line in the Markdown file.
//
//   node tests/browser/snippets_check.mjs [--target-dir DIR]

import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '..', '..');
const SOURCES = ['README.md', 'docs/js.md', 'borch-js/README.md'];
const FENCE = /^```(js|ts|javascript|typescript)\s*$/;

// Code blocks of a Markdown file: { line (1-based, of the first code line), code }.
export function blocks(markdown) {
  const found = [];
  let open = null;
  markdown.split('\n').forEach((text, i) => {
    if (open === null && FENCE.test(text)) {
      open = { line: i + 2, lines: [] };
    } else if (open !== null && text.startsWith('```')) {
      found.push({ line: open.line, code: open.lines.join('\n') });
      open = null;
    } else if (open !== null) {
      open.lines.push(text);
    }
  });
  return found;
}

const CONTROLS = {
  'control-item-is-not-boolean.ts':
    "import * as torch from 'borch-ts';\nconst wrong: boolean = await torch.tensor([1]).item();\nconsole.log(wrong);\n",
  'control-async-no-grad.ts':
    "import * as torch from 'borch-ts';\ntorch.noGrad(async () => torch.tensor([1]).mul(2));\n",
};

function targetDir() {
  const i = process.argv.indexOf('--target-dir');
  if (i > 0) return resolve(process.argv[i + 1]);
  return process.env.CARGO_TARGET_DIR ? resolve(repo, process.env.CARGO_TARGET_DIR) : join(repo, 'target');
}

function main() {
  const target = targetDir();
  const dir = join(target, 'snippets');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'node_modules'), { recursive: true });
  // The built package under its npm name, and the test tools' packages (webgpu for the Node
  // snippet) beside it.
  symlinkSync(join(target, 'borch-ts'), join(dir, 'node_modules', 'borch-ts'), 'dir');
  const tools = join(here, 'node_modules');
  for (const name of readdirSync(tools)) {
    if (!name.startsWith('.')) symlinkSync(join(tools, name), join(dir, 'node_modules', name), 'dir');
  }
  const origin = new Map(); // file → [markdown file, line]
  const counts = [];
  for (const source of SOURCES) {
    const found = blocks(readFileSync(join(repo, source), 'utf8'));
    found.forEach(({ line, code }) => {
      const file = `${source.replace(/[/.]/g, '-')}-L${line}.ts`;
      // `export {}` makes a block without imports a module too (no shared globals).
      writeFileSync(join(dir, file), `${code}\nexport {};\n`);
      origin.set(file, [source, line]);
    });
    counts.push(`${source} ${found.length}`);
  }
  for (const [file, code] of Object.entries(CONTROLS)) writeFileSync(join(dir, file), code);
  const files = [...origin.keys(), ...Object.keys(CONTROLS)];
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify(
      {
        compilerOptions: {
          strict: true,
          noEmit: true,
          target: 'es2022',
          module: 'esnext',
          moduleResolution: 'bundler',
          skipLibCheck: false,
          types: [],
        },
        files,
      },
      null,
      2,
    ),
  );
  const tsc = spawnSync(process.execPath, [join(tools, 'typescript', 'bin', 'tsc'), '-p', dir, '--pretty', 'false'], {
    encoding: 'utf8',
  });
  const errors = `${tsc.stdout}${tsc.stderr}`.split('\n').filter((l) => l.trim() !== '');
  // `file.ts(line,col): error TS…`: snippet lines map back to the Markdown file.
  const failures = [];
  const controlsFailing = new Set();
  let control = false; // whether the error being continued (indented lines) is a control's
  for (const error of errors) {
    const m = /^([^(]+)\((\d+),(\d+)\): (.*)$/.exec(error);
    const file = m ? m[1].split('/').pop() : null;
    if (!m && /^\s/.test(error)) {
      if (!control) failures.push(error);
    } else if (file && file in CONTROLS) {
      control = true;
      controlsFailing.add(file);
    } else if (file && origin.has(file)) {
      control = false;
      const [source, line] = origin.get(file);
      failures.push(`${source}:${line + Number(m[2]) - 1}:${m[3]}: ${m[4]}`);
    } else {
      control = false;
      failures.push(error);
    }
  }
  for (const control of Object.keys(CONTROLS)) {
    if (!controlsFailing.has(control)) failures.push(`${control} compiled, but it must not: the check is not checking`);
  }
  if (failures.length > 0) {
    console.error(`types[strict]: ${failures.length} errors in the documentation's snippets:`);
    for (const f of failures) console.error(`  ${f}`);
    process.exit(1);
  }
  console.log(
    `types[strict]: ${origin.size} snippets compile (${counts.join(', ')}; tsc ${tscVersion(tools)} --strict, default libs, ` +
      `skipLibCheck false), ${Object.keys(CONTROLS).length} broken controls refused`,
  );
}

function tscVersion(tools) {
  return JSON.parse(readFileSync(join(tools, 'typescript', 'package.json'), 'utf8')).version;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
