#!/usr/bin/env python3
"""Writes a synthetic opgen project: N kinds with about F fields each, for benchmarks.

usage: gen_project.py <dir> <kinds> <fields>         # the Rust (opgen) project
       gen_project.py --go <dir> <kinds> <fields>    # the same types in Go, for controller-gen

The Go package is the Rust one field for field (same JSON names, markers, docs, optionality):
String/i32/Option<i64>/bool/Vec<String>/BTreeMap/Option<Policy>/Vec<Item>/Option<Quantity>/f64
are string/int32/*int64/bool/[]string/map[string]string/*Policy/[]Item/*resource.Quantity/float64.
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


GO_TYPES = [
    ("string", ""),
    ("int32", ""),
    ("*int64", ",omitempty"),
    ("bool", ""),
    ("[]string", ""),
    ("map[string]string", ""),
    ("*Policy", ",omitempty"),
    ("[]Item", ""),
    ("*resource.Quantity", ",omitempty"),
    ("float64", ""),
]


def go_kind_file(n: int, fields: int) -> str:
    out = [
        "package v1",
        "",
        "import (",
        '\t"k8s.io/apimachinery/pkg/api/resource"',
        '\tmetav1 "k8s.io/apimachinery/pkg/apis/meta/v1"',
        ")",
        "",
        "var _ resource.Quantity",
        "",
        f"// Kind{n}Spec is the spec of kind {n}.",
        f"type Kind{n}Spec struct {{",
    ]
    for i in range(fields):
        ty, tag = GO_TYPES[i % len(GO_TYPES)]
        _, marker = FIELD_KINDS[i % len(FIELD_KINDS)]
        out.append(f"\t// field {i} of kind {n}.")
        for line in marker.split("\n"):
            if line.strip():
                out.append("\t" + line.strip())
        out.append(f'\tField{i} {ty} `json:"field{i}{tag}"`')
    out += [
        "}",
        "",
        f"// Kind{n}Status is the status of kind {n}.",
        f"type Kind{n}Status struct {{",
        "\t// +listType=map",
        "\t// +listMapKey=type",
        '\tConditions []metav1.Condition `json:"conditions,omitempty"`',
        "}",
        "",
        "// +kubebuilder:object:root=true",
        "// +kubebuilder:subresource:status",
        f"type Kind{n} struct {{",
        '\tmetav1.TypeMeta   `json:",inline"`',
        '\tmetav1.ObjectMeta `json:"metadata,omitempty"`',
        "",
        f'\tSpec   Kind{n}Spec   `json:"spec"`',
        f'\tStatus Kind{n}Status `json:"status,omitempty"`',
        "}",
        "",
    ]
    return "\n".join(out)


GO_COMMON = """// +groupName=bench.example.com
package v1

// Policy is shared by the kinds.
// +kubebuilder:validation:Enum=Allow;Forbid;Replace
type Policy string

// Item is a keyed list entry.
type Item struct {
\tName  string `json:"name"`
\tValue string `json:"value,omitempty"`
}
"""


def main_go() -> None:
    root, kinds, fields = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    api = os.path.join(root, "api", "v1")
    os.makedirs(api, exist_ok=True)
    with open(os.path.join(api, "common.go"), "w") as f:
        f.write(GO_COMMON)
    for n in range(kinds):
        with open(os.path.join(api, f"kind{n}_types.go"), "w") as f:
            f.write(go_kind_file(n, fields))


if __name__ == "__main__":
    if sys.argv[1] == "--go":
        main_go()
    else:
        main()
