#!/usr/bin/env bash
# Installs helm (the referee of the `opgen create helm` chart tests: `helm lint`, `helm template`)
# into a cache directory and prints that directory as the last line of stdout.
#
#   bash tools/helm/setup.sh             # -> .../opgen/helm/v3.22.0
#   HELM=/path/to/helm bash tools/helm/setup.sh   # -> /path/to (an existing binary is used as is)
#
# Cache: ${OPGEN_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/opgen}/helm/<version>/
# A warm run (binary present) returns at once and needs neither network nor `go`.
#
# Version: v3.22.0 is the newest helm v3 release on the Go module proxy
# (`go list -m -versions helm.sh/helm/v3`). helm's go.mod has no replace lines, so `go install`
# works. Helm 3 takes its own version and the Kubernetes minor it assumes from ldflags; without
# them it reports v3.x-dev and assumes Kubernetes 1.20, so both are set here.
set -euo pipefail

VERSION=v3.22.0
KUBE_MINOR=33
MODULE=helm.sh/helm/v3

if [[ -n "${HELM:-}" ]]; then
    if [[ -x "$HELM" && ! -d "$HELM" ]]; then
        dirname -- "$(cd -- "$(dirname -- "$HELM")" && pwd)/$(basename -- "$HELM")"
        exit 0
    fi
    echo "error: HELM=$HELM is not an executable file" >&2
    exit 1
fi

cache_root="${OPGEN_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/opgen}"
dir="$cache_root/helm/$VERSION"
bin="$dir/helm"

if [[ -x "$bin" ]]; then
    echo "$dir"
    exit 0
fi

if ! command -v go >/dev/null 2>&1; then
    echo "error: \`go\` is not on PATH; helm $VERSION is built with \`go install\`." >&2
    echo "Install Go >= 1.26 (https://go.dev/dl/), or set HELM to an existing helm binary." >&2
    exit 1
fi

mkdir -p "$dir"
log="$dir/install.log"
tmp="$(mktemp -d "$dir/.gobin.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT

ldflags="-X $MODULE/internal/version.version=$VERSION"
ldflags+=" -X $MODULE/pkg/chartutil.k8sVersionMinor=$KUBE_MINOR"
ldflags+=" -X $MODULE/pkg/lint/rules.k8sVersionMinor=$KUBE_MINOR"

echo "building helm $VERSION with $(go version) (log: $log)" >&2
if ! GOBIN="$tmp" GOFLAGS="${GOFLAGS:-} -mod=mod" go install -ldflags "$ldflags" "$MODULE/cmd/helm@$VERSION" >"$log" 2>&1; then
    echo "error: go install $MODULE/cmd/helm@$VERSION failed; last lines of $log:" >&2
    tail -n 20 "$log" >&2
    exit 1
fi
# Rename into place, so that a concurrent or interrupted run never leaves a half-written binary.
mv -f "$tmp/helm" "$bin"
echo "$dir"
