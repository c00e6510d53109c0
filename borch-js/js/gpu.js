// The browser's WebGPU entry point, read directly: wgpu does not pass the adapter's vendor and
// architecture strings through, and `probe()` must answer without opening a device.

export function hasWebGpu() {
  return typeof navigator === 'object' && navigator !== null && navigator.gpu != null;
}

// The adapter's GPUAdapterInfo fields, or null when the browser offers no adapter.
export async function requestAdapterInfo(powerPreference, forceFallbackAdapter) {
  const options = { forceFallbackAdapter };
  if (powerPreference !== undefined) options.powerPreference = powerPreference;
  const adapter = await navigator.gpu.requestAdapter(options);
  if (adapter === null) return null;
  const info = adapter.info ?? {};
  return {
    vendor: String(info.vendor ?? ''),
    architecture: String(info.architecture ?? ''),
    device: String(info.device ?? ''),
    description: String(info.description ?? ''),
    isFallbackAdapter: Boolean(info.isFallbackAdapter ?? adapter.isFallbackAdapter ?? false),
  };
}
