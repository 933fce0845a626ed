#!/usr/bin/env bash
# Installs controller-gen (the referee of opgen's conformance tests and the other side of the
# benchmark) into a cache directory and prints that directory as the last line of stdout.
#
#   bash tools/controller-gen/setup.sh            # -> .../opgen/controller-gen/v0.23.0
#   CONTROLLER_GEN=/path/to/controller-gen bash tools/controller-gen/setup.sh
#                                                  # -> /path/to (an existing binary is used as is)
#
# Cache: ${OPGEN_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/opgen}/controller-gen/<version>/
# A warm run (binary present) returns at once and needs neither network nor `go`.
#
# Version: v0.23.0 is the newest controller-tools release on the Go module proxy
# (`go list -m -versions sigs.k8s.io/controller-tools`: ... v0.21.0 v0.22.0 v0.23.0). Its go.mod
# says `go 1.26.0`, so it builds with the Go 1.26.8 toolchain of this machine and CI
# (GOTOOLCHAIN=local, no toolchain download); v0.21.0 and v0.22.0 also say `go 1.26.0`, so
# nothing older is needed. The conformance tests also take controller-tools' own testdata from
# the Go module cache at this version: bump both together (tests read this file's VERSION line).
set -euo pipefail

VERSION=v0.23.0
MODULE=sigs.k8s.io/controller-tools

exec "$BASH" "$(dirname "$0")/../go-install.sh" CONTROLLER_GEN controller-gen controller-gen "$VERSION" \
    1.26 "$MODULE/cmd/controller-gen@$VERSION"
