#!/usr/bin/env bash
# Rebuilds data/k8s-schemas.jsonl (opgen's embedded Kubernetes type schemas) with controller-tools
# from the pinned Go sources of every Kubernetes minor in versions/ (see README.md).
#
#   tools/k8s-schemas/regen.sh           # from anywhere; rewrites data/k8s-schemas.jsonl
#   tools/k8s-schemas/regen.sh -check    # compares instead; exit 1 if the file would change
#
# Needs Go (the version of go.mod, no toolchain download) and the Go module proxy or a module
# cache holding the pinned modules.
set -euo pipefail
tool="$(cd "$(dirname "$0")" && pwd)"
cd "$tool"
export GOWORK=off GOTOOLCHAIN=local
versions=(versions/*/)
exec go run . "$@" "${versions[@]%/}"
