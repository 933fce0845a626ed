#!/usr/bin/env bash
# Builds kube-api-linter (main.go: every analyzer of sigs.k8s.io/kube-api-linter with its default
# configuration, as one multichecker) into a cache directory and prints that directory as the
# last line of stdout: the referee of `opgen lint` (tests/lint_conformance.rs).
#
#   bash tools/kube-api-linter/setup.sh                 # -> .../opgen/kube-api-linter/<version>-<key>
#   KUBE_API_LINTER=/path/to/kube-api-linter bash tools/kube-api-linter/setup.sh   # used as is
#
# Cache: ${OPGEN_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/opgen}/kube-api-linter/<version>-<key>/
#
# Version: kube-api-linter has no release tags; its module is published only as pseudo-versions
# of its main branch. `go list -m -json sigs.k8s.io/kube-api-linter@latest` gave
# v0.0.0-20260716143926-092fe0c72997 (commit 092fe0c72997, 2026-07-16), pinned in go.mod/go.sum
# next to this script so that the rules, their defaults and their testdata do not move under the
# tests. It says `go 1.24.0`, so it builds with this machine's Go 1.26.8 and GOTOOLCHAIN=local.
# KAL's own command is a golangci-lint plugin build; a plain multichecker needs no golangci-lint
# configuration and prints findings as JSON (`-json`) with each analyzer's name. The tests take
# KAL's analysistest testdata from the Go module cache at the version go.mod pins.
set -euo pipefail

VERSION=v0.0.0-20260716143926-092fe0c72997
here="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)"

if [[ -n "${KUBE_API_LINTER:-}" ]]; then
    if [[ -x "$KUBE_API_LINTER" && ! -d "$KUBE_API_LINTER" ]]; then
        dirname -- "$(cd -- "$(dirname -- "$KUBE_API_LINTER")" && pwd)/$(basename -- "$KUBE_API_LINTER")"
        exit 0
    fi
    echo "error: KUBE_API_LINTER=$KUBE_API_LINTER is not an executable file" >&2
    exit 1
fi

cache_root="${OPGEN_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/opgen}"
# The source hash is part of the key, so an edit to main.go or go.sum rebuilds.
key="$(cat "$here/main.go" "$here/go.mod" "$here/go.sum" | sha256sum | cut -c1-12)"
dir="$cache_root/kube-api-linter/$VERSION-$key"
bin="$dir/kube-api-linter"

if [[ -x "$bin" ]]; then
    echo "$dir"
    exit 0
fi

if ! command -v go >/dev/null 2>&1; then
    echo "error: \`go\` is not on PATH; kube-api-linter is built with \`go build\`." >&2
    echo "Install Go >= 1.24 (https://go.dev/dl/), or set KUBE_API_LINTER to an existing binary built from main.go." >&2
    exit 1
fi

mkdir -p "$dir"
log="$dir/build.log"
tmp="$(mktemp -d "$dir/.build.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT

echo "building kube-api-linter ($VERSION) with $(go version) (log: $log)" >&2
if ! (cd "$here" && GOTOOLCHAIN="${GOTOOLCHAIN:-local}" go build -mod=readonly -o "$tmp/kube-api-linter" .) >"$log" 2>&1; then
    echo "error: go build in $here failed; last lines of $log:" >&2
    tail -n 20 "$log" >&2
    exit 1
fi
# Rename into place, so that a concurrent or interrupted run never leaves a half-written binary.
mv -f "$tmp/kube-api-linter" "$bin"
echo "$dir"
