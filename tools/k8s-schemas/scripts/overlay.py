"""Overlay semantics shared by build_jsonl.py, compare_cg.py and derive_overlay.py.

An overlay file is `{"definitions": {<definition name>: <partial schema>, ...}}`, applied to the
definitions of one Kubernetes version BEFORE references are inlined, so a fix reaches every use
of a type. See README.md ("Overlay format").
"""
import copy

SUBSCHEMA_MAP_KEYS = ("properties",)           # name -> schema
SUBSCHEMA_KEYS = ("items", "additionalProperties", "not")


def patch_schema(target, patch):
    """Schema-aware JSON Merge Patch:
    * `properties.<name>`, `items`, `additionalProperties`, `not` are patched recursively, and
      only if they exist in the target: an overlay never creates a property or subschema
      (so one overlay serves every Kubernetes version, fields added later are simply skipped);
    * any other key is replaced by the patch value (arrays and objects such as `default`
      or `anyOf` replace wholesale); `null` deletes the key (also `properties: null`);
    * keys starting with `_` are comments."""
    out = dict(target)
    for k, v in patch.items():
        if k.startswith("_"):
            continue
        if v is None:
            out.pop(k, None)
        elif k in SUBSCHEMA_MAP_KEYS and isinstance(v, dict) and isinstance(out.get(k), dict):
            props = dict(out[k])
            for name, sub in v.items():
                if name.startswith("_") or name not in props:
                    continue
                if sub is None:
                    del props[name]
                else:
                    props[name] = patch_schema(props[name], sub)
            out[k] = props
        elif k in SUBSCHEMA_KEYS and isinstance(v, dict):
            if isinstance(out.get(k), dict):
                out[k] = patch_schema(out[k], v)
        else:
            out[k] = copy.deepcopy(v)
    return out


def apply_overlay(defs, overlay):
    """Definitions the overlay names but the data lacks (another Kubernetes version) are skipped."""
    defs = dict(defs)
    for name, patch in overlay.get("definitions", {}).items():
        if name in defs:
            defs[name] = patch_schema(defs[name], patch)
    return defs
