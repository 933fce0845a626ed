// Copyright 2026 The sample-controller Authors.
//
// Licensed under the Apache License, Version 2.0 (the "License");
// you may not use this file except in compliance with the License.
// You may obtain a copy of the License at
//
//     http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing, software
// distributed under the License is distributed on an "AS IS" BASIS,
// WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
// See the License for the specific language governing permissions and
// limitations under the License.

//! The sample-controller against a real API server (envtest: etcd and kube-apiserver from
//! `tools/envtest/setup.sh`, started by opgen-envtest; no kubelet, no controller-manager).
//!
//! It installs the CRD from `config/crd/bases`, runs the controllers in a fresh namespace as
//! the manager's ServiceAccount under the ClusterRole that `opgen manifests` generated from
//! the `+kubebuilder:rbac` markers, applies the sample, and checks the owned Deployment, the
//! status (the test reports the pod available, as the deployment controller would), a resize,
//! and a foreign Deployment. Without the control plane binaries it prints how to get them and
//! passes, except under CI.

use std::{future::Future, path::Path, sync::Arc, time::Duration};

use k8s_openapi::{
    api::{apps::v1::Deployment, core::v1::Namespace, events::v1::Event},
    apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition,
};
use kube::{
    Api, Client, ResourceExt,
    api::{DeleteParams, ListParams, Patch, PatchParams},
};
use sample_controller::{
    api::v1alpha1::Foo,
    controllers::{CONTROLLERS, Context},
    metrics::Metrics,
};
use serde_json::json;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

/// Field manager of the test's own writes.
const TEST_MANAGER: &str = "sample-controller-test";

/// How long the controller may take.
const TIMEOUT: Duration = Duration::from_secs(60);

#[tokio::test]
async fn sample_foo_gets_its_deployment_and_status() {
    let _ = tracing_subscriber::fmt()
        .with_test_writer()
        .with_ansi(false)
        .try_init();
    let Some(control_plane) = opgen_envtest::shared_or_skip().await else {
        return;
    };
    let client = control_plane.client().expect("admin client");
    install_crds(&client).await;

    let namespace = "sample-controller-it".to_owned();
    // What the controllers run as: the manager's ServiceAccount (in the test namespace, which
    // this creates) bound to the generated role.
    let manager = control_plane
        .client_with_roles("config/rbac/role.yaml", &namespace, "controller-manager")
        .await
        .expect("bind the generated role to the manager's ServiceAccount");
    let namespaces: Api<Namespace> = Api::all(client.clone());

    let shutdown = CancellationToken::new();
    let ctx = Arc::new(Context::new(
        manager,
        Arc::new(Metrics::default()),
        vec![namespace.clone()],
        shutdown.clone(),
    ));
    let controllers: Vec<_> = CONTROLLERS
        .iter()
        .map(|entry| tokio::spawn((entry.run)(ctx.clone())))
        .collect();

    // Run the checks in a task, so the cleanup below also runs when one panics.
    let outcome = tokio::spawn(scenario(client.clone(), namespace.clone())).await;

    shutdown.cancel();
    for controller in controllers {
        let result = controller.await.expect("controller task does not panic");
        result.expect("controller stops cleanly");
    }
    namespaces
        .delete(&namespace, &DeleteParams::default())
        .await
        .expect("delete the test namespace");

    if let Err(error) = outcome {
        std::panic::resume_unwind(error.into_panic());
    }
}

/// Runs without a control plane: the files the envtest test applies parse into the
/// types it applies them as, and the CRD carries the annotation the API server
/// requires for the `*.k8s.io` group.
#[test]
fn crd_and_sample_files_parse() {
    let crd: CustomResourceDefinition =
        read_yaml("config/crd/bases/samplecontroller.k8s.io_foos.yaml");
    assert_eq!(crd.name_any(), "foos.samplecontroller.k8s.io");
    assert_eq!(
        crd.annotations()
            .get("api-approved.kubernetes.io")
            .map(String::as_str),
        Some(sample_controller::api::v1alpha1::API_APPROVED_ANNOTATION)
    );
    assert!(crd.spec.versions[0].subresources.is_some());

    let sample: Foo = read_yaml("config/samples/samplecontroller_v1alpha1_foo.yaml");
    assert_eq!(sample.name_any(), "example-foo");
    assert_eq!(sample.spec.deployment_name.as_deref(), Some("example-foo"));
    assert_eq!(sample.spec.replicas, Some(1));
}

