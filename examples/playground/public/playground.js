// `import { plot, loadDigits } from 'playground'` in the playground's JavaScript mode: the
// page's hooks (the page's import map points 'playground' here). The page sets
// globalThis.__playgroundHooks before it runs any example.
const hooks = () => {
  if (!globalThis.__playgroundHooks) throw new Error("'playground' is the playground page's own module: run this code in the playground");
  return globalThis.__playgroundHooks;
};

/** Add one point to the live chart (series `name`, default "loss"): plot(await loss.item()). */
export function plot(value, name = 'loss') {
  hooks().plot(value, name);
}

/** The bundled 8×8 digits as tensors: { X: [1797, 1, 8, 8] float32 in [0, 1], y: [1797] int64 }. */
export function loadDigits() {
  return hooks().loadDigits();
}
