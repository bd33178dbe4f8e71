#!/usr/bin/env bash
# Installs what the build, the tests and the plots need, and only what is missing:
#   Catch2 v3 and nlohmann-json (apt; the C++ build and tests need them),
#   the pinned plotting packages of plots/requirements.txt (PyPI, into .venv),
#   cuobjdump with the nvdisasm it runs (the CUDA toolkit's, else PyPI's, into .tools/),
#   the CUTLASS headers for the peers (PyPI's nvidia-cutlass, pinned, into .tools/cutlass),
#   NCCL for v11_tensor_parallel where neither the system nor python3 has it (PyPI's
#   nvidia-nccl-cu13, into .tools/nccl).
# Before changing anything it says what it will change, one line a change; the apt changes need
# root, which it checks before the first of them. When everything is present it touches no package
# manager at all (the H200 machine has no network). The Python packages are optional: when the
# package index cannot be reached setup says so in one line and succeeds, the C++ build goes on and
# CTest reports the tests that need them as skipped (without CUTLASS, the build has no peers).
set -Eeuo pipefail
cd "$(dirname "$0")/.."

say() { echo "setup: $*"; }
die() { echo "setup: $*" >&2; exit 1; }
# -E: the trap fires inside functions too. Every unforeseen failure ends with this one line.
step="looking at what is installed"
trap 'echo "setup: failed while $step (line $LINENO: $BASH_COMMAND)" >&2' ERR

is_root() { [ "$(id -u)" = 0 ]; }

# The first file under the usual prefixes whose path ends with $1.
find_file() {
  find /usr/include /usr/local/include /usr/lib /usr/lib64 /usr/local/lib /usr/local/lib64 /usr/share \
       /usr/local/share /opt -maxdepth 5 -path "*$1" -print 2>/dev/null | head -n1 || true
}
have_file() { [ -n "$(find_file "$1")" ]; }

# ---------------------------------------------------------------- Catch2 v3

# Catch2 v3: its header catch2/catch_test_macros.hpp (v3 only) and a CMake package of version 3.x,
# what tests/CMakeLists.txt's find_package(Catch2 3) needs.
catch2_config_versions() {
  find /usr/lib /usr/lib64 /usr/local/lib /usr/local/lib64 /usr/share /usr/local/share /opt -maxdepth 5 \
       -name Catch2ConfigVersion.cmake -exec sed -nE 's/.*set\(PACKAGE_VERSION "([^"]*)"\).*/\1/p' {} + \
       2>/dev/null || true
}
catch2_v3() { have_file catch2/catch_test_macros.hpp && catch2_config_versions | grep -q '^3\.'; }
catch2_found() {
  local versions
  versions=$(catch2_config_versions | sort -u | paste -sd, -)
  echo "header catch2/catch_test_macros.hpp $(have_file catch2/catch_test_macros.hpp && echo found || echo missing)," \
       "CMake package version ${versions:-missing}"
}

# The distribution has no Catch2 v3: the way out, then a non-zero exit.
catch2_from_source() {
  echo "setup: $1" >&2
  cat >&2 <<'EOF'
setup: build Catch2 v3 from source into /usr/local (find_package finds it there), then run make again:
  git clone --depth 1 --branch v3.7.1 https://github.com/catchorg/Catch2.git /tmp/Catch2
  cmake -S /tmp/Catch2 -B /tmp/Catch2/build -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF
  cmake --build /tmp/Catch2/build -j "$(nproc)"
  sudo cmake --install /tmp/Catch2/build
EOF
  exit 1
}

# The version apt would install (-t: from that release), empty when apt does not know the package.
apt_candidate() {
  apt-cache policy ${2:+-t "$2"} "$1" 2>/dev/null | awk '/Candidate:/ && $2 != "(none)" {print $2; exit}' || true
}
major() { sed -E 's/^[0-9]+://; s/[^0-9].*//' <<<"$1"; }

