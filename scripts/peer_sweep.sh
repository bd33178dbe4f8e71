#!/usr/bin/env bash
# The CUTLASS configuration sweep that chose the peers' configurations (peers/cutlass/cooperative.cu
# and pingpong.cu): builds bin/cutlass_sweep in its own build folder (-DMATMUL_PEER_SWEEP=ON; over a
# minute of compiling on 2 cores), runs it on the GPU at each dtype and size, every
# configuration in every tile order interleaved with cuBLAS, and writes the table of ratios to
# cuBLAS to TABLE (Markdown, scripts/peer_sweep_table.py), the runs themselves to TABLE.runs/.
#   scripts/peer_sweep.sh TABLE            sizes 4096 8192 16384, dtypes fp16 bf16
#   SIZES="8192" DTYPES="fp16" scripts/peer_sweep.sh TABLE
#   SWEEP=path/to/cutlass_sweep scripts/peer_sweep.sh TABLE   run a binary built elsewhere, build nothing
# BUILD=folder names the build folder (default build-sweep). Exit codes: 2 bad arguments, 3 no GPU
# (after building), 1 a failed run or build.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# = 1 ] && [ -n "$1" ] || { echo "usage: scripts/peer_sweep.sh TABLE (see the script's header)" >&2; exit 2; }
table=$1
runs="$table.runs"
mkdir -p "$(dirname "$table")" || { echo "peer_sweep: cannot make the folder of $table" >&2; exit 2; }

sweep=${SWEEP:-}
if [ -z "$sweep" ]; then
  build=${BUILD:-build-sweep}
  generator=()
  if command -v ninja >/dev/null; then generator=(-G Ninja); fi
  [ -f "$build/CMakeCache.txt" ] || cmake -S . -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release >/dev/null
  configured=$(cmake "$build" -DMATMUL_PEER_SWEEP=ON)
  if grep -F 'Peers skipped' <<<"$configured" >&2; then exit 1; fi  # no CUTLASS: the line says why
  cmake --build "$build" --target cutlass_sweep -j "$(nproc)"
  sweep=$build/bin/cutlass_sweep
fi
[ -x "$sweep" ] || { echo "peer_sweep: no sweep binary at $sweep" >&2; exit 2; }
nvidia-smi -L >/dev/null 2>&1 || { echo "peer_sweep: $sweep is built; no NVIDIA GPU here, nothing measured" >&2; exit 3; }

rm -rf "$runs"
mkdir -p "$runs"
for dtype in ${DTYPES:-fp16 bf16}; do
  for size in ${SIZES:-4096 8192 16384}; do
    echo "peer_sweep: $dtype $size^3"
    "$sweep" --size "$size" --dtype "$dtype" --json "$runs/${dtype}_$size.json"
  done
done
python3 scripts/peer_sweep_table.py "$runs"/*.json >"$table"
cat "$table"
echo "peer_sweep: wrote $table (the runs: $runs/)"
