#!/usr/bin/env python3
"""Compare the k8s-openapi-derived schema of batch::v1::JobTemplateSpec (inlined from
data/k8s-<ver>.json) with controller-gen's rendering of the same Go type (the `jobTemplate`
property of the CronJob golden file), before and after applying overlays/controller-gen.json.

Usage: scripts/compare_cg.py [--k8s 1.36] [--golden PATH] [--overlay PATH]
Reads build/k8s-<ver>.json (run scripts/regen.sh first). Writes build/comparison-<ver>.md and
build/jobTemplate-{raw,overlay}-<ver>.json (scratch output, not committed).

The inliner here is the reference for what opgen must do:
  * `{"$ref": "#/definitions/N", ...siblings}`  ->  copy of definition N (itself inlined),
    then the siblings (the field's `description`) override the type's keys;
  * a definition that is already being inlined further up (recursion) becomes `{}` plus the
    siblings, like controller-gen (spec §4.3: "the recursive occurrence is replaced by an
    empty schema (plus any field docs)");
  * the overlay is applied to DEFINITIONS (before inlining), see overlay.patch_schema().
opgen's own inliner (src/generators/crd/k8s.rs) cuts recursion with
{"type": "object", "x-kubernetes-preserve-unknown-fields": true} instead of {}.
"""
import argparse
import collections
import copy
import json
import os
import re

import sys

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# the shared conformance data: $OPGEN_SHARED_DIR, else <repo>/../shared (repo = HERE/../..)
SHARED = os.environ.get("OPGEN_SHARED_DIR") or os.path.join(HERE, "..", "..", "..", "shared")
GOLDEN = os.path.join(SHARED, "conformance", "controller-gen", "crd", "testdata.kubebuilder.io_cronjobs.yaml")
ROOT_TYPE = "api::batch::v1::JobTemplateSpec"


# ---------------------------------------------------------------- inliner
from overlay import apply_overlay, patch_schema  # noqa: E402,F401  (patch_schema: the overlay semantics)


class Inliner:
    def __init__(self, defs):
        self.defs = defs
        self.origin = {}  # id(node) -> "DefName#/pointer"

    def inline_def(self, name, stack=()):
        return self._walk(self.defs[name], name, "", stack + (name,))

    def _walk(self, s, defname, ptr, stack):
        if not isinstance(s, dict):
            return s
        if "$ref" in s:
            target = s["$ref"].rsplit("/", 1)[1]
            siblings = {k: v for k, v in s.items() if k != "$ref"}
            if target in stack:
                node = {"x-opgen-recursion-cut": target}
            else:
                node = self.inline_def(target, stack)
            node = dict(node)
            node.update(copy.deepcopy(siblings))
            self.origin[id(node)] = self.origin.get(id(node), f"{target}#")
            return node
        out = {}
        for k, v in s.items():
            if k == "properties":
                out[k] = {p: self._walk(pv, defname, f"{ptr}/properties/{p}", stack) for p, pv in v.items()}
            elif k in ("items", "additionalProperties", "not") and isinstance(v, dict):
                out[k] = self._walk(v, defname, f"{ptr}/{k}", stack)
            elif k in ("allOf", "anyOf", "oneOf"):
                out[k] = [self._walk(x, defname, f"{ptr}/{k}/{i}", stack) for i, x in enumerate(v)]
            else:
                out[k] = copy.deepcopy(v)
        self.origin[id(out)] = f"{defname}#{ptr}"
        return out


def strip_internal(s):
    if isinstance(s, dict):
        return {k: strip_internal(v) for k, v in s.items() if not k.startswith("x-opgen-")}
    if isinstance(s, list):
        return [strip_internal(x) for x in s]
    return s


# ---------------------------------------------------------------- diff
def norm_ws(t):
    return re.sub(r"\s+", " ", t).strip()


class Diff:
    def __init__(self, origin):
        self.origin = origin
        self.counts = collections.Counter()
        self.examples = collections.defaultdict(list)
        self.sites = collections.defaultdict(set)  # category -> set of def-level origins

    def add(self, cat, path, detail, node=None):
        self.counts[cat] += 1
        if len(self.examples[cat]) < 4:
            self.examples[cat].append((path, detail))
        if node is not None:
            o = self.origin.get(id(node))
            if o:
                self.sites[cat].add(o)

    def walk(self, cg, ours, path):
        if not isinstance(cg, dict) or not isinstance(ours, dict):
            if cg != ours:
                self.add("node shape differs", path, f"cg={cg!r} ours={ours!r}")
            return
        if "x-opgen-recursion-cut" in ours:
            self.add("recursion cut in ours", path, ours["x-opgen-recursion-cut"], ours)
        keys = (set(cg) | set(ours)) - {"x-opgen-recursion-cut"}
        for k in sorted(keys):
            a, b = cg.get(k), ours.get(k)
            p = f"{path}.{k}"
            if k == "properties" and a is not None and b is not None:
                for prop in sorted(set(a) | set(b)):
                    if prop not in b:
                        self.add("property only in controller-gen", f"{p}.{prop}", "", ours)
                    elif prop not in a:
                        self.add("property only in k8s-openapi", f"{p}.{prop}", "", ours)
                    else:
                        self.walk(a[prop], b[prop], f"{path}.{prop}")
                continue
            if k in ("items", "additionalProperties") and isinstance(a, dict) and isinstance(b, dict):
                self.walk(a, b, f"{path}[{k}]")
                continue
            if k == "description":
                if a == b:
                    self.counts["description identical"] += 1
                elif a is None:
                    self.add("description only in k8s-openapi", path, b[:100], ours)
                elif b is None:
                    self.add("description only in controller-gen", path, a[:100], ours)
                elif norm_ws(a) == norm_ws(b):
                    self.add("description differs only in line breaks/whitespace", path,
                             f"cg={a[:80]!r} | ours={b[:80]!r}")
                else:
                    self.add("description text differs", path, describe_text_diff(a, b))
                continue
            if a == b:
                continue
            if k == "required" and a is not None and b is not None:
                self.add("required list differs", p, f"cg={a} ours={b}", ours)
                continue
            if a is None:
                self.add(f"`{k}` only in k8s-openapi", path, json.dumps(b)[:120], ours)
            elif b is None:
                self.add(f"`{k}` only in controller-gen", path, json.dumps(a)[:120], ours)
            else:
                self.add(f"`{k}` value differs", path, f"cg={json.dumps(a)[:100]} ours={json.dumps(b)[:100]}", ours)


