#!/usr/bin/env bash
# Builds olm-validate (operator-framework/api's bundle validators with a real exit code; see main.go)
# into a cache directory and prints that directory as the last line of stdout.
#
#   bash tools/olm/setup.sh                    # -> .../opgen/olm/<api version>
#   OLM_VALIDATE=/path/to/olm-validate bash tools/olm/setup.sh   # an existing binary is used as is
#
# Cache: ${OPGEN_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/opgen}/olm/<version>/
# The version is pinned by go.mod/go.sum next to this script (operator-framework/api v0.45.0 says
# go 1.26.3, no replaces, so it builds with this machine's Go 1.26.8 and GOTOOLCHAIN=local).
set -euo pipefail

VERSION=v0.45.0
here="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)"

exec "$BASH" "$here/../go-install.sh" OLM_VALIDATE olm-validate olm "$VERSION" 1.26.3 "$here"
