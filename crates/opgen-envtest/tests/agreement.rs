//! The agreement check on a real API server, for kinds whose root CEL rules read
//! `metadata.name`: the server runs them on every object, whatever name the check draws.

use std::borrow::Cow;

use k8s_openapi::{NamespaceResourceScope, apimachinery::pkg::apis::meta::v1::ObjectMeta};
use kube::Resource;
use opgen_envtest::agreement::{Agreement, Report};
use serde::{Deserialize, Serialize};

/// A kind of the group `agreement.opgen.dev/v1` whose spec is `$spec`.
macro_rules! kind {
    ($kind:ident, $plural:literal, $spec:ty) => {
        #[derive(Serialize, Deserialize)]
        struct $kind {
            #[serde(rename = "apiVersion")]
            api_version: String,
            kind: String,
            metadata: ObjectMeta,
            spec: $spec,
        }

        impl Resource for $kind {
            type DynamicType = ();
            type Scope = NamespaceResourceScope;
            fn kind(_: &()) -> Cow<'_, str> {
                stringify!($kind).into()
            }
            fn group(_: &()) -> Cow<'_, str> {
                "agreement.opgen.dev".into()
            }
            fn version(_: &()) -> Cow<'_, str> {
                "v1".into()
            }
            fn plural(_: &()) -> Cow<'_, str> {
                $plural.into()
            }
            fn meta(&self) -> &ObjectMeta {
                &self.metadata
            }
            fn meta_mut(&mut self) -> &mut ObjectMeta {
                &mut self.metadata
            }
        }
    };
}

#[derive(Serialize, Deserialize)]
struct SizeSpec {
    size: i64,
}

#[derive(Serialize, Deserialize)]
struct NoteSpec {
    size: i64,
    /// Not in the schema: the API server prunes what serde sends of it.
    #[serde(default)]
    note: String,
}

#[derive(Serialize, Deserialize)]
struct OwnerSpec {
    size: i64,
    owner: String,
}

/// What the schema of [`plain_crd`] lacks, and what a draw from the schema therefore never
/// reaches: a field serde leaves out when it is `None`, and a variant.
#[derive(Serialize, Deserialize)]
struct KnobSpec {
    size: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    extra: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    mode: Option<Mode>,
}

#[derive(Serialize, Deserialize)]
enum Mode {
    Fast,
    Slow,
    Turbo,
}

kind!(Widget, "widgets", SizeSpec);
kind!(Knob, "knobs", KnobSpec);
kind!(Gadget, "gadgets", NoteSpec);
kind!(Sprocket, "sprockets", OwnerSpec);

/// The CRD of `kind`, its spec's `size` and `properties`, and one root rule.
fn crd(kind: &str, plural: &str, properties: &str, rule: &str) -> String {
    format!(
        "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: {plural}.agreement.opgen.dev
spec:
  group: agreement.opgen.dev
  names: {{kind: {kind}, listKind: {kind}List, plural: {plural}, singular: {singular}}}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        required: [spec]
        x-kubernetes-validations:
        - rule: {rule:?}
          message: the name rule
        properties:
          apiVersion: {{type: string}}
          kind: {{type: string}}
          metadata: {{type: object}}
          spec:
            type: object
            required: [size]
            properties:
              size: {{type: integer, minimum: 1}}
{properties}",
        singular = kind.to_lowercase(),
    )
}

/// The CRD of `kind` without rules: whatever the API server refuses, the schema refused.
fn plain_crd(kind: &str, plural: &str, properties: &str) -> String {
    crd(kind, plural, properties, "true")
        .replace("        x-kubernetes-validations:\n        - rule: \"true\"\n          message: the name rule\n", "")
}

