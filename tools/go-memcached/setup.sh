#!/usr/bin/env bash
# Builds go-memcached, kubebuilder's memcached operator on controller-runtime (the Go side of the
# runtime benchmark, bench/runtime/go-memcached/), into a cache directory and prints that
# directory as the last line of stdout.
#
#   bash tools/go-memcached/setup.sh                 # -> .../opgen/go-memcached/v0.25.2-<key>
#   GO_MEMCACHED=/path/to/go-memcached bash tools/go-memcached/setup.sh   # used as is
#
# Cache: ${OPGEN_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/opgen}/go-memcached/<version>-<key>/,
# the key hashing the module's sources, so an edit rebuilds.
# The version is controller-runtime's, pinned in bench/runtime/go-memcached/go.mod with the
# k8s.io modules at the v0.37.0 its go.mod requires, as kubebuilder's scaffold pins them.
set -euo pipefail

VERSION=v0.25.2
here="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)"

# Built as kubebuilder's Dockerfile builds the manager (`go build`, debug information kept): the
# benchmark reports its binary's size.
exec "$BASH" "$here/../go-install.sh" --with-debug-info GO_MEMCACHED go-memcached go-memcached "$VERSION" 1.26 \
    "$here/../../bench/runtime/go-memcached"
