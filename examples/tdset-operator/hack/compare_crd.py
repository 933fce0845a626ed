#!/usr/bin/env python3
"""Compares the generated CRD with upstream's, descriptions aside.

Usage: hack/compare_crd.py [GENERATED] [UPSTREAM]
Prints every difference as a path with both values; exits 1 when one is not among the
deliberate differences listed in README.md ("Differences from upstream").
"""
import os
import sys

import yaml

# shared/ sits beside the opgen repository (OPGEN_SHARED_DIR overrides it).
SHARED = os.environ.get("OPGEN_SHARED_DIR", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "shared"))

GENERATED = "config/crd/bases/schedule.rs_tdsets.yaml"
UPSTREAM = os.path.join(SHARED, "reference-operators/tdset-operator/crd/schedule.rs_tdsets.yaml")

# Deliberate differences (paths as printed below), each explained in README.md.
EXPECTED = {
    ".metadata.annotations.controller-gen.kubebuilder.io/version",
    ".metadata.annotations.opgen.dev/version",
    ".metadata.creationTimestamp",
    ".spec.versions[0].schema.openAPIV3Schema.required",
}


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
        out.append((path, f"generated={a!r} upstream={b!r}"))


def main():
    generated, upstream = (sys.argv[1:] + [GENERATED, UPSTREAM][len(sys.argv) - 1 :])[:2]
    with open(generated) as g, open(upstream) as u:
        a, b = strip(yaml.safe_load(g)), strip(yaml.safe_load(u))
    out = []
    diff(a, b, "", out)
    unexpected = [path for path, _ in out if path not in EXPECTED]
    for path, values in out:
        print(f"{'expected  ' if path in EXPECTED else 'UNEXPECTED'} {path}: {values}")
    print(f"{len(out)} differences (descriptions aside), {len(unexpected)} unexpected")
    return 1 if unexpected else 0


if __name__ == "__main__":
    sys.exit(main())
