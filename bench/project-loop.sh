#!/usr/bin/env bash
# A scaffolded project's test loop, as its user meets it: `opgen new` (one kind with defaulting
# and validating webhooks), then the first `make test` (compiles every dependency into a fresh
# target directory; the crates.io downloads and the envtest binaries are cached), then
# `make test` after a one-line edit of the controller, three times.
#
#   bench/project-loop.sh        # needs the envtest binaries (tools/envtest/setup.sh)
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

cargo build --release --quiet --manifest-path "$repo/Cargo.toml" --bin opgen
opgen="${CARGO_TARGET_DIR:-$repo/target}/release/opgen"
export PATH="$(dirname "$opgen"):$PATH"
export CARGO_TARGET_DIR="$work/target"

cd "$work"
opgen new loop-operator --domain example.com --group cache --version v1alpha1 --kind Memcached -q
cd loop-operator
opgen create webhook --group cache --version v1alpha1 --kind Memcached --defaulting \
  --programmatic-validation -q

seconds() { # command...: runs it quietly, prints the wall time
  local start end
  start=$(date +%s%N)
  "$@" > "$work/last.log" 2>&1 || { cat "$work/last.log"; exit 1; }
  end=$(date +%s%N)
  echo "$(( (end - start) / 1000000 )) ms"
}

echo "first make test: $(seconds make test)"
for i in 1 2 3; do
  echo "// edit $i" >> src/controllers/memcached.rs
  echo "make test after editing the controller ($i): $(seconds make test)"
done
grep -E '^test result' "$work/last.log" | sed 's/^/  /'
