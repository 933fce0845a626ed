//! opgen's output on a real API server (etcd + kube-apiserver from `tools/envtest/setup.sh`,
//! started by opgen-envtest, one per test binary): every example's deployable manifests and
//! samples are accepted, the schemas opgen generates are enforced the way their markers say,
//! and the controller-gen conformance CRDs opgen reproduces are accepted.
//!
//! Without the binaries each test prints one line and passes; under CI they must be there.

#[path = "fixtures/controller-gen/harness.rs"]
mod harness;
mod support;

use std::path::{Path, PathBuf};

use kube::{
    Api,
    api::{DynamicObject, GroupVersionKind, Patch, PatchParams},
    discovery,
};
use opgen_envtest::{ControlPlane, apply_documents, install_crds};
use serde_json::{Value, json};

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(name)
}

/// `kubectl kustomize <dir>` with the control plane's kubectl: what `make deploy` applies.
fn kustomize(control_plane: &ControlPlane, dir: &Path) -> Vec<Value> {
    let output = control_plane
        .kubectl()
        .arg("kustomize")
        .arg(dir)
        .output()
        .expect("run kubectl kustomize");
    assert!(
        output.status.success(),
        "kubectl kustomize {} failed:\n{}",
        dir.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    harness::documents(&String::from_utf8(output.stdout).unwrap())
}

/// Installs an example's CRDs, server-side applies everything `config/default` renders (the
/// webhook configurations as a dry run, so that they do not send the samples to a webhook
/// service that does not run here; cert-manager's objects are left out, its CRDs are not
/// installed), then its samples. Returns the kinds applied, in order.
async fn deploy_example(name: &str) -> Option<Vec<String>> {
    let control_plane = opgen_envtest::shared_or_skip().await?;
    let client = control_plane.client().unwrap();
    let dir = example(name);
    install_crds(&client, dir.join("config/crd/bases"))
        .await
        .unwrap_or_else(|e| panic!("{name}: {e}"));

    let rendered = kustomize(control_plane, &dir.join("config/default"));
    let apply = PatchParams::apply("opgen-test").force();
    let mut dry_run = apply.clone();
    dry_run.dry_run = true;
    let mut kinds = Vec::new();
    let source = dir.join("config/default");
    for object in rendered {
        let kind = object["kind"].as_str().unwrap().to_owned();
        let api_version = object["apiVersion"].as_str().unwrap();
        if api_version.starts_with("cert-manager.io/") {
            continue;
        }
        let params = if kind.ends_with("WebhookConfiguration") {
            &dry_run
        } else {
            &apply
        };
        apply_documents(&client, vec![object], "default", params, &source)
            .await
            .unwrap_or_else(|e| panic!("{name}: the API server refused {kind}: {e}"));
        kinds.push(kind);
    }

    let samples_namespace = format!("{name}-samples");
    apply_documents(
        &client,
        vec![json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": samples_namespace}})],
        "default",
        &apply,
        &dir,
    )
    .await
    .unwrap();
    for sample in std::fs::read_dir(dir.join("config/samples")).unwrap() {
        let path = sample.unwrap().path();
        if path.file_name().unwrap() == "kustomization.yaml" {
            continue;
        }
        let stored = opgen_envtest::apply_file(&client, &path, &samples_namespace)
            .await
            .unwrap_or_else(|e| panic!("{name}: sample refused: {e}"));
        kinds.extend(
            stored
                .iter()
                .map(|o| o.types.as_ref().unwrap().kind.clone()),
        );
    }
    Some(kinds)
}

fn assert_deployed(kinds: &[String], want: &[&str]) {
    for kind in want {
        assert!(
            kinds.iter().any(|k| k == kind),
            "no {kind} was applied: {kinds:?}"
        );
    }
}

const DEPLOYABLE: &[&str] = &[
    "Namespace",
    "CustomResourceDefinition",
    "ServiceAccount",
    "Role",
    "ClusterRole",
    "RoleBinding",
    "ClusterRoleBinding",
    "Service",
    "Deployment",
];

#[tokio::test]
async fn memcached_example_deploys() {
    let Some(kinds) = deploy_example("memcached-operator").await else {
        return;
    };
    assert_deployed(&kinds, DEPLOYABLE);
    assert_deployed(&kinds, &["MutatingWebhookConfiguration", "Memcached"]);
}

#[tokio::test]
async fn cnat_example_deploys() {
    let Some(kinds) = deploy_example("cnat-operator").await else {
        return;
    };
    assert_deployed(&kinds, DEPLOYABLE);
    assert_deployed(&kinds, &["At"]);
}

#[tokio::test]
async fn secret_example_deploys() {
    let Some(kinds) = deploy_example("secret-operator").await else {
        return;
    };
    assert_deployed(&kinds, DEPLOYABLE);
    assert_deployed(&kinds, &["MultiSecret"]);
}

#[tokio::test]
async fn tdset_example_deploys() {
    let Some(kinds) = deploy_example("tdset-operator").await else {
        return;
    };
    assert_deployed(&kinds, DEPLOYABLE);
    assert_deployed(&kinds, &["TDSet"]);
}

#[tokio::test]
async fn sample_controller_example_deploys() {
    let Some(kinds) = deploy_example("sample-controller").await else {
        return;
    };
    assert_deployed(&kinds, DEPLOYABLE);
    assert_deployed(&kinds, &["Foo"]);
}

/// Writes the CRDs `opgen manifests` generates for a conformance fixture to a directory.
fn generated_crds(fixture: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (file, text) in harness::generate(fixture, None) {
        std::fs::write(dir.path().join(file), text).unwrap();
    }
    dir
}

/// The markers of `tests/fixtures/controller-gen/markers` (`+kubebuilder:default`,
/// validation markers, CEL rules with messages, transition rules) as the API server applies
/// them: each invalid object is refused with the message the marker promises.
#[tokio::test]
async fn generated_schemas_are_enforced_by_the_api_server() {
    let Some(control_plane) = opgen_envtest::shared_or_skip().await else {
        return;
    };
    let client = control_plane.client().unwrap();
    let crds = generated_crds("markers");
    install_crds(&client, crds.path()).await.unwrap();
    let gvk = GroupVersionKind::gvk("markers.example.com", "v1", "Widget");
    let (resource, _) = discovery::pinned_kind(&client, &gvk).await.unwrap();
    let widgets: Api<DynamicObject> = Api::namespaced_with(client.clone(), "default", &resource);
    let apply = |name: &str, spec: Value| {
        let widgets = widgets.clone();
        let object = json!({
            "apiVersion": "markers.example.com/v1",
            "kind": "Widget",
            "metadata": {"name": name},
            "spec": spec,
        });
        let name = name.to_owned();
        async move {
            widgets
                .patch(
                    &name,
                    &PatchParams::apply("opgen-test").force(),
                    &Patch::Apply(&object),
                )
                .await
        }
    };

    // Defaults: `host` gets `+kubebuilder:default=localhost`.
    let stored = apply(
        "valid",
        json!({"replicas": 1, "name": "w-1", "ports": [80]}),
    )
    .await
    .expect("a valid Widget is accepted");
    assert_eq!(stored.data["spec"]["host"], "localhost");

    let refused: &[(&str, Value, &str)] = &[
        (
            "no-replicas",
            json!({"name": "w-1"}),
            "spec.replicas: Required value",
        ),
        (
            "zero-replicas",
            json!({"replicas": 0}),
            "spec.replicas: Invalid value: 0: spec.replicas in body should be greater than 0",
        ),
        (
            "many-replicas",
            json!({"replicas": 101}),
            "spec.replicas: Invalid value: 101: spec.replicas in body should be less than or equal to 100",
        ),
        // CEL messages: since 1.37 the server shows the value where 1.33 shows its type.
        (
            "bad-name",
            json!({"replicas": 1, "name": "x"}),
            "spec.name: Invalid value: {}: must start with w-",
        ),
        (
            "ssh",
            json!({"replicas": 1, "ports": [22]}),
            "spec.ports[0]: Invalid value: {}: not ssh",
        ),
        (
            "port-zero",
            json!({"replicas": 1, "ports": [0]}),
            "spec.ports[0]: Invalid value: 0: spec.ports[0] in body should be greater than or equal to 1",
        ),
        (
            "slow",
            json!({"replicas": 1, "mode": "Slow"}),
            "spec.mode: Unsupported value: \"Slow\": supported values: \"Fast\", \"Careful\"",
        ),
        (
            "level-9",
            json!({"replicas": 1, "level": 9}),
            "spec.level: Unsupported value: 9: supported values: \"1\", \"2\", \"3\"",
        ),
        (
            "no-labels",
            json!({"replicas": 1, "labels": {}}),
            "spec.labels: Invalid value: 0: spec.labels in body should have at least 1 properties",
        ),
        (
            "bad-date",
            json!({"replicas": 1, "dates": ["2024-02-30"]}),
            "spec.dates[0]: Unsupported value: \"2024-02-30\"",
        ),
    ];
    let mut wrong = Vec::new();
    for (name, spec, message) in refused {
        match apply(name, spec.clone()).await {
            Ok(_) => wrong.push(format!("{name}: accepted {spec}")),
            Err(kube::Error::Api(status)) if contains_with_any_value(&status.message, message) => {}
            Err(e) => wrong.push(format!("{name}: refused with `{e}`, not `{message}`")),
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));

    // Transition rules: `name` is immutable, and once set cannot be removed.
    let renamed = apply(
        "valid",
        json!({"replicas": 1, "name": "w-2", "ports": [80]}),
    )
    .await;
    let error = renamed.expect_err("name is immutable").to_string();
    assert!(
        contains_with_any_value(&error, "spec.name: Invalid value: {}: field is immutable"),
        "{error}"
    );
    let dropped = apply("valid", json!({"replicas": 1, "ports": [80]})).await;
    let error = dropped.expect_err("name cannot be removed").to_string();
    assert!(
        error.contains("field name is immutable once set"),
        "{error}"
    );
}

/// Whether `text` contains `pattern`, where a `{}` in `pattern` stands for one value (a
/// quoted string or a word).
fn contains_with_any_value(text: &str, pattern: &str) -> bool {
    match pattern.split_once("{}") {
        None => text.contains(pattern),
        Some((before, after)) => text.match_indices(before).any(|(at, _)| {
            let rest = &text[at + before.len()..];
            let value_len = if let Some(quoted) = rest.strip_prefix('"') {
                quoted.find('"').map_or(rest.len(), |end| end + 2)
            } else {
                rest.find(|c: char| c == ':' || c.is_whitespace())
                    .unwrap_or(rest.len())
            };
            rest[value_len..].starts_with(after)
        }),
    }
}

/// Every CRD opgen writes for the controller-gen conformance fixtures is accepted and
/// Established, except where controller-gen's own output is refused too: `nogroup` is
/// controller-gen's CRD for a package without `+groupName`, whose empty group no API server
/// takes.
#[tokio::test]
async fn conformance_crds_are_accepted() {
    let Some(control_plane) = opgen_envtest::shared_or_skip().await else {
        return;
    };
    let client = control_plane.client().unwrap();
    for fixture in [
        "gen",
        "plural",
        "enums",
        "externaldocs",
        "multiple_versions",
        "clusterscoped",
        "testdata",
        "markers",
    ] {
        let crds = generated_crds(fixture);
        let installed = install_crds(&client, crds.path())
            .await
            .unwrap_or_else(|e| panic!("{fixture}: {e}"));
        assert!(!installed.is_empty(), "{fixture}");
    }
    let crds = generated_crds("nogroup");
    let refused = install_crds(&client, crds.path())
        .await
        .expect_err("a CRD without a group");
    assert!(
        refused.to_string().contains("spec.group: Required value"),
        "{refused}"
    );
}

/// Foreign types (README: "Types of other crates"): the API server accepts the CRD opgen writes
/// for `tests/fixtures/foreign/types.rs`, and stores `spec.json` (that spec as serde_json
/// writes it with the real crates, made by `tests/fixtures/foreign/wire`) unchanged: every
/// format accepts its crate's output and nothing is pruned. Values the schemas promise to refuse
/// are refused.
#[tokio::test]
async fn foreign_types_accept_what_their_crates_write() {
    let crds = tempfile::tempdir().unwrap();
    {
        let project = tempfile::tempdir().unwrap();
        let mut ws = opgen::writer::Workspace::new(project.path());
        ws.stage(
            "src/api/v1/types.rs",
            include_str!("fixtures/foreign/types.rs"),
        );
        opgen::ops::manifests::manifests(&mut ws, &Default::default())
            .unwrap_or_else(|e| panic!("{e}"));
        for file in ws
            .list_files(Path::new("config/crd/bases"), ".yaml")
            .unwrap()
        {
            let text = ws.read(&file).unwrap().unwrap();
            std::fs::write(crds.path().join(file.file_name().unwrap()), text).unwrap();
        }
    }
    // Generated (and so checked) with or without a control plane.
    let Some(control_plane) = opgen_envtest::shared_or_skip().await else {
        return;
    };
    let client = control_plane.client().unwrap();
    install_crds(&client, crds.path()).await.unwrap();
    let gvk = GroupVersionKind::gvk("foreign.example.com", "v1", "Foreign");
    let (resource, _) = discovery::pinned_kind(&client, &gvk).await.unwrap();
    let api: Api<DynamicObject> = Api::namespaced_with(client.clone(), "default", &resource);
    let apply = |name: &str, spec: Value| {
        let api = api.clone();
        let object = json!({
            "apiVersion": "foreign.example.com/v1",
            "kind": "Foreign",
            "metadata": {"name": name},
            "spec": spec,
        });
        let name = name.to_owned();
        async move {
            api.patch(
                &name,
                &PatchParams::apply("opgen-test").force(),
                &Patch::Apply(&object),
            )
            .await
        }
    };

    let spec: Value = serde_json::from_str(include_str!("fixtures/foreign/spec.json")).unwrap();
    let stored = apply("wire", spec.clone())
        .await
        .unwrap_or_else(|e| panic!("the API server refused what the crates write: {e}"));
    assert_eq!(stored.data["spec"], spec, "stored differently (pruned?)");

    let with = |field: &str, value: Value| {
        let mut spec = spec.clone();
        spec[field] = value;
        spec
    };
    let refused: &[(&str, Value, &str)] = &[
        (
            "no-offset",
            with("chronoUtc", json!("2024-01-02T03:04:05")),
            "spec.chronoUtc in body must be of type date-time",
        ),
        (
            "bad-date",
            with("jiffDate", json!("2024-02-30")),
            "spec.jiffDate in body must be of type date",
        ),
        (
            "bad-uuid",
            with("uuid", json!("67e55044")),
            "spec.uuid in body must be of type uuid",
        ),
        (
            "relative-url",
            with("url", json!("a/b")),
            "spec.url in body must be of type uri",
        ),
        (
            "v6-as-v4",
            with("ipv4", json!("::1")),
            "spec.ipv4 in body must be of type ipv4",
        ),
        (
            "byte-256",
            with("bytes", json!([256])),
            "spec.bytes[0] in body should be less than or equal to 255",
        ),
        (
            "not-base64",
            with("base64", json!("hi!")),
            "spec.base64 in body must be of type byte",
        ),
        (
            "zero-replicas",
            with("replicas", json!(0)),
            "spec.replicas in body should be greater than or equal to 1",
        ),
        (
            "zero-offset",
            with("offset", json!(0)),
            "spec.offset: Invalid value: {}: must not be 0",
        ),
        (
            "secs-nanos",
            with("timeout", json!({"secs": 90, "nanos": 0})),
            // std's own serde form of a Duration, refused by server-side apply's typed patch.
            ".spec.timeout: expected string, got",
        ),
        (
            "kindless-template",
            with(
                "template",
                json!({"apiVersion": "v1", "metadata": {"name": "x"}}),
            ),
            "spec.template.kind: Required value",
        ),
    ];
    let mut wrong = Vec::new();
    for (name, spec, message) in refused {
        match apply(name, spec.clone()).await {
            Ok(_) => wrong.push(format!("{name}: accepted")),
            Err(kube::Error::Api(status)) if contains_with_any_value(&status.message, message) => {}
            Err(e) => wrong.push(format!("{name}: refused with `{e}`, not `{message}`")),
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The embedded k8s type schemas (controller-gen's, data/k8s-schemas.jsonl) of every supported
/// Kubernetes version make a CRD the API server accepts: `tests/fixtures/k8s-types` embeds
/// PodTemplateSpec, Container, Affinity, Toleration, ResourceRequirements, Quantity, IntOrString,
/// ObjectReference, Condition and Time. Each version's CRD is installed (an update of the one
/// before) and a resource using them is created, so the schema is also enforced as written.
#[tokio::test]
async fn embedded_k8s_type_schemas_are_accepted() {
    let Some(control_plane) = opgen_envtest::shared_or_skip().await else {
        return;
    };
    let client = control_plane.client().unwrap();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/k8s-types");
    let manifest = std::fs::read_to_string(fixture.join("Cargo.toml")).unwrap();
    for minor in opgen::generators::crd::k8s::K8sTypes::supported_minors() {
        let project = tempfile::tempdir().unwrap();
        support::copy_tree(&fixture, project.path());
        let feature = format!("\"v1_{minor}\"");
        std::fs::write(
            project.path().join("Cargo.toml"),
            manifest.replace("\"v1_37\"", &feature),
        )
        .unwrap();
        let mut ws = opgen::writer::Workspace::new(project.path().to_owned());
        opgen::ops::manifests::manifests(&mut ws, &Default::default())
            .unwrap_or_else(|e| panic!("1.{minor}: {e}"));
        ws.commit().unwrap();
        let crd = std::fs::read_to_string(
            project
                .path()
                .join("config/crd/bases/k8stypes.example.com_embedders.yaml"),
        )
        .unwrap();
        assert!(crd.contains("x-kubernetes-map-type: atomic"), "1.{minor}");
        let installed = install_crds(&client, project.path().join("config/crd/bases"))
            .await
            .unwrap_or_else(|e| panic!("1.{minor}: {e}"));
        assert_eq!(installed.len(), 1, "1.{minor}");
    }
    let gvk = GroupVersionKind::gvk("k8stypes.example.com", "v1", "Embedder");
    let (resource, _) = discovery::pinned_kind(&client, &gvk).await.unwrap();
    let embedders: Api<DynamicObject> = Api::namespaced_with(client.clone(), "default", &resource);
    let object = json!({
        "apiVersion": "k8stypes.example.com/v1",
        "kind": "Embedder",
        "metadata": {"name": "all-types"},
        "spec": {
            "template": {
                "metadata": {"labels": {"app": "x"}},
                "spec": {"containers": [{
                    "name": "app",
                    "image": "busybox",
                    "ports": [{"containerPort": 8080}],
                    "resources": {"limits": {"cpu": "500m", "memory": "64Mi"}},
                    "readinessProbe": {"httpGet": {"port": "http", "path": "/"}},
                }]},
            },
            "tolerations": [{"key": "k", "operator": "Exists", "effect": "NoSchedule"}],
            "memory": "1Gi",
            "port": 8443,
            "owner": {"kind": "Pod", "name": "p"},
        },
    });
    let created = embedders
        .patch(
            "all-types",
            &PatchParams::apply("opgen-test"),
            &Patch::Apply(&object),
        )
        .await
        .unwrap();
    // the default of ContainerPort.protocol (`+default="TCP"`) is applied by the API server
    assert_eq!(
        created.data["spec"]["template"]["spec"]["containers"][0]["ports"][0]["protocol"],
        "TCP"
    );
    let bad = json!({
        "apiVersion": "k8stypes.example.com/v1",
        "kind": "Embedder",
        "metadata": {"name": "bad-quantity"},
        "spec": {"template": {}, "memory": "lots"},
    });
    let refused = embedders
        .patch(
            "bad-quantity",
            &PatchParams::apply("opgen-test"),
            &Patch::Apply(&bad),
        )
        .await
        .expect_err("a Quantity that does not match controller-gen's pattern");
    assert!(refused.to_string().contains("spec.memory"), "{refused}");
}

/// The referee of opgen's CEL check (`generators::crd::cel`): for each rule on a small
/// schema, opgen's verdict (accepted, or refused) equals the API server's on a dry-run
/// create of a CRD holding it.
#[tokio::test]
async fn cel_rule_verdicts_match_the_api_server() {
    use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
    use kube::api::PostParams;
    use opgen::generators::crd::cel::check_schema;

    let Some(control_plane) = opgen_envtest::shared_or_skip().await else {
        return;
    };
    let crds: Api<CustomResourceDefinition> = Api::all(control_plane.client().unwrap());
    let spec = || {
        json!({"type": "object", "properties": {
            "replicas": {"type": "integer"},
            "name": {"type": "string", "maxLength": 63},
            "ratio": {"type": "number"},
            "port": {"x-kubernetes-int-or-string": true},
            "created": {"type": "string", "format": "date-time"},
            "dash-name": {"type": "string", "maxLength": 5},
            "namespace": {"type": "string", "maxLength": 63},
            "tags": {"type": "array", "maxItems": 10, "items": {"type": "string", "maxLength": 20}},
            "labels": {"type": "object", "maxProperties": 10, "additionalProperties": {"type": "string", "maxLength": 20}},
            "items": {"type": "array", "maxItems": 10, "x-kubernetes-list-type": "atomic", "items": {
                "type": "object", "properties": {"k": {"type": "string", "maxLength": 5}}}},
            "keyed": {"type": "array", "maxItems": 10, "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["k"],
                "items": {"type": "object", "required": ["k"], "properties": {"k": {"type": "string", "maxLength": 5}}}},
            "free": {"type": "array", "items": {"type": "string"}},
            "matrix": {"type": "array", "items": {"type": "array", "items": {"type": "integer"}}}
        }})
    };
    // (where the rule goes under spec, the rule object, whether the server accepts it)
    let cases: Vec<(&str, Value, bool)> = vec![
        (
            "",
            json!({"rule": "self.replicas >= 0 && self.name.startsWith('a')"}),
            true,
        ),
        (
            "",
            json!({"rule": "self.ratio > 0.5 && self.replicas < 2.5"}),
            true,
        ),
        (
            "",
            json!({"rule": "type(self.port) == int ? self.port > 0 : self.port.endsWith('%')"}),
            true,
        ),
        (
            "",
            json!({"rule": "self.created < timestamp('2030-01-01T00:00:00Z')"}),
            true,
        ),
        ("", json!({"rule": "self.dash__dash__name != ''"}), true),
        // A keyword's escaped field also answers to its plain name (1.31+).
        (
            "",
            json!({"rule": "!has(self.namespace) || self.namespace == self.__namespace__"}),
            true,
        ),
        ("", json!({"rule": "self.namespac == ''"}), false),
        (
            "",
            json!({"rule": "self.tags.all(t, t.matches('^[a-z]+$')) && 'a' in self.labels"}),
            true,
        ),
        ("", json!({"rule": "self.?name.orValue('') != ''"}), true),
        // Map keys cost nothing to the API server's size estimator (its key type has no
        // maximum): gateway-api's Gateway runs such rules over label maps.
        (
            ".properties.labels",
            json!({"rule": "self.all(key, key.matches('^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9]$') && key.split('/')[0].size() < 253)"}),
            true,
        ),
        (
            "",
            json!({"rule": "cel.bind(n, self.name, n.size() < 10)"}),
            false,
        ),
        ("", json!({"rule": "self.name == oldSelf.name"}), true),
        (
            "",
            json!({"rule": "self.replicas > 0", "messageExpression": "'name is ' + self.name"}),
            true,
        ),
        (
            "",
            json!({"rule": "oldSelf.hasValue() || self.replicas > 0", "optionalOldSelf": true}),
            true,
        ),
        (
            ".properties.keyed.items",
            json!({"rule": "self.k == oldSelf.k"}),
            true,
        ),
        (
            ".properties.items",
            json!({"rule": "self.size() >= oldSelf.size()"}),
            true,
        ),
        // Unknown fields and identifiers.
        ("", json!({"rule": "self.replica > 0"}), false),
        ("", json!({"rule": "has(self.nope)"}), false),
        ("", json!({"rule": "self.dash_name == ''"}), false),
        ("", json!({"rule": "foo > 0"}), false),
        // Wrong types.
        ("", json!({"rule": "self.name > 1"}), false),
        ("", json!({"rule": "self.replicas + 1.5 > 0.0"}), false),
        ("", json!({"rule": "self.replicas == 1.0"}), false),
        ("", json!({"rule": "self.name == null"}), false),
        ("", json!({"rule": "self.replicas.startsWith('1')"}), false),
        ("", json!({"rule": "self.tags.all(t, t)"}), false),
        ("", json!({"rule": "size(self.replicas) > 0"}), false),
        ("", json!({"rule": "self.replicas"}), false),
        (
            "",
            json!({"rule": "self.replicas > 0", "messageExpression": "self.replicas"}),
            false,
        ),
        // oldSelf where it cannot be correlated, and optionalOldSelf without it.
        (
            ".properties.items.items",
            json!({"rule": "self.k == oldSelf.k"}),
            false,
        ),
        (
            "",
            json!({"rule": "self.replicas > 0", "optionalOldSelf": true}),
            false,
        ),
        // Cost.
        (
            ".properties.free",
            json!({"rule": "self.all(s, s.matches('^[a-z]+$'))"}),
            false,
        ),
        (
            ".properties.matrix",
            json!({"rule": "self.all(l, l.all(i, i > 0))"}),
            false,
        ),
        (
            ".properties.tags",
            json!({"rule": "self.all(s, s.matches('^[a-z]+$'))"}),
            true,
        ),
        (
            "",
            json!({"rule": "self.replicas > 0", "messageExpression": "'replicas is ' + string(self.replicas)"}),
            false,
        ),
    ];
    let mut disagreements = Vec::new();
    for (i, (at, rule, server_accepts)) in cases.iter().enumerate() {
        let mut spec = spec();
        let node = if at.is_empty() {
            &mut spec
        } else {
            spec.pointer_mut(&at.replace('.', "/")).unwrap()
        };
        node["x-kubernetes-validations"] = json!([rule]);
        let schema = json!({"type": "object", "properties": {"spec": spec}});
        let opgen_problems = check_schema(&schema);
        let crd = json!({
            "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": format!("cels{i}.cel.opgen.dev")},
            "spec": {"group": "cel.opgen.dev", "scope": "Namespaced",
                "names": {"kind": format!("Cel{i}"), "plural": format!("cels{i}"), "singular": format!("cel{i}"), "listKind": format!("Cel{i}List")},
                "versions": [{"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": schema}}]}
        });
        let crd: CustomResourceDefinition = serde_json::from_value(crd).unwrap();
        let params = PostParams {
            dry_run: true,
            ..Default::default()
        };
        let server = crds.create(&params, &crd).await;
        let accepted = server.is_ok();
        if accepted != *server_accepts {
            disagreements.push(format!(
                "the table is wrong about {rule} at {at:?}: {server:?}"
            ));
        }
        if accepted != opgen_problems.is_empty() {
            disagreements.push(format!(
                "{rule} at {at:?}: server {server:?}, opgen {opgen_problems:#?}"
            ));
        }
    }
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
}
