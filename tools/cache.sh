# Sourced by go-install.sh and npm-install.sh: what every tool in opgen's cache shares.

# When the variable named $1 is set: prints the directory of the executable it names and exits
# (0), or fails if it names none. Otherwise returns, and the caller installs the tool.
use_override() {
    local env_var="$1"
    local override="${!env_var:-}"
    [[ -n "$override" ]] || return 0
    if [[ -x "$override" && ! -d "$override" ]]; then
        dirname -- "$(cd -- "$(dirname -- "$override")" && pwd)/$(basename -- "$override")"
        exit 0
    fi
    echo "error: $env_var=$override is not an executable file" >&2
    exit 1
}

cache_root="${OPGEN_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/opgen}"
