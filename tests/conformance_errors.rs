//! Bad-input conformance: the inputs controller-gen refuses (its negative test cases), written in Rust, must be refused by opgen too,
//! with file:line:col. Each test names controller-gen's message; opgen's own message is
//! snapshotted (insta, under `tests/fixtures/controller-gen/snapshots/`) with its location and
//! help, and its essential part asserted.
//!
//! Where controller-gen silently accepts something opgen refuses (misspelt markers), that is a
//! deliberate difference, tested here as well.

#[path = "fixtures/controller-gen/harness.rs"]
mod harness;

use harness::*;

const HEADER: &str = "use kube::CustomResource;\nuse serde::{Deserialize, Serialize};\n\n";

/// A types file with the kind `Demo` whose spec struct has `body` as its fields, after `before`.
fn types(before: &str, body: &str) -> String {
    format!(
        "{HEADER}{before}#[derive(CustomResource, Serialize, Deserialize, Clone, Debug)]
#[kube(group = \"testdata.kubebuilder.io\", version = \"v1\", kind = \"Demo\", namespaced)]
#[serde(rename_all = \"camelCase\")]
pub struct DemoSpec {{
{body}
}}
"
    )
}

const FILE: &str = "src/api/v1/demo_types.rs";

fn snapshot(name: &str, text: &str) {
    insta::with_settings!({
        snapshot_path => "fixtures/controller-gen/snapshots",
        prepend_module_to_snapshot => false,
    }, {
        insta::assert_snapshot!(name, text);
    });
}

fn assert_located(text: &str, line: usize, column: usize) {
    let at = format!("--> {FILE}:{line}:{column}");
    assert!(text.contains(&at), "expected {at} in:\n{text}");
}

/// `wrong_annotation_format`: annotation items of `+kubebuilder:metadata` written with `:`.
/// controller-gen: `is not in 'xxx=xxx' format`.
#[test]
fn annotation_without_equals_sign() {
    let text = refused(&[(
        FILE,
        &types(
            "// +kubebuilder:metadata:annotations=\"api-approved.kubernetes.io:https://github.com/kubernetes-sigs/controller-tools\"\n",
            "    pub schedule: String,",
        ),
    )]);
    assert!(text.contains("is not in 'key=value' format"), "{text}");
    assert_located(&text, 4, 4);
    snapshot("annotation_without_equals_sign", &text);
}

/// `wrong_title_format`: `+kubebuilder:title=123` and `+kubebuilder:title={}`.
/// controller-gen: `expected string, got int` / `expected string, got map[string]interface {}`.
#[test]
fn title_is_not_a_string() {
    let text = refused(&[(
        FILE,
        &types(
            "",
            "    // +kubebuilder:title=123
    pub a: String,
    // +kubebuilder:title={}
    pub b: String,",
        ),
    )]);
    assert!(text.contains("expects a string, got int"), "{text}");
    assert!(text.contains("expects a string, got a map"), "{text}");
    assert_located(&text, 8, 8);
    assert_located(&text, 10, 8);
    snapshot("title_is_not_a_string", &text);
}

/// `iface`: a field of Go type `any`. Rust's analogue is a trait object.
/// controller-gen: `cannot generate schema for any`.
#[test]
fn trait_object_field() {
    let text = refused(&[(
        FILE,
        &types(
            "",
            "    #[serde(skip_serializing_if = \"Option::is_none\")]\n    pub bar: Option<Box<dyn std::any::Any>>,",
        ),
    )]);
    assert!(
        text.contains(
            "field `bar`: the type `dyn std::any::Any` cannot be described by a CRD schema"
        ),
        "{text}"
    );
    // At the trait object inside the field's type.
    assert_located(&text, 9, 25);
    snapshot("trait_object_field", &text);
}

/// `inline_struct_error`: a field typed as an anonymous struct literal. Rust has no anonymous
/// struct types; the nearest is a tuple.
/// controller-gen: `inline struct types are not supported, use a named type instead`.
#[test]
fn anonymous_type_field() {
    let text = refused(&[(FILE, &types("", "    pub bar: (String, i32),"))]);
    assert!(
        text.contains("cannot be described by a CRD schema"),
        "{text}"
    );
    assert!(text.contains("use a named struct instead"), "{text}");
    assert!(
        text.contains("field `bar`: the type `(String, i32)`"),
        "{text}"
    );
    // At the type, not at the field.
    assert_located(&text, 8, 14);
    snapshot("anonymous_type_field", &text);
}

/// `oneof_error`: a oneOf group naming nested fields.
/// controller-gen: `kubebuilder:validation:AtMostOneOf: cannot reference nested fields: field.foo,field.bar`.
#[test]
fn one_of_with_nested_fields() {
    let text = refused(&[(
        FILE,
        &types(
            "// +kubebuilder:validation:AtMostOneOf=field.foo;field.bar\n",
            "    #[serde(default, skip_serializing_if = \"Option::is_none\")]\n    pub field: Option<Inner>,
}

#[derive(Serialize, Deserialize, Clone, Debug)]
pub struct Inner {
    #[serde(default, skip_serializing_if = \"Option::is_none\")]
    pub foo: Option<String>,
    #[serde(default, skip_serializing_if = \"Option::is_none\")]
    pub bar: Option<String>,",
        ),
    )]);
    assert!(
        text.contains(
            "kubebuilder:validation:AtMostOneOf: cannot reference nested fields: field.foo,field.bar"
        ),
        "{text}"
    );
    assert_located(&text, 4, 4);
    snapshot("one_of_with_nested_fields", &text);
}

