#!/usr/bin/env python3
"""Compare the generated CRD with upstream's, descriptions aside.

Usage: hack/compare-crd.py [ours] [upstream]
Prints every difference (path: ours != upstream) and exits 1 if there is any.
"""
import os
import sys

import yaml

# shared/ sits beside the opgen repository (OPGEN_SHARED_DIR overrides it).
SHARED = os.environ.get("OPGEN_SHARED_DIR", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "shared"))

OURS = "config/crd/bases/multi.ddnw.ml_multisecrets.yaml"
UPSTREAM = os.path.join(SHARED, "reference-operators/secret-operator/crd/multi.ddnw.ml_multisecrets.yaml")


def strip(node):
    if isinstance(node, dict):
        return {k: strip(v) for k, v in node.items() if k != "description"}
    if isinstance(node, list):
        return [strip(v) for v in node]
    return node


def diff(a, b, path, out):
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            diff(a.get(key, "<absent>"), b.get(key, "<absent>"), f"{path}.{key}", out)
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            diff(x, y, f"{path}[{i}]", out)
    elif a != b:
        out.append(f"{path}: {a!r} != {b!r}")


def main():
    ours_path = sys.argv[1] if len(sys.argv) > 1 else OURS
    upstream_path = sys.argv[2] if len(sys.argv) > 2 else UPSTREAM
    with open(ours_path) as f:
        ours = strip(yaml.safe_load(f))
    with open(upstream_path) as f:
        upstream = strip(yaml.safe_load(f))
    out = []
    diff(ours, upstream, "", out)
    print("\n".join(out) if out else "identical")
    sys.exit(1 if out else 0)


if __name__ == "__main__":
    main()
