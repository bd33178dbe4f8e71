#!/usr/bin/env bash
# make diff FROM=v0_naive TO=v1_tma: the two versions' kernel.cu side by side. On a terminal the
# lines are coloured (red: only in FROM, green: only in TO, yellow: changed) and the width is the
# terminal's; into a file or a pipe it is plain text, wide enough that no line is cut. COLUMNS
# overrides the width. Exit 0 whether or not the files differ, 2 on bad arguments.
set -euo pipefail
cd "$(dirname "$0")/.."

fail() { echo "diff: $*" >&2; exit 2; }

source scripts/versions.sh
ladder=$(matmul_versions) || exit 2
known=${ladder//$'\n'/ }  # the same, on one line, for the messages
[ -n "${1:-}" ] && [ -n "${2:-}" ] ||
  fail "FROM and TO are required, e.g. make diff FROM=v0_naive TO=v1_tma (versions: ${known:-none})"
from=${1%/} to=${2%/}
for arg in "FROM=$from" "TO=$to"; do
  v=${arg#*=}
  [ -n "$v" ] && grep -qxF -e "$v" <<<"$ladder" ||
    fail "${arg%%=*} '$v' is not a version listed in versions.txt (versions: ${known:-none})"
  [ -f "$v/kernel.cu" ] ||
    fail "${arg%%=*} '$v' is listed in versions.txt but has no $v/kernel.cu (versions: ${known:-none})"
done
a=$from/kernel.cu b=$to/kernel.cu

if [ -t 1 ]; then
  width=${COLUMNS:-$(tput cols 2>/dev/null || echo 160)}
else
  width=${COLUMNS:-$((2 * $(LC_ALL=C awk '{ if (length > n) n = length } END { print n + 0 }' "$a" "$b") + 3))}
fi
[ "$width" -ge 40 ] 2>/dev/null || fail "COLUMNS=$width is not a width of at least 40"

# Where diff -y puts its gutter and its right column at this width: read off a one-line probe
# rather than recomputing diff's own layout rule.
probe=$(diff -y -t -W "$width" <(echo a) <(echo b) || true)
gutter=$(LC_ALL=C awk '{ print index($0, "|") }' <<<"$probe")
right=$(LC_ALL=C awk '{ print index($0, "b") }' <<<"$probe")

colour() {
  if [ -t 1 ]; then
    LC_ALL=C awk -v g="$gutter" '
      { c = substr($0, g, 1) }
      c == "<" { printf "\033[31m%s\033[0m\n", $0; next }
      c == ">" { printf "\033[32m%s\033[0m\n", $0; next }
      c == "|" { printf "\033[33m%s\033[0m\n", $0; next }
      { print }'
  else
    cat
  fi
}

printf '%-*s%s\n' "$((right - 1))" "$a" "$b"
status=0
diff -y -t -W "$width" "$a" "$b" | colour || status=$?
[ "$status" -le 1 ] || fail "diff failed on $a and $b (exit $status)"  # diff: 1 means they differ
