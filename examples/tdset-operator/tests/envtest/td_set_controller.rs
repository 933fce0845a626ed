// Copyright 2026 The tdset-operator Authors.
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

//! The TDSet controller against a real API server (envtest: etcd and kube-apiserver, no
//! kubelet, no controller-manager), running as the manager's ServiceAccount under the role
//! that `opgen manifests` generates from its `+kubebuilder:rbac` markers: a missing marker
//! fails this test.
//!
//! It installs the CRD from `config/crd/bases/`, applies both samples from `config/samples/`
//! and checks what the controller writes: the Deployments it controls with the replicas the
//! schedule gives for this hour, the Service of the sample that asks for one, the conditions
//! (pending, then available and settled once the test writes the Deployment status the
//! absent deployment controller would), a schedule change followed, a replica count another
//! manager changed restored, and the Service deleted once `spec.service` is unset. Without
//! the envtest binaries (`tools/envtest/setup.sh` of opgen) it prints how to get them and
//! passes, except under `CI=true`.

use opgen_envtest::OperatorClients;
use std::time::Duration;

use k8s_openapi::{
    api::{apps::v1::Deployment, core::v1::Service},
    apimachinery::pkg::apis::meta::v1::Condition,
    jiff::Timestamp,
};
use kube::{
    Api, Resource, ResourceExt,
    api::{Patch, PatchParams},
};
use opgen_runtime::testing::RunningController;
use serde_json::json;
use tdset_operator::{api::v1::TDSet, controllers::td_set};

const SAMPLES: [&str; 2] = [
    "config/samples/schedule_v1_tdset.yaml",
    "config/samples/schedule_v1_tdset_night.yaml",
];
const NAMESPACE: &str = "tdset-envtest";
const TIMEOUT: Duration = Duration::from_secs(30);