/// The checks, in the test namespace, with the controllers running.
async fn scenario(client: Client, namespace: String) {
    let foos: Api<Foo> = Api::namespaced(client.clone(), &namespace);
    let deployments: Api<Deployment> = Api::namespaced(client.clone(), &namespace);
    let apply = PatchParams::apply(TEST_MANAGER);

    // The sample, as `kubectl apply -k config/samples/` would create it.
    let sample: Foo = read_yaml("config/samples/samplecontroller_v1alpha1_foo.yaml");
    let name = sample.name_any();
    let deployment_name = sample
        .spec
        .deployment_name
        .clone()
        .expect("the sample names its Deployment");
    let created = foos
        .patch(&name, &apply, &Patch::Apply(&sample))
        .await
        .expect("apply the sample Foo");

    // The owned Deployment, with the upstream shape.
    let deployment = eventually("the Deployment", TIMEOUT, || async {
        deployments.get_opt(&deployment_name).await.ok().flatten()
    })
    .await;
    let owner = &deployment.owner_references()[0];
    assert_eq!(owner.kind, "Foo");
    assert_eq!(owner.api_version, "samplecontroller.k8s.io/v1alpha1");
    assert_eq!(owner.uid, created.uid().expect("the Foo has a uid"));
    assert_eq!(owner.controller, Some(true));
    let spec = deployment.spec.as_ref().expect("the Deployment has a spec");
    assert_eq!(spec.replicas, Some(1));
    let pod = spec
        .template
        .spec
        .as_ref()
        .expect("the template has a spec");
    assert_eq!(pod.containers[0].name, "nginx");
    assert_eq!(pod.containers[0].image.as_deref(), Some("nginx:latest"));

    // status.availableReplicas follows the Deployment once its pod runs. The deployment
    // controller's part, which envtest does not run: one replica available.
    let available = Patch::Merge(
        json!({"status": {"replicas": 1, "readyReplicas": 1, "availableReplicas": 1}}),
    );
    deployments
        .patch_status(&deployment_name, &PatchParams::default(), &available)
        .await
        .expect("report the replica available");
    eventually("status.availableReplicas 1", TIMEOUT, || async {
        let current = foos.get(&name).await.ok()?;
        (current.status?.available_replicas == 1).then_some(())
    })
    .await;

    // A resize reaches the Deployment.
    let resize = Patch::Merge(json!({"spec": {"replicas": 2}}));
    foos.patch(&name, &PatchParams::default(), &resize)
        .await
        .expect("resize the Foo");
    eventually("the Deployment resized to 2", TIMEOUT, || async {
        let deployment = deployments.get(&deployment_name).await.ok()?;
        (deployment.spec?.replicas == Some(2)).then_some(())
    })
    .await;

    // A Deployment the Foo does not control is reported and left alone.
    let foreign = json!({
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "foreign"},
        "spec": {
            "replicas": 0,
            "selector": {"matchLabels": {"app": "foreign"}},
            "template": {
                "metadata": {"labels": {"app": "foreign"}},
                "spec": {"containers": [{"name": "web", "image": "nginx:latest"}]},
            },
        },
    });
    deployments
        .patch("foreign", &apply, &Patch::Apply(&foreign))
        .await
        .expect("create the foreign Deployment");
    let claimant = json!({
        "apiVersion": "samplecontroller.k8s.io/v1alpha1",
        "kind": "Foo",
        "metadata": {"name": "claimant"},
        "spec": {"deploymentName": "foreign", "replicas": 3},
    });
    foos.patch("claimant", &apply, &Patch::Apply(&claimant))
        .await
        .expect("apply the claimant Foo");
    let events: Api<Event> = Api::namespaced(client.clone(), &namespace);
    let warning = eventually("the ErrResourceExists event", TIMEOUT, || async {
        let list = events.list(&ListParams::default()).await.ok()?;
        list.items.into_iter().find(|event| {
            event.regarding.as_ref().and_then(|r| r.name.as_deref()) == Some("claimant")
                && event.reason.as_deref() == Some("ErrResourceExists")
        })
    })
    .await;
    assert_eq!(warning.type_.as_deref(), Some("Warning"));
    assert_eq!(
        warning.note.as_deref(),
        Some("Resource \"foreign\" already exists and is not managed by Foo")
    );
    let untouched = deployments
        .get("foreign")
        .await
        .expect("the foreign Deployment still exists");
    assert!(untouched.owner_references().is_empty());
    assert_eq!(untouched.spec.and_then(|spec| spec.replicas), Some(0));
    let claimant = foos.get("claimant").await.expect("read the claimant");
    assert!(claimant.status.is_none(), "no status for a failed sync");
}

/// Server-side applies every CRD of config/crd/bases and waits until each is
/// established.
async fn install_crds(client: &Client) {
    let crds: Api<CustomResourceDefinition> = Api::all(client.clone());
    let directory = Path::new(env!("CARGO_MANIFEST_DIR")).join("config/crd/bases");
    let mut files: Vec<_> = std::fs::read_dir(&directory)
        .expect("config/crd/bases exists")
        .map(|entry| entry.expect("readable directory entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "yaml"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no CRD under {}", directory.display());
    for file in files {
        let crd: CustomResourceDefinition = read_yaml(&file);
        let name = crd.name_any();
        crds.patch(
            &name,
            &PatchParams::apply(TEST_MANAGER).force(),
            &Patch::Apply(&crd),
        )
        .await
        .unwrap_or_else(|error| panic!("apply CRD {name}: {error}"));
        eventually("the CRD to be established", TIMEOUT, || async {
            let crd = crds.get(&name).await.ok()?;
            let established =
                crd.status?.conditions?.iter().any(|condition| {
                    condition.type_ == "Established" && condition.status == "True"
                });
            established.then_some(())
        })
        .await;
    }
}

/// Parses a YAML file, relative to the crate root.
fn read_yaml<T: serde::de::DeserializeOwned>(path: impl AsRef<Path>) -> T {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|error| panic!("read {}: {error}", path.display()));
    serde_saphyr::from_str(&text)
        .unwrap_or_else(|error| panic!("parse {}: {error}", path.display()))
}

/// Polls `check` every second until it returns `Some`, failing after `timeout`.
async fn eventually<T, F, Fut>(what: &str, timeout: Duration, mut check: F) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(value) = check().await {
            return value;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}
