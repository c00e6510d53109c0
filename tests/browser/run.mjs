#!/usr/bin/env node
// borch's browser test runner: serves the repository on 127.0.0.1, starts Debian's Chromium
// headless with WebGPU (SwiftShader here), attaches playwright-core over CDP, and opens each page
// given on the command line. A page reports by setting `window.__borchDone` to (a promise of)
// `{ ok: boolean, summary: string }`. Fails when a page reports !ok, throws an uncaught error,
// panics the wasm instance, times out, or makes any request to anywhere but 127.0.0.1.
//
//   node tests/browser/run.mjs [--timeout S] [--screenshot out.png] [--target-dir DIR] page.html…
//
// The page is served at its path under the repository root, so it imports
// /target/borch-ts/index.js and reads /tests/golden/golden.json. /target/ maps to
// $CARGO_TARGET_DIR when that is set (or to --target-dir). A page may set its own timeout with
// <meta name="borch-timeout-s" content="900">. A query string after a page is passed to it
// (pages/golden.html?filter=abs). With several pages, --screenshot adds each page's name to the
// file name.

import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, extname, join, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { defaultTargetDir, repo, serve } from './serve.mjs';

export { defaultTargetDir, repo, serve };

const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';

function usage(message) {
  console.error(`${message}\nusage: node tests/browser/run.mjs [--timeout S] [--screenshot out.png] [--target-dir DIR] page.html…`);
  process.exit(2);
}

function parseArgs(argv) {
  const pages = [];
  let timeout = 600;
  let screenshot = null;
  let targetDir = defaultTargetDir();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => argv[++i] ?? usage(`${arg} needs a value`);
    if (arg === '--timeout') {
      timeout = Number(value());
      if (!(timeout > 0)) usage('--timeout needs a positive number of seconds');
    } else if (arg === '--screenshot') screenshot = resolve(value());
    else if (arg === '--target-dir') targetDir = resolve(value());
    else if (arg.startsWith('--')) usage(`unknown option ${arg}`);
    else {
      // A query string is passed to the page: pages/golden.html?filter=abs
      const at = arg.indexOf('?');
      pages.push(at < 0 ? { path: resolve(arg), query: '' } : { path: resolve(arg.slice(0, at)), query: arg.slice(at) });
    }
  }
  if (pages.length === 0) usage('no page given');
  for (const page of pages) Object.assign(page, { timeout, screenshot });
  return { pages, targetDir };
}

const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));

// Chromium started by us (playwright's launch adds flags that override ours), attached over CDP.
// A given profile directory is kept (checkpoint_reload.mjs starts Chromium twice on one).
export async function startChromium(profileDir = null) {
  const userDataDir = profileDir ?? mkdtempSync(join(tmpdir(), 'borch-chromium-'));
  const args = [
    '--headless=new',
    '--no-sandbox',
    '--no-first-run',
    '--no-default-browser-check',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--disable-quic',
    '--enable-unsafe-webgpu',
    // Nothing but 127.0.0.1 resolves: a request elsewhere fails fast (and is reported below).
    '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
    '--remote-debugging-address=127.0.0.1',
    '--remote-debugging-port=0',
    `--user-data-dir=${userDataDir}`,
    'about:blank',
  ];
  // A kept profile still holds the port file of the Chromium that used it last.
  const portFile = join(userDataDir, 'DevToolsActivePort');
  rmSync(portFile, { force: true });
  const child = spawn(CHROMIUM, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr = (stderr + d).slice(-8000);
  });
  let exited = null;
  child.on('exit', (code, signal) => {
    exited = `${code ?? signal}`;
  });
  child.on('error', (e) => {
    exited = String(e);
  });
  const deadline = Date.now() + 60_000;
  let port = null;
  let wsPath = null;
  while (Date.now() < deadline && exited === null) {
    if (existsSync(portFile)) {
      const [p, ws] = readFileSync(portFile, 'utf8').split('\n');
      if (p && ws) {
        port = p.trim();
        wsPath = ws.trim();
        break;
      }
    }
    await sleep(100);
  }
  const cleanup = () => {
    if (exited === null) child.kill('SIGKILL');
    if (profileDir === null) rmSync(userDataDir, { recursive: true, force: true });
  };
  if (port === null) {
    cleanup();
    throw new Error(`chromium did not start (${exited ?? 'no DevToolsActivePort after 60 s'}):\n${stderr}`);
  }
  const browser = await chromium.connectOverCDP(`ws://127.0.0.1:${port}${wsPath}`).catch((e) => {
    cleanup();
    throw e;
  });
  return {
    browser,
    version: browser.version(),
    close: async () => {
      await browser.close().catch(() => {});
      if (exited === null) {
        child.kill('SIGTERM');
        for (let i = 0; i < 50 && exited === null; i++) await sleep(100);
      }
      cleanup();
    },
  };
}

function localRequest(url) {
  if (/^(data|blob|about|chrome|devtools):/.test(url)) return true;
  try {
    return new URL(url).hostname === '127.0.0.1';
  } catch {
    return false;
  }
}

