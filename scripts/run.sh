#!/usr/bin/env bash
# make run: the ladder on a Hopper GPU, then its LLM suite (results/<gpu>_llm.json), then the FP8
# rung's ladder and error table (results/fp8/<gpu>.json, <gpu>_precision.json), then the tensor-
# parallel rung where it was built (results/tp/: two GPUs, every form; one GPU, the chunking's cost),
# then the plots.
# Without a GPU it says so in one line, redraws the plots from the committed results, and succeeds.
# Without matplotlib (setup could not fetch it) the plots are left as they are, with one line saying
# so: the measurement is the point.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
python=${2:-$(test -x .venv/bin/python3 && echo .venv/bin/python3 || echo python3)}

plots() {
  if ! "$python" -c 'import matplotlib' 2>/dev/null; then
    echo "run: plots not redrawn: $python has no matplotlib (make setup installs the pinned one into .venv)"
    return 0
  fi
  scripts/plots.sh "$python"
}

if ! nvidia-smi -L >/dev/null 2>&1; then
  echo "run: no NVIDIA GPU found (nvidia-smi lists none); built everything, nothing measured"
  plots
  exit 0
fi
"$build/bin/ladder"
"$build/bin/ladder" --suite llm
# The GPU's file name as the ladder writes it: "NVIDIA H200" -> h200.
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader -i 0 | sed -e 's/^NVIDIA //' -e 's/ /-/g' | tr '[:upper:]' '[:lower:]')
mkdir -p results/fp8
"$build/bin/v10_fp8" --sustain 2 --json "results/fp8/$gpu.json"
"$build/bin/v10_fp8" --precision --json "results/fp8/${gpu}_precision.json"
if [ -x "$build/bin/v11_tensor_parallel" ]; then
  mkdir -p results/tp
  export NCCL_NVLS_ENABLE=0  # no NVLink multicast: nothing here needs it
  if [ "$(nvidia-smi -L | wc -l)" -ge 2 ]; then
    "$build/bin/v11_tensor_parallel" --devices 0,1 --json "results/tp/${gpu}x2.json"
  else
    "$build/bin/v11_tensor_parallel" --chunk-cost 2 --json "results/tp/${gpu}_chunk_cost.json"
  fi
fi
plots
