#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The README's first command: install what is missing, build, lay out the
# quickstart project and run the quickstart box.
set -euo pipefail
cd "$(dirname "$0")/../.."
deploy/setup.sh
deploy/quickstart/prepare.sh
exec build/bin/box run --config deploy/quickstart/box.toml "$@"
