#!/usr/bin/env bash
# Builds crdify (the second referee of `opgen diff`: tests/diff_crdify.rs runs it on every pair
# and requires its verdicts to be the ones recorded in tests/fixtures/diff/crdify/) into a cache
# directory and prints that directory as the last line of stdout.
#
#   CRDIFY_SRC=<crdify sources> bash tools/crdify/setup.sh   # -> .../opgen/crdify/54162f2e3097
#   CRDIFY=/path/to/crdify bash tools/crdify/setup.sh        # an existing binary is used as is
#
# The Go module proxy refuses sigs.k8s.io/crdify (403), so there is no `go install`: its sources
# come from github.com/kubernetes-sigs/crdify at COMMIT, given as CRDIFY_SRC: a git repository
# (a clone, or a bare snapshot: the commit is taken from it with `git archive`) or a directory
# of those sources. Its dependencies come from the proxy (its go.sum pins them). A warm run
# (binary present) needs neither CRDIFY_SRC nor `go`; without either it fails saying so, and
# tools/test.sh then leaves the recorded verdicts unchecked.
#
# Version: 54162f2e3097fb147e1932b9b27abf5c97980a70 (2026-03-10, "Merge pull request #56"),
# crdify's newest commit (it has no release tag), the one the recorded verdicts come from; its
# go.mod says go 1.24, which the Go 1.26.8 toolchain of this machine and CI builds.
set -euo pipefail

COMMIT=54162f2e3097fb147e1932b9b27abf5c97980a70

# shellcheck source=tools/cache.sh
source "$(dirname "$0")/../cache.sh"
use_override CRDIFY

dir="$cache_root/crdify/${COMMIT:0:12}"
if [[ -x "$dir/crdify" ]]; then
    echo "$dir"
    exit 0
fi
if [[ -z "${CRDIFY_SRC:-}" ]]; then
    echo "error: crdify is not built; the Go module proxy refuses it, so give its sources:" >&2
    echo "  git clone https://github.com/kubernetes-sigs/crdify && CRDIFY_SRC=\$PWD/crdify bash $0" >&2
    exit 1
fi
if ! command -v go >/dev/null 2>&1; then
    echo "error: \`go\` is not on PATH; crdify is built with it (or set CRDIFY to a binary)." >&2
    exit 1
fi

mkdir -p "$cache_root"
tmp="$(mktemp -d "$cache_root/.crdify.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/src"
if git --git-dir "$CRDIFY_SRC/.git" cat-file -e "$COMMIT^{commit}" 2>/dev/null; then
    git --git-dir "$CRDIFY_SRC/.git" archive "$COMMIT" | tar -x -C "$tmp/src"
elif git --git-dir "$CRDIFY_SRC" cat-file -e "$COMMIT^{commit}" 2>/dev/null; then
    git --git-dir "$CRDIFY_SRC" archive "$COMMIT" | tar -x -C "$tmp/src"
elif grep -qx 'module sigs.k8s.io/crdify' "$CRDIFY_SRC/go.mod" 2>/dev/null; then
    cp -R "$CRDIFY_SRC/." "$tmp/src"
else
    echo "error: CRDIFY_SRC=$CRDIFY_SRC holds neither commit $COMMIT nor crdify's sources" >&2
    exit 1
fi
echo "building crdify ${COMMIT:0:12} with $(go version)" >&2
if ! (cd "$tmp/src" && GOFLAGS=-mod=readonly go build "${go_tool_flags[@]}" -o "$tmp/crdify" .) >"$tmp/build.log" 2>&1; then
    echo "error: go build of crdify failed:" >&2
    tail -n 20 "$tmp/build.log" >&2
    exit 1
fi
mkdir -p "$dir"
mv "$tmp/crdify" "$dir/crdify"
echo "$dir"
