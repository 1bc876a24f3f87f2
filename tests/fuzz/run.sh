#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the libFuzzer targets (clang, ASan + UBSan) into build-fuzz and
# runs each for a bounded time. Exit 0 only if none crashed.
#
#   tests/fuzz/run.sh [TARGET...]      every target when none is named
#   BOX_FUZZ_SECONDS=600 tests/fuzz/run.sh sh_parse     one, longer
#
# A target is tests/fuzz/<target>_fuzz.c; its seeds are the files under
# tests/fuzz/<target>/ (read, never written) and what it finds goes to
# build-fuzz/corpus/<target>/, which later runs start from. A crash, leak,
# timeout or out-of-memory input is kept in tests/fuzz/<target>/crashes/
# (libFuzzer's -artifact_prefix): commit it with its fix, and the replay
# test of every normal build (fuzz_<target>_replay) runs it from then on.
set -euo pipefail
cd "$(dirname "$0")/../.."

secs=${BOX_FUZZ_SECONDS:-60}
builddir=build-fuzz
BOX_SETUP_BUILD=0 deploy/setup.sh # packages only: clang-14, libFuzzer

targets=("$@")
if ((${#targets[@]} == 0)); then
  for f in tests/fuzz/*_fuzz.c; do
    t=${f##*/}
    targets+=("${t%_fuzz.c}")
  done
fi

# Only the libraries and the fuzz_* binaries; no tests, no services.
CC=clang-14 cmake -S . -B "$builddir" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DBOX_FUZZ=ON -DBOX_TESTS=OFF >/dev/null
cmake --build "$builddir" -j"$(nproc)" --target fuzz

failed=()
# One target's run; its status is the fuzzer's. Runs in the background
# beside others (libFuzzer uses one core), so its report is printed only
# once it is done, in one piece.
fuzz_one() {
  local t=$1 bin=$builddir/bin/fuzz_$1
  local work=$builddir/corpus/$t log=$builddir/fuzz-$t.log
  mkdir -p "$work" "tests/fuzz/$t/crashes"
  local dict=()
  if [ -f "tests/fuzz/$t.dict" ]; then
    dict=(-dict="tests/fuzz/$t.dict")
  fi
  # -timeout: one input running 30 s is a hang; slow inputs are not kept
  # apart (only what fails the run lands in crashes/).
  # The same leak suppressions as the sanitizer test run (libraries that
  # lose memory of their own: tests/lsan.supp says which and why).
  LSAN_OPTIONS=suppressions="$PWD/tests/lsan.supp":print_suppressions=0 \
    "$bin" -max_total_time="$secs" -timeout=30 -rss_limit_mb=2048 \
      -report_slow_units=100000 -print_final_stats=1 \
      -artifact_prefix="tests/fuzz/$t/crashes/" "${dict[@]}" \
      "$work" "tests/fuzz/$t" >"$log" 2>&1
}

for t in "${targets[@]}"; do
  if [ ! -x "$builddir/bin/fuzz_$t" ]; then
    echo "fuzz: no target $t (tests/fuzz/${t}_fuzz.c)" >&2
    exit 1
  fi
done

# As many targets at once as there are cores (libFuzzer uses one): the
# minute each gets stays a minute, and the whole takes 1/nproc of the
# time. Each writes its status beside its log; the reports come after, in
# order.
jobs=$(nproc)
running=0
for t in "${targets[@]}"; do
  if ((running >= jobs)); then
    wait -n || true
    running=$((running - 1))
  fi
  echo "fuzz: $t for ${secs}s (log: $builddir/fuzz-$t.log)"
  rm -f "$builddir/fuzz-$t.rc"
  (fuzz_one "$t" && rc=0 || rc=$?; echo "$rc" >"$builddir/fuzz-$t.rc") &
  running=$((running + 1))
done
wait
for t in "${targets[@]}"; do
  log=$builddir/fuzz-$t.log
  if [ "$(cat "$builddir/fuzz-$t.rc" 2>/dev/null)" = 0 ]; then
    echo "fuzz: $t: $(grep -E '^stat::number_of_executed_units|^Done' "$log" | tr '\n' ' ')"
  else
    failed+=("$t")
    echo "fuzz: $t FAILED (log: $log)" >&2
    tail -n 60 "$log" >&2
  fi
done

if ((${#failed[@]})); then
  echo "fuzz: FAILED: ${failed[*]}; the inputs are kept in" \
       "tests/fuzz/<target>/crashes/" >&2
  exit 1
fi
echo "fuzz: ${#targets[@]} targets, ${secs}s each, no crash"
