#!/usr/bin/env bash
# Installs what the build, the tests and the plots need, and only what is missing:
# Catch2 v3, nlohmann-json, matplotlib, cuobjdump (with nvdisasm). When everything is present it touches
# no package manager at all (the H200 machine has no network).
set -euo pipefail
cd "$(dirname "$0")/.."

say() { echo "setup: $*"; }
trap 'say "failed at line $LINENO"' ERR

# A header or CMake package file under the usual prefixes.
have_file() {
  find /usr/include /usr/local/include /usr/lib /usr/local/lib /usr/share /opt \
       -maxdepth 5 -path "*$1" -print -quit 2>/dev/null | grep -q .
}

apt_updated=0
apt_install() {
  [ "$(id -u)" = 0 ] || { say "need root to install $* with apt-get"; exit 1; }
  if [ "$apt_updated" = 0 ]; then apt-get update -qq; apt_updated=1; fi
  DEBIAN_FRONTEND=noninteractive DEBCONF_NOWARNINGS=yes apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

# Catch2 v3 (catch_test_macros.hpp exists only in v3). Debian 12 ships 2.x; its
# backports suite has 3.x, enabled on the mirror the machine's sources already use.
if ! have_file catch2/catch_test_macros.hpp; then
  . /etc/os-release
  if [ "${VERSION_CODENAME:-}" = bookworm ]; then
    mirror=$(grep -rhoE '(URIs:|deb) +https?://[^ ]+/debian/?( |$)' /etc/apt/sources.list /etc/apt/sources.list.d 2>/dev/null \
             | grep -oE 'https?://[^ ]+' | head -n1 || true)
    [ -n "$mirror" ] || { say "no Debian mirror found in /etc/apt sources"; exit 1; }
    echo "deb $mirror bookworm-backports main" > /etc/apt/sources.list.d/bookworm-backports.list
    say "installing Catch2 v3 from bookworm-backports ($mirror)"
    apt_updated=0
    apt_install -t bookworm-backports catch2
  else
    say "installing Catch2 v3"
    apt_install catch2
  fi
fi

if ! have_file nlohmann/json.hpp; then
  say "installing nlohmann-json"
  apt_install nlohmann-json3-dev
fi

# matplotlib: the system python's if it has one, else a project venv (.venv).
# cuobjdump and the nvdisasm it runs to print SASS: the CUDA toolkit's if it has them, else
# PyPI's into .tools/ (the development and CI machines' CUDA install has neither).
nvcc_dir=$(dirname "$(command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)")
have_tool() { command -v "$1" >/dev/null || [ -x "$nvcc_dir/$1" ] || [ -x ".tools/nvidia/cu13/bin/$1" ]; }
need_matplotlib=0 need_tools=0
python3 -c 'import matplotlib' 2>/dev/null || .venv/bin/python3 -c 'import matplotlib' 2>/dev/null || need_matplotlib=1
{ have_tool cuobjdump && have_tool nvdisasm; } || need_tools=1

# Both come through pip, the venv through venv: a stock Debian python3 has neither.
if [ $((need_matplotlib + need_tools)) -gt 0 ] && ! python3 -c 'import pip, ensurepip, venv' 2>/dev/null; then
  say "installing python3-pip and python3-venv"
  apt_install python3-pip python3-venv
fi

if [ "$need_matplotlib" = 1 ]; then
  say "installing matplotlib into .venv"
  rm -rf .venv  # a venv left half-made by an earlier failure
  python3 -m venv --system-site-packages .venv
  .venv/bin/python3 -m pip install -q -r plots/requirements.txt || { rm -rf .venv; exit 1; }
fi

if [ "$need_tools" = 1 ]; then
  say "installing cuobjdump and nvdisasm (PyPI nvidia-cuda-cuobjdump, nvidia-cuda-nvdisasm) into .tools"
  rm -rf .tools
  python3 -m pip install -q --root-user-action=ignore --target .tools \
    'nvidia-cuda-cuobjdump>=13.0,<14' 'nvidia-cuda-nvdisasm>=13.0,<14' || { rm -rf .tools; exit 1; }
fi
