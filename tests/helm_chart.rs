//! `opgen create helm`: the chart of a fresh project with one kind and a webhook, made from
//! `kubectl kustomize config/default` as `make build-installer` writes it, passes the real
//! `helm lint` and `helm template` (tools/helm/setup.sh; tools/test.sh exports HELM), and what
//! it renders (defaults, webhook off, metrics off) is accepted by the envtest API server.
//! Re-running keeps edits; bad input changes nothing.
//!
//! Without kubectl (tools/envtest/setup.sh) or helm each test prints one line and passes;
//! under CI=true they must be there.

mod support;

use kube::api::PatchParams;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use support::{add_memcached_webhooks, new_memcached_project, opgen, opgen_err, opgen_ok, tree};

fn ci() -> bool {
    std::env::var("CI").as_deref() == Ok("true")
}

/// The envtest kubectl (for `kubectl kustomize`); none only outside CI.
fn kubectl() -> Option<PathBuf> {
    match opgen_envtest::Assets::locate() {
        Ok(assets) => Some(assets.kubectl()),
        Err(e) if !ci() => {
            eprintln!("notice: {e}; skipping");
            None
        }
        Err(e) => panic!("{e}"),
    }
}

/// The helm of tools/helm/setup.sh; none only outside CI.
fn helm() -> Option<PathBuf> {
    support::referee("HELM", "tools/helm/setup.sh")
}

/// What `make build-installer` does: config/default rendered into dist/install.yaml.
fn build_installer(kubectl: &Path, project: &Path) {
    let out = Command::new(kubectl)
        .args(["kustomize", "config/default"])
        .current_dir(project)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "kubectl kustomize failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::create_dir_all(project.join("dist")).unwrap();
    std::fs::write(project.join("dist/install.yaml"), out.stdout).unwrap();
}

/// A fresh memcached project with a webhook, its install manifests and its chart.
fn project_with_chart(parent: &Path, kubectl: &Path) -> PathBuf {
    let project = new_memcached_project(parent, "memcached-operator");
    add_memcached_webhooks(&project);
    build_installer(kubectl, &project);
    let out = opgen_ok(&project, &["create", "helm"]);
    assert!(out.contains("wrote the Helm chart dist/chart: "), "{out}");
    project
}

fn chart_tree(project: &Path) -> BTreeMap<PathBuf, String> {
    tree(&project.join("dist/chart"))
}

fn run_helm(helm: &Path, args: &[&str], dir: &Path) -> String {
    let out = Command::new(helm)
        .args(args)
        .current_dir(dir)
        .env("HELM_CACHE_HOME", dir.join(".helm/cache"))
        .env("HELM_CONFIG_HOME", dir.join(".helm/config"))
        .env("HELM_DATA_HOME", dir.join(".helm/data"))
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "helm {args:?} failed:\n{text}");
    String::from_utf8(out.stdout).unwrap()
}

fn documents(text: &str) -> Vec<Value> {
    serde_yaml::Deserializer::from_str(text)
        .map(|d| <Value as serde::Deserialize>::deserialize(d).unwrap())
        .filter(|v| !v.is_null())
        .collect()
}

fn kinds(objects: &[Value]) -> Vec<String> {
    let mut kinds: Vec<String> = objects
        .iter()
        .map(|o| {
            format!(
                "{}/{}",
                o["kind"].as_str().unwrap(),
                o["metadata"]["name"].as_str().unwrap()
            )
        })
        .collect();
    kinds.sort();
    kinds
}

fn manager(objects: &[Value]) -> &Value {
    objects
        .iter()
        .find(|o| o["kind"] == "Deployment")
        .expect("a Deployment")
}

