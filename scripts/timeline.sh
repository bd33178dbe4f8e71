#!/usr/bin/env bash
# Timelines of every version with roles (v2 on, alternatives included), on a Hopper GPU:
#   scripts/timeline.sh [--no-draw] [PYTHON]
# Each runs once from the trace build (build-trace/: cmake --preset trace) with --trace, which
# writes results/traces/<version>.json (CTA 0, the last launch), then once from the normal build
# (build/): results/traces/overhead.txt holds both table rows, the cost of tracing. Then
# plots/timeline.py draws each trace into plots/timelines/ and writes its figures beside it
# (<version>.figures.json); --no-draw leaves that for later (a GPU machine without matplotlib).
# SIZE (default 8192) sets the problem, fp16.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/versions.sh
draw=1
[ "${1:-}" != --no-draw ] || { draw=0; shift; }
python=${1:-python3}
size=${SIZE:-8192}
traced=${TRACE_BUILD:-build-trace}
plain=${BUILD:-build}
for bin in "$traced/bin" "$plain/bin"; do
  [ -d "$bin" ] || { echo "timeline: no $bin: build it first (make timeline does)" >&2; exit 2; }
done
mkdir -p results/traces plots/timelines
overhead=results/traces/overhead.txt
rm -f "$overhead"
while read -r version; do
  [[ $version =~ ^v([0-9]+)_ ]] && [ "${BASH_REMATCH[1]}" -ge 2 ] || continue
  for binary in "$traced/bin/$version" "$traced/bin/${version}"_*; do
    [ -x "$binary" ] || continue
    name=${binary##*/}
    echo "timeline: $name at $size^3" >&2
    traced_run=$("$binary" --size "$size" --trace "results/traces/$name.json")
    plain_run=$("$plain/bin/$name" --size "$size")
    [ -s "$overhead" ] || echo "run       $(sed -n 1p <<<"$traced_run")" >"$overhead"
    echo "traced    $(sed -n 2p <<<"$traced_run")" | tee -a "$overhead"
    echo "untraced  $(sed -n 2p <<<"$plain_run")" | tee -a "$overhead"
  done
done < <(matmul_versions)
[ "$draw" = 1 ] || exit 0
for trace in results/traces/v*.json; do
  [[ $trace != *.figures.json ]] || continue
  name=$(basename "$trace" .json)
  window=40  # µs: a few K-steps of every role
  [[ $name != *pingpong ]] || window=250  # ping-pong's consumers take turns a whole tile long
  "$python" plots/timeline.py "$trace" --out plots/timelines --stem "$name" --window-us "$window" \
    --figures "results/traces/$name.figures.json"
done
