#!/usr/bin/env bash
# Installs a Go tool with `go install` into opgen's cache and prints its directory as the last
# line of stdout; the tools/<tool>/setup.sh scripts pin what and why, and call this:
#
#   bash tools/go-install.sh <ENV_VAR> <binary> <version> <minimum Go> <package@version> [go install flags...]
#
# <ENV_VAR> set to an executable wins as is (its directory is printed). Cache:
# ${OPGEN_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/opgen}/<binary>/<version>/; a warm run
# (binary present) returns at once and needs neither network nor `go`.
set -euo pipefail

env_var="$1" name="$2" version="$3" go_min="$4" package="$5"
shift 5

override="${!env_var:-}"
if [[ -n "$override" ]]; then
    if [[ -x "$override" && ! -d "$override" ]]; then
        dirname -- "$(cd -- "$(dirname -- "$override")" && pwd)/$(basename -- "$override")"
        exit 0
    fi
    echo "error: $env_var=$override is not an executable file" >&2
    exit 1
fi

cache_root="${OPGEN_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/opgen}"
dir="$cache_root/$name/$version"
bin="$dir/$name"

if [[ -x "$bin" ]]; then
    echo "$dir"
    exit 0
fi

if ! command -v go >/dev/null 2>&1; then
    echo "error: \`go\` is not on PATH; $name $version is built with \`go install\`." >&2
    echo "Install Go >= $go_min (https://go.dev/dl/), or set $env_var to an existing $name binary." >&2
    exit 1
fi

mkdir -p "$dir"
log="$dir/install.log"
tmp="$(mktemp -d "$dir/.gobin.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT

echo "building $name $version with $(go version) (log: $log)" >&2
if ! GOBIN="$tmp" GOFLAGS="${GOFLAGS:-} -mod=mod" go install "$@" "$package" >"$log" 2>&1; then
    echo "error: go install $package failed; last lines of $log:" >&2
    tail -n 20 "$log" >&2
    exit 1
fi
# Rename into place, so that a concurrent or interrupted run never leaves a half-written binary.
mv -f "$tmp/$name" "$bin"
echo "$dir"
