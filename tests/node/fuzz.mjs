#!/usr/bin/env node
// A seeded fuzz test of borch-ts under Node on Dawn: N random hostile calls (default 20000) over
// everything the package offers (fuzz_calls.mjs), each judged (fuzz_judge.mjs): ok, clean error,
// trap, hang, wrong numel; a health probe after every 25 calls and after every finding; memory
// (pooled(), memory(), process RSS, wasm memory) at start, after warm-up and at the end. Prints
//
//   fuzz[node]: N calls, E clean errors, O ok, T traps, H hangs, W wrong numels, U unhealthy [adapter]
//
// and, for each distinct finding, how often it happened and the first call that showed it, as one
// line of JavaScript over `torch` (the package's namespace). Exits non-zero on any finding.
// Every call is seeded by (seed, index): `--from I --calls 1` replays call I alone.
//
//   VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json node tests/node/fuzz.mjs \
//     [--target-dir DIR] [--seed S] [--calls N] [--from I] [--limit-ms MS] [--rss-check] [--verbose]
//
// --rss-check: 10000 calls (or --calls), memory sampled every 1000 calls after a gc, and a verdict
// on whether RSS and pooled() stay flat after warm-up (reported, not failed: see docs/fuzz.md).

import { spawnSync } from 'node:child_process';
import { readFileSync, writeSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { installWebGpu } from './webgpu.mjs';
import { rng } from './fuzz_values.mjs';
import { catalog, drawCall } from './fuzz_calls.mjs';
import { healthy, judgeError, judgeTensor, tensorsIn, within } from './fuzz_judge.mjs';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const USAGE = 'usage: node tests/node/fuzz.mjs [--target-dir DIR] [--seed S] [--calls N] [--from I] [--limit-ms MS] [--rss-check] [--verbose]';
const BATCH = 50;
const PROBE_EVERY = 25;
const WATCHDOG_MS = 60000;

function parseArgs(argv) {
  const a = {
    targetDir: process.env.CARGO_TARGET_DIR ? resolve(repo, process.env.CARGO_TARGET_DIR) : join(repo, 'target'),
    seed: 1, calls: null, from: 0, limitMs: 2000, rssCheck: false, verbose: false, show: 12, child: false, later: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => argv[++i] ?? fail(`${arg} needs a value\n${USAGE}`, 2);
    const number = () => {
      const n = Number(value());
      return Number.isSafeInteger(n) && n >= 0 ? n : fail(`${arg} needs a non-negative integer\n${USAGE}`, 2);
    };
    if (arg === '--target-dir') a.targetDir = resolve(value());
    else if (arg === '--seed') a.seed = number();
    else if (arg === '--calls') a.calls = number();
    else if (arg === '--from') a.from = number();
    else if (arg === '--limit-ms') a.limitMs = number();
    else if (arg === '--show') a.show = number();
    else if (arg === '--rss-check') a.rssCheck = true;
    else if (arg === '--verbose') a.verbose = true;
    else if (arg === '--child') a.child = true;
    else if (arg === '--later') a.later = true;
    else fail(`unknown argument ${arg}\n${USAGE}`, 2);
  }
  a.calls ??= a.rssCheck ? 10000 : 20000;
  return a;
}

function fail(message, code = 1) {
  console.error(`fuzz[node]: FAILED: ${message}`);
  process.exit(code);
}

// A call that never returns cannot be timed from this thread: a worker watches a shared clock
// and, past WATCHDOG_MS, writes the call to stderr and kills the process.
function watchdog() {
  const shared = new SharedArrayBuffer(8 + 8192);
  const state = new Int32Array(shared, 0, 2);
  const text = new Uint8Array(shared, 8);
  const code = `
    const { workerData } = require('node:worker_threads');
    const { writeSync } = require('node:fs');
    const state = new Int32Array(workerData.shared, 0, 2);
    const text = new Uint8Array(workerData.shared, 8);
    setInterval(() => {
      const started = Atomics.load(state, 0);
      if (started > 0 && Date.now() - workerData.t0 - started > ${WATCHDOG_MS}) {
        const src = new TextDecoder().decode(text.slice(0, Atomics.load(state, 1)));
        writeSync(2, 'fuzz[node]: FAILED: hang: a call has not returned after ${WATCHDOG_MS} ms:\\n  ' + src + '\\n');
        process.kill(process.pid, 'SIGKILL');
      }
    }, 250);`;
  const t0 = Date.now();
  const worker = new Worker(code, { eval: true, workerData: { shared, t0 } });
  worker.unref();
  const encoder = new TextEncoder();
  return {
    enter(src) {
      const { written } = encoder.encodeInto(src, text);
      Atomics.store(state, 1, written);
      Atomics.store(state, 0, Math.max(1, Date.now() - t0));
    },
    leave: () => Atomics.store(state, 0, 0),
  };
}

// The per-call generator: seeded by (seed, index), so any call can be replayed alone.
const callRng = (seed, i) => rng(Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(i + 1, 0xc2b2ae35));

async function memoryLine(torch, wasmMemory, label, quiet) {
  if (typeof globalThis.gc === 'function') globalThis.gc();
  const p = torch.pooled();
  const m = torch.memory();
  const { rss, heapUsed, external } = process.memoryUsage();
  const wasm = wasmMemory();
  const mb = (b) => (b / 2 ** 20).toFixed(1);
  if (!quiet) console.log(`fuzz[node] memory ${label}: pooled() ${p.buffers} buffers / ${mb(p.bytes)} MB, memory() ${m.buffers} buffers / ${mb(m.bytes)} MB, RSS ${mb(rss)} MB (JS heap ${mb(heapUsed)} MB, external ${mb(external)} MB), wasm memory ${mb(wasm)} MB`);
  return { pooled: p.bytes, pooledBuffers: p.buffers, live: m.bytes, rss, wasm };
}

// One call: run its source, await what it returns, judge it and the tensors it returns.
async function oneCall(torch, src, limitMs, dog) {
  const fn = new Function('torch', `return (${src});`);
  const started = performance.now();
  let value;
  dog.enter(src);
  try {
    value = fn(torch);
  } catch (e) {
    dog.leave();
    const j = judgeError(e, torch);
    if (j.kind === 'clean' && performance.now() - started > limitMs) return { kind: 'hang', why: `threw after ${(performance.now() - started).toFixed(0)} ms` };
    return j;
  }
  dog.leave();
  if (performance.now() - started > limitMs) return { kind: 'hang', why: `returned after ${(performance.now() - started).toFixed(0)} ms` };
  try {
    if (value && typeof value.then === 'function') value = await within(value, limitMs, 'the returned promise');
  } catch (e) {
    return judgeError(e, torch);
  }
  for (const t of tensorsIn(value, torch)) {
    const wrong = await judgeTensor(t, torch, limitMs);
    if (wrong) return wrong;
  }
  if (value && typeof value === 'object' && !(value instanceof torch.Tensor) && typeof value.free === 'function') {
    try {
      value.free();
    } catch {
      // Freeing what a call returned is housekeeping; a failure here is not the call's outcome.
    }
  }
  return { kind: 'ok' };
}

// Findings grouped by what went wrong (numbers and quoted text taken out; a panic's message names
// its file and line) and the family of the object involved (nn, optim, lrScheduler, torch), the
// first call kept; groups from several processes merge by the same key.
function group(findings, groups = new Map()) {
  for (const f of findings) {
    const subject = f.src.match(/new torch\.(nn|optim\.lrScheduler|optim)\./)?.[1] ?? 'torch';
    const key = f.key ?? `${f.kind}|${f.why.replace(/\d+(\.\d+)?(e[+-]?\d+)?/g, 'N').replace(/'[^']*'|"[^"]*"/g, 'S')}|${subject}`;
    const g = groups.get(key);
    if (g) g.count += f.count ?? 1;
    else groups.set(key, { kind: f.kind, why: f.why, src: f.src, i: f.i, key, count: f.count ?? 1 });
  }
  return [...groups.values()];
}

// One process's share of the calls, from --from: stops early when the instance no longer
// computes, and ends with one `fuzz-json:` line for the supervisor.
async function child(args) {
  const webgpu = await installWebGpu();
  const pkg = join(args.targetDir, 'borch-ts');
  const torch = await import(pathToFileURL(join(pkg, 'index.js')).href).catch((e) => fail(`cannot import ${pkg}/index.js (run cargo xtask build-js first): ${e.message}`));
  const found = await torch.init().catch((e) => fail(`init() failed: ${e.message}. Without a GPU: VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json`));
  const a = found.adapter ?? found;
  const adapter = `${a.vendor} / ${a.architecture} (Node ${process.version}, npm webgpu ${webgpu} (Dawn)${found.software ? ', software' : ''})`;
  const glue = await import(pathToFileURL(join(pkg, 'borch_js.js')).href);
  const exports = await glue.default();
  const wasmMemory = () => exports?.memory?.buffer?.byteLength ?? NaN;
  const signatures = JSON.parse(readFileSync(join(pkg, 'signatures.json'), 'utf8'));
  const cat = catalog(torch, signatures);
  if (args.from === 0) console.log(`fuzz[node]: seed ${args.seed}, ${signatures.length} catalog entries, ${cat.modules.length} nn classes, ${cat.optimizers.length} optimizers, ${cat.schedulers.length} schedulers, ${cat.functions.length} other functions [${adapter}]`);
  const tally = { ok: 0, clean: 0, trap: 0, hang: 0, 'wrong numel': 0, unhealthy: 0 };
  const findings = [];
  // After a fresh start only --rss-check prints memory again (the first process's figures are the
  // run's).
  const quiet = args.later && !args.rssCheck;
  const samples = [await memoryLine(torch, wasmMemory, 'at start', quiet)];
  const warmup = Math.min(1000, Math.floor(args.calls / 10));
  const sampleEvery = args.rssCheck ? 1000 : Infinity;
  const started = performance.now();
  let done = 0;
  let sinceProbe = [];
  let broken = null;
  const dog = watchdog();
  // A panic's message (printed by borch's panic hook) and errors thrown outside any awaited
  // call (a callback of the GPU) belong to the call in progress.
  let current = null;
  let panics = [];
  const printError = console.error;
  console.error = (...xs) => (current ? panics.push(xs.join(' ').split('\n').slice(0, 2).join(' ')) : printError(...xs));
  const uncaught = (e) => findings.push({ ...judgeError(e, torch), why: `uncaught, during or after call ${current?.i}: ${e?.message ?? e}`, src: current?.src ?? '(between calls)', i: current?.i ?? -1 });
  process.on('uncaughtException', uncaught);
  process.on('unhandledRejection', uncaught);
  // Node ends a process whose pending promises can no longer settle (nothing left to run): that
  // is the call in progress never finishing.
  let reported = false;
  const report = (result) => {
    reported = true;
    const bytes = Buffer.from(`fuzz-json:${JSON.stringify({ ...result, findings: group(result.findings) })}\n`);
    for (let at = 0; at < bytes.length;) {
      try {
        at += writeSync(1, bytes, at);
      } catch (e) {
        if (e.code !== 'EAGAIN') throw e;
      }
    }
  };
  process.on('exit', () => {
    if (reported) return;
    const f = { kind: 'hang', why: 'it never settles (Node found nothing left to run while waiting for it)', src: current?.src ?? '', i: current?.i ?? args.from };
    tally.hang++;
    done++;
    findings.push(f);
    report({ done, tally, findings, broken: f, seconds: (performance.now() - started) / 1000, adapter });
  });
  const probe = async (i) => {
    const why = await healthy(torch, args.limitMs);
    if (why) {
      tally.unhealthy++;
      const suspects = sinceProbe.filter((s) => s.kind !== 'ok' && s.kind !== 'clean');
      const last = suspects.at(-1) ?? sinceProbe.at(-1) ?? { i, src: '(no call)' };
      broken = { kind: 'unhealthy', why: `${why} (after call ${last.i}; calls ${sinceProbe[0]?.i}..${i} since the last good probe)`, src: last.src, i: last.i };
      findings.push(broken);
    }
    sinceProbe = [];
  };
  for (let b = args.from; b < args.from + args.calls && !broken; b += BATCH) {
    const end = Math.min(b + BATCH, args.from + args.calls);
    try {
      await torch.scope(async () => {
        for (let i = b; i < end && !broken; i++) {
          const src = drawCall(callRng(args.seed, i), torch, cat);
          current = { i, src };
          panics = [];
          const outcome = await oneCall(torch, src, args.limitMs, dog);
          if (panics.length) outcome.why = `${outcome.why ?? outcome.kind} (${panics.join('; ')})`;
          if (panics.length && outcome.kind !== 'hang') outcome.kind = 'trap';
          tally[outcome.kind]++;
          done++;
          sinceProbe.push({ i, src, kind: outcome.kind });
          if (args.verbose) console.log(`#${i} ${outcome.kind}${outcome.why ? ` (${outcome.why})` : ''}: ${src}`);
          if (outcome.kind !== 'ok' && outcome.kind !== 'clean') findings.push({ ...outcome, src, i });
          if (outcome.fatal || findings.at(-1)?.fatal) broken = findings.at(-1);
          else if (outcome.kind !== 'ok' && outcome.kind !== 'clean') await probe(i);
          else if (sinceProbe.length >= PROBE_EVERY) await probe(i);
          if (done === warmup) samples.push(await memoryLine(torch, wasmMemory, `after warm-up (${warmup} calls)`, quiet));
          else if (done % sampleEvery === 0) samples.push(await memoryLine(torch, wasmMemory, `after ${done} calls`, quiet));
        }
      });
    } catch (e) {
      const j = judgeError(e, torch);
      if (j.kind !== 'clean') findings.push({ ...j, why: `ending the batch's scope: ${j.why}`, src: `(calls ${b}..${end - 1})`, i: b });
    }
  }
  if (!broken) await probe(args.from + done);
  const seconds = (performance.now() - started) / 1000;
  samples.push(await memoryLine(torch, wasmMemory, `at the end (${done} calls, ${seconds.toFixed(1)} s)`, quiet));
  if (args.rssCheck) rssVerdict(samples);
  report({ done, tally, findings, broken, seconds, adapter });
  process.exit(0);
}

function rssVerdict(samples) {
  const base = samples[1] ?? samples[0];
  const last = samples.at(-1);
  const mb = (b) => (b / 2 ** 20).toFixed(1);
  const flat = (from, to) => to - from <= Math.max(from * 0.1, 16 * 2 ** 20);
  console.log(`fuzz[node] rss-check: after warm-up → end: RSS ${mb(base.rss)} → ${mb(last.rss)} MB (${flat(base.rss, last.rss) ? 'flat' : 'GROWS'}), ` +
    `pooled() ${base.pooledBuffers} → ${last.pooledBuffers} buffers / ${mb(base.pooled)} → ${mb(last.pooled)} MB (${flat(base.pooled, last.pooled) ? 'flat' : 'GROWS'}), ` +
    `wasm memory ${mb(base.wasm)} → ${mb(last.wasm)} MB, memory() ${mb(base.live)} → ${mb(last.live)} MB`);
}

// Runs the calls in child processes (with --expose-gc, so a gc before each memory sample makes
// RSS figures comparable): when a call leaves the instance unable to compute, the next child
// goes on after it, so one run lists every finding, not only the first fatal one.
function supervise(args) {
  const script = fileURLToPath(import.meta.url);
  const pass = process.argv.slice(2).filter((x, i, all) => !['--from', '--calls'].includes(x) && !['--from', '--calls'].includes(all[i - 1]));
  const total = { ok: 0, clean: 0, trap: 0, hang: 0, 'wrong numel': 0, unhealthy: 0 };
  const groups = new Map();
  let from = args.from;
  let seconds = 0;
  let adapter = '';
  let restarts = 0;
  while (from < args.from + args.calls) {
    const calls = args.from + args.calls - from;
    const run = spawnSync(process.execPath, ['--expose-gc', script, ...pass, '--child', ...(restarts ? ['--later'] : []), '--from', String(from), '--calls', String(calls)], {
      stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8', maxBuffer: 1 << 28,
    });
    const lines = (run.stdout ?? '').split('\n');
    const json = lines.find((l) => l.startsWith('fuzz-json:'));
    for (const l of lines) if (l && !l.startsWith('fuzz-json:')) console.log(l);
    if (!json) fail(`the fuzzing process for calls ${from}.. ended without a result (status ${run.status}, signal ${run.signal})`);
    const r = JSON.parse(json.slice('fuzz-json:'.length));
    for (const k of Object.keys(total)) total[k] += r.tally[k];
    group(r.findings, groups);
    seconds += r.seconds;
    adapter = r.adapter;
    if (!r.broken || r.broken.i + 1 >= args.from + args.calls) break;
    restarts++;
    if (args.verbose) console.log(`fuzz[node]: call ${r.broken.i} left the instance unusable; a fresh process goes on from call ${r.broken.i + 1}`);
    from = r.broken.i + 1;
  }
  const distinct = [...groups.values()];
  for (const g of distinct.slice(0, args.show)) {
    console.log(`fuzz[node] ${g.kind} ×${g.count}: ${g.why}\n    call ${g.i}: ${g.src}`);
  }
  if (distinct.length > args.show) console.log(`fuzz[node]: … and ${distinct.length - args.show} more distinct findings (--show N)`);
  const done = Object.values(total).reduce((a, b) => a + b, 0) - total.unhealthy;
  const fresh = restarts ? `, ${restarts} fresh instances after a trap or an unhealthy probe` : '';
  console.log(`fuzz[node]: ${done} calls, ${total.clean} clean errors, ${total.ok} ok, ${total.trap} traps, ${total.hang} hangs, ${total['wrong numel']} wrong numels, ${total.unhealthy} unhealthy in ${seconds.toFixed(1)} s${fresh} [${adapter}]`);
  process.exit(distinct.length ? 1 : 0);
}

const args = parseArgs(process.argv.slice(2));
if (args.child) child(args).catch((e) => fail(e.stack ?? e));
else supervise(args);