export async function runPage(browser, base, page, index, total) {
  const name = basename(page.path, extname(page.path));
  const rel = page.path.startsWith(repo + sep) ? page.path.slice(repo.length + 1).split(sep).join('/') : null;
  if (rel === null) return { name, ok: false, summary: `${page.path} is not inside the repository ${repo}` };
  const url = `${base}/${rel}${page.query}`;
  const context = browser.contexts()[0] ?? (await browser.newContext());
  const tab = await context.newPage();
  const say = (line) => console.log(`[${name}] ${line}`);
  const problems = [];
  const foreign = [];
  // An uncaught error fails the page at once (a module that fails to load never reports).
  let stopOnError;
  const uncaught = new Promise((ok) => {
    stopOnError = () => ok({ ok: false, summary: 'stopped at the first error' });
  });
  tab.on('console', (msg) => {
    const text = msg.text();
    say(msg.type() === 'log' || msg.type() === 'info' ? text : `${msg.type()}: ${text}`);
    if (text.startsWith('borch panicked')) problems.push(`wasm panic: ${text}`);
  });
  tab.on('pageerror', (e) => {
    say(`uncaught: ${e.stack ?? e}`);
    problems.push(`uncaught exception: ${e.message ?? e}`);
    stopOnError();
  });
  tab.on('crash', () => problems.push('the page crashed'));
  tab.on('request', (req) => {
    if (!localRequest(req.url())) foreign.push(req.url());
  });
  tab.on('requestfailed', (req) => {
    if (localRequest(req.url())) say(`request failed: ${req.url()} (${req.failure()?.errorText})`);
  });
  tab.on('response', (res) => {
    if (res.status() < 400) return;
    say(`HTTP ${res.status()}: ${res.url()}`);
    // A module that does not load never runs, so the page would never report.
    if (res.request().resourceType() === 'script') {
      problems.push(`a script failed to load (HTTP ${res.status()}): ${res.url()}`);
      stopOnError();
    }
  });

  const started = Date.now();
  let result;
  try {
    await tab.goto(url, { waitUntil: 'load', timeout: 60_000 });
    const own = await tab.evaluate(() => document.querySelector('meta[name="borch-timeout-s"]')?.content);
    const timeoutS = own !== undefined && Number(own) > 0 ? Number(own) : page.timeout;
    const done = tab
      .waitForFunction(() => window.__borchDone !== undefined, null, { timeout: timeoutS * 1000, polling: 250 })
      .then(() => tab.evaluate(() => Promise.resolve(window.__borchDone)));
    const timer = sleep(timeoutS * 1000).then(() => ({ ok: false, summary: `timed out after ${timeoutS} s` }));
    const crashed = new Promise((ok) => tab.once('crash', () => ok({ ok: false, summary: 'the page crashed' })));
    result = await Promise.race([done, timer, crashed, uncaught]);
    if (result === null || typeof result !== 'object') result = { ok: false, summary: `__borchDone is ${JSON.stringify(result)}` };
  } catch (e) {
    result = { ok: false, summary: `${e.message ?? e}` };
  }
  if (page.screenshot) {
    const file = total > 1 ? page.screenshot.replace(/(\.png)?$/, `-${name}.png`) : page.screenshot;
    await tab.screenshot({ path: file, fullPage: true }).then(
      () => say(`screenshot: ${file}`),
      (e) => say(`screenshot failed: ${e.message}`),
    );
  }
  await tab.close().catch(() => {});
  if (foreign.length > 0) problems.push(`requests to somewhere other than 127.0.0.1: ${[...new Set(foreign)].join(', ')}`);
  const ok = result.ok === true && problems.length === 0;
  const summary = [String(result.summary ?? ''), ...problems].filter(Boolean).join('; ');
  say(`${ok ? 'PASS' : 'FAIL'} in ${((Date.now() - started) / 1000).toFixed(1)} s: ${summary}`);
  return { name, ok, summary, result };
}

async function main() {
  const { pages, targetDir } = parseArgs(process.argv.slice(2));
  const server = await serve(targetDir);
  const base = `http://127.0.0.1:${server.address().port}`;
  let chrome = null;
  const results = [];
  const stop = async () => {
    if (chrome) await chrome.close();
    chrome = null;
    server.close();
  };
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.once(signal, () => stop().finally(() => process.exit(130)));
  }
  try {
    chrome = await startChromium();
    console.log(`chromium ${chrome.version}, serving ${repo} (and /target/ from ${targetDir}) at ${base}`);
    for (const [i, page] of pages.entries()) results.push(await runPage(chrome.browser, base, page, i, pages.length));
  } catch (e) {
    console.error(`browser tests failed to run: ${e.stack ?? e}`);
    results.push({ name: 'runner', ok: false, summary: String(e.message ?? e) });
  } finally {
    await stop();
  }
  const failed = results.filter((r) => !r.ok);
  console.log(`browser tests: ${results.length - failed.length} / ${results.length} pages passed`);
  process.exit(failed.length === 0 ? 0 : 1);
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) main();
