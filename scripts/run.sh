#!/usr/bin/env bash
# make run: the ladder on a Hopper GPU, then the plots. Without a GPU it says so in one line,
# redraws the plots from the committed results, and succeeds.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
python=${2:-python3}

if ! nvidia-smi -L >/dev/null 2>&1; then
  echo "run: no NVIDIA GPU found (nvidia-smi lists none); built everything, nothing measured"
  exec scripts/plots.sh "$python"
fi
"$build/bin/ladder"
scripts/plots.sh "$python"
