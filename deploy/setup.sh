#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs what box needs from Debian 12 (as root, only what is missing) and
# builds it into ./build. Usage: deploy/setup.sh [extra cmake args...]
set -euo pipefail
cd "$(dirname "$0")/.."

# One package a line: build tools, then the libraries box links.
packages=(
  build-essential cmake pkg-config git
  protobuf-c-compiler libprotobuf-c-dev
  libnng-dev
  libseccomp-dev
  libcurl4-openssl-dev libssl-dev
  libcmocka-dev
  libjson-c-dev
  libpcre2-dev                  # grep -P (PCRE2, as GNU grep links it)
  libjq-dev                     # jq: the real jq 1.6 language, not a subset
  libmagic-dev libmagic-mgc     # file: file 5.44's engine and its database
  libgmp-dev                    # factor past 2^128-1 (GMP, as GNU factor links it)
  jq gawk sed findutils diffutils tzdata ncurses-bin xxd bsdextrautils binutils file   # the tools the command tests compare against
  clang-14 libclang-rt-14-dev   # the fuzz targets (libFuzzer) and the clang build
  python3                       # real programs run inside a box by the tests
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done
if ((${#missing[@]})); then
  if [ "$(id -u)" != 0 ]; then
    echo "setup: missing Debian packages: ${missing[*]}" >&2
    echo "setup: run this as root, or: apt-get install ${missing[*]}" >&2
    exit 1
  fi
  echo "setup: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Node.js and npm, for the cedar-wasm differential (tests/cedar_diff) only:
# checked by command, not by package, since a machine's own Node.js build
# provides both (and conflicts with Debian's npm). Without them, or
# without the network for npm, the build goes on: cedar_diff_test then
# skips under plain ctest and fails, naming what is missing, under
# tests/run.sh and in CI.
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  if [ "$(id -u)" = 0 ]; then
    echo "setup: installing nodejs npm" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null
  else
    echo "setup: node or npm is missing (apt-get install nodejs npm);" \
      "cedar_diff_test cannot run" >&2
  fi
fi
# Cedar's own engine for that test, at the version the committed lock file
# pins; installed again only when missing or at another version.
cedar_dir=tests/cedar_diff
if command -v node >/dev/null && command -v npm >/dev/null; then
  cedar_have=$(node -p "try { require('./$cedar_dir/node_modules/@cedar-policy/cedar-wasm/package.json').version } catch (e) { '' }")
  cedar_want=$(node -p "require('./$cedar_dir/package-lock.json').packages['node_modules/@cedar-policy/cedar-wasm'].version")
  if [ "$cedar_have" != "$cedar_want" ]; then
    echo "setup: npm ci in $cedar_dir (@cedar-policy/cedar-wasm $cedar_want)" >&2
    # A second try trusts the system's CA store explicitly: a machine
    # whose network goes through a TLS-inspecting proxy has that proxy's CA
    # there, and a Node.js build may not read the store by default.
    if ! (cd "$cedar_dir" && npm ci --no-audit --no-fund --loglevel=error >/dev/null) &&
      ! { [ -r /etc/ssl/certs/ca-certificates.crt ] &&
        (cd "$cedar_dir" && npm ci --no-audit --no-fund --loglevel=error \
          --cafile /etc/ssl/certs/ca-certificates.crt >/dev/null); }; then
      echo "setup: npm ci failed in $cedar_dir; cedar_diff_test cannot run" >&2
    fi
  fi
fi

# BOX_SETUP_BUILD=0: packages only (tests/fuzz/run.sh builds its own way).
if [ "${BOX_SETUP_BUILD:-1}" = 0 ]; then
  exit 0
fi

builddir=${BOX_BUILD_DIR:-build}
cmake -S . -B "$builddir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
cmake --build "$builddir" -j"$(nproc)"
