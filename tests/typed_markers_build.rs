//! build.rs turns markers/catalog.yaml into typed markers (build/typed_markers.rs) and into the
//! catalog's statics (build/catalog.rs). A catalog that does not say what Rust type a marker is,
//! or that breaks the catalog's format, fails the build; these tests run that code on small
//! catalogs.

#[path = "../src/markers/arg_type.rs"]
#[allow(dead_code)] // the build scripts need the type, not its descriptions.
mod arg_type;
#[path = "../build/catalog.rs"]
mod catalog;
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
    build_failure(|| {
        typed_markers::generate(&catalog);
    })
}

/// What `build` panicked with, as the failed build prints it.
fn build_failure(build: impl FnOnce() + std::panic::UnwindSafe) -> String {
    let err = std::panic::catch_unwind(build).expect_err("the build should fail");
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

/// The statics of the catalog: sorted by name, each `items` marker with its
/// `kubebuilder:validation:items:` spelling, argument types as constants of `ArgType`.
#[test]
fn the_catalog_becomes_sorted_statics() {
    let code = catalog::generate(&catalog(&[]));
    let names: Vec<&str> = code
        .lines()
        .filter_map(|l| l.trim().strip_prefix("MarkerDef { name: \""))
        .map(|l| &l[..l.find('"').unwrap()])
        .collect();
    assert_eq!(
        names,
        [
            "genclient",
            "groupName",
            "kubebuilder:rbac",
            "kubebuilder:resource",
            "kubebuilder:validation:MaxLength",
            "kubebuilder:validation:items:MaxLength",
            "kubebuilder:webhook",
            "operator-sdk:csv:customresourcedefinitions",
        ]
    );
    assert!(code.starts_with(
        "/// Every marker of markers/catalog.yaml, sorted by name (build/catalog.rs).\n\
         static DEFS: [MarkerDef; 8] = [\n"
    ));
    for expected in [
        "MarkerDef { name: \"kubebuilder:validation:items:MaxLength\", targets: &[Target::Field], \
         args: Args::Value(ArgType::Int), repeatable: false, ignored: false, prefix: false, \
         items: true, help: \"Like kubebuilder:validation:MaxLength (the same arguments), applied to \
         the items of a list.\" },",
        "args: Args::Fields(&[FieldDef { name: \"scope\", ty: ArgType::OneOf(&[\"Namespaced\", \
         \"Cluster\"]), optional: true }, ])",
        "args: Args::Fields(&[FieldDef { name: \"verbs\", ty: ArgType::List(&ArgType::String), \
         optional: false }, ])",
        "name: \"genclient\", targets: &[Target::Item], args: Args::None, repeatable: false, \
         ignored: true, prefix: true,",
    ] {
        assert!(code.contains(expected), "missing {expected:?} in:\n{code}");
    }
}

#[test]
fn a_catalog_entry_out_of_format_fails_the_build() {
    for (entry, message) in [
        (
            json!({"name": "a", "targets": ["field"], "value": "int", "fields": [], "help": "h"}),
            "markers/catalog.yaml: a: both value and fields",
        ),
        (
            json!({"name": "a", "targets": ["field"], "value": "integer", "help": "h"}),
            "markers/catalog.yaml: a: unknown argument type `integer`",
        ),
        (
            json!({"name": "a", "targets": ["fields"], "help": "h"}),
            "markers/catalog.yaml: a: unknown target `fields`",
        ),
        (
            json!({"name": "a", "targets": ["field"], "repeat": true, "help": "h"}),
            "markers/catalog.yaml: a: unknown key `repeat`",
        ),
        (
            json!({"name": "a", "targets": ["field"], "items": true, "value": "int", "help": "h"}),
            "markers/catalog.yaml: a: items on a non-validation marker",
        ),
        (
            json!({"name": "groupName", "targets": ["package"], "value": "string", "help": "h"}),
            "markers/catalog.yaml: groupName: defined twice",
        ),
    ] {
        let catalog = catalog(&[entry]);
        assert_eq!(
            build_failure(|| {
                catalog::generate(&catalog);
            }),
            message
        );
    }
}
