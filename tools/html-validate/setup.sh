#!/usr/bin/env bash
# Installs html-validate (the HTML5 validator tests/docs_reference.rs runs on what
# `opgen docs --format html` writes) from npm into a cache directory, never into the
# repository, and prints the directory holding its `html-validate` executable as the last line
# of stdout.
#
#   bash tools/html-validate/setup.sh              # -> .../opgen/html-validate/10.17.0/node_modules/.bin
#   HTML_VALIDATE=/path/to/html-validate bash tools/html-validate/setup.sh
#
# Version: 10.17.0 is the newest html-validate whose `engines` accept Node 20
# (`npm view html-validate@11.0.0 engines`: node ^22.16.0 || >= 24.0.0), the Node of this
# machine and CI.
set -euo pipefail

VERSION=10.17.0

exec "$BASH" "$(dirname "$0")/../npm-install.sh" HTML_VALIDATE html-validate html-validate \
    html-validate "$VERSION"
