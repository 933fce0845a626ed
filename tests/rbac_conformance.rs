//! RBAC conformance: controller-gen's `rbac/role.yaml` golden file, from a Rust port of its
//! input (`tests/fixtures/goldens/controller-gen/rbac/role.yaml`), byte for byte.

mod support;

use opgen::ops::manifests::{ManifestOptions, manifests};
use opgen::writer::Workspace;
use std::path::Path;

/// The markers of controller-gen's rbac testdata, in order, as one Rust file. In Go they sit
/// in a free comment block of package `controller`; in Rust any item-level comment will do.
const CONTROLLER: &str = r#"//! The controller package of controller-gen's RBAC testdata.

// +kubebuilder:rbac:groups=batch.io,resources=cronjobs,verbs=get;watch;create
// +kubebuilder:rbac:groups=batch.io,resources=cronjobs/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=art,resources=jobs,verbs=get
// +kubebuilder:rbac:groups=wave,resources=jobs,verbs=get,namespace=zoo
// +kubebuilder:rbac:groups=batch;batch;batch,resources=jobs/status,verbs=watch
// +kubebuilder:rbac:groups=batch;cron,resources=jobs/status,verbs=create;get
// +kubebuilder:rbac:groups=art,resources=jobs,verbs=get,namespace=zoo
// +kubebuilder:rbac:groups=cron;batch,resources=jobs/status,verbs=get;create
// +kubebuilder:rbac:groups=batch,resources=jobs/status,verbs=watch;watch
// +kubebuilder:rbac:groups=art,resources=jobs,verbs=get,namespace=park
// +kubebuilder:rbac:groups=batch.io,resources=cronjobs,resourceNames=foo;bar;baz,verbs=get;watch
// +kubebuilder:rbac:groups=deduplicate-verbs,resources=some,verbs=get;list
// +kubebuilder:rbac:groups=deduplicate-verbs,resources=some,verbs=get
// +kubebuilder:rbac:groups=deduplicate-verbs,resources=some,verbs=list
// +kubebuilder:rbac:groups=deduplicate-resources,resources=one,verbs=create
// +kubebuilder:rbac:groups=deduplicate-resources,resources=two,verbs=create
// +kubebuilder:rbac:groups=deduplicate-resources,resources=three,verbs=create
// +kubebuilder:rbac:groups=deduplicate-groups1,resources=foo,verbs=patch
// +kubebuilder:rbac:groups=deduplicate-groups2,resources=foo,verbs=patch
// +kubebuilder:rbac:groups=deduplicate-groups3,resources=foo,verbs=patch
// +kubebuilder:rbac:groups=deduplicate-all,resources=foo;bar,verbs=get;list
// +kubebuilder:rbac:groups=deduplicate-all,resources=foo,verbs=get
// +kubebuilder:rbac:groups=deduplicate-all,resources=bar,verbs=list
// +kubebuilder:rbac:groups=deduplicate-groups4,resources=xyz,verbs=get;update;patch
// +kubebuilder:rbac:groups=deduplicate-groups4,resources=xyz,verbs=*
// +kubebuilder:rbac:groups=deduplicate-all-group,resources=foo;bar,verbs=get;list
// +kubebuilder:rbac:groups=not-deduplicate-resources,resources=some,verbs=get
// +kubebuilder:rbac:groups=not-deduplicate-resources,resources=another,verbs=list
// +kubebuilder:rbac:groups=not-deduplicate-groups1,resources=some,verbs=get
// +kubebuilder:rbac:groups=not-deduplicate-groups2,resources=some,verbs=list
// +kubebuilder:rbac:urls=/url-to-duplicate,verbs=get
// +kubebuilder:rbac:urls=/another/url-to-duplicate,verbs=get
// +kubebuilder:rbac:groups=core,resources=deduplicate,verbs=list
// +kubebuilder:rbac:groups="",resources=me,verbs=list
// +kubebuilder:rbac:groups=core;"";some-other-to-deduplicate-with-core,resources=me,verbs=list;get
// +kubebuilder:rbac:groups=deduplicate-groups5,resources=abc,verbs=get;update;patch;create,namespace=here
// +kubebuilder:rbac:groups=deduplicate-groups5,resources=abc,verbs=*,namespace=here
// +kubebuilder:rbac:groups=apps,namespace=infrastructure,roleName=infra-deployment-manager,resources=deployments,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups="",namespace=users,roleName=user-secrets-reader,resources=secrets,verbs=get;list;watch
// +kubebuilder:rbac:groups=apps,namespace=infrastructure,roleName=infra-deployment-manager,resources=statefulsets,verbs=get;list
// +kubebuilder:rbac:groups=monitoring,namespace=observability,resources=prometheuses,verbs=get;list
"#;

