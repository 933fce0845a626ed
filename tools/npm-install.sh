#!/usr/bin/env bash
# Installs an npm package into opgen's cache (never into the repository) and prints the directory
# holding its executable as the last line of stdout; the tools/<tool>/setup.sh scripts pin what
# and say why, and call this:
#
#   bash tools/npm-install.sh <ENV_VAR> <executable> <cache name> <package> <version>
#
# <ENV_VAR> set to an executable wins as is (its directory is printed). Cache:
# ${OPGEN_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/opgen}/<cache name>/<version>/node_modules/.bin;
# a warm run (executable present) returns at once and needs neither network nor npm.
set -euo pipefail

env_var="$1" name="$2" cache_name="$3" package="$4" version="$5"

# shellcheck source=tools/cache.sh
source "$(dirname "$0")/cache.sh"
use_override "$env_var"
dir="$cache_root/$cache_name/$version"
bin="$dir/node_modules/.bin/$name"

if [[ -x "$bin" ]]; then
    dirname -- "$bin"
    exit 0
fi

if ! command -v npm >/dev/null 2>&1; then
    echo "error: \`npm\` is not on PATH; $package $version is installed with it." >&2
    echo "Install Node.js >= 20, or set $env_var to an existing $name." >&2
    exit 1
fi

mkdir -p "$cache_root"
tmp="$(mktemp -d "$cache_root/.$cache_name.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
echo "installing $package $version with npm $(npm --version)" >&2
if ! npm install --prefix "$tmp" --no-save --no-audit --no-fund "$package@$version" >"$tmp/install.log" 2>&1; then
    echo "error: npm install $package@$version failed:" >&2
    tail -n 20 "$tmp/install.log" >&2
    exit 1
fi
mkdir -p "$(dirname "$dir")"
rm -rf "$dir"
mv "$tmp" "$dir"
trap - EXIT
dirname -- "$bin"