#[tokio::test]
async fn tdsets_are_reconciled_under_the_generated_role() {
    opgen_runtime::testing::init_tracing();
    let Some(control_plane) = opgen_envtest::shared_or_skip().await else {
        return;
    };
    let OperatorClients { admin, manager } = control_plane
        .install_operator("config/crd/bases", "config/rbac/role.yaml", NAMESPACE)
        .await
        .expect("install the CRDs and bind the generated role to the manager's ServiceAccount");

    let controller = RunningController::start(
        td_set::CONTROLLER,
        manager,
        tdset_operator::PROJECT_NAME,
        vec![NAMESPACE.into()],
    );

    let tdsets: Api<TDSet> = Api::namespaced(admin.clone(), NAMESPACE);
    let deployments: Api<Deployment> = Api::namespaced(admin.clone(), NAMESPACE);
    let services: Api<Service> = Api::namespaced(admin.clone(), NAMESPACE);
    for sample in SAMPLES {
        opgen_envtest::apply_file(&admin, sample, NAMESPACE)
            .await
            .unwrap_or_else(|error| panic!("the API server accepts {sample}: {error}"));
    }

    // Each TDSet controls a Deployment with the replicas of this hour's schedule.
    for name in ["tdset-sample", "tdset-night"] {
        let tdset = tdsets.get(name).await.expect("get the TDSet");
        let deployment = scheduled(&deployments, &tdset).await;
        let owner = &deployment.owner_references()[0];
        assert_eq!(
            (owner.kind.as_str(), Some(&owner.uid)),
            ("TDSet", tdset.meta().uid.as_ref())
        );
        assert_eq!(owner.controller, Some(true));
        let pod = deployment
            .spec
            .expect("spec")
            .template
            .spec
            .expect("pod spec");
        assert_eq!(pod.containers[0].name, td_set::CONTAINER_NAME);
        assert_eq!(
            pod.containers[0].image.as_deref(),
            Some("crccheck/hello-world")
        );
        let ports = pod.containers[0].ports.as_ref().expect("ports");
        assert_eq!(ports[0].container_port, 8000);

        // No deployment controller reports on it: available is unknown, rolling out.
        let pending = condition(&tdsets, name, td_set::CONDITION_AVAILABLE, "Unknown").await;
        assert_eq!(pending.reason, "DeploymentPending");
        assert_eq!(pending.observed_generation, tdset.meta().generation);
        let rolling = condition(&tdsets, name, td_set::CONDITION_PROGRESSING, "True").await;
        assert_eq!(rolling.reason, "RollingOut");
        condition(&tdsets, name, td_set::CONDITION_DEGRADED, "False").await;
    }

    // The Service of the sample that asks for one, controlled by it; none for the other.
    let night = tdsets.get("tdset-night").await.expect("get tdset-night");
    let service = opgen_envtest::eventually("Service tdset-night", TIMEOUT, || async {
        services.get_opt("tdset-night").await.ok().flatten()
    })
    .await;
    let ports = service.spec.as_ref().expect("spec").ports.as_ref();
    assert_eq!(ports.expect("ports")[0].port, 8080);
    let owner = &service.owner_references()[0];
    assert_eq!(Some(&owner.uid), night.meta().uid.as_ref());
    assert_eq!(owner.controller, Some(true));
    assert!(
        services
            .get_opt("tdset-sample")
            .await
            .expect("get")
            .is_none()
    );

    // What the deployment controller writes once the pods run: Available, settled.
    let deployment = deployments.get("tdset-sample").await.expect("get");
    let replicas = deployment
        .spec
        .as_ref()
        .and_then(|s| s.replicas)
        .unwrap_or(1);
    let status = json!({"status": {
        "observedGeneration": deployment.metadata.generation,
        "replicas": replicas,
        "updatedReplicas": replicas,
        "readyReplicas": replicas,
        "availableReplicas": replicas,
        "conditions": [{
            "type": "Available", "status": "True", "reason": "MinimumReplicasAvailable",
            "message": "Deployment has minimum availability.",
        }],
    }});
    deployments
        .patch_status(
            "tdset-sample",
            &PatchParams::default(),
            &Patch::Merge(&status),
        )
        .await
        .expect("write the Deployment's status");
    let available = condition(&tdsets, "tdset-sample", td_set::CONDITION_AVAILABLE, "True").await;
    assert_eq!(available.reason, "DeploymentAvailable");
    let settled = condition(
        &tdsets,
        "tdset-sample",
        td_set::CONDITION_PROGRESSING,
        "False",
    )
    .await;
    assert_eq!(settled.reason, "RolloutComplete");

    // A schedule change: a window around this hour with 4 replicas.
    let hour = td_set::utc_hour(Timestamp::now());
    let window = json!({"spec": {"schedulingConfig": [
        {"startTime": (hour + 23) % 24, "endTime": (hour + 2) % 24, "replica": 4},
    ]}});
    tdsets
        .patch(
            "tdset-sample",
            &PatchParams::default(),
            &Patch::Merge(&window),
        )
        .await
        .expect("change the schedule");
    opgen_envtest::eventually(
        "tdset-sample's Deployment at 4 replicas",
        TIMEOUT,
        || async {
            let deployment = deployments.get("tdset-sample").await.ok()?;
            (deployment.spec?.replicas == Some(4)).then_some(())
        },
    )
    .await;

    // Another manager scales the Deployment: the schedule owns the replica count.
    let scale = json!({
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "tdset-sample", "namespace": NAMESPACE},
        "spec": {"replicas": 7},
    });
    deployments
        .patch(
            "tdset-sample",
            &PatchParams::apply("someone-else").force(),
            &Patch::Apply(&scale),
        )
        .await
        .expect("scale behind the operator's back");
    opgen_envtest::eventually("the 4 replicas restored", TIMEOUT, || async {
        let deployment = deployments.get("tdset-sample").await.ok()?;
        (deployment.spec?.replicas == Some(4)).then_some(())
    })
    .await;

    // Unsetting spec.service deletes the Service.
    tdsets
        .patch(
            "tdset-night",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"service": null}})),
        )
        .await
        .expect("unset spec.service");
    opgen_envtest::eventually("Service tdset-night deleted", TIMEOUT, || async {
        services
            .get_opt("tdset-night")
            .await
            .ok()?
            .is_none()
            .then_some(())
    })
    .await;

    controller
        .stop()
        .await
        .expect("the controller stops cleanly");
}

/// Waits for the Deployment of `tdset` with the replicas its schedule gives now.
async fn scheduled(deployments: &Api<Deployment>, tdset: &TDSet) -> Deployment {
    let name = tdset.name_any();
    opgen_envtest::eventually(
        &format!("Deployment {name} as scheduled"),
        TIMEOUT,
        || async {
            let deployment = deployments.get_opt(&name).await.ok()??;
            let hour = td_set::utc_hour(Timestamp::now());
            let expected = td_set::scheduled_replicas(&tdset.spec, hour).expect("valid spec");
            (deployment.spec.as_ref()?.replicas? == expected).then_some(deployment)
        },
    )
    .await
}

/// Waits until a condition of `name` has `status`, and returns it.
async fn condition(tdsets: &Api<TDSet>, name: &str, type_: &str, status: &str) -> Condition {
    opgen_envtest::eventually(
        &format!("{type_}={status} on TDSet {name}"),
        TIMEOUT,
        || async {
            tdsets
                .get(name)
                .await
                .ok()?
                .status?
                .conditions
                .into_iter()
                .find(|condition| condition.type_ == type_ && condition.status == status)
        },
    )
    .await
}
