#!/usr/bin/env bash
# Where the test suite's time goes: builds every test binary of the workspace as
# `bash tools/test.sh` does, then runs each one alone (from its package's directory, as cargo
# test does) with libtest's per-test times, and prints the binaries and the tests that took
# longest. Sets up what the tests need as tools/test.sh does (tools/test-env.sh), for the oldest
# Kubernetes only.
#
#   bench/test-times.sh [N]      # N slowest tests (default 10); full log in $OUT (default
#                                # target/test-times.log)
#
# `--report-time` is unstable in libtest: RUSTC_BOOTSTRAP=1 is set for the test binaries only,
# never for the build, so nothing is rebuilt for it.
set -euo pipefail
cd "$(dirname "$0")/.."
top="${1:-10}"
target="${CARGO_TARGET_DIR:-$PWD/target}"
out="${OUT:-$target/test-times.log}"

# shellcheck source=tools/test-env.sh
source tools/test-env.sh
export KUBEBUILDER_ASSETS="$OLDEST_ASSETS"

start=$SECONDS
cargo test --workspace --locked --no-run --message-format=json 2>/dev/null |
  python3 -c '
import json, os, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["profile"]["test"]:
        print(os.path.dirname(m["manifest_path"]), m["executable"], m["target"]["name"], sep="\t")
' > "$target/test-binaries.tsv"
echo "== built $(wc -l < "$target/test-binaries.tsv") test binaries in $((SECONDS - start)) s"

: > "$out"
while IFS=$'\t' read -r dir exe name; do
  t0=$(date +%s%N)
  (cd "$dir" && RUSTC_BOOTSTRAP=1 "$exe" -Z unstable-options --report-time 2>&1) |
    sed "s|^test |test $(basename "$dir")::$name::|" >> "$out" || echo "FAILED: $name" | tee -a "$out"
  t1=$(date +%s%N)
  tenths=$(( (t1 - t0) / 100000000 ))
  printf 'binary %s::%s %d.%d s\n' "$(basename "$dir")" "$name" $((tenths / 10)) $((tenths % 10)) >> "$out"
done < "$target/test-binaries.tsv"

echo "== test binaries, slowest first (wall time, tests in a binary run in parallel)"
grep '^binary ' "$out" | sort -k3 -n -r | head -n "$top"
echo "== tests, slowest first"
sed -n 's/^test \(.*\) \.\.\. ok <\([0-9.]*\)s>$/\2 \1/p' "$out" | sort -n -r | head -n "$top"
echo "== total $(grep -c '\.\.\. ok' "$out") passed, $(grep -c '\.\.\. FAILED' "$out") failed; $((SECONDS - start)) s"
