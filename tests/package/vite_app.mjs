#!/usr/bin/env node
// A new user's Vite + TypeScript app, made the official way: create-vite (pinned in
// tests/package/package.json) with its vanilla-ts template, in a temporary folder. Its
// tsconfig.json is kept except `skipLibCheck`, set to false so that the package's .d.ts files are
// checked under the template's own `lib` and TypeScript; src/main.ts is replaced by a small
// training step through borch-ts; `npm install <tarball>` installs the template's
// devDependencies and the package; `npm run build` (the template's `tsc && vite build`) must
// pass and emit the .wasm beside the bundle. Then the app runs in headless Chromium (WebGPU on
// SwiftShader, started by tests/browser/run.mjs's startChromium) twice: the built dist/ served
// as static files, and the template's dev server (`vite`, what `npm run dev` starts); each must
// show the training step's result.
//
//   node tests/package/vite_app.mjs [path/to/borch-ts-<version>.tgz] [--keep]

import { execFileSync, spawn } from 'node:child_process';
import { createReadStream, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startChromium } from '../browser/run.mjs';
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

const MIME = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.wasm': 'application/wasm', '.svg': 'image/svg+xml' };

// dist/ as static files on 127.0.0.1 (a random port).
function serveDist(root) {
  const server = createServer((req, res) => {
    const path = new URL(req.url, 'http://127.0.0.1').pathname;
    const file = resolve(root, `.${path === '/' ? '/index.html' : path}`);
    let ok = file.startsWith(root + sep);
    try {
      ok &&= statSync(file).isFile();
    } catch {
      ok = false;
    }
    if (!ok) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': MIME[extname(file)] ?? 'application/octet-stream' });
    createReadStream(file).pipe(res);
  });
  return new Promise((done) => server.listen(0, '127.0.0.1', () => done(server)));
}

// The template's dev server (`vite --port P --strictPort`), resolved once it prints its URL.
function devServer(app) {
  const port = 20000 + Math.floor(Math.random() * 20000);
  const child = spawn(process.execPath, [join(app, 'node_modules', 'vite', 'bin', 'vite.js'), '--port', String(port), '--strictPort', '--host', '127.0.0.1'], {
    cwd: app,
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  return new Promise((done, fail) => {
    const timer = setTimeout(() => {
      child.kill('SIGTERM');
      fail(new Error(`vite's dev server did not start in 60 s:\n${log}`));
    }, 60_000);
    const read = (d) => {
      log += d;
      // Vite colours the port (bold) when it thinks the terminal can show it.
      if (log.replace(/\x1b\[[0-9;]*m/g, '').includes(`:${port}/`)) {
        clearTimeout(timer);
        done({ url: `http://127.0.0.1:${port}/`, stop: () => child.kill('SIGTERM') });
      }
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.on('exit', (code) => fail(new Error(`vite's dev server exited (${code}):\n${log}`)));
  });
}

// What the app's #app shows after its training step, opened at `url` in Chromium.
async function shown(browser, url) {
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  try {
    await page.goto(url);
    await page.waitForFunction(() => /^(loss|no WebGPU)|Error/.test(document.querySelector('#app')?.textContent ?? ''), null, { timeout: 120_000 });
    return [await page.textContent('#app'), ...errors].join('; ');
  } finally {
    await page.close();
  }
}

// "loss 0.9002, grad 8x2, true, false": a loss, the first layer's grad shape, item<'bool'>(), and
// noGrad's output not recording.
const RAN = /^loss \d+\.\d{4}, grad 8x2, (true|false), false$/;

async function runApp(app) {
  const server = await serveDist(join(app, 'dist'));
  const chrome = await startChromium();
  let dev = null;
  try {
    const built = await shown(chrome.browser, `http://127.0.0.1:${server.address().port}/`);
    if (!RAN.test(built)) throw new Error(`the built app in Chromium shows: ${built}`);
    dev = await devServer(app);
    const served = await shown(chrome.browser, dev.url);
    if (!RAN.test(served)) throw new Error(`the app under vite's dev server shows: ${served}`);
    return `Chromium ${chrome.version}: dist/ and the dev server both show "${built}"`;
  } finally {
    dev?.stop();
    server.close();
    await chrome.close();
  }
}

async function main() {
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
    const ran = await runApp(app);
    console.log(
      `vite app: built (create-vite ${version(here, 'create-vite')} --template vanilla-ts, typescript ` +
        `${version(app, 'typescript')}, vite ${version(app, 'vite')}, skipLibCheck false; \`tsc && vite build\`: ` +
        `${bundle} ${(size(bundle) / 1e3).toFixed(0)} kB, ${wasm} ${(size(wasm) / 1e6).toFixed(2)} MB), and ran (${ran})`,
    );
  } finally {
    if (keep) console.log(`vite app: kept ${app}`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(`vite app FAILED: ${e.message ?? e}`);
  process.exit(1);
});
