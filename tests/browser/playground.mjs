#!/usr/bin/env node
// The playground page (examples/playground/, built by `cargo xtask playground --no-serve` into
// <target>/playground/) in headless Chromium on WebGPU (SwiftShader here), driven as a user does:
// for each mode (JavaScript, then Python) and each example of the page's list, click the mode,
// the example and Run, then judge the run by the example's `checks` (examples/playground/src/
// examples.js): no error, the expected lines printed, losses falling, the held-out accuracy, the
// number of plot() points, the chart redrawn while the run went on, dispatches and submits
// counted. The printed losses must be the same in both modes (one program written twice, one
// core, one seed). A second tab with navigator.gpu removed must show the no-WebGPU message with
// Run disabled, and a wrong program typed into the editor must show borch's error in each mode.
// Saves a screenshot after the last run (the CNN in Python, its loss on the chart):
// <target>/playground/screenshot.png.
//
//   node tests/browser/playground.mjs [--target-dir DIR]

import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { defaultTargetDir, serve, startChromium } from './run.mjs';

const args = process.argv.slice(2);
const targetDir = args[0] === '--target-dir' && args[1] ? resolve(args[1]) : defaultTargetDir();
const PAGE = '/target/playground/index.html';
if (!existsSync(join(targetDir, 'playground/index.html'))) {
  console.error(`no ${join(targetDir, 'playground/index.html')}: run cargo xtask playground --no-serve first`);
  process.exit(1);
}

const failures = [];
const fail = (what) => {
  failures.push(what);
  console.log(`[playground] FAILED: ${what}`);
};
const local = (url) => /^(data|blob|about|chrome|devtools):/.test(url) || new URL(url).hostname === '127.0.0.1';

function watch(tab, name) {
  const foreign = new Set();
  tab.on('pageerror', (e) => fail(`${name}: uncaught ${e.stack ?? e}`));
  tab.on('crash', () => fail(`${name}: the page crashed`));
  tab.on('request', (r) => {
    if (!local(r.url())) foreign.add(r.url());
  });
  tab.on('response', (r) => {
    if (r.status() >= 400) fail(`${name}: HTTP ${r.status()} for ${r.url()}`);
  });
  tab.on('console', (m) => {
    if (m.type() === 'error') console.log(`[${name}] console error: ${m.text()}`);
    if (m.text().startsWith('borch panicked')) fail(`${name}: wasm panic: ${m.text()}`);
  });
  return foreign;
}

function judge(entry, example) {
  const where = `${entry.mode} ${example.id}`;
  const c = example.checks ?? {};
  if (!entry.ok) return fail(`${where}: ${entry.error}\n${entry.lines.join('\n')}`);
  for (const s of c.prints ?? []) if (!entry.lines.some((l) => l.includes(s))) fail(`${where}: no line contains ${JSON.stringify(s)}`);
  let facts = '';
  if (c.losses) {
    const re = new RegExp(c.losses);
    const losses = entry.lines.map((l) => re.exec(l.trim())).filter(Boolean).map((m) => Number(m[1]));
    if (losses.length < 2 || !(losses.at(-1) < losses[0])) fail(`${where}: losses do not fall: ${losses.join(', ')}`);
    facts += `, losses ${losses[0]} → ${losses.at(-1)}`;
    entry.losses = losses;
  }
  if (c.accuracy !== undefined) {
    const m = entry.lines.map((l) => /held-out accuracy ([\d.]+)%/.exec(l)).find(Boolean);
    if (!m) fail(`${where}: no held-out accuracy printed`);
    else if (!(Number(m[1]) >= c.accuracy)) fail(`${where}: held-out accuracy ${m[1]}% < ${c.accuracy}%`);
    facts += m ? `, accuracy ${m[1]}%` : '';
  }
  if (c.plotted !== undefined && entry.points !== c.plotted) fail(`${where}: ${entry.points} points plotted, expected ${c.plotted}`);
  // Live: the chart was redrawn while the run went on, not only at its end.
  if (c.plotted !== undefined && !(entry.frames >= 2)) fail(`${where}: the chart was redrawn ${entry.frames} times during the run`);
  if (!(entry.dispatches > 0 && entry.submits > 0)) fail(`${where}: ${entry.dispatches} dispatches, ${entry.submits} submits`);
  console.log(
    `[playground] ${where}: ${entry.seconds.toFixed(1)} s, ${entry.lines.length} lines${facts}${entry.points ? `, ${entry.points} points (${entry.frames} redraws)` : ''}, ` +
      `${entry.dispatches} dispatches, ${entry.submits} submits, memory() ${entry.memory.buffers} buffers, pooled() ${entry.pooled.buffers} buffers`,
  );
}

