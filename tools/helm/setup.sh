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


# Without debug information, as go-install.sh builds every tool (these -ldflags replace its own).
ldflags="-s -w -X $MODULE/internal/version.version=$VERSION"
ldflags+=" -X $MODULE/pkg/chartutil.k8sVersionMinor=$KUBE_MINOR"
ldflags+=" -X $MODULE/pkg/lint/rules.k8sVersionMinor=$KUBE_MINOR"
exec "$BASH" "$(dirname "$0")/../go-install.sh" HELM helm helm "$VERSION" 1.26 "$MODULE/cmd/helm@$VERSION" \
    -ldflags "$ldflags"
