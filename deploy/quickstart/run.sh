#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The README's first command: install what is missing, build, lay out the
# quickstart project, run the quickstart box, then show its decision log.
set -euo pipefail
cd "$(dirname "$0")/../.."
deploy/setup.sh
deploy/quickstart/prepare.sh
status=0
# The services' own info lines would interleave with the agent's output;
# warnings and errors still show (BOX_LOG_LEVEL=info to see them all).
BOX_LOG_LEVEL=${BOX_LOG_LEVEL:-warn} \
  build/bin/box run --config deploy/quickstart/box.toml "$@" || status=$?
echo "--- decision log (box log --box-dir /tmp/box-quickstart/state)"
build/bin/box log --box-dir /tmp/box-quickstart/state
exit "$status"
