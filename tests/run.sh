#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Lints, sets up, builds and runs every test: once as a normal build, once
# under AddressSanitizer + UndefinedBehaviorSanitizer; then runs every fuzz
# target for a bounded time (tests/fuzz/run.sh, BOX_FUZZ_SECONDS each) and
# builds, without running, the other compilers and build types CI keeps
# clean under -Werror. Exit 0 only if all pass.
set -euo pipefail
cd "$(dirname "$0")/.."

# The lint first: a banned call fails in a second, before any build.
.ci/lint

# A test that cannot run because the machine lacks what it tests (Landlock,
# seccomp, user namespaces) fails here, naming it, instead of skipping
# (lib/box_test_require.h); BOX_REQUIRE_SANDBOX=0 tests/run.sh skips.
export BOX_REQUIRE_SANDBOX=${BOX_REQUIRE_SANDBOX:-1}
# Likewise the cedar-wasm differential (tests/cedar_diff), whose node and
# package deploy/setup.sh installs: missing, it fails here instead of
# skipping; BOX_REQUIRE_CEDAR_WASM=0 tests/run.sh skips.
export BOX_REQUIRE_CEDAR_WASM=${BOX_REQUIRE_CEDAR_WASM:-1}

jobs=$(nproc)
deploy/setup.sh
(cd build && ctest --output-on-failure -j"$jobs")

BOX_BUILD_DIR=build-asan deploy/setup.sh -DBOX_SANITIZE=ON
(cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
   LSAN_OPTIONS=suppressions="$PWD/../tests/lsan.supp":print_suppressions=0 \
   UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
   ctest --output-on-failure -j"$jobs")

tests/fuzz/run.sh

# The build matrix: gcc at Release (what a packager builds) and clang at
# Debug, each in its own directory, built only.
CC=gcc BOX_BUILD_DIR=build-gcc-release deploy/setup.sh \
  -DCMAKE_BUILD_TYPE=Release
CC=clang-14 BOX_BUILD_DIR=build-clang-debug deploy/setup.sh \
  -DCMAKE_BUILD_TYPE=Debug
echo "run: tests, sanitizers, fuzzing and the build matrix all passed"
