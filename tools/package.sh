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
# The packaged CLI, with the lock file it ships, built in the profile of the opgen the tests run
# (tools/test-env.sh) and in the same target directory, so that the two share every dependency
# (3.35 of a clean clone's 47.7 CPU-minutes of compiles went to a build of its own, BENCHMARKS.md
# stop 61). Only opgen-cli is built twice, and this one unoptimized: it runs once, and its
# opt-level-1 build took 121 s of CPU against 27.
# cargo names a path package's outputs by its path relative to its workspace's root: the
# packaged crate alone would be a root at "" as the workspace's opgen-cli is, and the two would
# overwrite each other's build-script output. So it is made the one member of a workspace of its
# own, which takes the profiles (cargo reads them only at a root).
pkg="$work/packaged"
mkdir -p "$pkg"
mv "$work/opgen-cli-$version" "$pkg/"
python3 - "$pkg" "opgen-cli-$version" <<'PY'
import pathlib, sys
root, member = pathlib.Path(sys.argv[1]), sys.argv[2]
manifest = root / member / "Cargo.toml"
tables = {"package": [], "profile": []}
kept = tables["package"]
for line in manifest.read_text().splitlines(keepends=True):
    if line.startswith("["):
        kept = tables["profile" if line.startswith("[profile") else "package"]
    kept.append(line)
manifest.write_text("".join(tables["package"]))
head = f'[workspace]\nmembers = ["{member}"]\nresolver = "2"\n\n'
(root / "Cargo.toml").write_text(head + "".join(tables["profile"]))
PY
cp "$pkg/opgen-cli-$version/Cargo.lock" "$pkg/Cargo.lock"
# Both binaries are named opgen, and cargo links the last one built to test-opgen/opgen: the
# tests' opgen is kept aside (a hard link beside it, on the same file system) while the packaged
# one is built and copied out, then put back.
bin="$target/test-opgen/opgen"
kept="$target/test-opgen/opgen.tests"
put_back() {
  if [[ -e "$kept" ]]; then mv -f "$kept" "$bin"; fi
}
trap 'put_back; rm -rf "$work"' EXIT
if [[ -e "$bin" ]]; then ln -f "$bin" "$kept"; fi
cargo build --quiet --locked --manifest-path "$pkg/Cargo.toml" --bin opgen --profile test-opgen \
  --config 'profile.test-opgen.package.opgen-cli.opt-level=0' --target-dir "$target"
cp "$bin" "$work/opgen"
if [[ -e "$kept" ]]; then put_back; else rm -f "$bin"; fi
(cd "$work" && "$work/opgen" new packaged-operator --domain example.com \
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
