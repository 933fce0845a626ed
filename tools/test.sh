#!/usr/bin/env bash
# Runs opgen's whole test suite with what it needs set up first, on a fresh machine too:
#   - the envtest control plane (etcd, kube-apiserver, kubectl built from Go modules by
#     tools/envtest/setup.sh, cached in ~/.cache/opgen/envtest/) for the oldest and the newest
#     Kubernetes minor the scaffold supports (k8s-openapi 0.29: 1.33 … 1.37);
#   - controller-gen (tools/controller-gen/setup.sh), the live referee of the conformance tests;
#   - olm-validate (tools/olm/setup.sh), operator-framework's validators for OLM bundles;
#   - helm (tools/helm/setup.sh), which lints and renders the charts of `opgen create helm`.
# Then `cargo test --workspace` against the oldest, and the tests that talk to an API server
# once more against the newest (the Helm chart test too). Extra arguments go to the first cargo test.
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
echo "== setup (envtest $OLDEST_K8S and $NEWEST_K8S, controller-gen, olm-validate, helm) took $((SECONDS - start)) s"

echo "== cargo test --workspace (Kubernetes $OLDEST_K8S: $oldest)"
KUBEBUILDER_ASSETS="$oldest" cargo test --workspace --locked --no-fail-fast "$@"

echo "== the tests that use an API server, against Kubernetes $NEWEST_K8S ($newest)"
KUBEBUILDER_ASSETS="$newest" cargo test --locked -p opgen-envtest -p opgen-runtime -p opgen-cli --test control_plane --test envtest --test k8s_resources --test helm_chart
