#!/usr/bin/env python3
"""Writes a synthetic opgen project: N kinds with about F fields each, for benchmarks.

usage: gen_project.py <dir> <kinds> <fields>
"""
import os
import sys

FIELD_KINDS = [
    ("String", "// +kubebuilder:validation:MaxLength=63"),
    ("i32", "// +kubebuilder:validation:Minimum=0"),
    ("Option<i64>", ""),
    ("bool", ""),
    ("Vec<String>", "// +listType=set"),
    ("std::collections::BTreeMap<String, String>", ""),
    ("Option<Policy>", ""),
    ("Vec<Item>", "// +listType=map\n    // +listMapKey=name"),
    ("Option<k8s_openapi::apimachinery::pkg::api::resource::Quantity>", ""),
    ("f64", ""),
]


def kind_file(n: int, fields: int) -> str:
    out = [
        "use kube::CustomResource;",
        "use serde::{Deserialize, Serialize};",
        "",
        f"/// Kind{n}Spec is the spec of kind {n}.",
        "#[derive(CustomResource, Serialize, Deserialize, Clone, Debug)]",
        f'#[kube(group = "bench.example.com", version = "v1", kind = "Kind{n}", namespaced, status = "Kind{n}Status")]',
        '#[serde(rename_all = "camelCase")]',
        f"pub struct Kind{n}Spec {{",
    ]
    for i in range(fields):
        ty, marker = FIELD_KINDS[i % len(FIELD_KINDS)]
        out.append(f"    /// field {i} of kind {n}.")
        if marker:
            out.append(f"    {marker}")
        if ty.startswith("Option<"):
            out.append('    #[serde(default, skip_serializing_if = "Option::is_none")]')
        out.append(f"    pub field_{i}: {ty},")
    out += [
        "}",
        "",
        f"/// Kind{n}Status is the status of kind {n}.",
        "#[derive(Serialize, Deserialize, Clone, Debug, Default)]",
        f"pub struct Kind{n}Status {{",
        "    // +listType=map",
        "    // +listMapKey=type",
        "    #[serde(default)]",
        "    pub conditions: Vec<k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition>,",
        "}",
        "",
        "/// Policy is shared by the kinds.",
        "#[derive(Serialize, Deserialize, Clone, Debug)]",
        "pub enum Policy { Allow, Forbid, Replace }",
        "",
        "/// Item is a keyed list entry.",
        "#[derive(Serialize, Deserialize, Clone, Debug)]",
        "pub struct Item { pub name: String, #[serde(default)] pub value: String }",
        "",
    ]
    return "\n".join(out)


def main() -> None:
    root, kinds, fields = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    api = os.path.join(root, "src", "api", "v1")
    os.makedirs(api, exist_ok=True)
    with open(os.path.join(root, "src", "lib.rs"), "w") as f:
        f.write("pub mod api;\n")
    with open(os.path.join(root, "src", "api", "mod.rs"), "w") as f:
        f.write("pub mod v1;\n")
    mods = []
    for n in range(kinds):
        # Each kind in its own module so that the shared helper types do not clash.
        with open(os.path.join(api, f"kind{n}_types.rs"), "w") as f:
            f.write(kind_file(n, fields))
        mods.append(f"pub mod kind{n}_types;")
    with open(os.path.join(api, "mod.rs"), "w") as f:
        f.write("//! +groupName=bench.example.com\n" + "\n".join(mods) + "\n")
    with open(os.path.join(root, "PROJECT"), "w") as f:
        f.write("domain: example.com\nlayout:\n- rust.opgen.dev/v1\nprojectName: bench\nversion: '3'\n")


if __name__ == "__main__":
    main()
