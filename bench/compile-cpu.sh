#!/usr/bin/env bash
# Where a command's compile time goes: runs it with every rustc it starts (cargo's, and that of
# each project the tests build, which inherit the variable) timed by
# bench/compile-cpu/rustc-wrapper.sh, then prints bench/compile-cpu/report.py's tables.
#
#   bench/compile-cpu.sh CI=true bash .ci/run        # a clean clone's whole CI run
#   bench/compile-cpu.sh bash tools/test.sh
#
# The log is $COMPILE_CPU_LOG (default: a new file in $TMPDIR, named when the command ends).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
log="${COMPILE_CPU_LOG:-$(mktemp "${TMPDIR:-/tmp}/compile-cpu.XXXXXX")}"
status=0
env COMPILE_CPU_LOG="$log" RUSTC_WRAPPER="$here/compile-cpu/rustc-wrapper.sh" "$@" || status=$?
echo "== compile CPU of: $* (exit $status; log $log)"
python3 "$here/compile-cpu/report.py" "$log"
exit $status