const started = Date.now();
const server = await serve(targetDir);
const base = `http://127.0.0.1:${server.address().port}`;
const chrome = await startChromium();
let summary = '';
try {
  // Without WebGPU: the message, and no Run.
  const bare = await chrome.browser.newContext();
  await bare.addInitScript(() => delete Navigator.prototype.gpu);
  const noGpu = await bare.newPage();
  const noGpuForeign = watch(noGpu, 'no-webgpu');
  await noGpu.goto(`${base}${PAGE}`);
  await noGpu.waitForFunction(() => window.__playground?.state === 'no-webgpu', null, { timeout: 60_000 });
  const banner = await noGpu.evaluate(() => ({
    shown: !document.getElementById('nowebgpu').hidden,
    text: document.getElementById('nowebgpu').textContent.replace(/\s+/g, ' ').trim(),
    run: document.getElementById('run').disabled,
  }));
  if (!banner.shown || !banner.run || !banner.text.includes('navigator.gpu is missing')) fail(`no-webgpu: ${JSON.stringify(banner)}`);
  else console.log(`[playground] without WebGPU: "${banner.text.slice(0, 90)}…", Run disabled`);
  if (noGpuForeign.size) fail(`no-webgpu: requests off 127.0.0.1: ${[...noGpuForeign].join(', ')}`);
  await bare.close();

  const context = chrome.browser.contexts()[0] ?? (await chrome.browser.newContext());
  const tab = await context.newPage();
  await tab.setViewportSize({ width: 1400, height: 1000 });
  const foreign = watch(tab, 'playground');
  await tab.goto(`${base}${PAGE}`);
  await tab.waitForFunction(() => ['idle', 'broken', 'no-webgpu'].includes(window.__playground?.state), null, { timeout: 120_000 });
  const { adapter, examples, state } = await tab.evaluate(() => window.__playground);
  if (state !== 'idle') throw new Error(`the page did not start: ${state} ${await tab.textContent('#output')}`);
  console.log(`[playground] chromium ${chrome.version}, adapter ${adapter}, ${examples.length} examples`);
  const runOnce = async (start = () => tab.click('#run')) => {
    const n = await tab.evaluate(() => window.__playground.runs.length);
    await start();
    await tab.waitForFunction((k) => window.__playground.runs.length > k, n, { timeout: 300_000, polling: 250 });
    return tab.evaluate(() => window.__playground.runs.at(-1));
  };
  // A user's mistake: typed into the editor, run with Ctrl+Enter, the error shown with borch's
  // (torch's) message; the page stays usable (the examples run after it).
  const mistakes = {
    js: ["import * as torch from 'borch-ts';", 'torch.ones(2, 3).view(4);'].join('\n'),
    py: ['import borch_webgpu as torch', 'torch.ones(2, 3).view(4)'].join('\n'),
  };
  for (const [mode, code] of Object.entries(mistakes)) {
    await tab.click(`#mode-${mode}`);
    await tab.click('.cm-content');
    await tab.keyboard.press('Control+A');
    await tab.keyboard.insertText(code);
    const entry = await runOnce(() => tab.keyboard.press('Control+Enter'));
    const shown = await tab.textContent('#output .error').catch(() => '');
    if (entry.ok || !entry.error.includes("shape '[4]' is invalid for input of size 6") || !shown.includes("shape '[4]' is invalid")) {
      fail(`${mode} mistake: ok ${entry.ok}, error ${JSON.stringify(entry.error)}, shown ${JSON.stringify(shown)}`);
    } else console.log(`[playground] ${mode} mistake shown: ${entry.error.trim().split('\n').at(-1)}`);
  }
  const runs = {};
  for (const mode of ['js', 'py']) {
    await tab.click(`#mode-${mode}`);
    for (const example of examples) {
      await tab.click(`[data-example="${example.id}"]`);
      const entry = await runOnce();
      if (entry.mode !== mode || entry.example !== example.id) fail(`ran ${entry.mode} ${entry.example}, expected ${mode} ${example.id}`);
      judge(entry, example);
      runs[`${mode} ${example.id}`] = entry;
    }
  }
  // One program written twice, one core, one seed: the printed losses are the same.
  for (const example of examples.filter((e) => e.checks?.losses)) {
    const [js, py] = [runs[`js ${example.id}`]?.losses, runs[`py ${example.id}`]?.losses];
    if (js && py && js.join() !== py.join()) fail(`${example.id}: JavaScript losses ${js.join(', ')} but Python ${py.join(', ')}`);
  }
  const stats = await tab.textContent('#stats');
  const drawn = await tab.evaluate(() => document.querySelectorAll('#chart canvas').length);
  if (drawn === 0) fail('no chart drawn after the last run');
  const shot = join(targetDir, 'playground/screenshot.png');
  await tab.screenshot({ path: shot, fullPage: true });
  console.log(`[playground] after the last run: ${stats}`);
  console.log(`[playground] screenshot: ${shot}`);
  if (foreign.size) fail(`requests off 127.0.0.1: ${[...foreign].join(', ')}`);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  summary = `playground: ${Object.keys(runs).length} runs (${examples.length} examples × JavaScript and Python) in ${seconds} s [${adapter}]`;
} catch (e) {
  fail(`the test stopped: ${e.stack ?? e}`);
} finally {
  await chrome.close();
  server.close();
}
if (failures.length) {
  console.log(`[playground] ${failures.length} failure(s)`);
  process.exit(1);
}
console.log(summary);
