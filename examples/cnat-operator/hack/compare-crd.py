#!/usr/bin/env python3
"""Compare the generated CRD with an upstream cnat CRD, descriptions aside.

Usage: hack/compare-crd.py [UPSTREAM_CRD] [GENERATED_CRD]

The upstream CRDs are apiextensions.k8s.io/v1beta1. They are first lifted to the v1 layout
(spec.version / spec.validation / spec.subresources move into spec.versions[0], as the API
server's conversion does), then both sides lose every `description` and are compared path by
path. Prints one line per difference; exits 1 when there is any.
"""
import os
import sys

import yaml

# shared/ sits beside the opgen repository (OPGEN_SHARED_DIR overrides it).
SHARED = os.environ.get("OPGEN_SHARED_DIR", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "shared"))

UPSTREAM = os.path.join(SHARED, "reference-operators/cnat/kubebuilder/crd/cnat_v1alpha1_at.yaml")
GENERATED = "config/crd/bases/cnat.programming-kubernetes.info_ats.yaml"


def load(path):
    with open(path) as f:
        return next(doc for doc in yaml.safe_load_all(f) if doc)


def to_v1(crd):
    if crd.get("apiVersion") != "apiextensions.k8s.io/v1beta1":
        return crd
    crd = dict(crd, apiVersion="apiextensions.k8s.io/v1")
    spec = dict(crd["spec"])
    versions = spec.pop("versions", None) or [{"name": spec["version"], "served": True, "storage": True}]
    spec.pop("version", None)
    shared = {}
    if "validation" in spec:
        shared["schema"] = spec.pop("validation")
    for key in ("subresources", "additionalPrinterColumns"):
        if key in spec:
            shared[key] = spec.pop(key)
    spec["versions"] = [dict(shared, **v) for v in versions]
    crd["spec"] = spec
    return crd


def strip(node):
    if isinstance(node, dict):
        return {k: strip(v) for k, v in node.items() if k != "description"}
    if isinstance(node, list):
        return [strip(v) for v in node]
    return node


def diff(a, b, path=""):
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            sub = f"{path}.{key}" if path else key
            if key not in a:
                yield f"only generated: {sub} = {b[key]!r}"
            elif key not in b:
                yield f"only upstream:  {sub} = {a[key]!r}"
            else:
                yield from diff(a[key], b[key], sub)
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            yield from diff(x, y, f"{path}[{i}]")
    elif a != b:
        yield f"differs:        {path}: upstream {a!r}, generated {b!r}"


def main():
    upstream = sys.argv[1] if len(sys.argv) > 1 else UPSTREAM
    generated = sys.argv[2] if len(sys.argv) > 2 else GENERATED
    lines = list(diff(strip(to_v1(load(upstream))), strip(to_v1(load(generated)))))
    for line in lines:
        print(line)
    if not lines:
        print("identical (descriptions aside)")
    return 1 if lines else 0


if __name__ == "__main__":
    sys.exit(main())