#[test]
fn the_chart_of_a_project_with_a_webhook() {
    let Some(kubectl) = kubectl() else { return };
    let dir = tempfile::tempdir().unwrap();
    let project = project_with_chart(dir.path(), &kubectl);
    let chart = chart_tree(&project);
    insta::assert_snapshot!("helm_listing", support::listing(&chart));
    insta::assert_snapshot!("helm_chart_yaml", chart[Path::new("Chart.yaml")]);
    insta::assert_snapshot!("helm_values_yaml", chart[Path::new("values.yaml")]);
    insta::assert_snapshot!(
        "helm_manager_template",
        chart[Path::new("templates/manager/controller-manager.yaml")]
    );
    insta::assert_snapshot!(
        "helm_webhook_template",
        chart[Path::new("templates/webhook/mutating-webhook-configuration.yaml")]
    );
    // Nothing changes on a second run.
    let out = opgen_ok(&project, &["create", "helm"]);
    assert!(out.ends_with(": 0 created, 0 updated\n"), "{out}");
    assert_eq!(chart_tree(&project), chart);
}

/// Stand-ins for cert-manager's CRDs (open schemas): envtest has no cert-manager, and the
/// chart's Issuer and Certificate must still reach the API server.
fn cert_manager_crds() -> Vec<Value> {
    ["Certificate", "Issuer"]
        .iter()
        .map(|kind| {
            let plural = format!("{}s", kind.to_lowercase());
            json!({
                "apiVersion": "apiextensions.k8s.io/v1",
                "kind": "CustomResourceDefinition",
                "metadata": {"name": format!("{plural}.cert-manager.io")},
                "spec": {
                    "group": "cert-manager.io",
                    "names": {"kind": kind, "plural": plural, "listKind": format!("{kind}List"), "singular": kind.to_lowercase()},
                    "scope": "Namespaced",
                    "versions": [{
                        "name": "v1", "served": true, "storage": true,
                        "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}},
                    }],
                },
            })
        })
        .collect()
}

