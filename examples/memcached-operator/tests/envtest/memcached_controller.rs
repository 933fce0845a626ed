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

//! The Memcached controller against a real API server (envtest: etcd and kube-apiserver, no
//! kubelet, no controller-manager), running as the manager's ServiceAccount under the role
//! that `opgen manifests` generates from its `+kubebuilder:rbac` markers: a missing marker
//! fails this test.
//!
//! It installs the CRD from `config/crd/bases/`, applies the sample from `config/samples/` and
//! checks what the controller writes: the Deployment it controls, the status (Available once
//! the Deployment reports ready replicas, which the test writes in place of the absent
//! deployment controller), resize, image drift, a foreign Deployment left alone, and deletion
//! through the finalizer. Without the envtest binaries (`tools/envtest/setup.sh` of opgen) it
//! prints how to get them and passes, except under `CI=true`.

use opgen_envtest::OperatorClients;
use std::time::Duration;

use k8s_openapi::{api::apps::v1::Deployment, apimachinery::pkg::apis::meta::v1::Condition};
use kube::{
    Api, ResourceExt,
    api::{DeleteParams, Patch, PatchParams, PostParams},
};
use memcached_operator::{api::v1alpha1::Memcached, controllers::memcached};
use opgen_runtime::testing::RunningController;
use serde_json::json;

const SAMPLE: &str = "config/samples/cache_v1alpha1_memcached.yaml";
const NAMESPACE: &str = "memcached-envtest";
/// What config/manager/manager.yaml sets.
const IMAGE: &str = "memcached:1.4.36-alpine";
const TIMEOUT: Duration = Duration::from_secs(30);

#[tokio::test]
async fn sample_memcached_is_reconciled_under_the_generated_role() {
    opgen_runtime::testing::init_tracing();
    // SAFETY: the first statement of the only test of this binary, before any client or
    // controller thread exists: no other thread reads the environment.
    unsafe { std::env::set_var(memcached::IMAGE_ENV_VAR, IMAGE) };
    let Some(control_plane) = opgen_envtest::shared_or_skip().await else {
        return;
    };
    let OperatorClients { admin, manager } = control_plane
        .install_operator("config/crd/bases", "config/rbac/role.yaml", NAMESPACE)
        .await
        .expect("install the CRDs and bind the generated role to the manager's ServiceAccount");

    // The controller, as the manager runs it, limited to the test namespace.
    let controller = RunningController::start(
        memcached::CONTROLLER,
        manager,
        memcached_operator::PROJECT_NAME,
        vec![NAMESPACE.into()],
    );

    let memcacheds: Api<Memcached> = Api::namespaced(admin.clone(), NAMESPACE);
    let deployments: Api<Deployment> = Api::namespaced(admin.clone(), NAMESPACE);
    let applied = opgen_envtest::apply_file(&admin, SAMPLE, NAMESPACE)
        .await
        .expect("the API server accepts the sample");
    let name = applied[0].name_any();
    let uid = applied[0].uid().expect("uid");

    // Creation: a Deployment controlled by the sample, shaped by its spec.
    let deployment = opgen_envtest::eventually("the Deployment of the sample", TIMEOUT, || async {
        deployments.get_opt(&name).await.ok().flatten()
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
    let sample = memcacheds.get(&name).await.expect("get the sample");
    assert!(
        sample
            .finalizers()
            .iter()
            .any(|f| f == memcached::FINALIZER)
    );

    // Status: no kubelet runs the pod, so the Deployment has no ready replica yet.
    let degraded = condition(&memcacheds, &name, "Degraded", "False").await;
    assert_eq!(degraded.reason, "Reconciling");
    let unavailable = condition(&memcacheds, &name, "Available", "False").await;
    assert!(
        unavailable.message.contains("0 of 1"),
        "{}",
        unavailable.message
    );
    // What the deployment controller would write once the pod runs: the status change
    // reconciles the owner, which reports Available.
    set_available_replicas(&deployments, &name, 1).await;
    let available = condition(&memcacheds, &name, "Available", "True").await;
    assert_eq!(available.reason, "Reconciling");
    assert_eq!(available.observed_generation, Some(1));

    // Resize: the Deployment follows spec.size.
    memcacheds
        .patch(
            &name,
            &PatchParams::default(),
            &Patch::Merge(&json!({"spec": {"size": 2}})),
        )
        .await
        .expect("resize the sample");
    opgen_envtest::eventually("the Deployment resized to 2 replicas", TIMEOUT, || async {
        let deployment = deployments.get(&name).await.ok()?;
        (replicas(&deployment) == 2).then_some(())
    })
    .await;
    let resized = condition(&memcacheds, &name, "Available", "False").await;
    assert_eq!(resized.observed_generation, Some(2));

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
        .patch(
            &name,
            &PatchParams::apply("someone-else").force(),
            &Patch::Apply(&drift),
        )
        .await
        .expect("change the image behind the operator's back");
    opgen_envtest::eventually("the operator's image restored", TIMEOUT, || async {
        let deployment = deployments.get(&name).await.ok()?;
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
    let degraded = condition(&memcacheds, foreign_name, "Degraded", "True").await;
    assert_eq!(degraded.reason, "ErrResourceExists");
    let untouched = deployments.get(foreign_name).await.expect("get foreign");
    assert!(
        untouched.owner_references().is_empty(),
        "adopted: {untouched:?}"
    );
    assert_eq!(replicas(&untouched), 0);

    // Deletion: the controller runs its cleanup and releases the finalizer, so both go.
    // (No garbage collector runs here: the Deployment would follow on a real cluster.)
    for name in [name.as_str(), foreign_name] {
        memcacheds
            .delete(name, &DeleteParams::default())
            .await
            .expect("delete a Memcached");
        opgen_envtest::eventually(&format!("Memcached {name} deleted"), TIMEOUT, || async {
            memcacheds.get_opt(name).await.ok()?.is_none().then_some(())
        })
        .await;
    }

    controller
        .stop()
        .await
        .expect("the controller stops cleanly");
}

/// Writes `status.availableReplicas`, as the deployment controller would.
async fn set_available_replicas(deployments: &Api<Deployment>, name: &str, available: i32) {
    let status = json!({"status": {
        "replicas": available,
        "readyReplicas": available,
        "availableReplicas": available,
    }});
    deployments
        .patch_status(name, &PatchParams::default(), &Patch::Merge(&status))
        .await
        .expect("write the Deployment's status");
}

/// Waits until a condition of `name` has `status`, and returns it.
async fn condition(
    memcacheds: &Api<Memcached>,
    name: &str,
    type_: &str,
    status: &str,
) -> Condition {
    opgen_envtest::eventually(
        &format!("{type_}={status} on Memcached {name}"),
        TIMEOUT,
        || async {
            let obj = memcacheds.get(name).await.ok()?;
            obj.status?
                .conditions
                .into_iter()
                .find(|condition| condition.type_ == type_ && condition.status == status)
        },
    )
    .await
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
