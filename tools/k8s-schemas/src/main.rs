//! Dump every k8s-openapi type that implements `schemars::JsonSchema` as an OpenAPI v3 schema.
//!
//! Output (one file per Kubernetes version, keys sorted recursively, pretty-printed; scripts/regen.sh
//! writes build/k8s-1.XX.json and merges them into opgen's data/k8s-schemas.jsonl):
//! ```json
//! {"k8sVersion": "1.33", "k8sOpenapiVersion": "0.29.0",
//!  "definitions": {"io.k8s.api.core.v1.PodSpec": {...}, ...},
//!  "types": {"api::core::v1::PodSpec": "io.k8s.api.core.v1.PodSpec", ...}}
//! ```
//! References between definitions stay `{"$ref": "#/definitions/<name>"}`. A `$ref` node may
//! carry sibling keys (in practice only `description`, the field's doc, which must win over the
//! referenced type's own description when the reference is inlined). That is exactly what
//! kube-derive gets with `inline_subschemas = true`.

use schemars::generate::{SchemaGenerator, SchemaSettings};
use schemars::transform::{RemoveRefSiblings, Transform, transform_subschemas};
use schemars::Schema;
use serde_json::{Map, Value};

#[cfg(not(any(feature = "v1_33", feature = "v1_34", feature = "v1_35", feature = "v1_36", feature = "v1_37")))]
compile_error!("enable exactly one Kubernetes version feature: --features v1_3X");
const _: () = assert!(
    cfg!(feature = "v1_33") as u8 + cfg!(feature = "v1_34") as u8 + cfg!(feature = "v1_35") as u8
        + cfg!(feature = "v1_36") as u8 + cfg!(feature = "v1_37") as u8
        <= 1,
    "enable exactly one Kubernetes version feature (v1_33..v1_37)"
);

macro_rules! all_types {
    ($($path:literal => $ty:ty,)*) => {
        /// Registers every type in `g` and returns (rust path, `$ref` schema) pairs.
        fn register_all(g: &mut SchemaGenerator) -> Vec<(&'static str, Schema)> {
            vec![$(($path, g.subschema_for::<$ty>()),)*]
        }
    };
}
pub(crate) use all_types;

#[cfg(feature = "v1_33")]
const K8S_VERSION: &str = "1.33";
#[cfg(feature = "v1_33")]
include!("types/v1_33.rs");
#[cfg(feature = "v1_34")]
const K8S_VERSION: &str = "1.34";
#[cfg(feature = "v1_34")]
include!("types/v1_34.rs");
#[cfg(feature = "v1_35")]
const K8S_VERSION: &str = "1.35";
#[cfg(feature = "v1_35")]
include!("types/v1_35.rs");
#[cfg(feature = "v1_36")]
const K8S_VERSION: &str = "1.36";
#[cfg(feature = "v1_36")]
include!("types/v1_36.rs");
#[cfg(feature = "v1_37")]
const K8S_VERSION: &str = "1.37";
#[cfg(feature = "v1_37")]
include!("types/v1_37.rs");

/// Keywords a CRD schema (apiextensions.k8s.io/v1 JSONSchemaProps, structural) may contain.
/// Anything else found in a schema position makes the generator fail, so that a new
/// k8s-openapi release cannot silently ship something the apiserver would reject.
const ALLOWED: &[&str] = &[
    "$ref", // only until opgen inlines it
    "description", "type", "format", "title", "default", "example", "externalDocs",
    "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum", "multipleOf",
    "maxLength", "minLength", "pattern", "maxItems", "minItems", "enum",
    "maxProperties", "minProperties", "required", "items", "allOf", "oneOf", "anyOf", "not",
    "properties", "additionalProperties", "nullable",
    "x-kubernetes-preserve-unknown-fields", "x-kubernetes-embedded-resource",
    "x-kubernetes-int-or-string", "x-kubernetes-list-map-keys", "x-kubernetes-list-type",
    "x-kubernetes-map-type", "x-kubernetes-validations",
];

