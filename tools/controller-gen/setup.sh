#!/usr/bin/env bash
# Installs controller-gen (the referee of opgen's conformance tests and the other side of the
# benchmark) into a cache directory and prints that directory as the last line of stdout.
#
#   bash tools/controller-gen/setup.sh            # -> .../opgen/controller-gen/v0.23.0
#   CONTROLLER_GEN=/path/to/controller-gen bash tools/controller-gen/setup.sh
#                                                  # -> /path/to (an existing binary is used as is)
#
# Cache: ${OPGEN_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/opgen}/controller-gen/<version>/
# A warm run (binary present) returns at once and needs neither network nor `go`.
#
# Version: v0.23.0 is the newest controller-tools release on the Go module proxy
# (`go list -m -versions sigs.k8s.io/controller-tools`: ... v0.21.0 v0.22.0 v0.23.0). Its go.mod
# says `go 1.26.0`, so it builds with the Go 1.26.8 toolchain of this machine and CI
# (GOTOOLCHAIN=local, no toolchain download); v0.21.0 and v0.22.0 also say `go 1.26.0`, so
# nothing older is needed. The conformance tests also take controller-tools' own testdata from
# the Go module cache at this version: bump both together (tests read this file's VERSION line).
set -euo pipefail

VERSION=v0.23.0
MODULE=sigs.k8s.io/controller-tools

if [[ -n "${CONTROLLER_GEN:-}" ]]; then
    if [[ -x "$CONTROLLER_GEN" && ! -d "$CONTROLLER_GEN" ]]; then
        dirname -- "$(cd -- "$(dirname -- "$CONTROLLER_GEN")" && pwd)/$(basename -- "$CONTROLLER_GEN")"
        exit 0
    fi
    echo "error: CONTROLLER_GEN=$CONTROLLER_GEN is not an executable file" >&2
    exit 1
fi

cache_root="${OPGEN_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/opgen}"
dir="$cache_root/controller-gen/$VERSION"
bin="$dir/controller-gen"

if [[ -x "$bin" ]]; then
    echo "$dir"
    exit 0
fi

if ! command -v go >/dev/null 2>&1; then
    echo "error: \`go\` is not on PATH; controller-gen $VERSION is built with \`go install\`." >&2
    echo "Install Go >= 1.26 (https://go.dev/dl/), or set CONTROLLER_GEN to an existing controller-gen binary." >&2
    exit 1
fi

mkdir -p "$dir"
log="$dir/install.log"
tmp="$(mktemp -d "$dir/.gobin.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT

echo "building controller-gen $VERSION with $(go version) (log: $log)" >&2
if ! GOBIN="$tmp" GOFLAGS="${GOFLAGS:-} -mod=mod" go install "$MODULE/cmd/controller-gen@$VERSION" >"$log" 2>&1; then
    echo "error: go install $MODULE/cmd/controller-gen@$VERSION failed; last lines of $log:" >&2
    tail -n 20 "$log" >&2
    exit 1
fi
# Rename into place, so that a concurrent or interrupted run never leaves a half-written binary.
mv -f "$tmp/controller-gen" "$bin"
echo "$dir"
