#!/usr/bin/env python3
"""Compare the generated CRD with upstream sample-controller's, descriptions aside.

Usage: hack/compare-upstream-crd.py [UPSTREAM_CRD]
(default: ../shared/reference-operators/sample-controller/crd/crd-status-subresource.yaml)

Parses both YAML files, drops every `description`, and prints each difference as
`path: upstream -> generated`. Exits 0 when the only differences are the expected,
documented ones (see README "Differences from upstream"), 1 otherwise.
"""
import os
import sys

import yaml

# shared/ sits beside the opgen repository (OPGEN_SHARED_DIR overrides it).
SHARED = os.environ.get("OPGEN_SHARED_DIR", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "shared"))

GENERATED = "config/crd/bases/samplecontroller.k8s.io_foos.yaml"
UPSTREAM = (
    sys.argv[1]
    if len(sys.argv) > 1
    else os.path.join(SHARED, "reference-operators/sample-controller/crd/crd-status-subresource.yaml")
)

# Every expected difference, each listed in the README.
ROOT = "spec.versions[0].schema.openAPIV3Schema"
EXPECTED = {
    # controller-gen style annotation written by opgen instead of controller-gen's.
    "metadata.annotations.opgen.dev/version",
    # Defaults the API server fills in when the CRD omits them.
    "spec.names.listKind",
    "spec.names.singular",
    # The standard root properties every controller-gen / opgen CRD carries.
    f"{ROOT}.properties.apiVersion",
    f"{ROOT}.properties.kind",
    f"{ROOT}.properties.metadata",
    # kube's root type cannot deserialize an object without spec.
    f"{ROOT}.required",
    # Go int32 / Rust i32 fields get format int32.
    f"{ROOT}.properties.spec.properties.replicas.format",
    f"{ROOT}.properties.status.properties.availableReplicas.format",
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
            sub = f"{path}.{key}" if path else key
            if key not in a:
                out.append((sub, "<absent>", b[key]))
            elif key not in b:
                out.append((sub, a[key], "<absent>"))
            else:
                diff(a[key], b[key], sub, out)
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            diff(x, y, f"{path}[{i}]", out)
    elif a != b:
        out.append((path, a, b))


def main():
    with open(UPSTREAM) as f:
        upstream = strip(yaml.safe_load(f))
    with open(GENERATED) as f:
        generated = strip(yaml.safe_load(f))
    out = []
    diff(upstream, generated, "", out)
    unexpected = 0
    for path, a, b in out:
        tag = "expected  " if path in EXPECTED else "UNEXPECTED"
        unexpected += path not in EXPECTED
        print(f"{tag} {path}: {a!r} -> {b!r}")
    missing = EXPECTED - {path for path, _, _ in out}
    for path in sorted(missing):
        print(f"note: expected difference {path} is gone; update the list and the README")
    print(f"{len(out)} difference(s), {unexpected} unexpected")
    return 1 if unexpected else 0


if __name__ == "__main__":
    sys.exit(main())
