#!/usr/bin/env bash
# Installs Asciidoctor.js (the AsciiDoc processor tests/docs_reference.rs converts what
# `opgen docs --format asciidoc` writes with, failing on any warning) from npm into a cache
# directory, never into the repository, and prints the directory holding its `asciidoctor`
# executable as the last line of stdout.
#
#   bash tools/asciidoctor/setup.sh                # -> .../opgen/asciidoctor/3.0.4/node_modules/.bin
#   ASCIIDOCTOR=/path/to/asciidoctor bash tools/asciidoctor/setup.sh
#
# Version: 3.0.4 is the newest `asciidoctor` package (Asciidoctor.js 3.0.4 with its CLI 4.0.0);
# its `engines` (node >=16) accept Node 20, the Node of this machine and CI.
set -euo pipefail

VERSION=3.0.4

exec "$BASH" "$(dirname "$0")/../npm-install.sh" ASCIIDOCTOR asciidoctor asciidoctor \
    asciidoctor "$VERSION"
