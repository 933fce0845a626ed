#!/usr/bin/env bash
# The three crates as crates.io would receive them, checked before anything is published:
#   1. `cargo package` of opgen-cli: its manifest (metadata, no path-only dependency left) and
#      the files it ships (templates, catalog, data); the packaged crate is built below, its
#      binary kept apart from the workspace's (cargo's own verification would put it in
#      target/debug/, where the tests look for the workspace's);
#   2. `cargo package` of opgen-runtime and opgen-envtest (their build needs a k8s-openapi version
#      feature, which only the crate using them picks, so cargo cannot verify them alone);
#   3. the packaged opgen-cli scaffolds a project, which builds and passes clippy against the
#      packaged opgen-runtime and opgen-envtest through `--config patch` (as it will against the
#      published crates: a packaged opgen has no vendor/ copies to write).
# CARGO_TARGET_DIR is honoured; the project shares `<target>/scaffolded-project` with the tests.
set -euo pipefail
cd "$(dirname "$0")/.."
target="${CARGO_TARGET_DIR:-$PWD/target}"
version="$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)"

echo "== cargo package -p opgen-cli -p opgen-runtime -p opgen-envtest (built below)"
cargo package --locked --no-verify -p opgen-cli -p opgen-runtime -p opgen-envtest

work="$(mktemp -d "${TMPDIR:-/tmp}/opgen-package.XXXXXX")"
trap 'rm -rf "$work"' EXIT
for crate in opgen-cli opgen-runtime opgen-envtest; do
  tar -xzf "$target/package/$crate-$version.crate" -C "$work"
done

echo "== the packaged opgen scaffolds a project that builds on the packaged crates"
# The packaged CLI, with the lock file it ships, as `cargo install --locked` builds it (dev
# profile), in a target directory of its own: cargo hashes a root package's path relative to its
# workspace, so the packaged crate and the workspace's would share build-script output (the
# packaged one has no crates/ to vendor) and binaries in one directory.
cargo build --quiet --locked --manifest-path "$work/opgen-cli-$version/Cargo.toml" --bin opgen \
  --target-dir "$target/package-cli"
(cd "$work" && "$target/package-cli/debug/opgen" new packaged-operator --domain example.com \
  --group cache --version v1alpha1 --kind Memcached -q)
project="$work/packaged-operator"
if [[ -e "$project/vendor" ]] || grep -q '^\[patch' "$project/Cargo.toml"; then
  echo "error: a packaged opgen wrote vendor/ or a [patch] table; it carries no crates to vendor" >&2
  exit 1
fi
(
  cd "$project"
  CARGO_TARGET_DIR="$target/scaffolded-project" cargo clippy --locked --all-targets \
    --config "patch.crates-io.opgen-runtime.path='$work/opgen-runtime-$version'" \
    --config "patch.crates-io.opgen-envtest.path='$work/opgen-envtest-$version'" \
    -- -D warnings
)
echo "packaged: opgen-cli, opgen-runtime and opgen-envtest $version"
