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
. scripts/gpu_kit.sh
case "${1:-}" in
prepare)
  gpu_kit_prepare
  ;;
run)
  gpu_kit_setup
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