# shellcheck disable=SC1091  # /etc/os-release: the running system's
os_info=$( (. /etc/os-release && echo "${VERSION_CODENAME:-}|${PRETTY_NAME:-}") 2>/dev/null || true)
codename=${os_info%%|*}
distro=${os_info#*|}
distro=${distro:-this system}

apt_cpp=()          # packages the C++ build needs
catch2_release=""   # apt's -t for catch2
backports_list="" backports_line=""
if ! catch2_v3; then
  command -v apt-get >/dev/null || catch2_from_source "Catch2 v3 is missing ($(catch2_found)) and $distro has no apt-get"
  # Debian 12 ships Catch2 2.x; its backports suite has 3.x, on the mirror the sources already use.
  if [ "$codename" = bookworm ]; then
    catch2_release=bookworm-backports
    if ! grep -rqsE '^[^#]*bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
         /etc/apt/sources.list.d/*.sources; then
      mirror=$(grep -rhsoE '(URIs:|deb) +https?://[^ ]+/debian/?( |$)' /etc/apt/sources.list /etc/apt/sources.list.d \
               | grep -oE 'https?://[^ ]+' | head -n1 || true)
      [ -n "$mirror" ] || die "Catch2 v3 is missing and no Debian mirror was found in /etc/apt sources to get bookworm-backports from"
      backports_list=/etc/apt/sources.list.d/bookworm-backports.list
      backports_line="deb $mirror bookworm-backports main"
    fi
  else
    # Known already from apt's lists (Ubuntu 22.04: 2.x only)? Then no root is asked for in vain.
    candidate=$(apt_candidate catch2)
    if [ -n "$candidate" ] && [ "$(major "$candidate")" -lt 3 ]; then
      catch2_from_source "Catch2 v3 is missing and apt on $distro offers catch2 $candidate only"
    fi
  fi
  apt_cpp+=(catch2)
fi
have_file nlohmann/json.hpp || apt_cpp+=(nlohmann-json3-dev)

# ---------------------------------------------------------------- Python: plots and cuobjdump

# The interpreter make and CTest use for the plots: .venv's when setup made one, else python3.
plot_python=python3
[ -x .venv/bin/python3 ] && plot_python=.venv/bin/python3
have_python=0
command -v python3 >/dev/null && have_python=1

# Empty when $1 has every version plots/requirements.txt pins, else what differs first.
pins_differ() {
  "$1" - plots/requirements.txt <<'EOF' 2>/dev/null || echo "$1 does not run"
import sys
from importlib import metadata
for line in open(sys.argv[1], encoding="utf-8"):
    name, _, pinned = line.split("#")[0].strip().partition("==")
    if not pinned:
        continue
    try:
        have = metadata.version(name)
    except metadata.PackageNotFoundError:
        have = None
    if have != pinned:
        print(f"{name} {have or 'missing'}, pinned {pinned}")
        break
EOF
}

nvcc_dir=$(dirname "$(command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)")
have_tool() { command -v "$1" >/dev/null || [ -x "$nvcc_dir/$1" ] || [ -x ".tools/nvidia/cu13/bin/$1" ]; }

# The CUTLASS headers of the peers (peers/cutlass): the wheel's cutlass_library/source/include.
# .tools/cutlass/PINNED names the wheel installed there, so that a changed pin reinstalls.
cutlass_pin="nvidia-cutlass==4.2.0.0"
have_cutlass() { [ "$(cat .tools/cutlass/PINNED 2>/dev/null)" = "$cutlass_pin" ]; }

# NCCL for v11_tensor_parallel (its CMakeLists.txt looks in the same places): the CUDA toolkit's,
# the system's, python3's nvidia-nccl-cu13, else the wheel in .tools/nccl.
nccl_pin="nvidia-nccl-cu13>=2.28,<3"
have_nccl() {
  [ -f "$nvcc_dir/../include/nccl.h" ] || have_file nccl.h || [ -f .tools/nccl/nvidia/nccl/include/nccl.h ] ||
    { [ "$have_python" = 1 ] && python3 -c 'import nvidia.nccl' 2>/dev/null; }
}

need_venv=0 need_tools=0 need_cutlass=0 need_nccl=0 differs=""
if [ "$have_python" = 1 ]; then
  differs=$(pins_differ "$plot_python")
  [ -z "$differs" ] || need_venv=1
  { have_tool cuobjdump && have_tool nvdisasm; } || need_tools=1
  have_cutlass || need_cutlass=1
  have_nccl || need_nccl=1
else
  say "no python3: the plots are not drawn and CTest skips the Python tests; the C++ build goes on"
  { have_tool cuobjdump && have_tool nvdisasm; } ||
    say "no cuobjdump or nvdisasm, and no python3 to fetch them: CTest skips the SASS test that needs them"
  have_cutlass || say "no CUTLASS headers, and no python3 to fetch them: the build has no peers"
  have_nccl || say "no NCCL, and no python3 to fetch it: the build skips v11_tensor_parallel"
fi
# venv and pip fetch them: a stock Debian python3 has neither.
apt_python=()
if [ $((need_venv + need_tools + need_cutlass + need_nccl)) -gt 0 ] && ! python3 -c 'import pip, ensurepip, venv' 2>/dev/null; then
  apt_python=(python3-pip python3-venv)
fi
# Under sudo, only the system part: .venv and .tools belong to the user who runs make.
user_part=1
if is_root && [ -n "${SUDO_USER:-}" ] && [ "$SUDO_USER" != root ]; then
  user_part=0
fi

# ---------------------------------------------------------------- the plan, then root

[ -z "$backports_list" ] || say "will add $backports_list ($backports_line) to get Catch2 v3"
[ ${#apt_cpp[@]} = 0 ] || say "will install with apt-get: ${apt_cpp[*]}${catch2_release:+ (catch2 from $catch2_release)}"
[ ${#apt_python[@]} = 0 ] || say "will install with apt-get: ${apt_python[*]} (to fetch the plotting packages, cuobjdump and CUTLASS)"

if ! is_root; then
  if [ ${#apt_cpp[@]} -gt 0 ]; then
    die "installing ${apt_cpp[*]} with apt-get${backports_list:+ and adding $backports_list} needs root: run 'sudo scripts/setup.sh', then make again"
  fi
  if [ ${#apt_python[@]} -gt 0 ]; then
    say "installing ${apt_python[*]} with apt-get needs root (run 'sudo apt-get install ${apt_python[*]}');" \
        "until then no plotting packages, cuobjdump, CUTLASS or NCCL are fetched: CTest skips the tests that need them," \
        "no peers, no v11_tensor_parallel"
    apt_python=() need_venv=0 need_tools=0 need_cutlass=0 need_nccl=0
  fi
fi

# ---------------------------------------------------------------- system changes (root)

apt_updated=0
apt_update() {
  [ "$apt_updated" = 0 ] || return 0
  step="updating apt's package lists (apt-get update)"
  apt-get update -qq
  apt_updated=1
}
apt_install() {
  apt_update
  step="installing $* with apt-get"
  DEBIAN_FRONTEND=noninteractive DEBCONF_NOWARNINGS=yes apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

if [ -n "$backports_list" ]; then
  step="writing $backports_list"
  echo "$backports_line" >"$backports_list"
fi
if [ ${#apt_cpp[@]} -gt 0 ]; then
  if [[ " ${apt_cpp[*]} " == *" catch2 "* ]]; then
    apt_update
    candidate=$(apt_candidate catch2 "$catch2_release")
    if [ -z "$candidate" ] || [ "$(major "$candidate")" -lt 3 ]; then
      catch2_from_source "Catch2 v3 is missing and apt on $distro offers catch2 ${candidate:-not at all}"
    fi
  fi
  apt_install ${catch2_release:+-t "$catch2_release"} "${apt_cpp[@]}"
  step="checking the installed Catch2"
  catch2_v3 || catch2_from_source "apt installed catch2, but Catch2 v3 is still not there ($(catch2_found))"
  have_file nlohmann/json.hpp || die "apt installed nlohmann-json3-dev, but nlohmann/json.hpp is still not there"
fi
[ ${#apt_python[@]} = 0 ] || apt_install "${apt_python[@]}"

if [ "$user_part" = 0 ]; then
  [ $((need_venv + need_tools + need_cutlass + need_nccl)) = 0 ] || say "system part done; run make as $SUDO_USER for .venv and .tools"
  exit 0
fi

# ---------------------------------------------------------------- .venv and .tools (no root)

# A command with its output kept in a log: on failure $failed holds its last error line and the log's path.
failed=""
run_logged() {
  local log
  log=$(mktemp "${TMPDIR:-/tmp}/setup.XXXXXX")
  if "$@" >"$log" 2>&1; then
    rm -f "$log"
    return 0
  fi
  failed="$(grep -E '^(ERROR|Error)' "$log" | tail -n1 | cut -c1-200 || true)"
  failed="${failed:-$1 failed} (its output: $log)"
  return 1
}
pip_args=(--disable-pip-version-check --retries 1 --timeout 30)

if [ "$need_venv" = 1 ]; then
  say "will make .venv with the pinned plotting packages of plots/requirements.txt ($plot_python: $differs)"
  step="making .venv"
  rm -rf .venv
  if ! run_logged python3 -m venv .venv; then
    rm -rf .venv
    say "no plotting packages: python3 -m venv could not make .venv (Debian, Ubuntu: apt-get install python3-venv);" \
        "the C++ build goes on, CTest skips the plots test"
  elif ! run_logged .venv/bin/python3 -m pip install -q "${pip_args[@]}" -r plots/requirements.txt; then
    rm -rf .venv
    say "no plotting packages: pip could not install plots/requirements.txt into .venv: $failed;" \
        "the C++ build goes on, CTest skips the plots test"
  else
    differs=$(pins_differ .venv/bin/python3)
    [ -z "$differs" ] || die ".venv was made, but it does not have the pinned versions ($differs)"
  fi
fi

if [ "$need_tools" = 1 ]; then
  say "will install cuobjdump and nvdisasm (PyPI nvidia-cuda-cuobjdump, nvidia-cuda-nvdisasm) into .tools"
  step="installing cuobjdump and nvdisasm into .tools"
  # What an earlier attempt left, but not .tools/cutlass and .tools/nccl, which have steps of their own.
  find .tools -mindepth 1 -maxdepth 1 ! -name cutlass ! -name nccl -exec rm -rf {} + 2>/dev/null || true
  if ! run_logged python3 -m pip install -q "${pip_args[@]}" --root-user-action=ignore --target .tools \
       'nvidia-cuda-cuobjdump>=13.0,<14' 'nvidia-cuda-nvdisasm>=13.0,<14'; then
    find .tools -mindepth 1 -maxdepth 1 ! -name cutlass ! -name nccl -exec rm -rf {} +
    say "no cuobjdump: pip could not install it into .tools: $failed; the C++ build goes on," \
        "CTest skips the SASS test that disassembles the versions"
  fi
fi

if [ "$need_cutlass" = 1 ]; then
  say "will install the CUTLASS headers (PyPI $cutlass_pin, without its Python dependencies) into .tools/cutlass for the peers"
  step="installing the CUTLASS headers into .tools/cutlass"
  rm -rf .tools/cutlass
  if run_logged python3 -m pip install -q "${pip_args[@]}" --root-user-action=ignore --no-deps --target .tools/cutlass \
       "$cutlass_pin"; then
    echo "$cutlass_pin" >.tools/cutlass/PINNED
  else
    rm -rf .tools/cutlass
    say "no CUTLASS headers: pip could not install $cutlass_pin into .tools/cutlass: $failed; the build has no peers," \
        "the rest goes on"
  fi
fi

if [ "$need_nccl" = 1 ]; then
  say "will install NCCL (PyPI $nccl_pin, about 300 MB) into .tools/nccl for v11_tensor_parallel"
  step="installing NCCL into .tools/nccl"
  rm -rf .tools/nccl
  if ! run_logged python3 -m pip install -q "${pip_args[@]}" --root-user-action=ignore --no-deps --target .tools/nccl \
       "$nccl_pin"; then
    rm -rf .tools/nccl
    say "no NCCL: pip could not install $nccl_pin into .tools/nccl: $failed; the build skips v11_tensor_parallel," \
        "the rest goes on"
  fi
fi
