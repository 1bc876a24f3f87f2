#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The README's first command: install what is missing, build, lay out the
# quickstart project, run the quickstart box, then show its decision log.
set -euo pipefail
cd "$(dirname "$0")/../.."
deploy/setup.sh
deploy/quickstart/prepare.sh
# The box directory (and its decision log) is kept between runs: show
# only the lines this run adds.
log=/tmp/box-quickstart/state/private/telemetry/records.jsonl
before=$( (wc -l < "$log") 2>/dev/null || echo 0)
status=0
# The services' own info lines would interleave with the agent's output;
# warnings and errors still show (BOX_LOG_LEVEL=info to see them all).
BOX_LOG_LEVEL=${BOX_LOG_LEVEL:-warn} \
  build/bin/box run --config deploy/quickstart/box.toml "$@" || status=$?
echo "--- this run's decisions (the whole log: box log --box-dir /tmp/box-quickstart/state)"
tail -n +"$((before + 1))" "$log" > /tmp/box-quickstart/this-run.jsonl
build/bin/box log /tmp/box-quickstart/this-run.jsonl
exit "$status"
