#!/usr/bin/env bash
# Runs opgen's whole test suite with what it needs set up first, on a fresh machine too
# (tools/test-env.sh: the envtest control plane for the oldest and the newest Kubernetes the
# scaffold supports, controller-gen and the other referees, built from Go modules and npm).
# Then the workspace's tests (`cargo test --workspace`'s, run by tools/test-pool.py several
# binaries at a time) against the oldest, and those that talk to an API server once more against
# the newest (the Helm chart test too).
# CI=true (as CI sets it) makes tests fail instead of skipping when something is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

start_epoch=$(date +%s)
# shellcheck source=tools/test-env.sh
source tools/test-env.sh
oldest="$OLDEST_ASSETS"
newest="$NEWEST_ASSETS"

# Everything builds first; then tools/test-pool.py runs the test binaries several at a time
# (OPGEN_TEST_JOBS, 3 by default), longest first, each from its package's directory as cargo runs
# it: most of them spend much of their time waiting (on an API server, controller-gen, cargo's
# lock on the projects' target directory), which the others fill. The binaries that use an API
# server run a second time against the newest Kubernetes, as jobs of the same pool; the doc tests
# are one more. Arguments before a `--` select what cargo builds (`-p`, `--test`); after it, they
# go to every test binary (a filter, `--nocapture`).
target="${CARGO_TARGET_DIR:-$PWD/target}"
cargo_args=() binary_args=()
while [[ $# -gt 0 ]]; do
  if [[ "$1" == "--" ]]; then
    shift
    binary_args=("$@")
    break
  fi
  cargo_args+=("$1")
  shift
done
jobs="$target/tests.tsv"
mkdir -p "$target"
echo "== cargo test --workspace --no-run"
KUBEBUILDER_ASSETS="$oldest" cargo test --workspace --locked --no-run \
  --message-format=json-render-diagnostics "${cargo_args[@]}" |
  python3 tools/test-pool.py list "$oldest" "$newest" > "$jobs"
if [[ ${#cargo_args[@]} -eq 0 && "$(grep -c "	$newest	" "$jobs")" -ne 6 ]]; then
  echo "tools/test.sh: expected 6 test binaries to run against $NEWEST_K8S, found:" >&2
  grep "	$newest	" "$jobs" >&2
  exit 1
fi
# The doc tests, unless the arguments pick targets (cargo refuses --doc beside them).
if [[ ! " ${cargo_args[*]} " =~ \ --(test|tests|lib|bin|bins|example|examples|bench|benches|all-targets)[\ =] ]]; then
  printf 'doc tests\t%s\t%s\tcargo\ttest\t--workspace\t--locked\t--doc' "$PWD" "$oldest" >> "$jobs"
  for a in "${cargo_args[@]}" --; do printf '\t%s' "$a" >> "$jobs"; done
  echo >> "$jobs"
fi

echo "== the test binaries against Kubernetes $OLDEST_K8S ($oldest), and those that use an API server against $NEWEST_K8S ($newest)"
python3 tools/test-pool.py run --jobs "${OPGEN_TEST_JOBS:-3}" --log-dir "$target/test-logs" \
  --since "$start_epoch" "$jobs" -- "${binary_args[@]}"
