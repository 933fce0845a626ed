#!/usr/bin/env bash
# Sets up every tool opgen's tests need (each tools/<tool>/setup.sh, which builds it into opgen's
# cache the first time and returns at once after) and prints `NAME=path` for each, as
# tools/test-env.sh exports them:
#
#   bash tools/setup.sh     # OLDEST_ASSETS=…/envtest/k8s-1.33.13, CONTROLLER_GEN=…/controller-gen, …
#
# The set-ups run side by side: on a fresh machine they take most of the run's first 20 minutes,
# and one alone leaves a core idle while it downloads modules, links or installs from npm. One
# run at a time per cache (flock, where there is one): .ci/run starts one early, and the run
# tools/test.sh starts then waits for it and finds everything built.
set -euo pipefail
cd "$(dirname "$0")/.."

OLDEST_K8S=1.33.13 # the scaffold's default k8s-openapi feature, v1_33
NEWEST_K8S=1.37.2  # k8s-openapi 0.29's `latest`, v1_37

# shellcheck source=tools/cache.sh
source tools/cache.sh
mkdir -p "$cache_root"
if command -v flock >/dev/null 2>&1; then
  exec {lock}>"$cache_root/.setup.lock"
  flock "$lock"
fi

out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
# setup NAME BINARY SCRIPT [ARGS...]: runs SCRIPT in the background; NAME will be BINARY in the
# directory its last line names (BINARY empty: the directory itself).
names=()
declare -A binaries
setup() {
  local name="$1"
  binaries[$name]="$2"
  shift 2
  names+=("$name")
  (
    status=0
    bash "$@" >"$out/$name.stdout" || status=$?
    echo "$status" >"$out/$name.status"
  ) &
}
# Two given versions: a KUBEBUILDER_ASSETS already set (which the script would take) names one.
unset KUBEBUILDER_ASSETS
setup OLDEST_ASSETS "" tools/envtest/setup.sh "$OLDEST_K8S"
setup NEWEST_ASSETS "" tools/envtest/setup.sh "$NEWEST_K8S"
setup CONTROLLER_GEN controller-gen tools/controller-gen/setup.sh
setup OLM_VALIDATE olm-validate tools/olm/setup.sh
setup HELM helm tools/helm/setup.sh
setup KUBE_API_LINTER kube-api-linter tools/kube-api-linter/setup.sh
setup CRD_REF_DOCS crd-ref-docs tools/crd-ref-docs/setup.sh
setup MARKDOWNLINT markdownlint-cli2 tools/markdownlint/setup.sh
setup ASCIIDOCTOR asciidoctor tools/asciidoctor/setup.sh
setup HTML_VALIDATE html-validate tools/html-validate/setup.sh
setup GO_MEMCACHED go-memcached tools/go-memcached/setup.sh
# crdify cannot come from the Go module proxy (tools/crdify/setup.sh says how to build it): left
# out when it is not built, and tests/diff_crdify.rs compares with its recorded verdicts only.
setup CRDIFY crdify tools/crdify/setup.sh 2>/dev/null
wait

echo "OLDEST_K8S=$OLDEST_K8S"
echo "NEWEST_K8S=$NEWEST_K8S"
failed=0
for name in "${names[@]}"; do
  status="$(cat "$out/$name.status")"
  dir="$(tail -n 1 "$out/$name.stdout")"
  if [[ "$status" -ne 0 || -z "$dir" ]]; then
    [[ "$name" == CRDIFY ]] && continue
    echo "tools/setup.sh: setting up $name failed (above)" >&2
    failed=1
    continue
  fi
  binary="${binaries[$name]}"
  echo "$name=$dir${binary:+/$binary}"
done
exit "$failed"
