#!/usr/bin/env bash
# `cargo xtask bench vit` (timm's ViT-Tiny eval) and the same model in torch, on a lent GPU machine that has torch
# but no package registry (see shared ENVIRONMENT.md). Two halves, as gpu_bench_resnet18.sh:
#
#   scripts/gpu_bench_vit.sh prepare   # here: build the release xtask, fetch the Vulkan loader
#                                       # packages, all into the git-ignored .dev/gpu/
#   scripts/gpu_bench_vit.sh run       # there (with .dev/gpu carried): borch, then torch with
#                                       # --compare, ROUNDS rounds (default 1)
#
# Options through the environment: REPS (timed calls, default 20), WARMUP (default 3), ARGS
# (more options for the borch bench, e.g. --batches 1), TIMEOUT (seconds per half, default 250).
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
  reps="${REPS:-20}" warmup="${WARMUP:-3}" t="${TIMEOUT:-250}"
  for i in $(seq 1 "${ROUNDS:-1}"); do
    echo "== round $i: borch"
    # shellcheck disable=SC2086
    timeout "$t" "$dir/xtask" bench vit --reps "$reps" --warmup "$warmup" ${ARGS:-} \
      | tee "$out/vit_borch$i.txt" || true
    echo "== round $i: torch"
    timeout "$t" python3 scripts/bench_vit_torch.py --reps "$reps" --warmup "$warmup" \
      --compare "$out/vit_borch$i.txt" | tee "$out/vit_torch$i.txt" || true
  done
  ;;
*)
  echo "usage: $0 prepare|run" >&2
  exit 2
  ;;
esac
