#!/usr/bin/env bash
# Installs markdownlint-cli2 (the Markdown linter tests/docs_reference.rs runs on what
# `opgen docs` writes) from npm into a cache directory, never into the repository, and prints
# the directory holding its `markdownlint-cli2` executable as the last line of stdout.
#
#   bash tools/markdownlint/setup.sh               # -> .../opgen/markdownlint/0.20.0/node_modules/.bin
#   MARKDOWNLINT=/path/to/markdownlint-cli2 bash tools/markdownlint/setup.sh
#
# Version: 0.20.0 is the newest markdownlint-cli2 whose `engines` accepts Node 20
# (`npm view markdownlint-cli2@0.24.1 engines`: node >=22), the Node of this machine and CI.
set -euo pipefail

VERSION=0.20.0

exec "$BASH" "$(dirname "$0")/../npm-install.sh" MARKDOWNLINT markdownlint-cli2 markdownlint \
    markdownlint-cli2 "$VERSION"
