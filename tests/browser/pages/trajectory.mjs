// The trajectory page: the linear-regression trajectory of linear_regression.mjs through borch-ts
// in this browser, against tests/trajectories/linear_regression.json (fetched from the test
// server).

import { borch, log, run, start } from './common.mjs';
import { trainLinearRegression } from './linear_regression.mjs';

async function main() {
  const adapter = (await start()).slice('adapter: '.length);
  const recipe = await (await fetch('/tests/trajectories/linear_regression.json')).json();
  return trainLinearRegression({ borch, recipe, log, label: 'js', adapter });
}

run(main);
