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

//! End-to-end test against a real cluster (kind, k3d...), run only when one is reachable
//! through `$KUBECONFIG`; otherwise it prints a notice and passes.
//!
//! It installs the CRD, runs the TDSet controller in-process for a throw-away namespace,
//! creates both samples there, and checks the Deployments (replicas as scheduled for the
//! current UTC hour, owner reference), the Service of `tdset-night` (created, then
//! deleted once `spec.service` is removed) and the status conditions. The namespace, and
//! the CRD if this test installed it, are deleted at the end, pass or fail.
//!
//! `cargo test --test cluster -- --nocapture` shows the notice or the progress.

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
    api::{DeleteParams, ObjectMeta, Patch, PatchParams, PostParams},
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
const TIMEOUT: Duration = Duration::from_secs(90);

/// A client for the cluster of `$KUBECONFIG`, if one answers.
async fn reachable_cluster() -> Result<Client, String> {
    if std::env::var_os("KUBECONFIG").is_none() {
        return Err("KUBECONFIG unset".into());
    }
    let client = Client::try_default()
        .await
        .map_err(|error| format!("bad kubeconfig: {error}"))?;
    match tokio::time::timeout(Duration::from_secs(5), client.apiserver_version()).await {
        Ok(Ok(_)) => Ok(client),
        Ok(Err(error)) => Err(format!("API server error: {error}")),
        Err(_) => Err("API server did not answer within 5 s".into()),
    }
}

/// Runs everywhere: the files the cluster test applies parse as their types.
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
    let client = match reachable_cluster().await {
        Ok(client) => client,
        Err(reason) => {
            println!("notice: no cluster reachable ({reason}); skipping");
            return;
        }
    };

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

    let namespace = format!("tdset-it-{}", Timestamp::now().as_second());
    let namespaces: Api<Namespace> = Api::all(client.clone());
    namespaces
        .create(
            &PostParams::default(),
            &Namespace {
                metadata: ObjectMeta {
                    name: Some(namespace.clone()),
                    ..ObjectMeta::default()
                },
                ..Namespace::default()
            },
        )
        .await
        .expect("namespace is created");
    println!("testing in namespace {namespace}");

    let shutdown = CancellationToken::new();
    let ctx = Arc::new(Context::new(
        client.clone(),
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

    for name in ["tdset-sample", "tdset-night"] {
        tdsets
            .delete(name, &DeleteParams::foreground())
            .await
            .expect("TDSet is deleted");
    }
    eventually("Deployments garbage collected", || async {
        let left = deployments
            .list(&Default::default())
            .await
            .expect("list Deployments");
        left.items.is_empty().then_some(())
    })
    .await;
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
