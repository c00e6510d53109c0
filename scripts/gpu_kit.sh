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

# gpu_kit_main ARG ROUND: `prepare` (here), `run` (there: set up, then ROUND 1 … ROUND n for
# ROUNDS rounds, default 1), a usage line otherwise.
gpu_kit_main() {
  case "${1:-}" in
  prepare)
    gpu_kit_prepare
    ;;
  run)
    gpu_kit_setup
    for i in $(seq 1 "${ROUNDS:-1}"); do "$2" "$i"; done
    ;;
  *)
    echo "usage: $0 prepare|run" >&2
    exit 2
    ;;
  esac
}

# gpu_kit_pair_round NAME I [OPTION…]: round I of `xtask bench NAME OPTION…`, then
# scripts/bench_NAME_torch.py --compare on its output; REPS (default 20), WARMUP (3), TIMEOUT
# (seconds per half, 250) and ARGS (more borch options) from the environment.
gpu_kit_pair_round() {
  local name=$1 i=$2
  shift 2
  local reps="${REPS:-20}" warmup="${WARMUP:-3}" t="${TIMEOUT:-250}"
  echo "== round $i: borch"
  # shellcheck disable=SC2086
  timeout "$t" "$dir/xtask" bench "$name" "$@" --reps "$reps" --warmup "$warmup" ${ARGS:-} \
    | tee "$out/${name}_borch$i.txt" || true
  echo "== round $i: torch"
  timeout "$t" python3 "scripts/bench_${name}_torch.py" --reps "$reps" --warmup "$warmup" \
    --compare "$out/${name}_borch$i.txt" | tee "$out/${name}_torch$i.txt" || true
}
