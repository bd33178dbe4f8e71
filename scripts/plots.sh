#!/usr/bin/env bash
# Draws the plots from every results file there is, if plots/plot.py exists: results/<gpu>.json
# into plots/<gpu>/ (plot.py's defaults), the LLM suite's results/<gpu>_llm.json, where `make run`
# wrote one, into plots/<gpu>_llm/, and v10_fp8's results/fp8/<gpu>.json into plots/<gpu>_fp8/. PYTHON (first argument) runs plot.py; by default .venv's
# when scripts/setup.sh made one (it has the pinned matplotlib the committed charts were drawn
# with), else python3.
set -euo pipefail
cd "$(dirname "$0")/.."
python=${1:-$(test -x .venv/bin/python3 && echo .venv/bin/python3 || echo python3)}

[ -f plots/plot.py ] || { echo "plots: plots/plot.py not there yet; no plots drawn"; exit 0; }
shopt -s nullglob
files=(results/*.json)
[ ${#files[@]} -gt 0 ] || { echo "plots: no results/*.json yet; run 'make run' on a Hopper GPU"; exit 0; }
for f in "${files[@]}"; do
  "$python" plots/plot.py "$f" --out "plots/$(basename "$f" .json)"
done
# v10_fp8's results (build/bin/v10_fp8 --json, and --precision --json), in results/fp8/: its own charts.
for f in results/fp8/*_precision.json; do
  "$python" plots/fp8.py "${f%_precision.json}.json" "$f" --out "plots/$(basename "${f%_precision.json}")_fp8"
done
