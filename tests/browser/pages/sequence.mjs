// The recurrent, attention and transformer modules through borch-ts in Chromium against torch:
// the forward cases of tests/nn/cases.json with a tuple output or forward keywords, and every
// case of the option sweep tests/nn/sequence_sweep.json, by the rules of module_cases.mjs (shared
// with tests/node/recurrent.mjs). `?filter=<substring>` runs a subset.

import { borch, log, run, start } from './common.mjs';
import { runModuleCases, treeCases } from './module_cases.mjs';

async function main() {
  const adapter = (await start()).slice('adapter: '.length);
  const filter = new URLSearchParams(location.search).get('filter') ?? '';
  const read = async (file) => JSON.parse(await (await fetch(`/tests/nn/${file}`)).text());
  const picked = (cases) => cases.filter((c) => c.name.includes(filter));
  const results = [
    ['cases.json (tuple outputs, forward keywords)', await runModuleCases(borch, picked(treeCases(await read('cases.json'))))],
    ['sequence_sweep.json', await runModuleCases(borch, picked((await read('sequence_sweep.json')).forward))],
  ];
  let count = 0;
  const failures = [];
  for (const [what, r] of results) {
    log(`sequence[js] ${what}: ${r.agreeing} agreeing / ${r.count} cases, ${r.count - r.agreeing} disagreeing [${adapter}]`);
    count += r.count;
    failures.push(...r.failures);
  }
  for (const f of failures) log(`  ${f}`);
  if (count === 0 || failures.length) throw new Error(`${failures.length} disagreements in ${count} cases`);
  return `sequence[js]: ${count} agreeing / ${count} cases [${adapter}]`;
}

run(main);
