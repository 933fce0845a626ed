//! Webhook configuration conformance with controller-gen's webhook golden files (compared as
//! parsed YAML, as upstream does), from Rust ports of controller-tools' inputs, and the
//! invalid cases refused with located errors.

mod support;

use opgen::ops::manifests::{ManifestOptions, manifests};
use opgen::writer::Workspace;
use serde_json::Value;
use std::path::Path;

const G: &str = "groups=testdata.kubebuilder.io,resources=cronjobs,verbs=create;update,versions=v1,failurePolicy=fail";
const MUTATE: &str = "path=/mutate-testdata-kubebuilder-io-v1-cronjob";
const VALIDATE: &str = "path=/validate-testdata-kubebuilder-io-v1-cronjob";

/// The three markers of `valid`, with `extra` appended to each (validating, validating, mutating).
fn valid_markers(group: &str, v1: &str, v2: &str, m: &str) -> String {
    format!(
        "// +kubebuilder:webhook:{group},{v1},mutating=false,matchPolicy=Equivalent,name=validation.cronjob.testdata.kubebuilder.io,sideEffects=None,timeoutSeconds=10,admissionReviewVersions=v1;v1beta1,webhookVersions=v1\n\
         // +kubebuilder:webhook:{group},{v2},mutating=false,matchPolicy=Equivalent,name=validation.cronjob.testdata.kubebuilder.io,sideEffects=NoneOnDryRun,timeoutSeconds=10,admissionReviewVersions=v1;v1beta1\n\
         // +kubebuilder:webhook:{group},{m},mutating=true,matchPolicy=Equivalent,name=default.cronjob.testdata.kubebuilder.io,sideEffects=None,timeoutSeconds=10,admissionReviewVersions=v1;v1beta1,reinvocationPolicy=IfNeeded\n"
    )
}

fn generate(files: &[(&str, &str)]) -> Result<Vec<Value>, String> {
    let dir = tempfile::tempdir().unwrap();
    let mut ws = Workspace::new(dir.path());
    for (path, text) in files {
        ws.stage(*path, *text);
    }
    manifests(&mut ws, &ManifestOptions::default()).map_err(|e| e.to_string())?;
    let text = ws
        .read(Path::new("config/webhook/manifests.yaml"))
        .unwrap()
        .unwrap();
    Ok(parse(&text))
}

fn parse(text: &str) -> Vec<Value> {
    serde_yaml::Deserializer::from_str(text)
        .map(|d| serde::Deserialize::deserialize(d).unwrap())
        .collect()
}

fn golden(case: &str) -> Vec<Value> {
    let path = support::fixture(&format!(
        "goldens/controller-gen/webhook/{case}/manifests.yaml"
    ));
    parse(&std::fs::read_to_string(path).unwrap())
}

fn check(case: &str, files: &[(&str, &str)]) {
    let got = generate(files).unwrap_or_else(|e| panic!("{case}: {e}"));
    assert_eq!(got, golden(case), "{case}");
}

#[test]
fn valid() {
    check(
        "valid",
        &[(
            "src/webhook.rs",
            &valid_markers(G, VALIDATE, VALIDATE, MUTATE),
        )],
    );
}

#[test]
fn valid_url() {
    let markers = valid_markers(
        G,
        "url=\"https://somewebhook:9443/validate-testdata-kubebuilder-io-v1-cronjob\"",
        "url=\"https://anothersomewebhook:9443/validate-testdata-kubebuilder-io-v1-cronjob\"",
        MUTATE,
    );
    check("valid-url", &[("src/webhook.rs", &markers)]);
}

#[test]
fn valid_custom_service() {
    let g = G.replace("testdata.kubebuilder.io", "testdata.kubebuiler.io");
    let markers = valid_markers(
        &g,
        &format!("{VALIDATE},serviceName=DEAD,serviceNamespace=BEEF,servicePort=1234"),
        VALIDATE,
        &format!("{MUTATE},serviceName=FOO"),
    );
    check("valid-custom-service", &[("src/webhook.rs", &markers)]);
}

#[test]
fn valid_custom_name() {
    let markers = format!(
        "{}// +kubebuilder:webhookconfiguration:mutating=true,name=foo\n// +kubebuilder:webhookconfiguration:mutating=false,name=bar\n",
        valid_markers(G, VALIDATE, VALIDATE, MUTATE)
    );
    check("valid-custom-name", &[("src/webhook.rs", &markers)]);
}

#[test]
fn valid_ordered() {
    let hook = |resource: &str, path: &str, name: &str| {
        format!(
            "// +kubebuilder:webhook:groups=testdata.kubebuilder.io,resources={resource},verbs=create;update,versions=v1,failurePolicy=fail,path=/validate-testdata-kubebuilder-io-v1-{path},mutating=false,matchPolicy=Equivalent,name={name},sideEffects=None,admissionReviewVersions=v1;v1beta1,reinvocationPolicy=Never\n"
        )
    };
    let markers = [
        hook(
            "deployments",
            "deployments",
            "deployment.testdata.kubebuilder.io",
        ),
        hook("cronjobs", "cronjob", "cronjob.testdata.kubebuilder.io"),
        hook(
            "cronjoblist",
            "cronjoblist",
            "cronjoblist.testdata.kubebuilder.io",
        ),
    ]
    .concat();
    check("valid-ordered", &[("src/webhook.rs", &markers)]);
}

