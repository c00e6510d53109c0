# Sourced by the scripts/gpu_bench_*.sh scripts: the kit carried to a lent GPU machine (torch
# there, no registry; see shared ENVIRONMENT.md) lives in the git-ignored .dev/gpu/.
#   gpu_kit_prepare   here: the release xtask and the Vulkan loader packages into .dev/gpu/
#   gpu_kit_setup     there: install the packages (once), set up wgpu's Vulkan environment,
#                     make $out (OUT or ./target/gpu-bench), name the GPU
dir=.dev/gpu

gpu_kit_prepare() {
  mkdir -p "$dir"
  cargo build --release -p xtask
  cp "${CARGO_TARGET_DIR:-target}/release/xtask" "$dir/xtask"
  # wgpu's Vulkan backend needs the loader; NVIDIA's Vulkan driver also needs libEGL.
  if ! ls "$dir"/libvulkan1_*.deb "$dir"/libglvnd0_*.deb "$dir"/libegl1_*.deb >/dev/null 2>&1; then
    (cd "$dir" && apt-get download libvulkan1 libglvnd0 libegl1)
  fi
  du -sh "$dir"
}

gpu_kit_setup() {
  out="${OUT:-target/gpu-bench}"
  mkdir -p "$out"
  if ! ldconfig -p | grep -q libvulkan.so.1; then
    for f in "$dir"/*.deb; do dpkg -x "$f" /; done
    ldconfig
  fi
  export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp/xdg}" WGPU_BACKEND="${WGPU_BACKEND:-vulkan}"
  mkdir -p -m 700 "$XDG_RUNTIME_DIR"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
}
