#!/usr/bin/env bash
# The three crates as crates.io would receive them, checked before anything is published:
#   1. `cargo package` of opgen-cli: its manifest (metadata, no path-only dependency left) and
#      the files it ships (templates, catalog, data); the packaged crate is built below, its
#      binary kept apart from the workspace's (cargo's own verification would build it as a
#      root package, whose build-script output and binary the workspace's would share);
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
# The packaged CLI, with the lock file it ships, as `cargo install --locked` builds it. It is a
# member of a workspace of its own, because cargo hashes a root package's path relative to its
# workspace: as a root package it would share build-script output (the packaged one has no
# crates/ to vendor) and binaries with the workspace's opgen-cli in one target directory. As
# a member it builds in the workspace's target beside it, in the profile tools/test-env.sh
# builds the tests' opgen in (`test-opgen`, the packaged manifest's), so that the dependencies
# build once for both (in a target of its own they took about 5 of this build's 7 minutes, and
# the tests' build compiled them again). Its binary is the one cargo reports: cargo copies the
# last-built `opgen` to `<target>/test-opgen/opgen`, which tools/test-env.sh builds anew.
cli="$work/cli"
mkdir -p "$cli"
mv "$work/opgen-cli-$version" "$cli/"
cp "$cli/opgen-cli-$version/Cargo.lock" "$cli/Cargo.lock"
# Profiles apply from a workspace's root only: the packaged manifest's move there.
python3 - "$cli/opgen-cli-$version/Cargo.toml" "$cli/Cargo.toml" "opgen-cli-$version" <<'PY'
import re, sys
member, root, name = sys.argv[1:]
kept, profiles, into = [], [], None
for line in open(member).read().splitlines(keepends=True):
    if line.startswith("["):
        into = profiles if re.match(r"\[profile[.\]]", line) else kept
    (into if into is not None else kept).append(line)
if not any(l.startswith("[profile.test-opgen]") for l in profiles):
    sys.exit(f"{member}: no [profile.test-opgen] section")
open(member, "w").write("".join(kept))
open(root, "w").write(f'[workspace]\nmembers = ["{name}"]\nresolver = "3"\n\n' + "".join(profiles))
PY
packaged_opgen="$(cargo build --locked --manifest-path "$cli/Cargo.toml" --profile test-opgen \
  --bin opgen --message-format=json-render-diagnostics |
  python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["name"] == "opgen":
        print(m["executable"])
')"
[[ -x "$packaged_opgen" ]] || { echo "error: no packaged opgen binary built" >&2; exit 1; }
(cd "$work" && "$packaged_opgen" new packaged-operator --domain example.com \
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
