# Sourced by tools/test.sh and bench/test-times.sh: sets up what opgen's tests need, on a fresh
# machine too, and exports where it is:
#   - the envtest control plane (etcd, kube-apiserver, kubectl built from Go modules by
#     tools/envtest/setup.sh, cached in ~/.cache/opgen/envtest/) for the oldest and the newest
#     Kubernetes minor the scaffold supports (k8s-openapi 0.29: 1.33 … 1.37), as $OLDEST_ASSETS
#     and $NEWEST_ASSETS;
#   - controller-gen (tools/controller-gen/setup.sh), the live referee of the conformance tests;
#   - olm-validate (tools/olm/setup.sh), operator-framework's validators for OLM bundles;
#   - kube-api-linter (tools/kube-api-linter/setup.sh), the referee of `opgen lint`;
#   - helm (tools/helm/setup.sh), which lints and renders the charts of `opgen create helm`;
#   - crd-ref-docs (tools/crd-ref-docs/setup.sh), the referee of `opgen docs`, and from npm
#     markdownlint-cli2, Asciidoctor.js and html-validate (tools/{markdownlint,asciidoctor,
#     html-validate}/setup.sh), which check its Markdown, AsciiDoc and HTML;
#   - crdify (tools/crdify/setup.sh), when it has been built: the proxy refuses its module;
#   - go-memcached (tools/go-memcached/setup.sh), kubebuilder's memcached operator, the Go side
#     of the runtime benchmark (bench/runtime/tests/both_operators.rs);
#   - an optimized opgen, as $OPGEN_BIN, which the tests run instead of the debug one;
#   - the toolchain's rustfmt, as $RUSTFMT, which opgen then runs instead of rustup's proxy.

OLDEST_K8S=1.33.13 # the scaffold's default k8s-openapi feature, v1_33
NEWEST_K8S=1.37.2  # k8s-openapi 0.29's `latest`, v1_37

setup_start=$SECONDS
# Two given versions: a KUBEBUILDER_ASSETS already set (which the script would take) names one.
OLDEST_ASSETS="$(env -u KUBEBUILDER_ASSETS bash tools/envtest/setup.sh "$OLDEST_K8S" | tail -n 1)"
NEWEST_ASSETS="$(env -u KUBEBUILDER_ASSETS bash tools/envtest/setup.sh "$NEWEST_K8S" | tail -n 1)"
CONTROLLER_GEN="$(bash tools/controller-gen/setup.sh | tail -n 1)/controller-gen"
OLM_VALIDATE="$(bash tools/olm/setup.sh | tail -n 1)/olm-validate"
HELM="$(bash tools/helm/setup.sh | tail -n 1)/helm"
KUBE_API_LINTER="$(bash tools/kube-api-linter/setup.sh | tail -n 1)/kube-api-linter"
CRD_REF_DOCS="$(bash tools/crd-ref-docs/setup.sh | tail -n 1)/crd-ref-docs"
MARKDOWNLINT="$(bash tools/markdownlint/setup.sh | tail -n 1)/markdownlint-cli2"
ASCIIDOCTOR="$(bash tools/asciidoctor/setup.sh | tail -n 1)/asciidoctor"
HTML_VALIDATE="$(bash tools/html-validate/setup.sh | tail -n 1)/html-validate"
GO_MEMCACHED="$(bash tools/go-memcached/setup.sh | tail -n 1)/go-memcached"
export CONTROLLER_GEN OLM_VALIDATE HELM KUBE_API_LINTER CRD_REF_DOCS MARKDOWNLINT ASCIIDOCTOR \
  HTML_VALIDATE GO_MEMCACHED
# crdify cannot come from the Go module proxy (tools/crdify/setup.sh): used when built, else
# tests/diff_crdify.rs compares with its recorded verdicts only and says so.
if crdify_dir="$(bash tools/crdify/setup.sh 2>/dev/null | tail -n 1)"; then
  export CRDIFY="$crdify_dir/crdify"
else
  echo "== crdify is not built (tools/crdify/setup.sh says how): its recorded verdicts are not re-checked"
fi
# The opgen the tests run (tests/support's `opgen_bin`): built optimized from these sources, in
# the profile Cargo.toml's `test-opgen` describes.
opgen_start=$SECONDS
cargo build --locked --quiet --profile test-opgen --bin opgen
OPGEN_BIN="${CARGO_TARGET_DIR:-$PWD/target}/test-opgen/opgen"
export OPGEN_BIN
echo "== built $OPGEN_BIN (cargo build --profile test-opgen) in $((SECONDS - opgen_start)) s"
# opgen formats what it writes with $RUSTFMT when set, else `rustfmt` on PATH: with rustup that
# is its proxy, which doubles the cost of each start (18 against 8 ms of CPU for `rustfmt
# --version`), and the tests run opgen thousands of times.
if [[ -z "${RUSTFMT:-}" ]] && command -v rustup >/dev/null 2>&1 &&
  RUSTFMT="$(rustup which rustfmt 2>/dev/null)"; then
  export RUSTFMT
  echo "== rustfmt: $RUSTFMT"
fi
echo "== setup (envtest $OLDEST_K8S and $NEWEST_K8S, controller-gen, olm-validate, helm, kube-api-linter, crd-ref-docs, markdownlint, asciidoctor, html-validate, go-memcached) took $((SECONDS - setup_start)) s"
