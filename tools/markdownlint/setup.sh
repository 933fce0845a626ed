#!/usr/bin/env bash
# Installs markdownlint-cli2 (the Markdown linter tests/docs_reference.rs runs on what
# `opgen docs` writes) from npm into a cache directory, never into the repository, and prints
# the directory holding its `markdownlint-cli2` executable as the last line of stdout.
#
#   bash tools/markdownlint/setup.sh               # -> .../opgen/markdownlint/0.20.0/node_modules/.bin
#   MARKDOWNLINT=/path/to/markdownlint-cli2 bash tools/markdownlint/setup.sh
#
# Version: 0.20.0 is the newest markdownlint-cli2 whose `engines` accepts Node 20
# (`npm view markdownlint-cli2@0.24.1 engines`: node >=22), the Node of this machine and CI.
set -euo pipefail

VERSION=0.20.0

if [[ -n "${MARKDOWNLINT:-}" ]]; then
    if [[ -x "$MARKDOWNLINT" && ! -d "$MARKDOWNLINT" ]]; then
        dirname -- "$(cd -- "$(dirname -- "$MARKDOWNLINT")" && pwd)/$(basename -- "$MARKDOWNLINT")"
        exit 0
    fi
    echo "error: MARKDOWNLINT=$MARKDOWNLINT is not an executable file" >&2
    exit 1
fi

cache_root="${OPGEN_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/opgen}"
dir="$cache_root/markdownlint/$VERSION"
bin="$dir/node_modules/.bin/markdownlint-cli2"

if [[ -x "$bin" ]]; then
    dirname -- "$bin"
    exit 0
fi

if ! command -v npm >/dev/null 2>&1; then
    echo "error: \`npm\` is not on PATH; markdownlint-cli2 $VERSION is installed with it." >&2
    echo "Install Node.js >= 20, or set MARKDOWNLINT to an existing markdownlint-cli2." >&2
    exit 1
fi

tmp="$(mktemp -d "${cache_root}/.markdownlint.XXXXXX" 2>/dev/null || { mkdir -p "$cache_root" && mktemp -d "${cache_root}/.markdownlint.XXXXXX"; })"
trap 'rm -rf "$tmp"' EXIT
echo "installing markdownlint-cli2 $VERSION with npm $(npm --version)" >&2
if ! npm install --prefix "$tmp" --no-save --no-audit --no-fund "markdownlint-cli2@$VERSION" >"$tmp/install.log" 2>&1; then
    echo "error: npm install markdownlint-cli2@$VERSION failed:" >&2
    tail -n 20 "$tmp/install.log" >&2
    exit 1
fi
mkdir -p "$(dirname "$dir")"
rm -rf "$dir"
mv "$tmp" "$dir"
trap - EXIT
dirname -- "$bin"
