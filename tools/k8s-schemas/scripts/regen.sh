#!/usr/bin/env bash
# Rebuild opgen's embedded Kubernetes schema data, data/k8s-schemas.jsonl, from scratch:
#   1. (SCAN=1 only) rescan k8s-openapi's sources for the type lists in src/types/;
#   2. build and run the generator once per Kubernetes version (mutually exclusive cargo
#      features), writing build/k8s-1.XX.json;
#   3. (DERIVE=1 only) re-derive overlays/controller-gen.json from the controller-gen golden file
#      (needs PyYAML and the shared conformance data, see README.md);
#   4. merge the versions, apply overlays/controller-gen.json and write ../../data/k8s-schemas.jsonl.
#
# Usage (from anywhere):  tools/k8s-schemas/scripts/regen.sh
# Environment: SCAN=1, DERIVE=1, CARGO_TARGET_DIR (default tools/k8s-schemas/target),
#              OUT (default <repo>/data/k8s-schemas.jsonl), OFFLINE=0 to let cargo use the network.
# Needs cargo and python3. The build/ and target/ directories are scratch (git-ignored).
set -euo pipefail
tool="$(cd "$(dirname "$0")/.." && pwd)"
repo="$(cd "$tool/../.." && pwd)"
out="${OUT:-$repo/data/k8s-schemas.jsonl}"
versions=(1.33 1.34 1.35 1.36 1.37)
offline=(--offline); [[ "${OFFLINE:-1}" == 0 ]] && offline=()

cd "$tool"
[[ "${SCAN:-0}" == 1 ]] && python3 scripts/scan_types.py
mkdir -p build
for v in "${versions[@]}"; do
  cargo run --quiet "${offline[@]}" --manifest-path "$tool/Cargo.toml" --features "v${v/./_}" -- "build/k8s-$v.json"
  echo "build/k8s-$v.json: $(wc -c < "build/k8s-$v.json") bytes"
done
[[ "${DERIVE:-0}" == 1 ]] && python3 scripts/derive_overlay.py
inputs=(); for v in "${versions[@]}"; do inputs+=("build/k8s-$v.json"); done
python3 scripts/build_jsonl.py --overlay overlays/controller-gen.json --out "$out" "${inputs[@]}"
sha256sum "$out"
