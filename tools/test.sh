#!/usr/bin/env bash
# Runs opgen's whole test suite with what it needs set up first, on a fresh machine too:
#   - the envtest control plane (etcd, kube-apiserver, kubectl built from Go modules by
#     tools/envtest/setup.sh, cached in ~/.cache/opgen/envtest/) for the oldest and the newest
#     Kubernetes minor the scaffold supports (k8s-openapi 0.29: 1.33 … 1.37);
#   - controller-gen (tools/controller-gen/setup.sh), the live referee of the conformance tests;
#   - olm-validate (tools/olm/setup.sh), operator-framework's validators for OLM bundles;
#   - kube-api-linter (tools/kube-api-linter/setup.sh), the referee of `opgen lint`;
#   - helm (tools/helm/setup.sh), which lints and renders the charts of `opgen create helm`;
#   - crd-ref-docs (tools/crd-ref-docs/setup.sh), the referee of `opgen docs`, and from npm
#     markdownlint-cli2, Asciidoctor.js and html-validate (tools/{markdownlint,asciidoctor,
#     html-validate}/setup.sh), which check its Markdown, AsciiDoc and HTML;
#   - crdify (tools/crdify/setup.sh), when it has been built: the proxy refuses its module;
#   - go-memcached (tools/go-memcached/setup.sh), kubebuilder's memcached operator, the Go side
#     of the runtime benchmark (bench/runtime/tests/both_operators.rs).
# Then `cargo test --workspace` against the oldest, and beside it the tests that talk to an API
# server once more against the newest (the Helm chart test too). Extra arguments go to cargo test.
# CI=true (as CI sets it) makes tests fail instead of skipping when something is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

OLDEST_K8S=1.33.13 # the scaffold's default k8s-openapi feature, v1_33
NEWEST_K8S=1.37.2  # k8s-openapi 0.29's `latest`, v1_37

start=$SECONDS
oldest="$(bash tools/envtest/setup.sh "$OLDEST_K8S" | tail -n 1)"
newest="$(bash tools/envtest/setup.sh "$NEWEST_K8S" | tail -n 1)"
CONTROLLER_GEN="$(bash tools/controller-gen/setup.sh | tail -n 1)/controller-gen"
export CONTROLLER_GEN
OLM_VALIDATE="$(bash tools/olm/setup.sh | tail -n 1)/olm-validate"
export OLM_VALIDATE
HELM="$(bash tools/helm/setup.sh | tail -n 1)/helm"
export HELM
KUBE_API_LINTER="$(bash tools/kube-api-linter/setup.sh | tail -n 1)/kube-api-linter"
export KUBE_API_LINTER
CRD_REF_DOCS="$(bash tools/crd-ref-docs/setup.sh | tail -n 1)/crd-ref-docs"
export CRD_REF_DOCS
MARKDOWNLINT="$(bash tools/markdownlint/setup.sh | tail -n 1)/markdownlint-cli2"
export MARKDOWNLINT
ASCIIDOCTOR="$(bash tools/asciidoctor/setup.sh | tail -n 1)/asciidoctor"
export ASCIIDOCTOR
HTML_VALIDATE="$(bash tools/html-validate/setup.sh | tail -n 1)/html-validate"
export HTML_VALIDATE
GO_MEMCACHED="$(bash tools/go-memcached/setup.sh | tail -n 1)/go-memcached"
export GO_MEMCACHED
# crdify cannot come from the Go module proxy (tools/crdify/setup.sh): used when built, else
# tests/diff_crdify.rs compares with its recorded verdicts only and says so.
if crdify_dir="$(bash tools/crdify/setup.sh 2>/dev/null | tail -n 1)"; then
    export CRDIFY="$crdify_dir/crdify"
else
    echo "== crdify is not built (tools/crdify/setup.sh says how): its recorded verdicts are not re-checked"
fi
echo "== setup (envtest $OLDEST_K8S and $NEWEST_K8S, controller-gen, olm-validate, helm, kube-api-linter, crd-ref-docs, markdownlint, asciidoctor, html-validate, go-memcached) took $((SECONDS - start)) s"

# Everything builds first (cargo holds the target directory while it runs), so that the tests
# that use an API server can run once more against the newest Kubernetes beside the main run:
# they mostly wait on their API servers, the main run mostly compiles projects. They run from
# their package's directory, as cargo runs them.
target="${CARGO_TARGET_DIR:-$PWD/target}"
newest_log="$target/tests-k8s-$NEWEST_K8S.log"
mkdir -p "$target"
echo "== cargo test --workspace --no-run"
KUBEBUILDER_ASSETS="$oldest" cargo test --workspace --locked --no-run --message-format=json-render-diagnostics "$@" |
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
' > "$target/tests-k8s-$NEWEST_K8S.tsv"
if [[ "$(wc -l < "$target/tests-k8s-$NEWEST_K8S.tsv")" -ne 6 ]]; then
  echo "tools/test.sh: expected 6 test binaries to run against $NEWEST_K8S, found:" >&2
  cat "$target/tests-k8s-$NEWEST_K8S.tsv" >&2
  exit 1
fi

newest_tests() {
  local failed=0
  while IFS=$'\t' read -r dir exe; do
    echo "-- $exe"
    (cd "$dir" && KUBEBUILDER_ASSETS="$newest" "$exe") || failed=1
  done < "$target/tests-k8s-$NEWEST_K8S.tsv"
  return $failed
}
newest_tests > "$newest_log" 2>&1 &
newest_pid=$!
trap 'kill "$newest_pid" 2>/dev/null || true' EXIT

echo "== cargo test --workspace (Kubernetes $OLDEST_K8S: $oldest), the API server tests against $NEWEST_K8S ($newest) beside it"
# Each test binary's start is stamped with the seconds since set-up began, so that a run's log
# shows where the time goes.
set +e
KUBEBUILDER_ASSETS="$oldest" cargo test --workspace --locked --no-fail-fast "$@" 2>&1 |
  while IFS= read -r line; do
    [[ "$line" == "     Running "* ]] && line="$line [at $((SECONDS - start)) s]"
    printf '%s\n' "$line"
  done
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