/// `oneof_missing_tag_error`: the fields of a oneOf group must be optional (Go: omitempty or
/// omitzero; Rust: `Option` or `#[serde(default)]`, and no `+required`).
/// controller-gen: `field foo is part of OneOf constraint and must have omitempty or omitzero tag`.
#[test]
fn one_of_with_required_fields() {
    let text = refused(&[(
        FILE,
        &types(
            "// +kubebuilder:validation:AtMostOneOf=foo;bar;baz;qux\n",
            "    pub foo: String,
    // +required
    #[serde(default)]
    pub bar: String,
    #[serde(default)]
    pub baz: String,",
        ),
    )]);
    assert!(
        text.contains("field foo is part of OneOf constraint"),
        "{text}"
    );
    assert!(
        text.contains("field bar is part of OneOf constraint"),
        "{text}"
    );
    assert!(!text.contains("field baz"), "baz is optional:\n{text}");
    // opgen also refuses a name that is no field at all.
    assert!(
        text.contains("names `qux`, which is not a field of this type"),
        "{text}"
    );
    assert_located(&text, 9, 5);
    assert_located(&text, 12, 5);
    snapshot("one_of_with_required_fields", &text);
}

/// `enum_error`: `+k8s:enum` on a field. controller-gen: `k8s:enum must be set on a type, not a field`.
#[test]
fn k8s_enum_on_a_field() {
    let text = refused(&[(
        FILE,
        &types("", "    // +k8s:enum\n    pub policy: String,"),
    )]);
    assert!(
        text.contains("`k8s:enum` cannot be used on a field"),
        "{text}"
    );
    assert_located(&text, 8, 8);
    snapshot("k8s_enum_on_a_field", &text);
}

/// `k8s:enum` on a type that is not a unit-variant enum (Go: on a type with no constants).
#[test]
fn k8s_enum_on_a_non_enum_type() {
    let text = refused(&[(
        FILE,
        &types(
            "// +k8s:enum\npub type Policy = String;\n\n",
            "    pub policy: Policy,",
        ),
    )]);
    assert!(
        text.contains("`k8s:enum` applies to enums whose variants are all unit variants"),
        "{text}"
    );
    assert_located(&text, 4, 4);
}

/// `internal_version`: a package marked `+kubebuilder:skip` is ignored, even with types that
/// could not be described (Go: fields without JSON tags). Not an error, and no CRD.
#[test]
fn skipped_package_is_ignored() {
    let (crds, warnings) = accepted(&[
        (
            "src/api/internal/mod.rs",
            "//! +kubebuilder:skip\n\npub mod demo_types;\n",
        ),
        (
            "src/api/internal/demo_types.rs",
            &types("", "    pub untagged: SomethingOpgenCannotResolve,"),
        ),
    ]);
    assert!(crds.is_empty(), "{crds:?}");
    assert!(warnings.is_empty(), "{warnings:?}");
}

/// Misspelt markers that controller-gen ignores silently, as they stand in its CronJob input
/// (`+kubebuilder:validation:nullable`, `+kubebuilder:validation:optional`) and in user
/// reports (`+enum`): opgen refuses them with a suggestion (a deliberate difference).
#[test]
fn misspelt_markers_are_refused() {
    let text = refused(&[(
        FILE,
        &types(
            "",
            "    // +kubebuilder:validation:nullable
    pub a: String,
    // +kubebuilder:validation:optional
    #[serde(default)]
    pub b: String,
    // +kubebuilder:validation:enum=a;b
    pub c: String,",
        ),
    )]);
    assert!(
        text.contains("unknown marker `kubebuilder:validation:nullable`"),
        "{text}"
    );
    assert!(text.contains("did you mean `nullable`?"), "{text}");
    assert!(
        text.contains("did you mean `kubebuilder:validation:Optional`?"),
        "{text}"
    );
    assert!(
        text.contains("did you mean `kubebuilder:validation:Enum`?"),
        "{text}"
    );
    assert_located(&text, 8, 9);
    assert_located(&text, 10, 9);
    assert_located(&text, 13, 9);
    snapshot("misspelt_markers_are_refused", &text);
}

/// `+default=ref(...)`, which controller-gen ignores without a word: opgen ignores it too (no
/// default is written) but warns.
#[test]
fn default_ref_is_ignored_with_a_warning() {
    let (crds, warnings) = accepted(&[(
        FILE,
        &types(
            "",
            "    // +default=ref(DefaultRefValue)\n    #[serde(default)]\n    pub a: String,",
        ),
    )]);
    let crd = &documents(&crds["testdata.kubebuilder.io_demos.yaml"])[0];
    let a = &crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]
        ["a"];
    assert_eq!(a, &serde_json::json!({"type": "string"}));
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains("`+default=ref(DefaultRefValue)` is ignored"),
        "{}",
        warnings[0]
    );
    assert!(
        warnings[0].contains(&format!("{FILE}:8:8")),
        "{}",
        warnings[0]
    );
}

/// A hand-written `impl Serialize` whose fields cannot be described and no Type marker: the
/// error says how to describe the type (controller-gen would fail on the fields).
#[test]
fn hand_written_serialize_needs_a_type_marker() {
    let text = refused(&[(
        FILE,
        &types(
            "pub struct Link(pub other_crate::Url);

impl Serialize for Link {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.0.as_str())
    }
}

",
            "    pub link: Link,",
        ),
    )]);
    assert!(
        text.contains("`Link` has a hand-written `impl Serialize`"),
        "{text}"
    );
    assert!(
        text.contains("+kubebuilder:validation:Type=<type>"),
        "{text}"
    );
    assert_located(&text, 4, 1);
    snapshot("hand_written_serialize_needs_a_type_marker", &text);
}