#[test]
fn valid_selectors() {
    let v = format!(
        "// +kubebuilder:webhook:{G},{VALIDATE},mutating=false,name=validation.cronjob.testdata.kubebuilder.io,sideEffects=None,admissionReviewVersions=v1,patch=`{{\"namespaceSelector\":{{\"matchLabels\":{{\"webhook-enabled\":\"true\"}}}}}}`\n"
    );
    check("valid-namespaceselector", &[("src/webhook.rs", &v)]);
    let m = format!(
        "// +kubebuilder:webhook:{G},{MUTATE},mutating=true,name=default.cronjob.testdata.kubebuilder.io,sideEffects=None,admissionReviewVersions=v1,patch=`{{\"objectSelector\":{{\"matchLabels\":{{\"managed-by\":\"myoperator\"}}}}}}`\n"
    );
    check("valid-objectselector", &[("src/webhook.rs", &m)]);
    let both = format!(
        "// +kubebuilder:webhook:{G},{VALIDATE},mutating=false,name=validation.cronjob.testdata.kubebuilder.io,sideEffects=None,admissionReviewVersions=v1,patch=`{{\"namespaceSelector\":{{\"matchExpressions\":[{{\"key\":\"environment\",\"operator\":\"In\",\"values\":[\"dev\",\"staging\",\"prod\"]}}]}}}}`\n\
         // +kubebuilder:webhook:{G},{MUTATE},mutating=true,name=default.cronjob.testdata.kubebuilder.io,sideEffects=None,admissionReviewVersions=v1,patch=`{{\"objectSelector\":{{\"matchLabels\":{{\"managed-by\":\"controller\"}},\"matchExpressions\":[{{\"key\":\"tier\",\"operator\":\"In\",\"values\":[\"frontend\",\"backend\"]}}]}}}}`\n"
    );
    check(
        "valid-selectors-matchexpressions",
        &[("src/webhook.rs", &both)],
    );
}

#[test]
fn valid_crosspkg_stable() {
    let hook = |version: &str, name: &str| {
        format!(
            "// +kubebuilder:webhook:groups=testdata.kubebuilder.io,resources=cronjobs,verbs=create;update,versions={version},failurePolicy=fail,path=/validate-testdata-kubebuilder-io-{version}-cronjob,mutating=false,matchPolicy=Equivalent,name={name},sideEffects=None,admissionReviewVersions=v1;v1beta1\n"
        )
    };
    // Package v1 comes first in the walk; the output is still sorted by name.
    check(
        "valid-crosspkg-stable",
        &[
            (
                "src/api/v1/webhook.rs",
                &hook("v1", "validation.cronjob.testdata.kubebuilder.io"),
            ),
            (
                "src/api/v1alpha1/webhook.rs",
                &hook("v1alpha1", "a.cronjob.testdata.kubebuilder.io"),
            ),
        ],
    );
}

#[test]
fn invalid_cases_are_refused_at_the_marker() {
    let base = format!("{G},{VALIDATE},mutating=false,name=v.x.io");
    let cases = [
        (
            format!("{base},sideEffects=None,admissionReviewVersions=v1,webhookVersions=v1beta1"),
            "unsupported webhook version: v1beta1",
        ),
        (
            format!("{base},sideEffects=None"),
            "missing the argument `admissionReviewVersions`",
        ),
        (
            format!("{base},sideEffects=Some,admissionReviewVersions=v1"),
            "SideEffects should not be set to `Some` or `Unknown`",
        ),
        (
            format!("{base},sideEffects=None,admissionReviewVersions=v1,timeoutSeconds=40"),
            "TimeoutSeconds must be between 1 and 30 seconds",
        ),
        (
            format!("{base},sideEffects=None,admissionReviewVersions=v1,timeoutSeconds=-1"),
            "TimeoutSeconds must be between 1 and 30 seconds",
        ),
        (
            format!("{base},sideEffects=None,admissionReviewVersions=v1,url=\"https://x\""),
            "either path or url, not both",
        ),
        (
            format!("{base},admissionReviewVersions=v1"),
            "SideEffects is required",
        ),
    ];
    for (marker, want) in cases {
        let err = generate(&[(
            "src/webhook.rs",
            &format!("// +kubebuilder:webhook:{marker}\n"),
        )])
        .unwrap_err();
        assert!(err.contains(want), "{marker}\n{err}");
        assert!(err.contains("--> src/webhook.rs:1:"), "{err}");
    }
    let twice = format!(
        "{}// +kubebuilder:webhookconfiguration:mutating=true,name=foo\n// +kubebuilder:webhookconfiguration:mutating=true,name=bar\n",
        valid_markers(G, VALIDATE, VALIDATE, MUTATE)
    );
    let err = generate(&[("src/webhook.rs", &twice)]).unwrap_err();
    assert!(
        err.contains(
            "a second mutating webhook configuration name; the first is at src/webhook.rs:4"
        ),
        "{err}"
    );
}
