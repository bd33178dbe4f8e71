#!/usr/bin/env bash
# make sanitize: compute-sanitizer's four tools over every version's kernels, both dtypes, small
# ragged shapes (the tools slow a kernel down 10-1000x). Fails on any reported error, and on a
# run that outlasts SANITIZE_TIMEOUT seconds (default 300). SANITIZE_VERSIONS="v5_persistent ..."
# checks only those.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
command -v compute-sanitizer >/dev/null || { echo "sanitize: compute-sanitizer not found (it ships with the CUDA toolkit)" >&2; exit 3; }
nvidia-smi -L >/dev/null 2>&1 || { echo "sanitize: no NVIDIA GPU found" >&2; exit 3; }

source scripts/versions.sh
versions=${SANITIZE_VERSIONS:-$(matmul_versions)}
versions=$(for v in $versions; do [ "$v" = v10_fp8 ] || echo "$v"; done)  # the FP8 rung: its own loop below
# A version's alternative form (add_matmul_alternative: bin/v6_tma_store_pingpong) is checked with it.
versions=$(for v in $versions; do echo "$v"; for alt in "$build/bin/${v}"_*; do if [ -x "$alt" ]; then basename "$alt"; fi; done; done)
# Ragged shapes whose N is not a multiple of 8 (C has no tensor map: direct stores), and one whose
# N is (v6 on: the TMA store). racecheck and initcheck skip the latter: there the cuBLAS reference
# itself fails them (`compute-sanitizer --tool racecheck build/bin/cublas --m 129 --n 264 --k 200`
# reports an internal error; initcheck, reads of the reference cuBLAS wrote), whatever the version.
# So does 16 x 1000 x 1024, one that v9 splits (split-K, four pieces a tile: its fix-up checked):
# racecheck and initcheck fail build/bin/cublas on it as on the other.
shapes=("129 255 200" "1 77 8")
cublas_unclean=("129 264 200" "16 1000 1024")
failures=0
# memcheck, racecheck and synccheck judge each kernel alone: they watch only ours. initcheck must
# watch every kernel, or it misses the fill kernels' writes and takes the inputs for uninitialised.
declare -A filter=([memcheck]="--kernel-name kns=matmul_kernel" [racecheck]="--kernel-name kns=matmul_kernel"
                   [synccheck]="--kernel-name kns=matmul_kernel" [initcheck]="")
for tool in memcheck racecheck synccheck initcheck; do
  start=$(date +%s)
  runs=0 errors=0
  for v in $versions; do
    for dtype in fp16 bf16; do
      more=()
      [[ $tool == racecheck || $tool == initcheck ]] || more=("${cublas_unclean[@]}")
      for shape in "${shapes[@]}" ${more[@]+"${more[@]}"}; do
        read -r m n k <<<"$shape"
        log=$(timeout "${SANITIZE_TIMEOUT:-300}" compute-sanitizer --tool "$tool" --error-exitcode 99 ${filter[$tool]} \
          "$build/bin/$v" --m "$m" --n "$n" --k "$k" --dtype "$dtype" --warmup 0 --iters 20 2>&1) || {
          echo "sanitize: $tool found errors in $v $dtype ${m}x${n}x${k}:"
          # sed reads all its input (head would leave grep a SIGPIPE), and a log of table rows only is no error
          echo "$log" | { grep -vE '^(version|v[0-9]|cublas) ' || true; } | sed -n '1,20p'
          failures=$((failures + 1))
        }
        runs=$((runs + 1))
        # "ERROR SUMMARY: 0 errors" (memcheck, synccheck, initcheck), "(0 errors, 0 warnings)" (racecheck);
        # no summary at all (a crash, the timeout) counts as one error.
        errors=$((errors + $(echo "$log" | grep -oE '[0-9]+ errors?' | sed -n 1p | grep -oE '[0-9]+' || echo 1)))
      done
    done
  done
  echo "sanitize: $tool: $runs runs, $errors errors, $(($(date +%s) - start)) s"
done
# The FP8 rung (v10_fp8, not in versions.txt: its own binary and flags), both scalings, under
# memcheck, racecheck and synccheck (initcheck: the FP8 binary's reference reads what the fill
# kernels wrote, as the others' does, and is checked with them). Skipped when SANITIZE_VERSIONS
# names other versions only.
if [[ -z ${SANITIZE_VERSIONS:-} || " $SANITIZE_VERSIONS " == *" v10_fp8 "* ]]; then
  for tool in memcheck racecheck synccheck initcheck; do
    start=$(date +%s)
    runs=0 errors=0
    # 256 x 512 x 2048 also runs cuBLASLt, which fails racecheck itself ("failed to handle a
    # hardware exception", then its launch fails): not under racecheck. The others it cannot run.
    more=()
    [[ $tool == racecheck ]] || more=("256 512 2048")
    for shape in "132 300 208" "4 77 16" ${more[@]+"${more[@]}"}; do
      read -r m n k <<<"$shape"
      log=$(timeout "${SANITIZE_TIMEOUT:-300}" compute-sanitizer --tool "$tool" --error-exitcode 99 ${filter[$tool]} \
        "$build/bin/v10_fp8" --m "$m" --n "$n" --k "$k" --scales tensor,block --no-check --warmup 0 --iters 20 2>&1) || {
        echo "sanitize: $tool found errors in v10_fp8 ${m}x${n}x${k}:"
        echo "$log" | sed -n '1,20p'
        failures=$((failures + 1))
      }
      runs=$((runs + 1))
      errors=$((errors + $(echo "$log" | grep -oE '[0-9]+ errors?' | sed -n 1p | grep -oE '[0-9]+' || echo 1)))
    done
    echo "sanitize: v10_fp8 $tool: $runs runs, $errors errors, $(($(date +%s) - start)) s"
  done
fi
[ "$failures" -eq 0 ] || { echo "sanitize: $failures runs with errors"; exit 1; }
echo "sanitize: every version clean under memcheck, racecheck, synccheck and initcheck"
