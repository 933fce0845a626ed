#!/usr/bin/env bash
# The runtime benchmark (BENCHMARKS.md, "Runtime"): examples/memcached-operator (opgen-runtime)
# against kubebuilder's memcached operator (controller-runtime, bench/runtime/go-memcached), each
# run against a fresh envtest control plane with N Memcached objects while the harness plays the
# deployment controller (bench/runtime/src/lib.rs). Prints the load average and the table.
#
#   bash bench/runtime.sh [N]     # N Memcached objects, 1000 by default
#
# Needs the envtest binaries (KUBEBUILDER_ASSETS, or tools/envtest/setup.sh's cache) and Go
# (tools/go-memcached/setup.sh; GO_MEMCACHED overrides).
set -euo pipefail
cd "$(dirname "$0")/.."

count="${1:-1000}"
export KUBEBUILDER_ASSETS="${KUBEBUILDER_ASSETS:-$(bash tools/envtest/setup.sh | tail -n 1)}"
go_memcached="$(bash tools/go-memcached/setup.sh | tail -n 1)/go-memcached"
# The operator as its `make build` and image build it (the scaffold's release profile, which the
# workspace's `operator-release` profile repeats); the harness with it.
cargo build --profile operator-release --locked -p memcached-operator -p runtime-bench
target="${CARGO_TARGET_DIR:-$PWD/target}/operator-release"
echo "machine: $(nproc) cores, $(uname -sm), $(go version | cut -d' ' -f3), $(rustc --version)"
"$target/runtime-bench" --count "$count" \
    --opgen-runtime "$target/memcached-operator" --controller-runtime "$go_memcached"
