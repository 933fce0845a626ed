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

if [[ -n "${CRD_REF_DOCS:-}" ]]; then
    if [[ -x "$CRD_REF_DOCS" && ! -d "$CRD_REF_DOCS" ]]; then
        dirname -- "$(cd -- "$(dirname -- "$CRD_REF_DOCS")" && pwd)/$(basename -- "$CRD_REF_DOCS")"
        exit 0
    fi
    echo "error: CRD_REF_DOCS=$CRD_REF_DOCS is not an executable file" >&2
    exit 1
fi

cache_root="${OPGEN_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/opgen}"
dir="$cache_root/crd-ref-docs/$VERSION"
bin="$dir/crd-ref-docs"

if [[ -x "$bin" ]]; then
    echo "$dir"
    exit 0
fi

if ! command -v go >/dev/null 2>&1; then
    echo "error: \`go\` is not on PATH; crd-ref-docs $VERSION is built with \`go install\`." >&2
    echo "Install Go >= 1.25 (https://go.dev/dl/), or set CRD_REF_DOCS to an existing crd-ref-docs binary." >&2
    exit 1
fi

mkdir -p "$dir"
log="$dir/install.log"
tmp="$(mktemp -d "$dir/.gobin.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT

echo "building crd-ref-docs $VERSION with $(go version) (log: $log)" >&2
if ! GOBIN="$tmp" GOFLAGS="${GOFLAGS:-} -mod=mod" go install "$MODULE@$VERSION" >"$log" 2>&1; then
    echo "error: go install $MODULE@$VERSION failed; last lines of $log:" >&2
    tail -n 20 "$log" >&2
    exit 1
fi
# Rename into place, so that a concurrent or interrupted run never leaves a half-written binary.
mv -f "$tmp/crd-ref-docs" "$bin"
echo "$dir"
