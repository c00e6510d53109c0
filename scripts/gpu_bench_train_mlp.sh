#!/usr/bin/env bash
# `cargo xtask bench train-mlp` and the same step in torch, on a lent GPU machine that has torch
# but no package registry (see shared ENVIRONMENT.md). Two halves:
#
#   scripts/gpu_bench_train_mlp.sh prepare   # here: build the bench, fetch the Vulkan loader
#                                            # packages, all into the git-ignored .dev/gpu/
#   scripts/gpu_bench_train_mlp.sh run       # there (with .dev/gpu carried): bench borch, then
#                                            # torch with --compare, twice; then the demo
#
# `run` writes its outputs under $OUT (or ./target/gpu-bench) and prints everything.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=.dev/gpu
case "${1:-}" in
prepare)
  mkdir -p "$dir"
  cargo build --release -p xtask
  cp "${CARGO_TARGET_DIR:-target}/release/xtask" "$dir/xtask"
  # wgpu's Vulkan backend needs the loader; NVIDIA's Vulkan driver also needs libEGL.
  (cd "$dir" && apt-get download libvulkan1 libglvnd0 libegl1)
  du -sh "$dir"
  ;;
run)
  out="${OUT:-target/gpu-bench}"
  mkdir -p "$out"
  for f in "$dir"/*.deb; do dpkg -x "$f" /; done
  ldconfig
  export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp/xdg}" WGPU_BACKEND="${WGPU_BACKEND:-vulkan}"
  mkdir -p -m 700 "$XDG_RUNTIME_DIR"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
  steps="${STEPS:-200}"
  for i in 1 2; do
    "$dir/xtask" bench train-mlp --steps "$steps" --warmup 10 | tee "$out/borch$i.txt"
    python3 scripts/bench_train_mlp_torch.py --steps "$steps" --warmup 10 \
      --compare "$out/borch$i.txt" | tee "$out/torch$i.txt"
  done
  "$dir/xtask" demo | tee "$out/demo.txt"
  cp target/demo/loss.svg "$out/" 2>/dev/null || true
  ;;
*)
  echo "usage: $0 prepare|run" >&2
  exit 2
  ;;
esac
