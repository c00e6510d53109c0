#!/usr/bin/env bash
# `cargo xtask bench resnet18` and the same cases in torch, on a lent GPU machine that has torch
# but no package registry (see shared ENVIRONMENT.md). Two halves:
#
#   scripts/gpu_bench_resnet18.sh prepare   # here: build the release xtask, fetch the Vulkan
#                                           # loader packages, all into the git-ignored .dev/gpu/
#   scripts/gpu_bench_resnet18.sh run       # there (with .dev/gpu carried): borch, then torch
#                                           # with --compare, two rounds; then `bench conv`
#                                           # when this xtask has it
#
# Options through the environment (both halves pass them on): STEPS (timed calls, default 20),
# WARMUP (default 5), BATCHES (train, default 16,32,64), EVAL_BATCHES (default 1,16), WIDTH
# (default 64), MODES (borch modes, default: every mode this build has wired), ROUNDS (default 2),
# CONV (0: skip `bench conv`), CONV_TIMEOUT (default 200 s per half).
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
  steps="${STEPS:-20}" warmup="${WARMUP:-5}" batches="${BATCHES:-16,32,64}"
  eval_batches="${EVAL_BATCHES:-1,16}" width="${WIDTH:-64}"
  modes=()
  [ -n "${MODES:-}" ] && modes=(--modes "$MODES")
  for i in $(seq 1 "${ROUNDS:-2}"); do
    echo "== round $i: borch"
    "$dir/xtask" bench resnet18 --steps "$steps" --warmup "$warmup" --batches "$batches" \
      --eval-batches "$eval_batches" --width "$width" "${modes[@]}" | tee "$out/borch$i.txt"
    echo "== round $i: torch"
    python3 scripts/bench_resnet18_torch.py --steps "$steps" --warmup "$warmup" \
      --batches "$batches" --eval-batches "$eval_batches" --width "$width" \
      --compare "$out/borch$i.txt" | tee "$out/torch$i.txt"
  done
  # The conv bench, when this build has it (branch igemm) and CONV is not 0; each half capped
  # at CONV_TIMEOUT seconds (default 200) so one lent-machine call stays under its 600 s.
  usage="$("$dir/xtask" 2>&1 || true)"
  if [ "${CONV:-1}" != 0 ] && grep -q "bench conv" <<<"$usage"; then
    echo "== conv: borch"
    timeout "${CONV_TIMEOUT:-200}" "$dir/xtask" bench conv | tee "$out/conv_borch.txt" || true
    if [ -f scripts/bench_conv_torch.py ]; then
      echo "== conv: torch"
      timeout "${CONV_TIMEOUT:-200}" python3 scripts/bench_conv_torch.py \
        --compare "$out/conv_borch.txt" | tee "$out/conv_torch.txt" || true
    fi
  fi
  ;;
*)
  echo "usage: $0 prepare|run" >&2
  exit 2
  ;;
esac
