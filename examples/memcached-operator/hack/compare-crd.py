#!/usr/bin/env python3
"""Compares the generated CRD with the upstream operator-sdk one, descriptions aside.

Usage: hack/compare-crd.py <upstream.yaml> [config/crd/bases/cache.example.com_memcacheds.yaml]
Prints every difference as `path: upstream -> ours` and exits 1 when there is one.
"""
import sys

import yaml


def strip(node):
    if isinstance(node, dict):
        return {k: strip(v) for k, v in node.items() if k != "description"}
    if isinstance(node, list):
        return [strip(v) for v in node]
    return node


def diff(a, b, path=""):
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            sub = f"{path}.{key}"
            if key not in a:
                yield f"{sub}: (absent) -> {b[key]!r}"
            elif key not in b:
                yield f"{sub}: {a[key]!r} -> (absent)"
            else:
                yield from diff(a[key], b[key], sub)
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            yield from diff(x, y, f"{path}[{i}]")
    elif a != b:
        yield f"{path}: {a!r} -> {b!r}"


upstream = sys.argv[1]
ours = sys.argv[2] if len(sys.argv) > 2 else "config/crd/bases/cache.example.com_memcacheds.yaml"
with open(upstream) as f:
    a = strip(yaml.safe_load(f))
with open(ours) as f:
    b = strip(yaml.safe_load(f))
differences = list(diff(a, b))
print("\n".join(differences) or "no differences")
sys.exit(1 if differences else 0)
