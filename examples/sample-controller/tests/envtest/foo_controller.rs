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

//! The Foo controller against a real API server (envtest: etcd and kube-apiserver, no
//! kubelet, no controller-manager), running as the manager's ServiceAccount under the role
//! that `opgen manifests` generates from its `+kubebuilder:rbac` markers: a missing marker
//! fails this test.
//!
//! It installs the CRD from `config/crd/bases/`, applies the sample from `config/samples/`
//! and checks what the controller writes: the nginx Deployment it controls,
//! `status.availableReplicas` (once the test writes the Deployment status the absent
//! deployment controller would), a resize, replicas another manager changed restored, a
//! renamed Deployment (the old one deleted), and a foreign Deployment reported with a
//! Warning event and left alone. Without the envtest binaries (`tools/envtest/setup.sh` of
//! opgen) it prints how to get them and passes, except under `CI=true`.

use opgen_envtest::OperatorClients;
use std::time::Duration;

use k8s_openapi::api::{apps::v1::Deployment, events::v1::Event};
use kube::{
    Api, ResourceExt,
    api::{ListParams, Patch, PatchParams},
};
use opgen_runtime::testing::RunningController;
use sample_controller::{api::v1alpha1::Foo, controllers::foo};
use serde_json::json;

const SAMPLE: &str = "config/samples/samplecontroller_v1alpha1_foo.yaml";
const NAMESPACE: &str = "sample-controller-envtest";
const TEST_MANAGER: &str = "sample-controller-test";
const TIMEOUT: Duration = Duration::from_secs(30);

#[tokio::test]
async fn sample_foo_gets_its_deployment_and_status_under_the_generated_role() {
    opgen_runtime::testing::init_tracing();
    let Some(control_plane) = opgen_envtest::shared_or_skip().await else {
        return;
    };
    let OperatorClients { admin, manager } = control_plane
        .install_operator("config/crd/bases", "config/rbac/role.yaml", NAMESPACE)
        .await
        .expect("install the CRDs and bind the generated role to the manager's ServiceAccount");

    let controller = RunningController::start(
        foo::CONTROLLER,
        manager,
        sample_controller::PROJECT_NAME,
        vec![NAMESPACE.into()],
    );

    let foos: Api<Foo> = Api::namespaced(admin.clone(), NAMESPACE);
    let deployments: Api<Deployment> = Api::namespaced(admin.clone(), NAMESPACE);
    let applied = opgen_envtest::apply_file(&admin, SAMPLE, NAMESPACE)
        .await
        .expect("the API server accepts the sample");
    let name = applied[0].name_any();
    let uid = applied[0].uid().expect("uid");
    let deployment_name = "example-foo";

    // The controlled Deployment, with the upstream shape.
    let deployment = opgen_envtest::eventually("the Deployment of the sample", TIMEOUT, || async {
        deployments.get_opt(deployment_name).await.ok().flatten()
    })
    .await;
    let owner = &deployment.owner_references()[0];
    assert_eq!(owner.kind, "Foo");
    assert_eq!(owner.api_version, "samplecontroller.k8s.io/v1alpha1");
    assert_eq!(owner.uid, uid);
    assert_eq!(owner.controller, Some(true));
    let spec = deployment.spec.as_ref().expect("the Deployment has a spec");
    assert_eq!(spec.replicas, Some(1));
    let pod = spec.template.spec.as_ref().expect("pod spec");
    assert_eq!(pod.containers[0].name, "nginx");
    assert_eq!(pod.containers[0].image.as_deref(), Some(foo::NGINX_IMAGE));
    // No pod runs: nothing available yet.
    opgen_envtest::eventually("status.availableReplicas 0", TIMEOUT, || async {
        (foos.get(&name).await.ok()?.status?.available_replicas == 0).then_some(())
    })
    .await;

    // status.availableReplicas follows the Deployment's (written as its controller would).
    let status = json!({"status": {"replicas": 1, "readyReplicas": 1, "availableReplicas": 1}});
    deployments
        .patch_status(
            deployment_name,
            &PatchParams::default(),
            &Patch::Merge(&status),
        )
        .await
        .expect("write the Deployment's status");
    opgen_envtest::eventually("status.availableReplicas 1", TIMEOUT, || async {
        (foos.get(&name).await.ok()?.status?.available_replicas == 1).then_some(())
    })
    .await;

    // A resize reaches the Deployment.
    foos.patch(
        &name,
        &PatchParams::default(),
        &Patch::Merge(json!({"spec": {"replicas": 2}})),
    )
    .await
    .expect("resize the Foo");
    opgen_envtest::eventually("the Deployment resized to 2", TIMEOUT, || async {
        let deployment = deployments.get(deployment_name).await.ok()?;
        (deployment.spec?.replicas == Some(2)).then_some(())
    })
    .await;

    // Another manager scales the Deployment: the Foo's replicas win.
    let scale = json!({
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": deployment_name, "namespace": NAMESPACE},
        "spec": {"replicas": 5},
    });
    deployments
        .patch(
            deployment_name,
            &PatchParams::apply("someone-else").force(),
            &Patch::Apply(&scale),
        )
        .await
        .expect("scale behind the operator's back");
    opgen_envtest::eventually("the 2 replicas restored", TIMEOUT, || async {
        let deployment = deployments.get(deployment_name).await.ok()?;
        (deployment.spec?.replicas == Some(2)).then_some(())
    })
    .await;

    // A new deploymentName: the new Deployment is created and the old one deleted.
    foos.patch(
        &name,
        &PatchParams::default(),
        &Patch::Merge(json!({"spec": {"deploymentName": "renamed-foo"}})),
    )
    .await
    .expect("rename the Deployment");
    opgen_envtest::eventually("Deployment renamed-foo", TIMEOUT, || async {
        deployments.get_opt("renamed-foo").await.ok().flatten()
    })
    .await;
    opgen_envtest::eventually(
        "the old Deployment example-foo deleted",
        TIMEOUT,
        || async {
            deployments
                .get_opt(deployment_name)
                .await
                .ok()?
                .is_none()
                .then_some(())
        },
    )
    .await;

    // A Deployment the Foo does not control is reported and left alone.
    let apply = PatchParams::apply(TEST_MANAGER);
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
    let events: Api<Event> = Api::namespaced(admin.clone(), NAMESPACE);
    let warning = opgen_envtest::eventually("the ErrResourceExists event", TIMEOUT, || async {
        let list = events.list(&ListParams::default()).await.ok()?;
        list.items.into_iter().find(|event| {
            event.regarding.as_ref().and_then(|r| r.name.as_deref()) == Some("claimant")
                && event.reason.as_deref() == Some(foo::REASON_ERR_RESOURCE_EXISTS)
        })
    })
    .await;
    assert_eq!(warning.type_.as_deref(), Some("Warning"));
    assert_eq!(
        warning.note.as_deref(),
        Some("Resource \"foreign\" already exists and is not managed by Foo")
    );
    let untouched = deployments.get("foreign").await.expect("get foreign");
    assert!(untouched.owner_references().is_empty());
    assert_eq!(untouched.spec.and_then(|spec| spec.replicas), Some(0));
    let claimant = foos.get("claimant").await.expect("get the claimant");
    assert!(claimant.status.is_none(), "no status for a failed sync");

    controller
        .stop()
        .await
        .expect("the controller stops cleanly");
}
