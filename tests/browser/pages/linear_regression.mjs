// The linear-regression trajectory of tests/trajectories (nn.Linear(2, 1), MSELoss, SGD lr 0.1,
// full batch, 201 steps) trained through borch-ts's nn and optim, each step inside a scope;
// every loss and the final parameters are compared with the torch run the JSON recorded (the
// reference the Rust replay in borch-goldens/tests/trajectories.rs also checks against). No DOM
// and no fetch: the browser page (trajectory.mjs) and the Node runner (tests/node/run.mjs) hand
// it the package, the recipe and a log function.

import { check, checks } from './checks.mjs';

const TOL = 1e-5;

// A tensor from the trajectory JSON's {shape, data}.
function fromJson(borch, t) {
  return borch.tensor(Float32Array.from(t.data)).reshape(t.shape);
}

// Trains and compares (init() done by the caller); throws at the first step that disagrees.
// Logs `trajectory[<label>] linear_regression: … [<adapter>]` and resolves to a summary.
export async function trainLinearRegression({ borch, recipe, log, label, adapter }) {
  const { nn, optim } = borch;
  log(`reference: tests/trajectories/linear_regression.json (torch ${recipe.torch}), ${recipe.steps} steps, ${JSON.stringify(recipe.config)}`);
  const x = borch.keepAlive(fromJson(borch, recipe.data.x));
  const y = borch.keepAlive(fromJson(borch, recipe.data.y));

  const model = new nn.Linear(2, 1);
  const init = Object.fromEntries(recipe.init.map((p) => [p.name, fromJson(borch, p)]));
  const keys = model.loadStateDict(init);
  check('loadStateDict keys', keys.missingKeys.length === 0 && keys.unexpectedKeys.length === 0, JSON.stringify(keys));
  const opt = new optim.SGD(model.parameters(), { lr: recipe.config.lr });
  const mse = new nn.MSELoss();
  log(`model: ${model}`);

  const t0 = performance.now();
  let worstLoss = 0;
  for (let step = 0; step < recipe.steps; step++) {
    const loss = await borch.scope(async () => {
      opt.zeroGrad();
      const loss = mse.call(model.call(x), y);
      loss.backward();
      opt.step();
      return loss.item();
    });
    const want = recipe.loss[step];
    const rel = Math.abs(loss - want) / Math.max(Math.abs(want), 1e-12);
    worstLoss = Math.max(worstLoss, rel);
    check(`step ${step} loss`, rel <= TOL, `(got ${loss}, torch ${want}, rel diff ${rel.toExponential(2)})`);
  }
  const ms = (performance.now() - t0) / recipe.steps;

  let worstParam = 0;
  for (const [name, t] of model.namedParameters()) {
    const want = recipe.final.find((p) => p.name === name);
    const got = (await t.toArray()).flat();
    check(`final ${name} size`, got.length === want.data.length, `(got ${got.length} values, torch ${want.data.length})`);
    got.forEach((g, i) => {
      const w = Math.fround(want.data[i]);
      const diff = Math.abs(g - w);
      worstParam = Math.max(worstParam, diff);
      check(`final ${name}[${i}]`, diff <= TOL, `(got ${g}, torch ${w})`);
    });
  }
  log(`trajectory[${label}] linear_regression: ${recipe.steps} steps agree with torch (max rel loss diff ${worstLoss.toExponential(2)}, max abs final-parameter diff ${worstParam.toExponential(2)}, tolerance ${TOL}) ${ms.toFixed(2)} ms/step [${adapter}]`);
  return `${checks()} checks passed; max rel loss diff ${worstLoss.toExponential(2)}, max abs param diff ${worstParam.toExponential(2)}`;
}
