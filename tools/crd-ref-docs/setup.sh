#!/usr/bin/env bash
# Installs crd-ref-docs (the referee of `opgen docs`: tests/docs_reference.rs compares the kinds,
# fields, types, required flags and defaults it documents for Go API packages with what
# `opgen docs` documents for the same packages imported with `opgen import go`) into a cache
# directory and prints that directory as the last line of stdout.
#
#   bash tools/crd-ref-docs/setup.sh              # -> .../opgen/crd-ref-docs/v0.3.0
#   CRD_REF_DOCS=/path/to/crd-ref-docs bash tools/crd-ref-docs/setup.sh
#                                                  # -> /path/to (an existing binary is used as is)
#
# Cache: ${OPGEN_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/opgen}/crd-ref-docs/<version>/
# A warm run (binary present) returns at once and needs neither network nor `go`.
#
# Version: v0.3.0 is the newest release on the Go module proxy
# (`go list -m -versions github.com/elastic/crd-ref-docs`: v0.0.10 v0.0.12 v0.3.0). Its go.mod
# says `go 1.25.0` (toolchain go1.25.6, a minimum, not a download under GOTOOLCHAIN=local), so
# it builds with the Go 1.26.8 of this machine and CI; it reads the packages with
# controller-tools v0.20.0's loader and markers, the marker dialect opgen follows.
set -euo pipefail

VERSION=v0.3.0
MODULE=github.com/elastic/crd-ref-docs

exec "$BASH" "$(dirname "$0")/../go-install.sh" CRD_REF_DOCS crd-ref-docs crd-ref-docs "$VERSION" 1.25 \
    "$MODULE@$VERSION"
