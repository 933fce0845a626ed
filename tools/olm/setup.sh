#!/usr/bin/env bash
# Builds olm-validate (operator-framework/api's bundle validators with a real exit code; see main.go)
# into a cache directory and prints that directory as the last line of stdout.
#
#   bash tools/olm/setup.sh                    # -> .../opgen/olm/<api version>
#   OLM_VALIDATE=/path/to/olm-validate bash tools/olm/setup.sh   # an existing binary is used as is
#
# Cache: ${OPGEN_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/opgen}/olm/<version>/
# The version is pinned by go.mod/go.sum next to this script (operator-framework/api v0.45.0 says
# go 1.26.3, no replaces, so it builds with this machine's Go 1.26.8 and GOTOOLCHAIN=local).
set -euo pipefail

VERSION=v0.45.0
here="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)"

if [[ -n "${OLM_VALIDATE:-}" ]]; then
    if [[ -x "$OLM_VALIDATE" && ! -d "$OLM_VALIDATE" ]]; then
        dirname -- "$(cd -- "$(dirname -- "$OLM_VALIDATE")" && pwd)/$(basename -- "$OLM_VALIDATE")"
        exit 0
    fi
    echo "error: OLM_VALIDATE=$OLM_VALIDATE is not an executable file" >&2
    exit 1
fi

cache_root="${OPGEN_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/opgen}"
# The source hash is part of the key, so an edit to main.go or go.sum rebuilds.
key="$(cat "$here/main.go" "$here/go.mod" "$here/go.sum" | sha256sum | cut -c1-12)"
dir="$cache_root/olm/$VERSION-$key"
bin="$dir/olm-validate"

if [[ -x "$bin" ]]; then
    echo "$dir"
    exit 0
fi

if ! command -v go >/dev/null 2>&1; then
    echo "error: \`go\` is not on PATH; olm-validate is built with \`go build\`." >&2
    echo "Install Go >= 1.26.3 (https://go.dev/dl/), or set OLM_VALIDATE to an existing olm-validate binary." >&2
    exit 1
fi

mkdir -p "$dir"
log="$dir/build.log"
tmp="$(mktemp -d "$dir/.build.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT

echo "building olm-validate (operator-framework/api $VERSION) with $(go version) (log: $log)" >&2
if ! (cd "$here" && GOTOOLCHAIN="${GOTOOLCHAIN:-local}" go build -mod=readonly -o "$tmp/olm-validate" .) >"$log" 2>&1; then
    echo "error: go build in $here failed; last lines of $log:" >&2
    tail -n 20 "$log" >&2
    exit 1
fi
# Rename into place, so that a concurrent or interrupted run never leaves a half-written binary.
mv -f "$tmp/olm-validate" "$bin"
echo "$dir"
