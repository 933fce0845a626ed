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

//! The TDSet controller against a real API server (envtest: etcd and kube-apiserver from
//! `tools/envtest/setup.sh`, started by opgen-envtest; no kubelet, no controller-manager).
//!
//! It installs the CRD, runs the controller in-process for a fresh namespace as the manager's
//! ServiceAccount under the ClusterRole that `opgen manifests` generated from the
//! `+kubebuilder:rbac` markers, creates both samples, and checks the Deployments (replicas as
//! scheduled for the current UTC hour, owner reference), the Service of `tdset-night`
//! (created, then deleted once `spec.service` is removed), the status conditions, and that
//! deleting a TDSet completes. Without the control plane binaries it prints how to get them
//! and passes, except under CI.

use std::{future::Future, panic::AssertUnwindSafe, sync::Arc, time::Duration};

use futures::FutureExt;
use k8s_openapi::{
    api::{
        apps::v1::Deployment,
        core::v1::{Namespace, Service},
    },
    apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition,
    jiff::Timestamp,
};
use kube::{
    Api, Client, Resource, ResourceExt,
    api::{DeleteParams, Patch, PatchParams, PostParams},
    runtime::{conditions, wait::await_condition},
};
use serde_json::json;
use tdset_operator::{
    api::v1::TDSet,
    controllers::{Context, td_set},
    metrics::Metrics,
};
use tokio_util::sync::CancellationToken;

const CRD_PATH: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/config/crd/bases/schedule.rs_tdsets.yaml"
);
const SAMPLES: [&str; 2] = [
    concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/config/samples/schedule_v1_tdset.yaml"
    ),
    concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/config/samples/schedule_v1_tdset_night.yaml"
    ),
];
const FIELD_MANAGER: &str = "tdset-operator-cluster-test";
const TIMEOUT: Duration = Duration::from_secs(60);

/// Runs everywhere: the files the envtest test applies parse as their types.
#[test]
fn crd_and_samples_parse() {
    let crd: CustomResourceDefinition =
        serde_saphyr::from_str(&std::fs::read_to_string(CRD_PATH).expect("CRD file is readable"))
            .expect("CRD parses");
    assert_eq!(crd.name_any(), "tdsets.schedule.rs");
    for path in SAMPLES {
        let sample: TDSet =
            serde_saphyr::from_str(&std::fs::read_to_string(path).expect("sample is readable"))
                .expect("sample parses");
        assert!(!sample.spec.container.image.is_empty(), "{path}");
    }
}

#[tokio::test]
async fn tdset_controller_manages_the_deployment_the_service_and_the_status() {
    let _ = tracing_subscriber::fmt()
        .with_test_writer()
        .with_ansi(false)
        .try_init();
    let Some(control_plane) = opgen_envtest::shared_or_skip().await else {
        return;
    };
    let client = control_plane.client().expect("admin client");

    let crds: Api<CustomResourceDefinition> = Api::all(client.clone());
    let crd: CustomResourceDefinition =
        serde_saphyr::from_str(&std::fs::read_to_string(CRD_PATH).expect("CRD file is readable"))
            .expect("CRD parses");
    let crd_name = crd.name_any();
    let crd_was_installed = crds.get_opt(&crd_name).await.expect("CRD lookup").is_some();
    crds.patch(
        &crd_name,
        &PatchParams::apply(FIELD_MANAGER).force(),
        &Patch::Apply(&crd),
    )
    .await
    .expect("CRD applies");
    tokio::time::timeout(
        TIMEOUT,
        await_condition(crds.clone(), &crd_name, conditions::is_crd_established()),
    )
    .await
    .expect("CRD is established in time")
    .expect("CRD watch works");

    let namespace = "tdset-it".to_owned();
    let namespaces: Api<Namespace> = Api::all(client.clone());
    // What the controller runs as: the manager's ServiceAccount (in the test namespace, which
    // this creates) bound to the generated role.
    let manager = control_plane
        .client_with_roles(
            concat!(env!("CARGO_MANIFEST_DIR"), "/config/rbac/role.yaml"),
            &namespace,
            "controller-manager",
        )
        .await
        .expect("bind the generated role to the manager's ServiceAccount");
    println!("testing in namespace {namespace}");

    let shutdown = CancellationToken::new();
    let ctx = Arc::new(Context::new(
        manager,
        Arc::new(Metrics::default()),
        vec![namespace.clone()],
        shutdown.clone(),
    ));
    let controller = tokio::spawn((td_set::CONTROLLER.run)(ctx));

    let outcome = AssertUnwindSafe(scenario(client.clone(), &namespace))
        .catch_unwind()
        .await;

    shutdown.cancel();
    let stopped = tokio::time::timeout(Duration::from_secs(30), controller).await;
    let _ = namespaces
        .delete(&namespace, &DeleteParams::default())
        .await;
    if !crd_was_installed {
        let _ = crds.delete(&crd_name, &DeleteParams::default()).await;
    }

    if let Err(panic) = outcome {
        std::panic::resume_unwind(panic);
    }
    stopped
        .expect("controller stops on shutdown")
        .expect("controller task does not panic")
        .expect("controller returns Ok");
}

