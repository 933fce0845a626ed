//! build.rs turns markers/catalog.yaml into typed markers (build/typed_markers.rs). A catalog
//! that does not say what Rust type a marker is fails the build; these tests run that code on
//! small catalogs.

#[path = "../build/typed_markers.rs"]
mod typed_markers;

use serde_json::{Value, json};

/// One marker of each family, so that every generator's enum has a variant.
fn catalog(extra: &[Value]) -> Value {
    let mut entries = vec![
        json!({"name": "groupName", "targets": ["package"], "family": "package", "value": "string", "help": "g"}),
        json!({"name": "kubebuilder:validation:MaxLength", "targets": ["field"], "family": "schema", "items": true, "value": "int", "help": "m"}),
        json!({"name": "kubebuilder:resource", "targets": ["type"], "family": "resource",
               "fields": [{"name": "scope", "type": "enum(Namespaced|Cluster)", "optional": true}], "help": "r"}),
        json!({"name": "kubebuilder:rbac", "targets": ["item"], "family": "rbac",
               "fields": [{"name": "verbs", "type": "list<string>"}], "help": "r"}),
        json!({"name": "kubebuilder:webhook", "targets": ["item"], "family": "webhook",
               "fields": [{"name": "mutating", "type": "bool"}], "help": "w"}),
        json!({"name": "operator-sdk:csv:customresourcedefinitions", "targets": ["type"], "family": "csv",
               "variant": "Descriptor", "fields": [{"name": "order", "type": "int", "optional": true}], "help": "c"}),
        json!({"name": "genclient", "targets": ["item"], "ignored": true, "prefix": true, "help": "i"}),
    ];
    entries.extend(extra.iter().cloned());
    Value::Array(entries)
}

fn panic_message(catalog: Value) -> String {
    let err = std::panic::catch_unwind(|| typed_markers::generate(&catalog))
        .expect_err("the build should fail");
    err.downcast_ref::<String>()
        .cloned()
        .or_else(|| err.downcast_ref::<&str>().map(|s| (*s).to_owned()))
        .unwrap_or_default()
}

#[test]
fn every_marker_becomes_a_variant_of_its_family_with_typed_arguments() {
    let code = typed_markers::generate(&catalog(&[
        json!({"name": "optional", "targets": ["field"], "family": "schema", "help": "o"}),
        json!({"name": "k8s:optional", "targets": ["field"], "family": "schema", "help": "o"}),
        json!({"name": "listType", "targets": ["field"], "family": "schema", "priority": 9,
               "value": "enum(map|set|atomic)", "help": "l"}),
    ]));
    for expected in [
        "pub enum SchemaMarker {",
        "    MaxLength(i64),",
        "    Optional,",
        "    ListType(ListType),",
        "Self::ListType(_) => 9,",
        "pub struct Resource {",
        "    pub scope: Option<Scope>,",
        "pub enum Scope {",
        "    pub verbs: Vec<String>,",
        "\"optional\" | \"k8s:optional\" => Typed::Schema(SchemaMarker::Optional),",
        "pub const KUBEBUILDER_VALIDATION_ITEMS_MAX_LENGTH: &str = \"kubebuilder:validation:items:MaxLength\";",
    ] {
        assert!(code.contains(expected), "missing {expected:?} in:\n{code}");
    }
    // Ignored markers have no type.
    assert!(!code.contains("Genclient"), "{code}");
}

#[test]
fn a_marker_without_a_family_fails_the_build() {
    let message = panic_message(catalog(&[
        json!({"name": "kubebuilder:validation:Nope", "targets": ["field"], "help": "n"}),
    ]));
    assert!(
        message.contains("kubebuilder:validation:Nope has no family"),
        "{message}"
    );
}

#[test]
fn an_unknown_family_fails_the_build() {
    let message = panic_message(catalog(&[
        json!({"name": "x:y", "targets": ["field"], "family": "helm", "help": "n"}),
    ]));
    assert!(message.contains("unknown family `helm`"), "{message}");
}

#[test]
fn spellings_of_one_variant_must_take_the_same_arguments() {
    let message = panic_message(catalog(&[
        json!({"name": "k8s:maxLength", "targets": ["field"], "family": "schema", "variant": "MaxLength",
               "value": "string", "help": "m"}),
    ]));
    assert!(
        message.contains("differ in arguments or priority"),
        "{message}"
    );
}

#[test]
fn two_enums_of_one_name_must_have_the_same_values() {
    let message = panic_message(catalog(&[json!({
        "name": "kubebuilder:other", "targets": ["type"], "family": "resource",
        "fields": [{"name": "scope", "type": "enum(Everywhere|Nowhere)"}], "help": "o"
    })]));
    assert!(
        message.contains("two different enums named Scope"),
        "{message}"
    );
}
