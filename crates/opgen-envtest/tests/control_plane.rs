//! The control plane against the real binaries (from `tools/envtest/setup.sh` or
//! `KUBEBUILDER_ASSETS`). Without them each test prints a notice and passes, except under CI.

use std::{
    io::Write,
    os::unix::fs::PermissionsExt,
    process::Command,
    time::{Duration, Instant},
};

use k8s_openapi::api::core::v1::{ConfigMap, Namespace, Secret};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::{
    Api, ResourceExt,
    api::{ListParams, PostParams},
    core::DynamicObject,
};
use opgen_envtest::{Assets, ControlPlane, Error};

fn assets_or_skip() -> Option<Assets> {
    match Assets::locate() {
        Ok(assets) => Some(assets),
        Err(e) if std::env::var("CI").is_err() => {
            eprintln!("opgen-envtest: skipped, {e}");
            None
        }
        Err(e) => panic!("{e}"),
    }
}

fn alive(pid: u32) -> bool {
    // A zombie is dead too: its state in /proc is Z.
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rsplit(')')
            .next()
            .is_some_and(|rest| !rest.trim_start().starts_with('Z'))
    })
}

fn wait_until_dead(pids: &[u32]) -> Vec<u32> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let living: Vec<u32> = pids.iter().copied().filter(|p| alive(*p)).collect();
        if living.is_empty() || Instant::now() > deadline {
            return living;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[tokio::test]
async fn an_owned_control_plane_serves_and_stops_when_dropped() {
    let Some(assets) = assets_or_skip() else {
        return;
    };
    let control_plane = ControlPlane::start_with(assets).await.expect("start");
    let pids = control_plane.process_ids();
    assert!(pids.iter().all(|p| alive(*p)), "{pids:?} are running");

    let client = control_plane.client().unwrap();
    let namespaces: Api<Namespace> = Api::all(client.clone());
    let names: Vec<String> = namespaces
        .list(&ListParams::default())
        .await
        .unwrap()
        .iter()
        .map(|n| n.name_any())
        .collect();
    assert!(names.contains(&"kube-system".to_owned()), "{names:?}");

    // kubectl reaches it through the kubeconfig, and the server reports a parseable version.
    let output = control_plane
        .kubectl()
        .args(["version", "-o", "json"])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let version: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let server = version["serverVersion"]["gitVersion"].as_str().unwrap();
    let client_version = version["clientVersion"]["gitVersion"].as_str().unwrap();
    assert_eq!(
        server, client_version,
        "kubectl and kube-apiserver come from one build"
    );
    assert!(server.starts_with("v1."), "{server}");

    drop(control_plane);
    assert_eq!(
        wait_until_dead(&pids),
        Vec::<u32>::new(),
        "processes left running"
    );
}

/// Not a test of its own: [`no_process_outlives_the_test_process`] runs this test binary
/// with `OPGEN_ENVTEST_CHILD` set and only this test selected.
#[tokio::test]
async fn child_process_holding_the_shared_control_plane() {
    let Ok(how) = std::env::var("OPGEN_ENVTEST_CHILD") else {
        return;
    };
    let control_plane = opgen_envtest::shared().await.expect("start");
    let [etcd, apiserver] = control_plane.process_ids();
    println!("PIDS {etcd} {apiserver}");
    std::io::stdout().flush().unwrap();
    match how.as_str() {
        "abort" => std::process::abort(),
        "panic" => panic!("the test fails while the control plane runs"),
        _ => {}
    }
}

#[test]
fn no_process_outlives_the_test_process() {
    if assets_or_skip().is_none() {
        return;
    }
    // Passed, failed by a panic, killed by abort(): the shared control plane dies with it.
    // What the aborted one leaves in the temp directory, the next start removes.
    let mut aborted_dir = None;
    for how in ["pass", "panic", "abort", "pass"] {
        let child = Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "child_process_holding_the_shared_control_plane",
                "--nocapture",
            ])
            .env("OPGEN_ENVTEST_CHILD", how)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let dir = std::env::temp_dir().join(format!("opgen-envtest-{}-0", child.id()));
        let output = child.wait_with_output().unwrap();
        match how {
            "abort" => {
                assert!(dir.is_dir(), "an aborted test leaves {}", dir.display());
                aborted_dir = Some(dir);
            }
            _ => assert!(!dir.exists(), "{how}: {} is left behind", dir.display()),
        }
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert_eq!(output.status.success(), how == "pass", "{how}: {stdout}");
        let pids: Vec<u32> = stdout
            .lines()
            .find_map(|l| l.strip_prefix("PIDS "))
            .unwrap_or_else(|| {
                panic!(
                    "{how}: no PIDS line in {stdout}\n{}",
                    String::from_utf8_lossy(&output.stderr)
                )
            })
            .split(' ')
            .map(|p| p.parse().unwrap())
            .collect();
        assert_eq!(pids.len(), 2);
        assert_eq!(
            wait_until_dead(&pids),
            Vec::<u32>::new(),
            "{how}: etcd or kube-apiserver outlived the test process"
        );
        // pgrep agrees: nothing left in their process groups but zombies that the
        // reaper of orphans has not collected yet.
        for pid in pids {
            let pgrep = Command::new("pgrep")
                .args(["-g", &pid.to_string()])
                .output()
                .expect("pgrep (procps) is installed");
            let living: Vec<u32> = String::from_utf8_lossy(&pgrep.stdout)
                .split_whitespace()
                .map(|p| p.parse().unwrap())
                .filter(|p| alive(*p))
                .collect();
            assert_eq!(living, Vec::<u32>::new(), "{how}: pgrep -g {pid}");
        }
    }
    let aborted_dir = aborted_dir.expect("the abort run");
    assert!(
        !aborted_dir.exists(),
        "the last start did not remove {}",
        aborted_dir.display()
    );
}

