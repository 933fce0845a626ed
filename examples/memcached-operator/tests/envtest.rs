// Copyright 2026 The memcached-operator Authors.
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

//! The Memcached controller against a real API server (envtest: etcd and kube-apiserver
//! from `tools/envtest/setup.sh`, started by opgen-envtest; no kubelet, no controller-manager).
//!
//! The controller runs in this process as the manager's ServiceAccount, under the ClusterRole
//! that `opgen manifests` generated from its `+kubebuilder:rbac` markers, limited to a fresh
//! namespace. The test server-side applies the CRD and the sample from `config/`, then checks
//! the Deployment and the status: creation, availability (the test plays the deployment
//! controller and reports the replicas available), resize, drift correction, a foreign
//! Deployment, and deletion through the finalizer. Nothing garbage-collects owned objects
//! here, so the test checks their owner references instead.
//!
//! Without the control plane binaries it prints how to get them and passes, except under CI.

use std::{future::Future, panic::AssertUnwindSafe, sync::Arc, time::Duration};

use futures::FutureExt;
use k8s_openapi::{
    api::{apps::v1::Deployment, core::v1::Namespace},
    apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition,
    apimachinery::pkg::apis::meta::v1::Condition,
};
use kube::{
    Api, Client, ResourceExt,
    api::{DeleteParams, ObjectMeta, Patch, PatchParams, PostParams},
    runtime::{conditions, wait::await_condition},
};
use memcached_operator::{
    api::v1alpha1::Memcached,
    controllers::{Context, memcached},
    metrics::Metrics,
};
use serde_json::json;
use tokio_util::sync::CancellationToken;

const CRD_PATH: &str = "config/crd/bases/cache.example.com_memcacheds.yaml";
const SAMPLE_PATH: &str = "config/samples/cache_v1alpha1_memcached.yaml";
const ROLE_PATH: &str = "config/rbac/role.yaml";
const CRD_NAME: &str = "memcacheds.cache.example.com";
const NAMESPACE: &str = "memcached-operator-e2e";
const TEST_MANAGER: &str = "memcached-operator-e2e";
/// What config/manager/manager.yaml sets.
const IMAGE: &str = "memcached:1.4.36-alpine";
const TIMEOUT: Duration = Duration::from_secs(60);

#[tokio::test]
async fn sample_memcached_is_reconciled_under_the_generated_role() {
    if std::env::var_os(memcached::IMAGE_ENV_VAR).is_none() {
        // SAFETY: the first statement of the only test of this binary, before the
        // client or the controller exists: no other thread reads the environment.
        unsafe { std::env::set_var(memcached::IMAGE_ENV_VAR, IMAGE) };
    }
    let _ = tracing_subscriber::fmt()
        .with_test_writer()
        .with_ansi(false)
        .try_init();
    let Some(control_plane) = opgen_envtest::shared_or_skip().await else {
        return;
    };
    let client = control_plane.client().expect("admin client");
    // What the controller runs as: the manager's ServiceAccount, bound to the generated role.
    let manager = control_plane
        .client_with_roles(ROLE_PATH, NAMESPACE, "controller-manager")
        .await
        .expect("bind the generated role to the manager's ServiceAccount");

    let crds: Api<CustomResourceDefinition> = Api::all(client.clone());
    let crd_existed = crds.get_opt(CRD_NAME).await.expect("get CRD").is_some();
    install_crd(&crds).await;
    let namespaces: Api<Namespace> = Api::all(client.clone());
    let namespace = Namespace {
        metadata: ObjectMeta {
            name: Some(NAMESPACE.into()),
            ..Default::default()
        },
        ..Default::default()
    };
    namespaces
        .patch(NAMESPACE, &apply_params(), &Patch::Apply(&namespace))
        .await
        .expect("create the test namespace");

    // The controller, as the manager runs it, limited to the test namespace.
    let shutdown = CancellationToken::new();
    let ctx = Arc::new(Context::new(
        manager,
        Arc::new(Metrics::default()),
        vec![NAMESPACE.into()],
        shutdown.clone(),
    ));
    let controller = tokio::spawn(memcached::run(ctx));

    let outcome = AssertUnwindSafe(scenario(client.clone()))
        .catch_unwind()
        .await;

    // Clean up whatever happened. Memcacheds go first, while the controller still
    // runs to remove their finalizer.
    let memcacheds: Api<Memcached> = Api::namespaced(client.clone(), NAMESPACE);
    for obj in memcacheds
        .list(&Default::default())
        .await
        .into_iter()
        .flatten()
    {
        delete_and_wait(&memcacheds, &obj.name_any()).await;
    }
    shutdown.cancel();
    match tokio::time::timeout(TIMEOUT, controller).await {
        Ok(result) => result
            .expect("controller task")
            .expect("controller ends cleanly"),
        Err(_) => panic!("controller did not shut down"),
    }
    namespaces
        .delete(NAMESPACE, &DeleteParams::default())
        .await
        .expect("delete the test namespace");
    if !crd_existed {
        crds.delete(CRD_NAME, &DeleteParams::default())
            .await
            .expect("delete the CRD");
    }
    if let Err(panic) = outcome {
        std::panic::resume_unwind(panic);
    }
}

