#!/usr/bin/env node
// A new user's Vite + TypeScript app, made the official way: create-vite (pinned in
// tests/package/package.json) with its vanilla-ts template, in a temporary folder. Its
// tsconfig.json is kept except `skipLibCheck`, set to false so that the package's .d.ts files are
// checked under the template's own `lib` and TypeScript; src/main.ts is replaced by a small
// training step through borch-ts; `npm install <tarball>` installs the template's
// devDependencies and the package; `npm run build` (the template's `tsc && vite build`) must
// pass and emit the .wasm beside the bundle.
//
//   node tests/package/vite_app.mjs [path/to/borch-ts-<version>.tgz] [--keep]

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { newestTarball } from './tarball.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const keep = process.argv.includes('--keep');

const MAIN_TS = `import './style.css';
import * as torch from 'borch-ts';

const out = document.querySelector<HTMLDivElement>('#app')!;

async function main(): Promise<void> {
  const found = await torch.probe();
  if (!found.ok) {
    out.textContent = \`no WebGPU here (\${found.why})\`;
    return;
  }
  await torch.init();
  const model = new torch.nn.Sequential(new torch.nn.Linear(2, 8), new torch.nn.ReLU(), new torch.nn.Linear(8, 1));
  const opt = new torch.optim.SGD(model.parameters(), { lr: 0.1 });
  const x = torch.randn([16, 2]);
  const y = x.sum(1, true);
  const loss: number = await torch.scope(async () => {
    opt.zeroGrad();
    const l = new torch.nn.MSELoss().call(model.call(x), y);
    l.backward();
    opt.step();
    return l.item();
  });
  const grad = model.parameters()[0].grad;
  const anyPositive: boolean = await x.gt(0).any().item<'bool'>();
  const pred = torch.noGrad(() => model.call(x));
  out.textContent = \`loss \${loss.toFixed(4)}, grad \${grad === null ? 'none' : grad.shape.join('x')}, \${anyPositive}, \${pred.requiresGrad}\`;
}

main().catch((e: unknown) => {
  out.textContent = String(e);
});
`;

function run(cwd, command, args) {
  try {
    return execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    throw new Error(`${command} ${args.join(' ')} failed in ${cwd}:\n${e.stdout ?? ''}${e.stderr ?? ''}`);
  }
}

const version = (root, name) => JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')).version;

function main() {
  const tgz = resolve(process.argv.slice(2).find((a) => !a.startsWith('--')) ?? newestTarball());
  const dir = mkdtempSync(join(tmpdir(), 'borch-ts-vite-'));
  const app = join(dir, 'app');
  try {
    run(dir, process.execPath, [join(here, 'node_modules', 'create-vite', 'index.js'), 'app', '--template', 'vanilla-ts', '--no-interactive']);
    const tsconfig = join(app, 'tsconfig.json');
    const config = readFileSync(tsconfig, 'utf8');
    if (!/"skipLibCheck": true/.test(config)) throw new Error(`the template's tsconfig.json has no "skipLibCheck": true:\n${config}`);
    writeFileSync(tsconfig, config.replace('"skipLibCheck": true', '"skipLibCheck": false'));
    writeFileSync(join(app, 'src', 'main.ts'), MAIN_TS);
    run(app, 'npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', tgz]);
    run(app, 'npm', ['run', 'build']);
    const assets = readdirSync(join(app, 'dist', 'assets'));
    const wasm = assets.find((f) => f.endsWith('.wasm'));
    const bundle = assets.find((f) => f.endsWith('.js'));
    if (!wasm || !bundle) throw new Error(`dist/assets lacks the bundle or the .wasm: ${assets.join(', ')}`);
    const size = (f) => statSync(join(app, 'dist', 'assets', f)).size;
    console.log(
      `vite app: built (create-vite ${version(here, 'create-vite')} --template vanilla-ts, typescript ` +
        `${version(app, 'typescript')}, vite ${version(app, 'vite')}, skipLibCheck false; \`tsc && vite build\`: ` +
        `${bundle} ${(size(bundle) / 1e3).toFixed(0)} kB, ${wasm} ${(size(wasm) / 1e6).toFixed(2)} MB)`,
    );
  } finally {
    if (keep) console.log(`vite app: kept ${app}`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

try {
  main();
} catch (e) {
  console.error(`vite app FAILED: ${e.message ?? e}`);
  process.exit(1);
}