async fn checked<K>(rule_kind: &str, crd_yaml: String) -> Option<Report>
where
    K: Resource<DynamicType = ()> + Serialize + for<'de> Deserialize<'de>,
{
    let control_plane = opgen_envtest::shared_or_skip().await?;
    let admin = control_plane.client().expect("a client");
    let dir = std::env::temp_dir().join(format!(
        "opgen-envtest-agreement-{rule_kind}-{}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("crd.yaml"), crd_yaml).unwrap();
    let report = Agreement::new(&admin, &dir, "agreement-names")
        .check::<K>()
        .await
        .expect("the API server answers");
    std::fs::remove_dir_all(dir).unwrap();
    Some(report)
}

#[tokio::test]
async fn a_kind_whose_root_rule_constrains_the_name_is_checked() {
    let rule = "self.metadata.name.startsWith('w')";
    let Some(report) = checked::<Widget>("widget", crd("Widget", "widgets", "", rule)).await else {
        return;
    };
    assert_eq!(report.name_rules, [rule]);
    assert!(report.cases > 0);
    assert_eq!(report.accepted, report.cases, "{:?}", report.refusals);
    report.assert_agreed();
}

#[tokio::test]
async fn a_disagreement_is_still_found_under_a_name_the_rules_asked_for() {
    let rule = "self.metadata.name.size() <= 5";
    let Some(report) = checked::<Gadget>("gadget", crd("Gadget", "gadgets", "", rule)).await else {
        return;
    };
    assert_eq!(report.accepted, report.cases, "{:?}", report.refusals);
    assert!(
        report
            .disagreements
            .iter()
            .any(|d| d.contains("a create does not keep what serde sends: .spec.note")),
        "{:#?}",
        report.disagreements
    );
}

#[tokio::test]
async fn a_name_rule_no_drawn_name_meets_is_reported_with_the_rule_and_the_servers_message() {
    let rule = "self.metadata.name == self.spec.owner";
    let owner = "              owner: {type: string, pattern: '^[0-9]{3}$'}\n";
    let Some(report) =
        checked::<Sprocket>("sprocket", crd("Sprocket", "sprockets", owner, rule)).await
    else {
        return;
    };
    assert_eq!(report.accepted, 0, "{report:?}");
    let message = *std::panic::catch_unwind(|| report.assert_agreed())
        .unwrap_err()
        .downcast::<String>()
        .unwrap();
    assert!(
        message.starts_with(&format!(
            "sprockets.agreement.opgen.dev/v1: the CRD's rules refused {n} of {n} drawn objects, each \
             also under names built from its rules on metadata.name (`{rule}`), so nothing was \
             checked (OPGEN_AGREEMENT_SEED={} reproduces it); the first because:\n",
            report.seed,
            n = report.cases,
        )) && message.contains("the name rule"),
        "{message}"
    );
}

#[tokio::test]
async fn values_of_the_rust_type_reach_what_the_schema_lacks() {
    let mode = "              mode: {type: string, enum: [Fast, Slow]}\n";
    let crd = plain_crd("Knob", "knobs", mode);
    assert!(!crd.contains("x-kubernetes-validations"), "{crd}");
    let Some(report) = checked::<Knob>("knob", crd).await else {
        return;
    };
    assert_eq!(report.accepted, report.cases, "{:?}", report.refusals);
    assert_eq!(report.typed_cases, report.cases);
    assert!(report.undrawn.is_empty(), "{:?}", report.undrawn);
    assert!(report.typed_accepted > 0, "{report:?}");
    let found = |what: &str| report.disagreements.iter().any(|d| d.contains(what));
    // Only the type's values: the schema's never hold `extra` or `Turbo`.
    assert!(
        report
            .disagreements
            .iter()
            .all(|d| d.contains("of the type's")),
        "{:#?}",
        report.disagreements
    );
    assert!(
        found("a create does not keep what serde sends: .spec.extra"),
        "{:#?}",
        report.disagreements
    );
    assert!(
        found("the API server refuses what serde sends of a value of the Rust type")
            && found("Unsupported value: \"Turbo\""),
        "{:#?}",
        report.disagreements
    );
    // Each cause once, with the number of other cases that show it.
    assert_eq!(report.disagreements.len(), 3, "{:#?}", report.disagreements);
}