#[test]
fn role_yaml_matches_controller_gen_byte_for_byte() {
    let golden =
        std::fs::read_to_string(support::fixture("goldens/controller-gen/rbac/role.yaml")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut ws = Workspace::new(dir.path());
    ws.stage("src/controller.rs", CONTROLLER);
    let report = manifests(&mut ws, &ManifestOptions::default()).unwrap();
    let role = ws
        .read(Path::new("config/rbac/role.yaml"))
        .unwrap()
        .unwrap();
    assert_eq!(role, golden);
    // The port is least privilege's worst case: the lint says so, without failing the command.
    assert!(
        report
            .warnings
            .iter()
            .any(|w| w.message.contains("every verb (`*`)")),
        "{:?}",
        report.warnings
    );
}

fn lint(markers: &str, strict: bool) -> Result<Vec<String>, String> {
    let dir = tempfile::tempdir().unwrap();
    let mut ws = Workspace::new(dir.path());
    ws.stage(
        "src/controllers/x.rs",
        format!("{markers}pub async fn reconcile() {{}}\n"),
    );
    match manifests(
        &mut ws,
        &ManifestOptions {
            strict,
            ..ManifestOptions::default()
        },
    ) {
        Ok(report) => Ok(report.warnings.iter().map(|w| w.to_string()).collect()),
        Err(e) => Err(e.to_string()),
    }
}

#[test]
fn least_privilege_lint_warns_at_the_marker() {
    let cases = [
        (
            "// +kubebuilder:rbac:groups=apps,resources=*,verbs=get\n",
            "grants every resource (`*`)",
        ),
        (
            "// +kubebuilder:rbac:groups=core,resources=secrets,verbs=list\n",
            "read every Secret in the cluster",
        ),
        (
            "// +kubebuilder:rbac:groups=rbac.authorization.k8s.io,resources=clusterroles,verbs=create\n",
            "change rbac.authorization.k8s.io objects",
        ),
        (
            "// +kubebuilder:rbac:groups=apiextensions.k8s.io,resources=customresourcedefinitions,verbs=patch\n",
            "change apiextensions.k8s.io objects",
        ),
        (
            "// +kubebuilder:rbac:groups=admissionregistration.k8s.io,resources=validatingwebhookconfigurations,verbs=update\n",
            "change admissionregistration.k8s.io objects",
        ),
        (
            "// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch\n// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get\n",
            "already granted by the broader rule at src/controllers/x.rs:1",
        ),
    ];
    for (markers, want) in cases {
        let warnings = lint(markers, false).unwrap();
        assert_eq!(warnings.len(), 1, "{markers}: {warnings:#?}");
        assert!(warnings[0].contains(want), "{markers}: {}", warnings[0]);
        assert!(
            warnings[0].contains("--> src/controllers/x.rs:"),
            "{}",
            warnings[0]
        );
        let err = lint(markers, true).unwrap_err();
        assert!(err.contains(want) && err.starts_with("error: "), "{err}");
    }
    // Namespaced secret access, identical rules from two controllers: no warning.
    let quiet = "// +kubebuilder:rbac:groups=core,resources=secrets,verbs=get,namespace=app\n// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch\n// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch\n";
    assert_eq!(lint(quiet, true).unwrap(), Vec::<String>::new());
}

#[test]
fn bad_rbac_markers_are_errors_with_locations() {
    let cases = [
        (
            "// +kubebuilder:rbac:groups=apps,resources=deployments\n",
            "missing the argument `verbs`",
        ),
        (
            "// +kubebuilder:rbac:groups=apps,resource=deployments,verbs=get\n",
            "unknown argument `resource`",
        ),
        (
            "// +kubebuilder:rbac:namespace=,groups=apps,resources=deployments,verbs=get\n",
            "empty value for `namespace`",
        ),
        (
            "// +kubebuilder:rbac:groups=apps,verbs=get\n",
            "needs resources or urls",
        ),
    ];
    for (markers, want) in cases {
        let err = lint(markers, false).unwrap_err();
        assert!(err.contains(want), "{markers}: {err}");
        assert!(err.contains("--> src/controllers/x.rs:1:"), "{err}");
    }
}
