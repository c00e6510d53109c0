#!/usr/bin/env bash
# `cargo xtask bench gpt` (a char-level GPT's AdamW training step) and the same step in torch,
# on a lent GPU machine that has torch but no package registry (see shared ENVIRONMENT.md). Two
# halves:
#
#   scripts/gpu_bench_gpt.sh prepare   # here: build the release xtask, fetch the Vulkan loader
#                                       # packages, all into the git-ignored .dev/gpu/
#   scripts/gpu_bench_gpt.sh run       # there (with .dev/gpu carried): borch, then torch with
#                                       # --compare, ROUNDS rounds (default 1)
#
# Options through the environment: REPS (timed steps, default 20), WARMUP (default 3), ARGS
# (more options for the borch bench, e.g. --preset tiny), TIMEOUT (seconds per half, default
# 250). `run` writes its outputs under $OUT (or ./target/gpu-bench) and prints everything.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/gpu_kit.sh
round() { gpu_kit_pair_round gpt "$1"; }
gpu_kit_main "${1:-}" round
