#!/usr/bin/env bash
# Runs opgen's whole test suite with what it needs set up first, on a fresh machine too
# (tools/test-env.sh: the envtest control plane for the oldest and the newest Kubernetes the
# scaffold supports, controller-gen and the other referees, built from Go modules and npm).
# Then `cargo test --workspace` against the oldest, and beside it the tests that talk to an API
# server once more against the newest (the Helm chart test too). Extra arguments go to cargo test.
# CI=true (as CI sets it) makes tests fail instead of skipping when something is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

start=$SECONDS
target="${CARGO_TARGET_DIR:-$PWD/target}"
tests_tsv="$target/tests-against-newest.tsv"
mkdir -p "$target"
cargo_args=("$@")
# Every test builds beside the tools' set-up (tools/test-env.sh calls this), and before any runs
# (cargo holds the target directory while it runs), so that the tests that use an API server can
# run once more against the newest Kubernetes beside the main run: they mostly wait on their API
# servers, the main run mostly compiles projects. They run from their package's directory, as
# cargo runs them.
test_env_build_beside() {
  echo "== cargo test --workspace --no-run"
  cargo test --workspace --locked --no-run --message-format=json-render-diagnostics "${cargo_args[@]}" |
    python3 -c '
import json, os, sys
wanted = {("opgen-envtest", "control_plane"), ("opgen-runtime", "envtest"), ("opgen-cli", "envtest"),
          ("opgen-cli", "k8s_resources"), ("opgen-cli", "helm_chart"), ("opgen-cli", "diff_apiserver")}
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["profile"]["test"]:
        # path+file:///…/opgen-runtime#0.1.0, or path+file:///…/main#opgen-cli@0.1.0
        url, _, fragment = m["package_id"].partition("#")
        package = fragment.split("@")[0] if "@" in fragment else url.rsplit("/", 1)[-1]
        if (package, m["target"]["name"]) in wanted and "test" in m["target"]["kind"]:
            print(os.path.dirname(m["manifest_path"]), m["executable"], sep="\t")
' >"$tests_tsv"
}
# shellcheck source=tools/test-env.sh
source tools/test-env.sh
oldest="$OLDEST_ASSETS"
newest="$NEWEST_ASSETS"
newest_log="$target/tests-k8s-$NEWEST_K8S.log"
if [[ "$(wc -l < "$tests_tsv")" -ne 6 ]]; then
  echo "tools/test.sh: expected 6 test binaries to run against $NEWEST_K8S, found:" >&2
  cat "$tests_tsv" >&2
  exit 1
fi

newest_tests() {
  local failed=0
  while IFS=$'\t' read -r dir exe; do
    echo "-- $exe"
    (cd "$dir" && KUBEBUILDER_ASSETS="$newest" "$exe") || failed=1
  done < "$tests_tsv"
  return $failed
}
newest_tests > "$newest_log" 2>&1 &
newest_pid=$!
trap 'kill "$newest_pid" 2>/dev/null || true' EXIT

echo "== cargo test --workspace (Kubernetes $OLDEST_K8S: $oldest), the API server tests against $NEWEST_K8S ($newest) beside it"
# Each test binary's start is stamped with the seconds since set-up began and how busy the
# machine's cores were while the binary before it ran (from /proc/stat, where there is one), so
# that a run's log shows where the time goes and which tests leave cores idle. (The `cargo test`
# of a project a test builds prints `Running` lines too: they are stamped the same way.)
stamp_now() { # sets $stamp: "[at N s; cores P% busy before]", P since the last call
  local _cpu user nice system idle iowait irq softirq steal now total busy=""
  if read -r _cpu user nice system idle iowait irq softirq steal _ 2>/dev/null </proc/stat; then
    now=$((user + nice + system + irq + softirq + steal))
    total=$((now + idle + iowait))
    if ((${last_total:-0} > 0 && total > last_total)); then
      busy="; cores $((100 * (now - last_busy) / (total - last_total)))% busy before"
    fi
    last_busy=$now last_total=$total
  fi
  stamp="[at $((SECONDS - start)) s$busy]"
}
stamp_now
set +e
KUBEBUILDER_ASSETS="$oldest" cargo test --workspace --locked --no-fail-fast "$@" 2>&1 |
  {
    while IFS= read -r line; do
      if [[ "$line" == "     Running "* ]]; then
        stamp_now
        line="$line $stamp"
      fi
      printf '%s\n' "$line"
    done
    stamp_now
    echo "== cargo test finished $stamp"
  }
status=${PIPESTATUS[0]}
set -e

newest_status=0
wait "$newest_pid" || newest_status=$?
trap - EXIT
echo "== the tests that use an API server, against Kubernetes $NEWEST_K8S ($newest_log)"
cat "$newest_log"
if [[ $newest_status -ne 0 ]]; then
  echo "tools/test.sh: a test failed against Kubernetes $NEWEST_K8S (above)" >&2
  status=1
fi
exit $status
