#!/usr/bin/env bash
# Benchmarks `opgen manifests` (one kind; 100 kinds x 50 fields) against the kube-rs way of
# regenerating a CRD (touch the types, `cargo run --bin crdgen`, warm).
#
#   bench/manifests.sh            # all three
#   SKIP_KUBE=1 bench/manifests.sh   # opgen only (the kube-rs build takes minutes)
#
# Uses hyperfine when it is installed (apt-get install hyperfine), else a shell loop.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

cargo build --release --manifest-path "$repo/Cargo.toml" --quiet
opgen="${CARGO_TARGET_DIR:-$repo/target}/release/opgen"

time_cmd() { # name, runs, directory, command...: the command run in the directory
  local name="$1" runs="$2" dir="$3"; shift 3
  if command -v hyperfine >/dev/null; then
    # Without a shell (-N): a run of a few milliseconds is shorter than the shell's start-up
    # hyperfine would have to subtract.
    (cd "$dir" && hyperfine -N --warmup 3 --runs "$runs" --style basic -n "$name" "$*")
  else
    local start end
    start=$(date +%s%N)
    (cd "$dir" && for _ in $(seq "$runs"); do eval "$*" >/dev/null; done)
    end=$(date +%s%N)
    echo "$name: mean $(( (end - start) / runs / 1000 )) us over $runs runs"
  fi
}

# Cold runs: the manifests cache (bench/incremental.sh measures it) is left out.
cold="manifests -q --no-cache"

# One kind: a fresh `opgen new` project.
(cd "$work" && "$opgen" new one --domain example.com --group cache --version v1alpha1 --kind Memcached -q)
time_cmd "opgen manifests, 1 kind" 50 "$work/one" "$opgen $cold"

# 100 kinds x 50 fields.
python3 "$repo/bench/gen_project.py" "$work/hundred" 100 50
(cd "$work/hundred" && "$opgen" $cold)
time_cmd "opgen manifests, 100 kinds x 50 fields" 20 "$work/hundred" "$opgen $cold"
if [ -x /usr/bin/time ]; then
  (cd "$work/hundred" && /usr/bin/time -f "peak memory, 100 kinds: %M KiB" "$opgen" $cold)
fi

if [ -z "${SKIP_KUBE:-}" ]; then
  # The kube-rs way: kube-derive + a crdgen binary (bench/kube-crdgen).
  cp -r "$repo/bench/kube-crdgen" "$work/kube"
  (cd "$work/kube" && cargo build --quiet --bin crdgen)
  time_cmd "kube-rs: touch types + cargo run --bin crdgen (warm)" 5 "$work/kube" \
    "bash -c 'touch src/types.rs && cargo run --quiet --bin crdgen'"
fi
