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
# The tools (tools/setup.sh) are set up side by side, and beside them the opgen the tests run and
# whatever the function `test_env_build_beside` does when the sourcing script defines one
# (tools/test.sh: build every test): none of it needs the tools, and on a fresh machine the two
# together keep both cores busier than either alone.

setup_start=$SECONDS
tools_env="$(mktemp)"
# In a process group of its own, so that a failed build here stops its Go builds too.
if command -v setsid >/dev/null 2>&1; then
  setsid -w bash tools/setup.sh >"$tools_env" &
else
  bash tools/setup.sh >"$tools_env" &
fi
tools_pid=$!
trap 'kill -- -"$tools_pid" 2>/dev/null || kill "$tools_pid" 2>/dev/null || true' EXIT
# The opgen the tests run (tests/support's `opgen_bin`): built optimized from these sources, in
# the profile Cargo.toml's `test-opgen` describes.
opgen_start=$SECONDS
cargo build --locked --quiet --profile test-opgen --bin opgen
OPGEN_BIN="${CARGO_TARGET_DIR:-$PWD/target}/test-opgen/opgen"
export OPGEN_BIN
echo "== built $OPGEN_BIN (cargo build --profile test-opgen) in $((SECONDS - opgen_start)) s"
if declare -F test_env_build_beside >/dev/null; then
  test_env_build_beside
fi
tools_status=0
wait "$tools_pid" || tools_status=$?
trap - EXIT
if [[ $tools_status -ne 0 ]]; then
  rm -f "$tools_env"
  echo "tools/test-env.sh: setting up the tools failed (tools/setup.sh, above)" >&2
  exit 1
fi
while IFS= read -r tool; do
  export "${tool?}"
done <"$tools_env"
rm -f "$tools_env"
if [[ -z "${CRDIFY:-}" ]]; then
  echo "== crdify is not built (tools/crdify/setup.sh says how): its recorded verdicts are not re-checked"
fi
# opgen formats what it writes with $RUSTFMT when set, else `rustfmt` on PATH: with rustup that
# is its proxy, which doubles the cost of each start (18 against 8 ms of CPU for `rustfmt
# --version`), and the tests run opgen thousands of times.
if [[ -z "${RUSTFMT:-}" ]] && command -v rustup >/dev/null 2>&1 &&
  RUSTFMT="$(rustup which rustfmt 2>/dev/null)"; then
  export RUSTFMT
  echo "== rustfmt: $RUSTFMT"
fi
echo "== setup (envtest $OLDEST_K8S and $NEWEST_K8S, controller-gen, olm-validate, helm, kube-api-linter, crd-ref-docs, markdownlint, asciidoctor, html-validate, go-memcached${CRDIFY:+, crdify}) took $((SECONDS - setup_start)) s"