/// The checks, run while the controller is up.
async fn scenario(client: Client) {
    let memcacheds: Api<Memcached> = Api::namespaced(client.clone(), NAMESPACE);
    let deployments: Api<Deployment> = Api::namespaced(client.clone(), NAMESPACE);

    // The sample, as `kubectl apply -k config/samples/` creates it.
    let yaml = std::fs::read_to_string(SAMPLE_PATH).expect("read the sample");
    let mut sample: Memcached = serde_saphyr::from_str(&yaml).expect("parse the sample");
    sample.metadata.namespace = Some(NAMESPACE.into());
    let name = sample.name_any();
    let sample = memcacheds
        .create(&PostParams::default(), &sample)
        .await
        .expect("create the sample");
    let uid = sample.uid().expect("uid");

    // Creation: a Deployment controlled by the sample, shaped by its spec.
    let deployment = wait_for("the Deployment", TIMEOUT, || async {
        deployments.get_opt(&name).await.expect("get Deployment")
    })
    .await;
    let owner = &deployment.owner_references()[0];
    assert_eq!(
        (owner.kind.as_str(), owner.uid.as_str()),
        ("Memcached", uid.as_str())
    );
    assert_eq!(owner.controller, Some(true));
    assert_eq!(replicas(&deployment), 1);
    assert_eq!(container_image(&deployment), IMAGE);
    assert_eq!(container_port(&deployment), 11211);

    // Status: not degraded; not available while no replica is.
    wait_for_condition(&memcacheds, &name, "Degraded", "False", TIMEOUT).await;
    let unavailable = wait_for_condition(&memcacheds, &name, "Available", "False", TIMEOUT).await;
    assert_eq!(
        unavailable.message,
        format!("Deployment for custom resource ({name}) has 0 of 1 replicas available")
    );
    // The deployment controller's part, which envtest does not run: one replica available.
    let available_replicas =
        json!({"status": {"replicas": 1, "availableReplicas": 1, "readyReplicas": 1}});
    deployments
        .patch_status(
            &name,
            &PatchParams::default(),
            &Patch::Merge(&available_replicas),
        )
        .await
        .expect("report the replica available");
    let available = wait_for_condition(&memcacheds, &name, "Available", "True", TIMEOUT).await;
    assert_eq!(available.reason, "Reconciling");
    assert_eq!(available.observed_generation, Some(1));

    // Resize: the Deployment follows spec.size.
    let resize = json!({"spec": {"size": 2}});
    memcacheds
        .patch(&name, &PatchParams::default(), &Patch::Merge(&resize))
        .await
        .expect("resize the sample");
    wait_for("replicas 2", TIMEOUT, || async {
        let deployment = deployments.get(&name).await.expect("get Deployment");
        (replicas(&deployment) == 2).then_some(())
    })
    .await;

    // Drift: another manager changes the image; the controller restores it.
    let drift = json!({
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": NAMESPACE},
        "spec": {"template": {"spec": {"containers": [
            {"name": "memcached", "image": "memcached:1.6.26-alpine"}
        ]}}},
    });
    deployments
        .patch(&name, &apply_params(), &Patch::Apply(&drift))
        .await
        .expect("change the image behind the operator's back");
    wait_for("the image restored", TIMEOUT, || async {
        let deployment = deployments.get(&name).await.expect("get Deployment");
        (container_image(&deployment) == IMAGE).then_some(())
    })
    .await;

    // A foreign Deployment of the same name is reported, never adopted.
    let foreign_name = "memcached-foreign";
    let foreign: Deployment = serde_json::from_value(json!({
        "metadata": {"name": foreign_name, "namespace": NAMESPACE},
        "spec": {
            "replicas": 0,
            "selector": {"matchLabels": {"app": foreign_name}},
            "template": {
                "metadata": {"labels": {"app": foreign_name}},
                "spec": {"containers": [{"name": "pause", "image": "registry.k8s.io/pause:3.10"}]},
            },
        },
    }))
    .expect("foreign Deployment");
    deployments
        .create(&PostParams::default(), &foreign)
        .await
        .expect("create the foreign Deployment");
    let mut claimant = Memcached::new(foreign_name, Default::default());
    claimant.metadata.namespace = Some(NAMESPACE.into());
    memcacheds
        .create(&PostParams::default(), &claimant)
        .await
        .expect("create the claimant");
    let degraded = wait_for_condition(&memcacheds, foreign_name, "Degraded", "True", TIMEOUT).await;
    assert_eq!(degraded.reason, "ErrResourceExists");
    let untouched = deployments.get(foreign_name).await.expect("get foreign");
    assert!(
        untouched.owner_references().is_empty(),
        "adopted: {untouched:?}"
    );
    assert_eq!(replicas(&untouched), 0);

    // Deletion: the finalizer is removed and the Memcached disappears (in a cluster the
    // Deployment then follows through garbage collection, by the owner reference above).
    delete_and_wait(&memcacheds, &name).await;
}

