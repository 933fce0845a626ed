#!/usr/bin/env python3
"""Merge the per-version generator outputs (build/k8s-1.XX.json), apply the overlay, and write
opgen's embedded data file, data/k8s-schemas.jsonl, as JSON Lines:

  line 1:  {"k8sOpenapiVersion":"0.29.0","versions":["1.33","1.34",...]}
  then:    {"name":<definition>,"versions":[...],"schema":{...}}   sorted by name, first version
  then:    {"type":<rust path below k8s_openapi>,"name":<definition>,"versions":[...]}
                                                                   sorted by type, first version

A definition line's "versions" lists the Kubernetes versions in which the definition has exactly
this (overlay-applied) schema; each distinct body is stored once. The top-level keys are written
in this fixed order so that opgen can index the file by reading only the line prefix; keys inside
"schema" are sorted; the output is compact, UTF-8, one line per record, "\n"-terminated.
References stay `{"$ref": "#/definitions/<name>"}` with their sibling keys (the field's
description); opgen inlines them.

The script also checks the result and fails on: dangling `$ref`s or type targets, `required`
entries without a property (an overlay replaces `required` whole), list-map keys that are neither
required nor defaulted (the apiserver rejects such CRDs), and leftover `_comment` keys.

Usage: scripts/build_jsonl.py [--overlay overlays/controller-gen.json] --out FILE build/k8s-1.*.json
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from overlay import apply_overlay  # noqa: E402

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REF_PREFIX = "#/definitions/"


def vkey(v):
    major, minor = v.split(".")
    return (int(major), int(minor))


def dumps(o, sort=True):
    return json.dumps(o, sort_keys=sort, separators=(",", ":"), ensure_ascii=False)


def schema_nodes(s, path):
    """Yield (path, node) for every schema position (not property names, not enum values)."""
    if not isinstance(s, dict):
        return
    yield path, s
    for name, sub in (s.get("properties") or {}).items():
        yield from schema_nodes(sub, f"{path}.properties.{name}")
    for k in ("items", "additionalProperties", "not"):
        if isinstance(s.get(k), dict):
            yield from schema_nodes(s[k], f"{path}.{k}")
    for k in ("allOf", "anyOf", "oneOf"):
        for i, sub in enumerate(s.get(k) or []):
            yield from schema_nodes(sub, f"{path}.{k}[{i}]")


def check(version, defs, types):
    errors = []

    def target(node):
        return node["$ref"][len(REF_PREFIX):] if isinstance(node.get("$ref"), str) else None

    for name, d in defs.items():
        for path, node in schema_nodes(d, name):
            if any(k.startswith("_") for k in node):
                errors.append(f"{path}: overlay comment key left in the schema")
            t = target(node)
            if node.get("$ref") is not None and (t is None or t not in defs):
                errors.append(f"{path}: dangling $ref {node.get('$ref')!r}")
            req = node.get("required")
            if req is not None:
                props = node.get("properties") or {}
                missing = [r for r in req if r not in props]
                if missing:
                    errors.append(f"{path}: required {missing} without a property")
            if node.get("x-kubernetes-list-type") == "map":
                keys = node.get("x-kubernetes-list-map-keys") or []
                item = node.get("items") or {}
                item = defs.get(target(item), item) if target(item) else item
                props = item.get("properties") or {}
                for k in keys:
                    if k not in props:
                        errors.append(f"{path}: list-map key {k!r} is not a property of the items")
                    elif k not in (item.get("required") or []) and "default" not in props[k]:
                        errors.append(f"{path}: list-map key {k!r} is neither required nor defaulted")
    for path, name in types.items():
        if name not in defs:
            errors.append(f"type {path}: no definition {name}")
    if errors:
        sys.exit(f"k8s {version}: {len(errors)} problems:\n  " + "\n  ".join(errors))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--overlay", default=os.path.join(HERE, "overlays", "controller-gen.json"))
    ap.add_argument("--out", required=True)
    ap.add_argument("inputs", nargs="+")
    args = ap.parse_args()

    overlay = json.load(open(args.overlay, encoding="utf-8"))
    data = {}
    for f in args.inputs:
        d = json.load(open(f, encoding="utf-8"))
        if d["k8sVersion"] in data:
            sys.exit(f"{f}: Kubernetes {d['k8sVersion']} given twice")
        data[d["k8sVersion"]] = d
    versions = sorted(data, key=vkey)
    ko = {data[v]["k8sOpenapiVersion"] for v in versions}
    if len(ko) != 1:
        sys.exit(f"inputs come from different k8s-openapi versions: {sorted(ko)}")

    defs_by_version = {}
    for v in versions:
        defs = apply_overlay(data[v]["definitions"], overlay)
        check(v, defs, data[v]["types"])
        defs_by_version[v] = defs

    # name -> [[versions], schema, compact text]; identical bodies are stored once
    definitions = {}
    for v in versions:
        for name, schema in defs_by_version[v].items():
            text = dumps(schema)
            entries = definitions.setdefault(name, [])
            for e in entries:
                if e[2] == text:
                    e[0].append(v)
                    break
            else:
                entries.append([[v], schema, text])
    types = {}
    for v in versions:
        for path, name in data[v]["types"].items():
            entries = types.setdefault(path, [])
            for e in entries:
                if e[0] == name:
                    e[1].append(v)
                    break
            else:
                entries.append([name, [v]])

    lines = [dumps({"k8sOpenapiVersion": ko.pop(), "versions": versions}, sort=False)]
    for name in sorted(definitions):
        for vs, _schema, text in sorted(definitions[name], key=lambda e: vkey(e[0][0])):
            lines.append(f'{{"name":{dumps(name)},"versions":{dumps(vs)},"schema":{text}}}')
    for path in sorted(types):
        for name, vs in sorted(types[path], key=lambda e: vkey(e[1][0])):
            lines.append(f'{{"type":{dumps(path)},"name":{dumps(name)},"versions":{dumps(vs)}}}')
    body = "\n".join(lines) + "\n"
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    tmp = args.out + ".tmp"
    with open(tmp, "w", encoding="utf-8", newline="\n") as fh:
        fh.write(body)
    os.replace(tmp, args.out)
    ndefs = sum(len(e) for e in definitions.values())
    ntypes = sum(len(e) for e in types.values())
    print(f"{args.out}: {len(body.encode()):,} bytes, {len(definitions)} definition names, "
          f"{ndefs} definition lines, {ntypes} type lines, versions {', '.join(versions)}")


if __name__ == "__main__":
    main()