def describe_text_diff(a, b):
    na, nb = norm_ws(a), norm_ws(b)
    # longest common prefix
    i = 0
    while i < min(len(na), len(nb)) and na[i] == nb[i]:
        i += 1
    return f"…{na[max(0, i - 30):i + 60]!r} vs …{nb[max(0, i - 30):i + 60]!r}"


def classify_description_diffs(cg, ours, out):
    """Second pass: sort the 'text differs' cases into finer reasons."""
    if not (isinstance(cg, dict) and isinstance(ours, dict)):
        return
    a, b = cg.get("description"), ours.get("description")
    if a and b and norm_ws(a) != norm_ws(b):
        na, nb = norm_ws(a), norm_ws(b)
        if nb.startswith(na):
            out["ours longer (controller-gen cut the doc, e.g. at `---` or a marker line)"] += 1
        elif na.startswith(nb):
            out["controller-gen longer"] += 1
        elif na.replace("`", "") == nb.replace("`", "") or norm_ws(re.sub(r"[`*]", "", a)) == norm_ws(re.sub(r"[`*]", "", b)):
            out["markup only (backticks)"] += 1
        else:
            out["different wording/content"] += 1
    for k in ("properties",):
        if isinstance(cg.get(k), dict) and isinstance(ours.get(k), dict):
            for p in set(cg[k]) & set(ours[k]):
                classify_description_diffs(cg[k][p], ours[k][p], out)
    for k in ("items", "additionalProperties"):
        if isinstance(cg.get(k), dict) and isinstance(ours.get(k), dict):
            classify_description_diffs(cg[k], ours[k], out)


def count_nodes(s):
    if not isinstance(s, dict):
        return 0
    n = 1
    for k in ("items", "additionalProperties"):
        n += count_nodes(s.get(k))
    for v in (s.get("properties") or {}).values():
        n += count_nodes(v)
    return n


def run(defs, types, cg, label):
    inl = Inliner(defs)
    ours = inl.inline_def(types[ROOT_TYPE])
    d = Diff(inl.origin)
    # compare below the field level: the jobTemplate field's own description is the field doc
    cg_body = {k: v for k, v in cg.items() if k != "description"}
    ours_body = {k: v for k, v in ours.items() if k != "description"}
    d.walk(cg_body, ours_body, "jobTemplate")
    fine = collections.Counter()
    classify_description_diffs(cg_body, ours_body, fine)
    return strip_internal(ours), d, fine


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--k8s", default="1.36")
    ap.add_argument("--golden", default=GOLDEN)
    ap.add_argument("--overlay", default=os.path.join(HERE, "overlays", "controller-gen.json"))
    args = ap.parse_args()

    data = json.load(open(os.path.join(HERE, "build", f"k8s-{args.k8s}.json")))
    golden = yaml.safe_load(open(args.golden))
    v1 = next(v for v in golden["spec"]["versions"] if v["name"] == "v1")
    cg = v1["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["jobTemplate"]
    overlay = json.load(open(args.overlay))

    os.makedirs(os.path.join(HERE, "build"), exist_ok=True)
    results = {}
    for label, defs in (("raw", data["definitions"]),
                        ("overlay", apply_overlay(data["definitions"], overlay))):
        ours, d, fine = run(defs, data["types"], cg, label)
        json.dump(ours, open(os.path.join(HERE, "build", f"jobTemplate-{label}-{args.k8s}.json"), "w"),
                  indent=1, sort_keys=True)
        results[label] = (ours, d, fine)

    lines = [f"# JobTemplateSpec: k8s-openapi 0.29 (`{args.k8s}` data) vs controller-gen (k8s.io/api v0.36.1)",
             "", "Generated by `scripts/compare_cg.py`. Counts are per schema node of the inlined tree "
             "(a type used in 10 places counts 10 times); `sites` is the number of distinct "
             "definition locations (type + JSON pointer) behind those nodes, i.e. how many overlay "
             "entries would fix the category.", "",
             f"Schema nodes: controller-gen {count_nodes(cg)}, ours raw {count_nodes(results['raw'][0])}, "
             f"ours with overlay {count_nodes(results['overlay'][0])}.", ""]
    for label in ("raw", "overlay"):
        _, d, fine = results[label]
        lines += [f"## {'Before' if label == 'raw' else 'After'} the overlay", "",
                  "| category | nodes | sites | examples |", "|---|---|---|---|"]
        for cat, n in sorted(d.counts.items(), key=lambda kv: (-kv[1], kv[0])):
            ex = "<br>".join(f"`{p}` {x}".replace("|", "\\|") for p, x in d.examples[cat][:2])
            lines.append(f"| {cat} | {n} | {len(d.sites[cat]) or ''} | {ex} |")
        if fine:
            lines += ["", "Description text differences, finer split:", ""]
            lines += [f"* {k}: {v}" for k, v in fine.most_common()]
        lines.append("")
    out = os.path.join(HERE, "build", f"comparison-{args.k8s}.md")
    open(out, "w").write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
