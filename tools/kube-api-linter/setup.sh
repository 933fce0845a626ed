#!/usr/bin/env bash
# Builds kube-api-linter (main.go: every analyzer of sigs.k8s.io/kube-api-linter with its default
# configuration, run by x/tools' analysis checker) into a cache directory and prints that directory as the
# last line of stdout: the referee of `opgen lint` (tests/lint_conformance.rs).
#
#   bash tools/kube-api-linter/setup.sh                 # -> .../opgen/kube-api-linter/<version>-<key>
#   KUBE_API_LINTER=/path/to/kube-api-linter bash tools/kube-api-linter/setup.sh   # used as is
#
# Cache: ${OPGEN_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/opgen}/kube-api-linter/<version>-<key>/
#
# Version: kube-api-linter has no release tags; its module is published only as pseudo-versions
# of its main branch. `go list -m -json sigs.k8s.io/kube-api-linter@latest` gave
# v0.0.0-20260716143926-092fe0c72997 (commit 092fe0c72997, 2026-07-16), pinned in go.mod/go.sum
# next to this script so that the rules, their defaults and their testdata do not move under the
# tests. It says `go 1.24.0`, so it builds with this machine's Go 1.26.8 and GOTOOLCHAIN=local.
# KAL's own command is a golangci-lint plugin build; a plain analysis driver needs no golangci-lint
# configuration and prints findings as JSON (`-json`) with each analyzer's name. The tests take
# KAL's analysistest testdata from the Go module cache at the version go.mod pins.
set -euo pipefail

VERSION=v0.0.0-20260716143926-092fe0c72997
here="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)"

exec "$BASH" "$here/../go-install.sh" KUBE_API_LINTER kube-api-linter kube-api-linter "$VERSION" 1.24 "$here"
