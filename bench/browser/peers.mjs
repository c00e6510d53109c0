// The peers on the page: TF.js with its WebGPU backend, and ONNX Runtime Web with its WebGPU
// execution provider (its wasm files served from node_modules on 127.0.0.1). Each makes its own
// GPUDevice; adapterLine() names the adapter behind each device so the page can check that all
// three libraries run on the same one.

// The tfjs bundle (core with its gradients, cpu and webgl backends) re-exports tfjs-core; the
// import map points the webgpu backend's own '@tensorflow/tfjs-core' import at it, so the
// backend registers with the same engine.
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-webgpu';
import * as ort from 'onnxruntime-web/webgpu';

export { tf, ort };

const ORT_DIST = '/bench/browser/node_modules/onnxruntime-web/dist/';
const MODELS = '/bench/browser/models/';

/** "vendor / architecture (WebGPU[, software])" of a GPUAdapterInfo (and its fallback flag). */
export function adapterLine(info, software) {
  return `${info.vendor} / ${info.architecture}${info.description ? ` (${info.description})` : ''} (WebGPU${software ? ', software' : ''})`;
}

/** TF.js on WebGPU: its version and its device's adapter. */
export async function startTf() {
  const ok = await tf.setBackend('webgpu');
  if (!ok || tf.getBackend() !== 'webgpu') throw new Error(`TF.js could not start its webgpu backend (backend: ${tf.getBackend()})`);
  await tf.ready();
  const device = tf.backend().device;
  return { version: tf.version.tfjs, info: device.adapterInfo, software: device.adapterInfo?.isFallbackAdapter };
}

/** ONNX Runtime Web on its WebGPU EP: one session per committed model, GPU inputs and outputs. */
export async function startOrt() {
  ort.env.wasm.wasmPaths = ORT_DIST;
  // Threads need a cross-origin-isolated page; the GPU work does not use them.
  ort.env.wasm.numThreads = 1;
  const options = { executionProviders: ['webgpu'], preferredOutputLocation: 'gpu-buffer' };
  const sessions = {};
  for (const name of ['matmul', 'mlp']) {
    const bytes = new Uint8Array(await (await fetch(`${MODELS}${name}.onnx`)).arrayBuffer());
    sessions[name] = await ort.InferenceSession.create(bytes, options);
  }
  const device = await ort.env.webgpu.device;
  return { version: ort.env.versions.web, sessions, device, info: device.adapterInfo, software: device.adapterInfo?.isFallbackAdapter };
}

/**
 * An ORT session on a model file the xtask wrote under the target folder (`url`), on the WebGPU EP
 * with GPU-resident outputs, or on `ep` ('wasm': CPU inputs and outputs, one thread).
 */
export async function ortFileSession(url, benchCase, ep = 'webgpu') {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: ${response.status} (cargo xtask bench browser --cases ${benchCase} writes it)`);
  const options = ep === 'webgpu' ? { executionProviders: ['webgpu'], preferredOutputLocation: 'gpu-buffer' } : { executionProviders: [ep] };
  return ort.InferenceSession.create(new Uint8Array(await response.arrayBuffer()), options);
}

/** A float32 ORT tensor whose data lives in a buffer on ORT's GPU device (written once). */
export function ortGpuTensor(device, data, dims) {
  const buffer = device.createBuffer({
    size: Math.ceil(data.byteLength / 16) * 16,
    usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST,
  });
  device.queue.writeBuffer(buffer, 0, data);
  return ort.Tensor.fromGpuBuffer(buffer, { dataType: 'float32', dims, dispose: () => buffer.destroy() });
}

/** Runs an ORT session on GPU inputs and reads its one output back: a Float32Array. */
export async function ortRun(session, feeds) {
  const results = await session.run(feeds);
  const out = results[session.outputNames[0]];
  const data = await out.getData(true);
  out.dispose();
  return data;
}

/**
 * TF.js's own GPU time of the kernels `fn` runs (tf.time's kernelMs, from WebGPU timestamp
 * queries), or null when the adapter gives none. `fn`'s returned tensor is disposed.
 */
export async function tfKernelMs(fn) {
  let out = null;
  const timing = await tf.time(() => {
    out = fn();
  });
  out?.dispose();
  return typeof timing.kernelMs === 'number' ? timing.kernelMs : null;
}
