#!/usr/bin/env bash
# Builds a Go tool into opgen's cache and prints its directory as the last line of stdout; the
# tools/<tool>/setup.sh scripts pin what and say why, and call this:
#
#   bash tools/go-install.sh [--with-debug-info] <ENV_VAR> <binary> <cache name> <version> <minimum Go> <source> [go flags...]
#
# It builds with cache.sh's go_tool_flags (no debug information), then the given go flags (which
# win: helm's -ldflags); --with-debug-info builds as a plain `go build` does instead (go-memcached,
# whose binary size a benchmark reports).
# <source> is `<package>@<version>` (`go install` from the module proxy) or the directory of a
# main module kept in the repository (`go build -mod=readonly` there; its .go files, go.mod and
# go.sum are hashed into the cache key, so an edit rebuilds). <ENV_VAR> set to an executable wins as
# is (its directory is printed). Cache:
# ${OPGEN_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/opgen}/<cache name>/<version>[-<key>]/;
# a warm run (binary present) returns at once and needs neither network nor `go`.
set -euo pipefail

# shellcheck source=tools/cache.sh
source "$(dirname "$0")/cache.sh"
flags=("${go_tool_flags[@]}")
if [[ "$1" == --with-debug-info ]]; then
    flags=()
    shift
fi
env_var="$1" name="$2" cache_name="$3" version="$4" go_min="$5" source="$6"
shift 6
use_override "$env_var"
dir="$cache_root/$cache_name/$version"
if [[ -d "$source" ]]; then
    key="$(cat "$source"/*.go "$source/go.mod" "$source/go.sum" | sha256sum | cut -c1-12)"
    dir="$dir-$key"
fi
bin="$dir/$name"

if [[ -x "$bin" ]]; then
    echo "$dir"
    exit 0
fi

if ! command -v go >/dev/null 2>&1; then
    echo "error: \`go\` is not on PATH; $name $version is built with it." >&2
    echo "Install Go >= $go_min (https://go.dev/dl/), or set $env_var to an existing $name binary." >&2
    exit 1
fi

mkdir -p "$dir"
log="$dir/build.log"
tmp="$(mktemp -d "$dir/.build.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT

echo "building $name $version with $(go version) (log: $log)" >&2
if [[ -d "$source" ]]; then
    build() { (cd "$source" && GOTOOLCHAIN="${GOTOOLCHAIN:-local}" go build -mod=readonly "$@" -o "$tmp/$name" .); }
else
    build() { GOBIN="$tmp" GOFLAGS="${GOFLAGS:-} -mod=mod" go install "$@" "$source"; }
fi
if ! build "${flags[@]}" "$@" >"$log" 2>&1; then
    echo "error: building $name from $source failed; last lines of $log:" >&2
    tail -n 20 "$log" >&2
    exit 1
fi
# Rename into place, so that a concurrent or interrupted run never leaves a half-written binary.
mv -f "$tmp/$name" "$bin"
echo "$dir"
