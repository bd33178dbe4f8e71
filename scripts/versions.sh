# Sourced by the scripts that walk the ladder (sanitize.sh, diff.sh): matmul_versions prints the
# versions of versions.txt, one a line, in ladder order; comment (`#`) and blank lines left out.
# It reads the versions.txt of the directory it runs in (the scripts cd to the repository root).
matmul_versions() {
  [ -f versions.txt ] || { echo "${0##*/}: no versions.txt in $(pwd)" >&2; return 1; }
  sed -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//' -e '/^#/d' -e '/^$/d' versions.txt
}