#[tokio::test]
async fn helm_lints_and_renders_the_chart_and_the_api_server_accepts_it() {
    let Some(kubectl) = kubectl() else { return };
    let Some(helm) = helm() else { return };
    let dir = tempfile::tempdir().unwrap();
    let project = project_with_chart(dir.path(), &kubectl);

    let lint = run_helm(&helm, &["lint", "--strict", "dist/chart"], &project);
    assert!(
        lint.contains("1 chart(s) linted, 0 chart(s) failed"),
        "{lint}"
    );

    let template = |namespace: &str, set: &[&str]| {
        let mut args = vec![
            "template",
            "memcached",
            "dist/chart",
            "--namespace",
            namespace,
        ];
        for s in set {
            args.extend(["--set", s]);
        }
        documents(&run_helm(&helm, &args, &project))
    };
    let defaults = template("op-defaults", &[]);
    let want: Vec<String> = [
        "Certificate/memcached-operator-serving-cert",
        "ClusterRole/memcached-operator-manager-role",
        "ClusterRole/memcached-operator-memcached-admin-role",
        "ClusterRole/memcached-operator-memcached-editor-role",
        "ClusterRole/memcached-operator-memcached-viewer-role",
        "ClusterRole/memcached-operator-metrics-auth-role",
        "ClusterRole/memcached-operator-metrics-reader",
        "ClusterRoleBinding/memcached-operator-manager-rolebinding",
        "ClusterRoleBinding/memcached-operator-metrics-auth-rolebinding",
        "CustomResourceDefinition/memcacheds.cache.example.com",
        "Deployment/memcached-operator-controller-manager",
        "Issuer/memcached-operator-selfsigned-issuer",
        "MutatingWebhookConfiguration/memcached-operator-mutating-webhook-configuration",
        "Role/memcached-operator-leader-election-role",
        "RoleBinding/memcached-operator-leader-election-rolebinding",
        "Service/memcached-operator-controller-manager-metrics-service",
        "Service/memcached-operator-webhook-service",
        "ServiceAccount/memcached-operator-controller-manager",
        "ValidatingWebhookConfiguration/memcached-operator-validating-webhook-configuration",
    ]
    .map(String::from)
    .to_vec();
    assert_eq!(kinds(&defaults), want);
    let container = &manager(&defaults)["spec"]["template"]["spec"]["containers"][0];
    assert_eq!(
        container["args"],
        json!([
            "--leader-elect",
            "--metrics-bind-address=:8443",
            "--webhook-cert-path=/tmp/k8s-webhook-server/serving-certs",
            "--health-probe-bind-address=:8081"
        ])
    );
    assert_eq!(container["image"], "controller:latest");
    let webhook = defaults
        .iter()
        .find(|o| o["kind"] == "MutatingWebhookConfiguration")
        .unwrap();
    assert_eq!(
        webhook["metadata"]["annotations"]["cert-manager.io/inject-ca-from"],
        "op-defaults/memcached-operator-serving-cert"
    );
    assert_eq!(
        webhook["webhooks"][0]["clientConfig"]["service"]["namespace"],
        "op-defaults"
    );

    let no_webhook = template(
        "op-no-webhook",
        &["webhook.enable=false", "manager.replicas=2"],
    );
    let names = kinds(&no_webhook);
    assert!(
        !names.iter().any(|k| k.contains("Webhook")
            || k.contains("webhook")
            || k.starts_with("Certificate")
            || k.starts_with("Issuer")),
        "{names:?}"
    );
    let deployment = manager(&no_webhook);
    assert_eq!(deployment["spec"]["replicas"], 2);
    let pod = &deployment["spec"]["template"]["spec"];
    assert_eq!(
        pod["containers"][0]["args"],
        json!([
            "--leader-elect",
            "--metrics-bind-address=:8443",
            "--health-probe-bind-address=:8081"
        ])
    );
    assert!(pod["volumes"].is_null(), "{pod}");
    assert!(pod["containers"][0]["volumeMounts"].is_null(), "{pod}");

    let no_metrics = template(
        "op-no-metrics",
        &[
            "metrics.enable=false",
            "manager.image.repository=example.com/op",
            "manager.image.tag=v2",
        ],
    );
    let names = kinds(&no_metrics);
    assert!(!names.iter().any(|k| k.contains("metrics")), "{names:?}");
    let container = &manager(&no_metrics)["spec"]["template"]["spec"]["containers"][0];
    assert_eq!(container["image"], "example.com/op:v2");
    assert!(
        !container["ports"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["name"] == "https"),
        "{container}"
    );
    assert!(
        !container.to_string().contains("--metrics-bind-address"),
        "{container}"
    );
    // With the Prometheus Operator's ServiceMonitor on.
    let monitor = template("op-monitor", &["prometheus.enable=true"]);
    assert!(kinds(&monitor).contains(
        &"ServiceMonitor/memcached-operator-controller-manager-metrics-monitor".to_owned()
    ));

    let Some(control_plane) = opgen_envtest::shared_or_skip().await else {
        return;
    };
    let client = control_plane.client().unwrap();
    let apply = PatchParams::apply("opgen-helm-test").force();
    let source = project.join("dist/chart");
    let crds = dir.path().join("cert-manager-crds.yaml");
    std::fs::write(
        &crds,
        cert_manager_crds()
            .iter()
            .map(|c| format!("---\n{}", serde_yaml::to_string(c).unwrap()))
            .collect::<String>(),
    )
    .unwrap();
    opgen_envtest::install_crds(&client, &crds).await.unwrap();
    let mut dry_run = apply.clone();
    dry_run.dry_run = true;
    for (namespace, objects) in [
        ("op-defaults", defaults),
        ("op-no-webhook", no_webhook),
        ("op-no-metrics", no_metrics),
    ] {
        let ns = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}});
        opgen_envtest::apply_documents(&client, vec![ns], "default", &apply, &source)
            .await
            .unwrap();
        // CRDs first, so that a kind is known before anything needs it.
        let (crds, rest): (Vec<Value>, Vec<Value>) = objects
            .into_iter()
            .partition(|o| o["kind"] == "CustomResourceDefinition");
        for object in crds.into_iter().chain(rest) {
            let kind = object["kind"].as_str().unwrap().to_owned();
            let name = object["metadata"]["name"].as_str().unwrap().to_owned();
            let rendered_namespace = object["metadata"]["namespace"].as_str().map(str::to_owned);
            // Webhook configurations as a dry run: no webhook server runs here to call.
            let params = if kind.ends_with("WebhookConfiguration") {
                &dry_run
            } else {
                &apply
            };
            let stored =
                opgen_envtest::apply_documents(&client, vec![object], namespace, params, &source)
                    .await
                    .unwrap_or_else(|e| panic!("{namespace}: the API server refused {kind}: {e}"));
            assert_eq!(stored[0].metadata.name.as_deref(), Some(name.as_str()));
            // Namespaced objects name the release's namespace themselves (cluster-scoped: none).
            assert_eq!(
                rendered_namespace,
                stored[0]
                    .metadata
                    .namespace
                    .as_ref()
                    .map(|_| namespace.to_owned()),
                "{kind} {name}"
            );
        }
    }
}

