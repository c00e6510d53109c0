#!/usr/bin/env bash
# Kernel-level benchmarks on a lent GPU machine (torch there, no registry), one call:
# `bench matmul` (tile sweep), `bench matmul-call`, `bench lstm` (PARTS=lstm), `bench conv`
# (implicit GEMM vs im2col, every pass), each followed by its torch script with --compare, and
# `bench dispatch --compare` (which runs its torch script itself).
# Build here first: `scripts/gpu_bench_resnet18.sh prepare` (release xtask + Vulkan packages
# in .dev/gpu/); there: `scripts/gpu_bench_kernels.sh` with .dev/gpu carried.
# Environment: PARTS (default matmul,conv,call,dispatch; lstm on request), SIZES (matmul, default 4096),
# CONV_BATCHES (default 64), CONV_PASSES (default forward,input_grad,weight_grad),
# CONV_TILES (extra `--tile` list for bench conv), TIMEOUT (seconds per program, default 240).
set -uo pipefail
cd "$(dirname "$0")/.."
. scripts/gpu_kit.sh
gpu_kit_setup
t="${TIMEOUT:-240}"
parts=",${PARTS:-matmul,conv,call,dispatch},"
if [[ $parts == *,matmul,* ]]; then
  echo "== matmul: borch (tile sweep)"
  timeout "$t" "$dir/xtask" bench matmul --sizes "${SIZES:-4096}" --tiles | tee "$out/matmul_borch.txt"
  echo "== matmul: torch"
  timeout "$t" python3 scripts/bench_matmul_torch.py --sizes "${SIZES:-4096}" --compare "$out/matmul_borch.txt" | tee "$out/matmul_torch.txt"
fi
if [[ $parts == *,call,* ]]; then
  echo "== matmul-call: borch"
  timeout "$t" "$dir/xtask" bench matmul-call --sizes 1024,4096 | tee "$out/call_borch.txt"
  echo "== matmul-call: torch"
  timeout "$t" python3 scripts/bench_matmul_call_torch.py --sizes 1024,4096 --compare "$out/call_borch.txt" | tee "$out/call_torch.txt"
fi
if [[ $parts == *,conv,* ]]; then
  tiles=()
  [ -n "${CONV_TILES:-}" ] && tiles=(--tile "$CONV_TILES")
  echo "== conv: borch"
  timeout "$t" "$dir/xtask" bench conv --batches "${CONV_BATCHES:-64}" \
    --passes "${CONV_PASSES:-forward,input_grad,weight_grad}" "${tiles[@]}" | tee "$out/conv_borch.txt"
  echo "== conv: torch"
  timeout "$t" python3 scripts/bench_conv_torch.py --compare "$out/conv_borch.txt" | tee "$out/conv_torch.txt"
fi
if [[ $parts == *,lstm,* ]]; then
  echo "== lstm: borch"
  timeout "$t" "$dir/xtask" bench lstm | tee "$out/lstm_borch.txt"
  echo "== lstm: torch"
  timeout "$t" python3 scripts/bench_lstm_torch.py --compare "$out/lstm_borch.txt" | tee "$out/lstm_torch.txt"
fi
if [[ $parts == *,dispatch,* ]]; then
  echo "== dispatch: borch"
  timeout "$t" "$dir/xtask" bench dispatch --compare | tee "$out/dispatch.txt"
fi