#[tokio::test]
async fn a_service_account_gets_what_its_role_grants_and_nothing_more() {
    let Some(control_plane) = opgen_envtest::shared_or_skip().await else {
        return;
    };
    let dir = tempdir();
    let roles = dir.join("role.yaml");
    std::fs::write(
        &roles,
        "---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: configmap-reader
rules:
- apiGroups: [\"\"]
  resources: [configmaps]
  verbs: [get, list]
",
    )
    .unwrap();
    let client = control_plane
        .client_with_roles(&roles, "rbac-test", "reader")
        .await
        .unwrap();
    let admin = control_plane.client().unwrap();
    Api::<ConfigMap>::namespaced(admin, "rbac-test")
        .create(
            &PostParams::default(),
            &serde_json::from_value(
                serde_json::json!({"metadata": {"name": "cm"}, "data": {"a": "b"}}),
            )
            .unwrap(),
        )
        .await
        .unwrap();

    let configmaps: Api<ConfigMap> = Api::namespaced(client.clone(), "rbac-test");
    assert_eq!(configmaps.get("cm").await.unwrap().data.unwrap()["a"], "b");
    let denied = Api::<Secret>::namespaced(client.clone(), "rbac-test")
        .list(&ListParams::default())
        .await
        .unwrap_err();
    assert!(
        matches!(&denied, kube::Error::Api(status) if status.code == 403),
        "{denied}"
    );
    // Not granted "create" either.
    let denied = configmaps
        .create(
            &PostParams::default(),
            &serde_json::from_value(serde_json::json!({"metadata": {"name": "cm2"}})).unwrap(),
        )
        .await
        .unwrap_err();
    assert!(
        denied
            .to_string()
            .contains("system:serviceaccount:rbac-test:reader"),
        "{denied}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[tokio::test]
async fn crds_are_installed_established_and_served() {
    let Some(control_plane) = opgen_envtest::shared_or_skip().await else {
        return;
    };
    let dir = tempdir();
    std::fs::write(
        dir.join("widgets.yaml"),
        "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.test.opgen.dev
spec:
  group: test.opgen.dev
  names: {kind: Widget, listKind: WidgetList, plural: widgets, singular: widget}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer, minimum: 1, default: 3}
",
    )
    .unwrap();
    std::fs::write(
        dir.join("kustomization.yaml"),
        "resources: [widgets.yaml]\n",
    )
    .unwrap();
    let admin = control_plane.client().unwrap();
    let crds = opgen_envtest::install_crds(&admin, &dir).await.unwrap();
    assert_eq!(crds.len(), 1, "kustomization.yaml is not a CRD file");
    // Established, and so long ago that the API server does not hold creates for two seconds.
    let stored = Api::<CustomResourceDefinition>::all(admin.clone())
        .get("widgets.test.opgen.dev")
        .await
        .unwrap();
    let established = stored
        .status
        .iter()
        .flat_map(|s| s.conditions.iter().flatten())
        .find(|c| c.type_ == "Established")
        .expect("an Established condition");
    assert_eq!(established.status, "True");
    assert_eq!(
        serde_json::to_value(&established.last_transition_time).unwrap(),
        "2000-01-01T00:00:00Z"
    );

    let sample = dir.join("sample.yaml");
    std::fs::write(
        &sample,
        "apiVersion: test.opgen.dev/v1\nkind: Widget\nmetadata: {name: w}\nspec: {}\n",
    )
    .unwrap();
    let stored: Vec<DynamicObject> = opgen_envtest::apply_file(&admin, &sample, "default")
        .await
        .unwrap();
    assert_eq!(
        stored[0].data["spec"]["size"], 3,
        "the server applied the schema's default"
    );

    std::fs::write(
        &sample,
        "apiVersion: test.opgen.dev/v1\nkind: Widget\nmetadata: {name: w}\nspec: {size: 0}\n",
    )
    .unwrap();
    let refused = opgen_envtest::apply_file(&admin, &sample, "default")
        .await
        .unwrap_err();
    assert!(refused.to_string().contains("spec.size"), "{refused}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[tokio::test]
async fn a_server_that_cannot_start_is_reported_with_its_log() {
    let Some(assets) = assets_or_skip() else {
        return;
    };
    let dir = tempdir();
    for binary in ["etcd", "kubectl"] {
        std::os::unix::fs::symlink(assets.dir().join(binary), dir.join(binary)).unwrap();
    }
    let fake = dir.join("kube-apiserver");
    std::fs::write(
        &fake,
        "#!/bin/sh\necho 'E1125 invalid flag: the fake server refuses to start' >&2\nexit 3\n",
    )
    .unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let Err(error) = ControlPlane::start_with(Assets::from_dir(&dir).unwrap()).await else {
        panic!("a server that exits started");
    };
    assert!(matches!(error, Error::NotReady { .. }), "{error:?}");
    let message = error.to_string();
    assert!(
        message.starts_with("kube-apiserver exited (exit status: 3)"),
        "{message}"
    );
    assert!(
        message.contains("the fake server refuses to start"),
        "{message}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

fn tempdir() -> std::path::PathBuf {
    static COUNT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "opgen-envtest-test-{}-{}",
        std::process::id(),
        COUNT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[tokio::test]
async fn installed_webhooks_are_called_at_the_local_address() {
    let Some(control_plane) = opgen_envtest::shared_or_skip().await else {
        return;
    };
    let dir = tempdir();
    let manifests = dir.join("manifests.yaml");
    std::fs::write(
        &manifests,
        "---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: validating-webhook-configuration
webhooks:
- admissionReviewVersions: [v1]
  clientConfig:
    service: {name: webhook-service, namespace: system, path: /validate-configmaps}
  failurePolicy: Fail
  name: vconfigmap.kb.io
  namespaceSelector:
    matchLabels: {webhook-test: \"true\"}
  rules:
  - apiGroups: [\"\"]
    apiVersions: [v1]
    operations: [CREATE]
    resources: [configmaps]
  sideEffects: None
",
    )
    .unwrap();
    let admin = control_plane.client().unwrap();
    opgen_envtest::apply_documents(
        &admin,
        vec![serde_json::json!({"apiVersion": "v1", "kind": "Namespace",
            "metadata": {"name": "webhook-test", "labels": {"webhook-test": "true"}}})],
        "default",
        &kube::api::PatchParams::apply("test"),
        &dir,
    )
    .await
    .unwrap();
    let webhooks = opgen_envtest::LocalWebhooks::new().unwrap();
    webhooks.install(&admin, &manifests).await.unwrap();
    assert!(webhooks.cert_dir().join("tls.crt").is_file());
    assert!(webhooks.ca_pem().starts_with("-----BEGIN CERTIFICATE-----"));

    let stored = kube::Api::<
        k8s_openapi::api::admissionregistration::v1::ValidatingWebhookConfiguration,
    >::all(admin.clone())
    .get("validating-webhook-configuration")
    .await
    .unwrap();
    let client_config = &stored.webhooks.unwrap()[0].client_config;
    assert_eq!(
        client_config.url.as_deref(),
        Some(format!("https://{}/validate-configmaps", webhooks.address()).as_str())
    );
    assert!(client_config.service.is_none());

    // Nothing serves the address: once the API server uses the configuration, it refuses.
    let configmap =
        serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "probe"}});
    webhooks
        .wait_until_called(&admin, configmap, "webhook-test")
        .await
        .unwrap();
    let refused = Api::<ConfigMap>::namespaced(admin.clone(), "webhook-test")
        .create(
            &PostParams::default(),
            &serde_json::from_value(serde_json::json!({"metadata": {"name": "cm"}})).unwrap(),
        )
        .await
        .unwrap_err();
    assert!(
        refused
            .to_string()
            .contains("failed calling webhook \"vconfigmap.kb.io\""),
        "{refused}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// A namespace of this test's own.
async fn namespace(admin: &kube::Client, name: &str, dir: &std::path::Path) {
    opgen_envtest::apply_documents(
        admin,
        vec![serde_json::json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})],
        "default",
        &kube::api::PatchParams::apply("test"),
        dir,
    )
    .await
    .unwrap();
}

/// Creates a ConfigMap in `namespace`; the error's text if refused.
async fn create_configmap(admin: &kube::Client, namespace: &str, name: &str) -> Option<String> {
    Api::<ConfigMap>::namespaced(admin.clone(), namespace)
        .create(
            &PostParams::default(),
            &serde_json::from_value(serde_json::json!({"metadata": {"name": name}})).unwrap(),
        )
        .await
        .err()
        .map(|e| e.to_string())
}

const CONFIGMAP_WEBHOOK: &str = "---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: validating-webhook-configuration
webhooks:
- admissionReviewVersions: [v1]
  clientConfig:
    service: {name: webhook-service, namespace: system, path: /validate-configmaps}
  failurePolicy: Fail
  name: vconfigmap.kb.io
  rules:
  - apiGroups: [\"\"]
    apiVersions: [v1]
    operations: [CREATE]
    resources: [configmaps]
  sideEffects: None
";

#[tokio::test]
async fn webhooks_for_a_namespace_see_only_its_objects_beside_another_tests() {
    let Some(control_plane) = opgen_envtest::shared_or_skip().await else {
        return;
    };
    let dir = tempdir();
    let manifests = dir.join("manifests.yaml");
    // The same configuration (same name, no selector) that two tests install at once.
    std::fs::write(&manifests, CONFIGMAP_WEBHOOK).unwrap();
    let admin = control_plane.client().unwrap();
    for name in ["scoped-a", "scoped-b", "scoped-none"] {
        namespace(&admin, name, &dir).await;
    }
    let a = opgen_envtest::LocalWebhooks::for_namespace("scoped-a").unwrap();
    let b = opgen_envtest::LocalWebhooks::for_namespace("scoped-b").unwrap();
    a.install(&admin, &manifests).await.unwrap();
    b.install(&admin, &manifests).await.unwrap();

    // Each under a name of its own, selecting its namespace.
    let configurations = Api::<
        k8s_openapi::api::admissionregistration::v1::ValidatingWebhookConfiguration,
    >::all(admin.clone());
    for (webhooks, namespace) in [(&a, "scoped-a"), (&b, "scoped-b")] {
        let stored = configurations
            .get(&format!("validating-webhook-configuration-{namespace}"))
            .await
            .unwrap();
        let hook = &stored.webhooks.unwrap()[0];
        assert_eq!(
            hook.client_config.url.as_deref(),
            Some(format!("https://{}/validate-configmaps", webhooks.address()).as_str())
        );
        let selector = hook.namespace_selector.as_ref().unwrap();
        assert_eq!(
            selector.match_labels.as_ref().unwrap()["kubernetes.io/metadata.name"],
            namespace
        );
    }

    // Nothing serves either address: each namespace's objects go to its own webhooks alone.
    let probe =
        serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "probe"}});
    a.wait_until_called(&admin, probe.clone(), "scoped-a")
        .await
        .unwrap();
    b.wait_until_called(&admin, probe, "scoped-b")
        .await
        .unwrap();
    let refused_a = create_configmap(&admin, "scoped-a", "cm").await.unwrap();
    assert!(refused_a.contains(&a.address()), "{refused_a}");
    assert!(!refused_a.contains(&b.address()), "{refused_a}");
    let refused_b = create_configmap(&admin, "scoped-b", "cm").await.unwrap();
    assert!(refused_b.contains(&b.address()), "{refused_b}");
    assert!(!refused_b.contains(&a.address()), "{refused_b}");
    // Objects elsewhere never meet them.
    assert_eq!(create_configmap(&admin, "scoped-none", "cm").await, None);

    // Uninstalled, the configurations go and the namespace's objects are admitted again.
    a.uninstall(&admin).await.unwrap();
    assert!(
        configurations
            .get_opt("validating-webhook-configuration-scoped-a")
            .await
            .unwrap()
            .is_none()
    );
    opgen_envtest::eventually(
        "the API server to stop calling uninstalled webhooks",
        Duration::from_secs(30),
        || async {
            create_configmap(&admin, "scoped-a", "after")
                .await
                .is_none()
                .then_some(())
        },
    )
    .await;
    assert!(
        create_configmap(&admin, "scoped-b", "after")
            .await
            .is_some()
    );
    b.uninstall(&admin).await.unwrap();
    std::fs::remove_dir_all(dir).unwrap();
}

#[tokio::test]
async fn webhooks_for_a_label_see_only_cluster_scoped_objects_with_it() {
    let Some(control_plane) = opgen_envtest::shared_or_skip().await else {
        return;
    };
    let dir = tempdir();
    let manifests = dir.join("manifests.yaml");
    std::fs::write(
        &manifests,
        "---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata:
  name: mutating-webhook-configuration
webhooks:
- admissionReviewVersions: [v1]
  clientConfig:
    service: {name: webhook-service, namespace: system, path: /mutate-namespaces}
  failurePolicy: Fail
  name: mnamespace.kb.io
  objectSelector:
    matchExpressions: [{key: kept, operator: DoesNotExist}]
  rules:
  - apiGroups: [\"\"]
    apiVersions: [v1]
    operations: [CREATE]
    resources: [namespaces]
  sideEffects: None
",
    )
    .unwrap();
    let admin = control_plane.client().unwrap();
    let webhooks =
        opgen_envtest::LocalWebhooks::for_label("opgen-envtest/test", "labelled").unwrap();
    webhooks.install(&admin, &manifests).await.unwrap();
    let stored =
        Api::<k8s_openapi::api::admissionregistration::v1::MutatingWebhookConfiguration>::all(
            admin.clone(),
        )
        .get("mutating-webhook-configuration-labelled")
        .await
        .unwrap();
    let selector = stored.webhooks.unwrap()[0].object_selector.clone().unwrap();
    assert_eq!(
        selector.match_labels.unwrap()["opgen-envtest/test"],
        "labelled"
    );
    // The configuration's own selector is kept beside the scope's.
    assert_eq!(selector.match_expressions.unwrap()[0].key, "kept");

    let mut selected = serde_json::json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "labelled-ns"}});
    webhooks.select(&mut selected);
    assert_eq!(
        selected["metadata"]["labels"]["opgen-envtest/test"],
        "labelled"
    );
    webhooks
        .wait_until_called(&admin, selected.clone(), "default")
        .await
        .unwrap();
    let refused = opgen_envtest::apply_documents(
        &admin,
        vec![selected],
        "default",
        &kube::api::PatchParams::apply("test"),
        &dir,
    )
    .await
    .unwrap_err()
    .to_string();
    assert!(refused.contains(&webhooks.address()), "{refused}");
    // A namespace without the label is created without calling them.
    namespace(&admin, "unlabelled-ns", &dir).await;
    webhooks.uninstall(&admin).await.unwrap();
    std::fs::remove_dir_all(dir).unwrap();
}
