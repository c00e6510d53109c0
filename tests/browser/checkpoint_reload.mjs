#!/usr/bin/env node
// The checkpoint example (examples/browser/checkpoint.html) across reloads: the first visit
// trains, saves torch.save(model.stateDict()) in IndexedDB and reports its outputs; a second
// visit in the same browser, and a third after Chromium is stopped and started again on the same
// profile directory, must find the checkpoint, load it into a fresh model and give exactly the
// saved outputs. One server throughout, so the origin (and its IndexedDB) stays the same.
//
//   node tests/browser/checkpoint_reload.mjs

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultTargetDir, repo, runPage, serve, startChromium } from './run.mjs';

const page = { path: join(repo, 'examples', 'browser', 'checkpoint.html'), query: '', timeout: 300, screenshot: null };
const profile = mkdtempSync(join(tmpdir(), 'borch-checkpoint-profile-'));
const server = await serve(defaultTargetDir());
const base = `http://127.0.0.1:${server.address().port}`;
const failures = [];
const check = (what, ok) => {
  console.log(`${ok ? 'ok' : 'FAILED'} ${what}`);
  if (!ok) failures.push(what);
};
let chrome = null;
try {
  chrome = await startChromium(profile);
  const first = await runPage(chrome.browser, base, page, 0, 3);
  check('first visit trains and saves', first.ok && first.result?.phase === 'saved');
  const saved = JSON.stringify(first.result?.outputs);
  const second = await runPage(chrome.browser, base, page, 1, 3);
  check('reload: restored from IndexedDB, the saved outputs', second.ok && second.result?.phase === 'restored'
    && JSON.stringify(second.result.outputs) === saved);
  await chrome.close();
  chrome = null;
  chrome = await startChromium(profile);
  const third = await runPage(chrome.browser, base, page, 2, 3);
  check('Chromium restarted on the same profile: the saved outputs', third.ok && third.result?.phase === 'restored'
    && JSON.stringify(third.result.outputs) === saved);
} catch (e) {
  check(`runs: ${e.stack ?? e}`, false);
} finally {
  if (chrome) await chrome.close();
  server.close();
  rmSync(profile, { recursive: true, force: true });
}
console.log(`checkpoint reload: ${3 - failures.length} / 3 checks passed`);
process.exit(failures.length === 0 ? 0 : 1);
