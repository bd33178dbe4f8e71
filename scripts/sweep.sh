#!/usr/bin/env bash
# Measures variants of one version against cuBLAS, for the version's page:
#   scripts/sweep.sh v4_two_consumers                       every variant of v4_two_consumers/variants.txt
#   scripts/sweep.sh v4_two_consumers row-order 3-stages    those named there
#   scripts/sweep.sh v1_tma "BM=128 BN=128" "BM=64 BN=256"  ad hoc: these `constexpr int NAME = value;`
# A named variant is the version's kernel.cu (or a form of it: `from pingpong.cu`) with the edits
# variants.txt lists (scripts/variants.py;
# its diff is docs/variants/VERSION/NAME.diff). Each is built beside the real build (which must
# exist: make build), checked and timed in fp16 and bf16. SIZE (default 8192) sets the problem; a
# variant that spills or does not compile is reported.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: scripts/sweep.sh VERSION [NAME | \"CONSTANT=VALUE ...\"] ..." >&2; exit 2; }
version=$1
shift
[ -f "$version/kernel.cu" ] || { echo "sweep: no $version/kernel.cu" >&2; exit 2; }
if [ $# -eq 0 ]; then
  mapfile -t named < <(python3 scripts/variants.py list "$version" | cut -d: -f1)
  [ ${#named[@]} -gt 0 ] || { echo "sweep: $version has no variants.txt; name the variants: \"CONSTANT=VALUE ...\"" >&2; exit 2; }
  set -- "${named[@]}"
fi
build=${BUILD:-build}
size=${SIZE:-8192}
work=$build/sweep
libs="$build/common/libmatmul_harness.a $build/common/libmatmul_core.a $build/common/libhopper.a"
for lib in $libs; do [ -f "$lib" ] || { echo "sweep: build first (make build)" >&2; exit 2; }; done
mkdir -p "$work"

variant_name() { echo "$1" | tr ' =' '_-'; }

# Build every variant in parallel; ptxas's report goes to a log beside each binary.
for variant in "$@"; do
  name=$version-$(variant_name "$variant")
  rm -f "$work/$name"  # a variant that no longer builds must not report an old binary's numbers
  if [[ $variant != *=* ]]; then  # a name from variants.txt
    python3 scripts/variants.py source "$version" "$variant" >"$work/$name.cu" || exit 2
  else
    cp "$version/kernel.cu" "$work/$name.cu"
    for assign in $variant; do
      key=${assign%%=*} value=${assign#*=}
      sed -i -E "s/^constexpr int $key = [0-9]+;/constexpr int $key = $value;/" "$work/$name.cu"
      grep -q "^constexpr int $key = $value;" "$work/$name.cu" || { echo "sweep: no 'constexpr int $key' in $version/kernel.cu" >&2; exit 2; }
    done
  fi
  main="$version/main.cu"
  form=$(grep -m1 -oE "^namespace $version::[a-z_]+ \{" "$work/$name.cu" | sed -E 's/^namespace (.*) \{/\1/') || true
  if [ -n "$form" ]; then  # a form beside kernel.cu (pingpong.cu) registers its own Version
    main=$work/$name.main.cu
    printf '#include "common/harness/harness.h"\n#include "%s/matmul.h"\n\nint main(int argc, char** argv) { return matmul::run_cli(%s::version, argc, argv); }\n' \
      "$version" "$form" >"$main"
  fi
  nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a --expt-relaxed-constexpr -Xptxas=-v,-warn-spills,-warn-lmem-usage \
    -Werror=all-warnings -I. -I"$build/generated" "$work/$name.cu" "$main" $libs \
    -lcublas -o "$work/$name" >"$work/$name.log" 2>&1 &
done
wait || true

printf '%-24s %-5s %5s  %s\n' "variant" "dtype" "regs" "result (the harness's row)"
for variant in "$@"; do
  name=$version-$(variant_name "$variant")
  if [ ! -x "$work/$name" ]; then
    printf '%-24s %-5s %5s  %s\n' "$variant" "-" "-" "does not build: $(grep -m1 -iE 'error|spill' "$work/$name.log" || echo 'see log')"
    continue
  fi
  regs=$(grep -oE 'Used [0-9]+ registers' "$work/$name.log" | head -1 | grep -oE '[0-9]+')
  for dtype in fp16 bf16; do
    row=$(timeout 120 "$work/$name" --size "$size" --dtype "$dtype" 2>&1 | tail -1) || true
    printf '%-24s %-5s %5s  %s\n' "$variant" "$dtype" "$regs" "$row"
  done
done
