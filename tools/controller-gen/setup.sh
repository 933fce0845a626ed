#!/usr/bin/env bash
# Installs a pinned controller-gen (controller-tools) from the Go module proxy and caches it;
# prints the directory that holds `controller-gen` as the last line of stdout.
#
#   tools/controller-gen/setup.sh [VERSION]      (default below; env: OPGEN_CONTROLLER_GEN_VERSION)
#
# Interface, like tools/envtest/setup.sh: the last stdout line is the directory; a second run
# with the cache warm returns at once; CONTROLLER_GEN, when it names an executable, is used
# as it is. Environment: OPGEN_CACHE_DIR (default ${XDG_CACHE_HOME:-~/.cache}/opgen).
set -euo pipefail

# v0.23.0 is the newest controller-tools release (2026-10): its go.mod asks for Go 1.26.0 and
# has no replace or toolchain lines, so `go install ...@v0.23.0` builds with the machine's
# Go 1.26 and GOTOOLCHAIN=local. It generates with k8s.io v0.37, the newest Kubernetes the
# scaffold's k8s-openapi supports.
DEFAULT_VERSION=v0.23.0

version="${1:-${OPGEN_CONTROLLER_GEN_VERSION:-$DEFAULT_VERSION}}"
[[ "$version" == v* ]] || version="v$version"
if ! [[ "$version" =~ ^v[0-9]+\.[0-9]+\.[0-9]+$ ]]; then
  echo "setup-controller-gen: '$version' is not a controller-tools release like $DEFAULT_VERSION" >&2
  exit 2
fi

if [[ -n "${CONTROLLER_GEN:-}" ]]; then
  if [[ -x "$CONTROLLER_GEN" && ! -d "$CONTROLLER_GEN" ]]; then
    echo "setup-controller-gen: using CONTROLLER_GEN" >&2
    dirname "$CONTROLLER_GEN"
    exit 0
  fi
  echo "setup-controller-gen: CONTROLLER_GEN=$CONTROLLER_GEN is not an executable; installing $version" >&2
fi

cache="${OPGEN_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/opgen}/controller-gen"
dir="$cache/$version"
if [[ -x "$dir/controller-gen" && -f "$dir/.complete" ]]; then
  echo "$dir"
  exit 0
fi

if ! command -v go >/dev/null 2>&1; then
  cat >&2 <<MSG
setup-controller-gen: Go is needed to install controller-gen $version, and 'go' is not on PATH.
  Install Go 1.26 or newer (https://go.dev/doc/install), or set CONTROLLER_GEN to a
  controller-gen binary you already have.
MSG
  exit 1
fi

rm -rf "$dir.tmp"
mkdir -p "$dir.tmp"
log="$cache/install-$version.log"
echo "setup-controller-gen: installing controller-gen $version (a minute or two the first time; log: $log)" >&2
if ! GOBIN="$dir.tmp" GOFLAGS="${GOFLAGS:-}" CGO_ENABLED=0 \
  go install "sigs.k8s.io/controller-tools/cmd/controller-gen@$version" >"$log" 2>&1; then
  echo "setup-controller-gen: go install failed; the last lines of $log:" >&2
  tail -n 40 "$log" >&2
  rm -rf "$dir.tmp"
  exit 1
fi
"$dir.tmp/controller-gen" --version >>"$log" 2>&1 || {
  echo "setup-controller-gen: the installed controller-gen does not run; see $log" >&2
  exit 1
}
echo "controller-tools $version" >"$dir.tmp/.complete"
rm -rf "$dir"
mv "$dir.tmp" "$dir"
echo "setup-controller-gen: controller-gen $version in $dir" >&2
echo "$dir"
