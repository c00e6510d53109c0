// Counts compute dispatches and queue submits at the WebGPU API, for every library on the page
// alike: GPUComputePassEncoder.dispatchWorkgroups(+Indirect) and GPUQueue.submit are wrapped on
// their prototypes (all three libraries call them as methods, looked up at call time). The cost
// is one increment per call. Imported first, before any library makes a device.

const counts = { dispatches: 0, submits: 0 };

function wrap(proto, name, counter) {
  const original = proto[name];
  if (typeof original !== 'function') throw new Error(`WebGPU has no ${proto.constructor.name}.${name} here`);
  proto[name] = function (...args) {
    counts[counter] += 1;
    return original.apply(this, args);
  };
}

if (typeof GPUComputePassEncoder === 'undefined') throw new Error('no WebGPU in this browser (GPUComputePassEncoder is undefined)');
wrap(GPUComputePassEncoder.prototype, 'dispatchWorkgroups', 'dispatches');
wrap(GPUComputePassEncoder.prototype, 'dispatchWorkgroupsIndirect', 'dispatches');
wrap(GPUQueue.prototype, 'submit', 'submits');

/** The API-level counts so far: { dispatches, submits }. */
export const gpuCounts = () => ({ ...counts });

/** Awaits `run()` and returns { value, dispatches, submits }: the counts of that call alone. */
export async function countCall(run) {
  const before = gpuCounts();
  const value = await run();
  const after = gpuCounts();
  return { value, dispatches: after.dispatches - before.dispatches, submits: after.submits - before.submits };
}