#[test]
fn rerunning_keeps_edited_values_and_refuses_edited_templates() {
    let Some(kubectl) = kubectl() else { return };
    let dir = tempfile::tempdir().unwrap();
    let project = new_memcached_project(dir.path(), "memcached-operator");
    build_installer(&kubectl, &project);
    opgen_ok(&project, &["create", "helm"]);
    let chart = project.join("dist/chart");
    assert!(!chart.join("templates/webhook").exists());
    let values_path = chart.join("values.yaml");
    let values = std::fs::read_to_string(&values_path).unwrap();
    assert!(!values.contains("webhook:"), "{values}");
    let edited_values = values.replace("  replicas: 1\n", "  replicas: 3 # ours\n");
    assert_ne!(edited_values, values);
    std::fs::write(&values_path, &edited_values).unwrap();
    let template_path = chart.join("templates/manager/controller-manager.yaml");
    let template = std::fs::read_to_string(&template_path).unwrap();
    let edited_template = template.replace(
        "terminationGracePeriodSeconds: 10",
        "terminationGracePeriodSeconds: 30",
    );
    assert_ne!(edited_template, template);
    std::fs::write(&template_path, &edited_template).unwrap();

    // A webhook later: the chart must gain it, but the edited template is refused first.
    add_memcached_webhooks(&project);
    build_installer(&kubectl, &project);
    let before = chart_tree(&project);
    let err = opgen_err(&project, &["create", "helm"]);
    assert!(
        err.contains("dist/chart/templates/manager/controller-manager.yaml was edited since opgen generated it"),
        "{err}"
    );
    assert!(err.contains("pass --force"), "{err}");
    assert_eq!(chart_tree(&project), before, "nothing was written");

    // Deleting the digest line makes the template the user's: kept, with a warning.
    let mine = edited_template.split_once('\n').unwrap().1.to_owned();
    std::fs::write(&template_path, &mine).unwrap();
    let out = opgen(&project, &["create", "helm"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains(
            "controller-manager.yaml has no opgen-digest line, so it is yours: not regenerated"
        ),
        "{stderr}"
    );
    assert_eq!(std::fs::read_to_string(&template_path).unwrap(), mine);
    let values = std::fs::read_to_string(&values_path).unwrap();
    assert!(
        values.starts_with(&edited_values),
        "the user's values stay as they were:\n{values}"
    );
    assert!(values.contains("\nwebhook:\n  enable: true\n"), "{values}");
    assert!(
        values.contains("\ncertManager:\n  enable: true\n"),
        "{values}"
    );
    assert!(
        chart
            .join("templates/webhook/webhook-service.yaml")
            .is_file()
    );

    // --force replaces both, and says so.
    let out = opgen_ok(&project, &["create", "helm", "--force", "-v"]);
    assert!(
        out.contains("dist/chart/templates/manager/controller-manager.yaml (replaced (--force))"),
        "{out}"
    );
    assert!(
        out.contains("dist/chart/values.yaml (replaced (--force))"),
        "{out}"
    );
    assert!(
        std::fs::read_to_string(&values_path)
            .unwrap()
            .contains("  replicas: 1\n")
    );

    // A template of an object that is gone is removed while unedited.
    let stale = chart.join("templates/extras/gone.yaml");
    std::fs::create_dir_all(stale.parent().unwrap()).unwrap();
    std::fs::copy(chart.join("templates/webhook/webhook-service.yaml"), &stale).unwrap();
    let out = opgen_ok(&project, &["create", "helm", "-v"]);
    assert!(
        out.contains("removed dist/chart/templates/extras/gone.yaml"),
        "{out}"
    );
    assert!(!stale.exists());
}

/// The manager image is the project's (`make helm IMG=...`), not the chart user's: an edited
/// values.yaml keeps its edits and still follows a new image.
#[test]
fn an_edited_values_file_follows_the_manager_image() {
    let Some(kubectl) = kubectl() else { return };
    let dir = tempfile::tempdir().unwrap();
    let project = new_memcached_project(dir.path(), "memcached-operator");
    build_installer(&kubectl, &project);
    opgen_ok(&project, &["create", "helm"]);
    let values_path = project.join("dist/chart/values.yaml");
    let values = std::fs::read_to_string(&values_path).unwrap();
    let edited = values.replace("  replicas: 1\n", "  replicas: 3 # ours\n");
    assert_ne!(edited, values);
    std::fs::write(&values_path, &edited).unwrap();

    // `make helm IMG=example.com/memcached-operator:v0.2.0` renders the manifests with it.
    let install = project.join("dist/install.yaml");
    let manifests = std::fs::read_to_string(&install).unwrap();
    let released = manifests.replace(
        "image: controller:latest",
        "image: example.com/memcached-operator:v0.2.0",
    );
    assert_ne!(released, manifests);
    std::fs::write(&install, released).unwrap();
    let out = opgen_ok(&project, &["create", "helm", "-v"]);
    assert!(
        out.contains("set manager.image.repository, manager.image.tag from the manifests"),
        "{out}"
    );
    let now = std::fs::read_to_string(&values_path).unwrap();
    assert_eq!(
        now,
        edited
            .replace(
                "    repository: controller\n",
                "    repository: example.com/memcached-operator\n"
            )
            .replace("    tag: latest\n", "    tag: v0.2.0\n"),
        "only the image changed"
    );
}

#[test]
fn bad_input_is_refused_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let project = new_memcached_project(dir.path(), "memcached-operator");
    let before = tree(&project);

    let err = opgen_err(&project, &["create", "helm", "--version", "1.0"]);
    assert!(
        err.contains("--version \"1.0\" is not a semantic version"),
        "{err}"
    );
    assert!(err.contains("e.g. 0.1.0"), "{err}");
    let err = opgen_err(&project, &["create", "helm"]);
    assert!(err.contains("dist/install.yaml does not exist"), "{err}");
    assert!(err.contains("make build-installer"), "{err}");
    assert_eq!(tree(&project), before);

    // A chart the user put there themselves.
    let chart = project.join("dist/chart");
    std::fs::create_dir_all(&chart).unwrap();
    std::fs::write(
        chart.join("Chart.yaml"),
        "apiVersion: v2\nname: theirs\nversion: 1.0.0\n",
    )
    .unwrap();
    std::fs::write(
        project.join("dist/install.yaml"),
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: x\n",
    )
    .unwrap();
    let before = tree(&project);
    let err = opgen_err(&project, &["create", "helm"]);
    assert_eq!(tree(&project), before);
    assert!(
        err.contains("dist/chart/Chart.yaml: not a chart opgen generated (no `opgen.dev/generated-by` annotation)"),
        "{err}"
    );
    assert!(err.contains("--force"), "{err}");
    std::fs::remove_dir_all(&chart).unwrap();
    std::fs::write(&chart, "a file").unwrap();
    let err = opgen_err(&project, &["create", "helm"]);
    assert!(err.contains("dist/chart is not a directory"), "{err}");
    std::fs::remove_file(&chart).unwrap();
    std::fs::create_dir_all(&chart).unwrap();
    std::fs::write(chart.join("README.md"), "mine").unwrap();
    let err = opgen_err(&project, &["create", "helm"]);
    assert!(err.contains("holds files but no Chart.yaml"), "{err}");
    std::fs::remove_dir_all(&chart).unwrap();

    // Manifests without a manager, and documents that are not objects, point at their line.
    let err = opgen_err(&project, &["create", "helm"]);
    assert!(
        err.contains("no Deployment with a `manager` container"),
        "{err}"
    );
    std::fs::write(
        project.join("dist/install.yaml"),
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: x\n---\nkind: Service\n",
    )
    .unwrap();
    let err = opgen_err(&project, &["create", "helm"]);
    assert!(
        err.contains("not a Kubernetes object: no apiVersion, no metadata.name")
            && err.contains("dist/install.yaml:6:1"),
        "{err}"
    );
    assert!(!project.join("dist/chart").exists());
}
