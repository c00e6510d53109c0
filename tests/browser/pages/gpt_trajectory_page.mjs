// The GPT trajectory page: gpt_trajectory.mjs through borch-ts in this browser, against
// tests/trajectories/char_gpt.json and data/sonnets/sonnets.txt (fetched from the test server).

import { borch, log, run, start } from './common.mjs';
import { trainGpt } from './gpt_trajectory.mjs';

async function main() {
  const adapter = (await start()).slice('adapter: '.length);
  const recipe = await (await fetch('/tests/trajectories/char_gpt.json')).json();
  const text = await (await fetch(`/${recipe.config.text}`)).text();
  return trainGpt({ borch, recipe, text, log, label: 'js', adapter });
}

run(main);