/// Server-side applies the generated CRD (what `make install` does) and waits
/// until it is established.
async fn install_crd(crds: &Api<CustomResourceDefinition>) {
    let yaml = std::fs::read_to_string(CRD_PATH).expect("read the CRD");
    let crd: CustomResourceDefinition = serde_saphyr::from_multiple(&yaml)
        .expect("parse the CRD")
        .into_iter()
        .next()
        .expect("one CRD");
    crds.patch(CRD_NAME, &apply_params(), &Patch::Apply(&crd))
        .await
        .expect("apply the CRD");
    let established = await_condition(crds.clone(), CRD_NAME, conditions::is_crd_established());
    tokio::time::timeout(TIMEOUT, established)
        .await
        .expect("CRD established in time")
        .expect("watch the CRD");
}

fn apply_params() -> PatchParams {
    PatchParams::apply(TEST_MANAGER).force()
}

/// Deletes a Memcached and waits until it is gone, i.e. the controller removed
/// its finalizer.
async fn delete_and_wait(memcacheds: &Api<Memcached>, name: &str) {
    match memcacheds.delete(name, &DeleteParams::default()).await {
        Ok(_) => {}
        Err(kube::Error::Api(status)) if status.code == 404 => return,
        Err(error) => panic!("delete {name}: {error}"),
    }
    wait_for("the Memcached deleted", TIMEOUT, || async {
        memcacheds
            .get_opt(name)
            .await
            .expect("get Memcached")
            .is_none()
            .then_some(())
    })
    .await;
}

/// Waits until a condition of `name` has `status`, and returns it.
async fn wait_for_condition(
    memcacheds: &Api<Memcached>,
    name: &str,
    type_: &str,
    status: &str,
    timeout: Duration,
) -> Condition {
    wait_for(&format!("{type_}={status}"), timeout, || async {
        let obj = memcacheds.get(name).await.expect("get Memcached");
        obj.status?
            .conditions
            .into_iter()
            .find(|condition| condition.type_ == type_ && condition.status == status)
    })
    .await
}

/// Polls `check` every 200 ms until it returns something, or panics after `timeout`.
async fn wait_for<T, F, Fut>(what: &str, timeout: Duration, mut check: F) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    let deadline = tokio::time::Instant::now() + timeout;
    loop {
        if let Some(value) = check().await {
            return value;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "timed out waiting for {what}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

fn replicas(deployment: &Deployment) -> i32 {
    deployment
        .spec
        .as_ref()
        .and_then(|spec| spec.replicas)
        .unwrap_or(1)
}

fn container(deployment: &Deployment) -> &k8s_openapi::api::core::v1::Container {
    &deployment
        .spec
        .as_ref()
        .and_then(|spec| spec.template.spec.as_ref())
        .expect("pod spec")
        .containers[0]
}

fn container_image(deployment: &Deployment) -> &str {
    container(deployment).image.as_deref().unwrap_or_default()
}

fn container_port(deployment: &Deployment) -> i32 {
    container(deployment).ports.as_ref().expect("ports")[0].container_port
}