async fn scenario(client: Client, namespace: &str) {
    let tdsets: Api<TDSet> = Api::namespaced(client.clone(), namespace);
    let deployments: Api<Deployment> = Api::namespaced(client.clone(), namespace);
    let services: Api<Service> = Api::namespaced(client.clone(), namespace);

    for path in SAMPLES {
        let mut sample: TDSet =
            serde_saphyr::from_str(&std::fs::read_to_string(path).expect("sample is readable"))
                .expect("sample parses");
        sample.metadata.namespace = Some(namespace.to_owned());
        tdsets
            .create(&PostParams::default(), &sample)
            .await
            .expect("sample is created");
    }

    for name in ["tdset-sample", "tdset-night"] {
        let tdset = tdsets.get(name).await.expect("TDSet exists");
        let uid = tdset.uid().expect("uid");
        let deployment = eventually(&format!("Deployment {name} as scheduled"), || async {
            let deployment = deployments.get_opt(name).await.expect("get Deployment")?;
            let hour = td_set::utc_hour(Timestamp::now());
            let expected = td_set::scheduled_replicas(&tdset.spec, hour).expect("valid spec");
            let replicas = deployment.spec.as_ref()?.replicas?;
            (replicas == expected).then_some(deployment)
        })
        .await;
        let owner = &deployment.owner_references()[0];
        assert_eq!(
            (owner.kind.as_str(), owner.uid.as_str()),
            ("TDSet", uid.as_str())
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

        let generation = tdset.meta().generation;
        eventually(&format!("status of TDSet {name}"), || async {
            let status = tdsets.get(name).await.expect("get TDSet").status?;
            let find = |type_: &str| status.conditions.iter().find(|c| c.type_ == type_);
            let degraded = find(td_set::CONDITION_DEGRADED)?;
            let available = find(td_set::CONDITION_AVAILABLE)?;
            let progressing = find(td_set::CONDITION_PROGRESSING)?;
            (degraded.status == "False"
                && degraded.observed_generation == generation
                && available.observed_generation == generation
                && ["True", "False"].contains(&progressing.status.as_str()))
            .then_some(())
        })
        .await;
        println!("TDSet {name}: Deployment and status are as expected");
    }

    assert!(
        services
            .get_opt("tdset-sample")
            .await
            .expect("get Service")
            .is_none(),
        "no Service without spec.service"
    );
    let service = eventually("Service tdset-night", || async {
        services.get_opt("tdset-night").await.expect("get Service")
    })
    .await;
    let ports = service.spec.expect("spec").ports.expect("ports");
    assert_eq!(ports[0].port, 8080);

    tdsets
        .patch(
            "tdset-night",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"service": null}})),
        )
        .await
        .expect("spec.service is removed");
    eventually("Service tdset-night deleted", || async {
        services
            .get_opt("tdset-night")
            .await
            .expect("get Service")
            .is_none()
            .then_some(())
    })
    .await;
    println!("Service tdset-night: created, then deleted once unset");

    // Deletion completes: the controller's finalizer is released. (The Deployments follow in a
    // cluster through garbage collection, by their owner references checked above; envtest
    // runs no garbage collector.)
    for name in ["tdset-sample", "tdset-night"] {
        tdsets
            .delete(name, &DeleteParams::default())
            .await
            .expect("TDSet is deleted");
        eventually(&format!("TDSet {name} gone"), || async {
            tdsets
                .get_opt(name)
                .await
                .expect("get TDSet")
                .is_none()
                .then_some(())
        })
        .await;
    }
}

/// Polls `check` until it returns `Some`, or panics after [`TIMEOUT`].
async fn eventually<T, F, Fut>(what: &str, mut check: F) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    let deadline = tokio::time::Instant::now() + TIMEOUT;
    loop {
        if let Some(value) = check().await {
            return value;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "timed out waiting for {what}"
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}
