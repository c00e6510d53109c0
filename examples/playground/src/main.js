// The playground page: an editor in JavaScript or Python mode, the examples, Run, the printed
// output, the live chart fed by plot(), the adapter, and the device counters after each run.
// window.__playground holds each run's record for the browser test.

import * as torch from 'borch-ts';
import './style.css';
import { LiveChart } from './chart.js';
import { fetchDigits } from './digits.js';
import { createEditor } from './editor.js';
import { examples } from './examples.js';
import { paths } from './paths.js';
import { runJs } from './run_js.js';
import { runPy } from './run_py.js';

const $ = (id) => document.getElementById(id);
const record = { state: 'starting', adapter: null, runs: [], examples: examples.map(({ id, title, checks }) => ({ id, title, checks })) };
window.__playground = record;

const setState = (state, message = '') => {
  record.state = state;
  document.body.dataset.state = state;
  $('status').textContent = message;
};

const chart = new LiveChart($('chart'));
window.addEventListener('resize', () => chart.resize());
const output = $('output');
const print = (line, kind = '') => {
  const span = document.createElement('span');
  if (kind) span.className = kind;
  span.textContent = `${line}\n`;
  output.append(span);
  output.scrollTop = output.scrollHeight;
};

let mode = 'js';
let current = examples[0];
const editor = createEditor($('editor'), () => run());

function show(example) {
  current = example;
  editor.set(example[mode], mode);
  for (const b of document.querySelectorAll('#examples button')) b.classList.toggle('active', b.dataset.example === example.id);
}

function setMode(next) {
  mode = next;
  for (const b of document.querySelectorAll('#modes button')) b.classList.toggle('active', b.dataset.mode === next);
  show(current);
}

for (const example of examples) {
  const button = document.createElement('button');
  button.textContent = example.title;
  button.dataset.example = example.id;
  button.addEventListener('click', () => show(example));
  $('examples').append(button);
}
for (const b of document.querySelectorAll('#modes button')) b.addEventListener('click', () => setMode(b.dataset.mode));
$('run').addEventListener('click', () => run());

let digits = null;
const hooks = {
  plot: (value, name = 'loss') => chart.add(value, String(name)),
  loadDigits: () => ({
    X: torch.tensor(digits.pixels).reshape([digits.n, 1, 8, 8]),
    y: torch.tensor(digits.labels),
  }),
  digits: () => [digits.pixels, digits.labels],
};
globalThis.__playgroundHooks = hooks;

const size = (bytes) => (bytes < 1024 ? `${bytes} B` : bytes < 1 << 20 ? `${(bytes / 1024).toFixed(1)} KiB` : `${(bytes / (1 << 20)).toFixed(1)} MiB`);

async function run() {
  if (record.state !== 'idle') return;
  setState('running', 'running');
  $('run').disabled = true;
  output.textContent = '';
  chart.reset();
  const entry = { mode, example: current.id, ok: false, lines: [] };
  const out = (line) => {
    entry.lines.push(...String(line).split('\n'));
    print(line);
  };
  const d0 = torch.dispatches();
  const s0 = torch.submits();
  const t0 = performance.now();
  try {
    const code = editor.text;
    await torch.scope(async () => {
      if (mode === 'js') await runJs(code, out);
      else await runPy(code, out, torch, hooks, (s) => setState('running', s));
    });
    entry.ok = true;
  } catch (e) {
    entry.error = String(e?.message ?? e);
    print(e?.stack && mode === 'js' ? e.stack : entry.error, 'error');
  }
  entry.seconds = (performance.now() - t0) / 1000;
  entry.dispatches = torch.dispatches() - d0;
  entry.submits = torch.submits() - s0;
  entry.memory = torch.memory();
  entry.pooled = torch.pooled();
  entry.points = chart.points();
  entry.frames = chart.frames;
  chart.draw();
  $('stats').textContent =
    `${entry.ok ? 'finished' : 'failed'} in ${entry.seconds.toFixed(1)} s · ${entry.dispatches} dispatches · ${entry.submits} submits · ` +
    `memory() ${entry.memory.buffers} buffers / ${size(entry.memory.bytes)} · pooled() ${entry.pooled.buffers} buffers / ${size(entry.pooled.bytes)}`;
  record.runs.push(entry);
  $('run').disabled = false;
  setState('idle', '');
}

async function main() {
  setMode('js');
  const found = await torch.probe();
  if (!found.ok) {
    record.adapter = null;
    $('adapter').textContent = 'no WebGPU';
    $('nowebgpu').hidden = false;
    $('nowebgpu-why').textContent =
      found.why === 'no-api' ? 'this browser has no WebGPU API (navigator.gpu is missing)' : 'this browser has WebGPU but offered no adapter';
    $('run').disabled = true;
    setState('no-webgpu', '');
    return;
  }
  await torch.init();
  const a = found.adapter;
  record.adapter = `${a.vendor} / ${a.architecture}${a.description ? ` (${a.description})` : ''}${found.software ? ', software' : ''}`;
  $('adapter').textContent = record.adapter;
  digits = await fetchDigits(paths.digits);
  $('run').disabled = false;
  setState('idle', '');
}

main().catch((e) => {
  print(`the page failed to start: ${e?.stack ?? e}`, 'error');
  setState('broken', String(e?.message ?? e));
});