/// Strips what a CRD schema cannot hold, with the same reasoning as kube-core's
/// `StructuralSchemaRewriter`:
/// * `$schema`, `$id`, `definitions`/`$defs` — meta keys; `$schema` is also disabled via
///   `meta_schema = None`;
/// * `uniqueItems` — the apiserver rejects `uniqueItems: true` (use x-kubernetes-list-type=set);
/// * `additionalProperties: false` next to `properties` — forbidden by the structural rules;
///   `additionalProperties: true` next to `properties` becomes preserve-unknown-fields.
/// * `const` is turned into `enum` by schemars' `ReplaceConstValue` already; `examples` into
///   `example` by `SetSingleExample`.
#[derive(Clone)]
struct CrdCompat;

impl Transform for CrdCompat {
    fn transform(&mut self, schema: &mut Schema) {
        transform_subschemas(self, schema);
        let Some(obj) = schema.as_object_mut() else { return };
        for k in ["$schema", "$id", "id", "definitions", "$defs", "uniqueItems"] {
            obj.remove(k);
        }
        if obj.contains_key("properties") {
            match obj.get("additionalProperties") {
                Some(Value::Bool(false)) => {
                    obj.remove("additionalProperties");
                }
                Some(Value::Bool(true)) => {
                    obj.remove("additionalProperties");
                    obj.insert("x-kubernetes-preserve-unknown-fields".into(), true.into());
                }
                _ => {}
            }
        }
    }
}

/// Walks schema positions (not property names) and records keywords not in ALLOWED.
fn check_keywords(path: &str, v: &Value, bad: &mut Vec<String>) {
    let Some(obj) = v.as_object() else { return };
    for (k, val) in obj {
        if !ALLOWED.contains(&k.as_str()) {
            bad.push(format!("{path}: {k}"));
        }
        match k.as_str() {
            "properties" => {
                for (pk, pv) in val.as_object().into_iter().flatten() {
                    check_keywords(&format!("{path}.properties.{pk}"), pv, bad);
                }
            }
            "items" | "additionalProperties" | "not" => check_keywords(&format!("{path}.{k}"), val, bad),
            "allOf" | "anyOf" | "oneOf" => {
                for (i, s) in val.as_array().into_iter().flatten().enumerate() {
                    check_keywords(&format!("{path}.{k}[{i}]"), s, bad);
                }
            }
            _ => {}
        }
    }
}

/// Rebuilds every object with sorted keys (works whether or not serde_json's
/// `preserve_order` feature is enabled somewhere in the dependency graph).
fn sorted(v: Value) -> Value {
    match v {
        Value::Object(m) => {
            let mut entries: Vec<(String, Value)> = m.into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Object(entries.into_iter().map(|(k, v)| (k, sorted(v))).collect())
        }
        Value::Array(a) => Value::Array(a.into_iter().map(sorted).collect()),
        other => other,
    }
}

fn main() {
    let out = std::env::args().nth(1);

    let mut settings = SchemaSettings::openapi3().with(|s| {
        s.definitions_path = "/definitions".into();
        s.meta_schema = None;
    });
    // Keep `{"$ref", "description"}` siblings instead of wrapping them in `allOf: [{$ref}]`:
    // opgen inlines refs itself and a CRD cannot hold allOf-wrapped refs anyway.
    settings.transforms.retain(|t| !t.is::<RemoveRefSiblings>());
    settings.transforms.push(Box::new(CrdCompat));
    let mut g = settings.into_generator();

    let refs = register_all(&mut g);
    let defs = g.take_definitions(true);

    let prefix = "#/definitions/";
    let mut types = Map::new();
    for (path, schema) in refs {
        let r = schema.get("$ref").and_then(Value::as_str).unwrap_or_else(|| panic!("{path} was inlined"));
        let name = r.strip_prefix(prefix).expect("ref prefix");
        assert!(defs.contains_key(name), "{path}: missing definition {name}");
        types.insert(path.to_string(), Value::String(name.to_string()));
    }

    let mut bad = Vec::new();
    for (name, def) in &defs {
        check_keywords(name, def, &mut bad);
    }
    if !bad.is_empty() {
        eprintln!("keywords a CRD schema cannot hold:\n  {}", bad.join("\n  "));
        std::process::exit(1);
    }

    let doc = sorted(serde_json::json!({
        "k8sVersion": K8S_VERSION,
        "k8sOpenapiVersion": "0.29.0",
        "definitions": Value::Object(defs),
        "types": Value::Object(types),
    }));
    let mut text = serde_json::to_string_pretty(&doc).expect("serialize");
    text.push('\n');
    match out {
        Some(p) => std::fs::write(&p, text).expect("write output"),
        None => print!("{text}"),
    }
}
