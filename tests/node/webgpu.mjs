// Node has no WebGPU of its own: this gives it `navigator.gpu` from the npm package `webgpu`
// (Dawn's node bindings), a devDependency of tests/browser (one `npm ci` installs both suites'
// tools). With no GPU, Dawn's adapter is SwiftShader run as a Vulkan driver: Debian's chromium
// ships it, and VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json points the Vulkan
// loader at it (Dawn refuses lavapipe: "Vulkan shaderUniform*ArrayDynamicIndexing required").

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const require = createRequire(new URL('../browser/package.json', import.meta.url));

// Installs navigator.gpu and Dawn's WebGPU classes on globalThis; resolves to webgpu's version.
export async function installWebGpu() {
  let path;
  try {
    path = require.resolve('webgpu');
  } catch {
    throw new Error('the npm package webgpu is not installed: run (cd tests/browser && npm ci)');
  }
  const { version } = JSON.parse(readFileSync(require.resolve('webgpu/package.json'), 'utf8'));
  const { create, globals } = await import(pathToFileURL(path).href);
  Object.assign(globalThis, globals);
  // wgpu's browser backend finds navigator.gpu through the global object only when it looks like
  // a window (it checks that `Window` is defined).
  globalThis.Window ??= class {};
  Object.defineProperty(globalThis, 'navigator', { value: { gpu: create([]) }, configurable: true, writable: true });
  return version;
}
