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

# The Go tools' build flags: no debug information and no local paths. Nobody debugs a referee,
# and the DWARF the compiler writes for every package is about a tenth of a build's CPU time
# (controller-gen from an empty build cache: 69 s against 78 s, BENCHMARKS.md stop 62).
go_tool_flags=(-trimpath -gcflags=all=-dwarf=false "-ldflags=-s -w")
