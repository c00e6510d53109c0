// The ResNet trajectory page: resnet_trajectory.mjs through borch-ts in this browser, against
// tests/trajectories/cifar_resnet18_w8.json (fetched from the test server).

import { borch, log, run, start } from './common.mjs';
import { trainResnet } from './resnet_trajectory.mjs';

async function main() {
  const adapter = (await start()).slice('adapter: '.length);
  const recipe = await (await fetch('/tests/trajectories/cifar_resnet18_w8.json')).json();
  return trainResnet({ borch, recipe, log, label: 'js', adapter });
}

run(main);
