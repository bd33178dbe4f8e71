#!/usr/bin/env bash
# make run: the ladder on a Hopper GPU, then its LLM suite (results/<gpu>_llm.json), then the plots.
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
plots
