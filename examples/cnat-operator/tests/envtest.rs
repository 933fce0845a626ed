// Copyright 2026 The cnat-operator Authors.
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

//! The At controller against a real API server (envtest: etcd and kube-apiserver from
//! `tools/envtest/setup.sh`, started by opgen-envtest; no kubelet, no controller-manager).
//!
//! It installs the CRD from `config/crd/bases/`, runs the At controller for a fresh namespace
//! as the manager's ServiceAccount under the ClusterRole that `opgen manifests` generated from
//! the `+kubebuilder:rbac` markers, applies the sample and a few more Ats, and checks their
//! pods and phases. There is no kubelet: the test plays its part, reporting each pod the
//! controller creates as finished (exit code 3 for a command that says `exit 3`, else 0).
//! Without the control plane binaries it prints how to get them and passes, except under CI.

use std::{sync::Arc, time::Duration};

use cnat_operator::{
    api::v1alpha1::{At, AtSpec},
    controllers::{Context, at},
    metrics::Metrics,
};
use k8s_openapi::{
    api::core::v1::{Namespace, Pod},
    apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition,
    jiff::{SignedDuration, Timestamp},
};
use kube::{
    Api, Client, ResourceExt,
    api::{DeleteParams, Patch, PatchParams},
    runtime::wait::{await_condition, conditions},
};
use tokio_util::sync::CancellationToken;

/// Field manager of everything this test applies (the controller uses its own).
const TEST_MANAGER: &str = "cnat-operator-test";
/// How long an At may take to reach a phase.
const TIMEOUT: Duration = Duration::from_secs(60);

#[tokio::test]
async fn ats_run_their_command_under_the_generated_role() {
    let _ = tracing_subscriber::fmt()
        .with_test_writer()
        .with_ansi(false)
        .try_init();
    let Some(control_plane) = opgen_envtest::shared_or_skip().await else {
        return;
    };
    let client = control_plane.client().expect("admin client");

    let crds_created = install_crds(&client).await;
    let namespace = "cnat-operator-test".to_owned();
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
    let kubelet = tokio::spawn(play_kubelet(Api::namespaced(client.clone(), &namespace)));
    let shutdown = CancellationToken::new();
    let ctx = Arc::new(Context::new(
        manager,
        Arc::new(Metrics::default()),
        vec![namespace.clone()],
        shutdown.clone(),
    ));
    let controller = tokio::spawn(at::run(ctx));

    let result = tokio::spawn(scenarios(client.clone(), namespace.clone())).await;

    shutdown.cancel();
    kubelet.abort();
    let _ = tokio::time::timeout(Duration::from_secs(30), controller).await;
    cleanup(&client, &namespace, &crds_created).await;
    if let Err(error) = result {
        std::panic::resume_unwind(error.into_panic());
    }
}

/// The files the envtest test applies parse, with or without a control plane.
#[test]
fn crd_and_sample_files_parse() {
    let crds = load_crds();
    assert_eq!(crds.len(), 1);
    assert_eq!(crds[0].name_any(), "ats.cnat.programming-kubernetes.info");
    assert_eq!(crds[0].spec.versions[0].name, "v1alpha1");

    let sample = load_sample();
    assert_eq!(sample.name_any(), "example-at");
    assert_eq!(sample.spec.schedule, "2019-04-12T10:12:00Z");
    assert_eq!(sample.spec.command, "echo YAY");
}

/// The assertions, run while the controller runs.
async fn scenarios(client: Client, namespace: String) {
    let ats: Api<At> = Api::namespaced(client.clone(), &namespace);
    let pods: Api<Pod> = Api::namespaced(client.clone(), &namespace);

    // The sample: a schedule in the past, so the command runs right away.
    let sample = load_sample();
    let sample_name = sample.name_any();
    let sample_command = sample.spec.command.clone();
    apply(&ats, sample).await;

    // A failing command must reach DONE too (upstream stayed RUNNING forever).
    apply(
        &ats,
        new_at("failing", "2019-04-12T10:12:00Z", "echo failing; exit 3"),
    )
    .await;

    // A schedule 8 s ahead: PENDING, without a pod, until then.
    let soon = (Timestamp::now() + SignedDuration::from_secs(8))
        .strftime("%Y-%m-%dT%H:%M:%SZ")
        .to_string();
    apply(&ats, new_at("soon", &soon, "echo later")).await;
    let pending = wait_for(&ats, "soon", |at| phase(at) == "PENDING").await;
    if Timestamp::now() < soon.parse::<Timestamp>().expect("valid schedule") {
        assert!(
            pods.get_opt("soon-pod")
                .await
                .expect("pods readable")
                .is_none(),
            "no pod before the schedule"
        );
    }
    assert_eq!(
        condition(&pending, "ScheduleValid"),
        Some(("True", "ValidSchedule"))
    );

    // An invalid schedule: reported, never run.
    apply(&ats, new_at("invalid", "tomorrow", "echo never")).await;

    let done = wait_for(&ats, &sample_name, |at| phase(at) == "DONE").await;
    assert_eq!(
        condition(&done, "Succeeded"),
        Some(("True", "PodSucceeded"))
    );
    assert_eq!(
        condition(&done, "ScheduleValid"),
        Some(("True", "ValidSchedule"))
    );
    let pod = pods
        .get(&format!("{sample_name}-pod"))
        .await
        .expect("the sample's pod exists");
    let owner = &pod.owner_references()[0];
    assert_eq!((owner.kind.as_str(), owner.controller), ("At", Some(true)));
    assert_eq!(Some(&owner.uid), done.metadata.uid.as_ref());
    let spec = pod.spec.as_ref().expect("pod spec");
    assert_eq!(spec.restart_policy.as_deref(), Some("Never"));
    assert_eq!(
        spec.containers[0].command,
        Some(vec!["/bin/sh".into(), "-c".into(), sample_command])
    );
    assert_eq!(
        pod.status.as_ref().and_then(|s| s.phase.as_deref()),
        Some("Succeeded")
    );

    let failed = wait_for(&ats, "failing", |at| phase(at) == "DONE").await;
    assert_eq!(
        condition(&failed, "Succeeded"),
        Some(("False", "PodFailed"))
    );
    let message = condition_message(&failed, "Succeeded");
    assert!(message.contains("exited with code 3"), "{message}");

    let invalid = wait_for(&ats, "invalid", |at| {
        condition(at, "ScheduleValid").is_some()
    })
    .await;
    assert_eq!(phase(&invalid), "PENDING");
    assert_eq!(
        condition(&invalid, "ScheduleValid"),
        Some(("False", "InvalidSchedule"))
    );
    assert!(
        pods.get_opt("invalid-pod")
            .await
            .expect("pods readable")
            .is_none()
    );

    let later = wait_for(&ats, "soon", |at| phase(at) == "DONE").await;
    assert_eq!(
        condition(&later, "Succeeded"),
        Some(("True", "PodSucceeded"))
    );
}

/// The kubelet's part, which envtest does not run: every pod the controller creates runs at
/// once and ends, with exit code 3 when its command says `exit 3`, else 0.
async fn play_kubelet(pods: Api<Pod>) {
    loop {
        for pod in pods
            .list(&Default::default())
            .await
            .map(|l| l.items)
            .unwrap_or_default()
        {
            let phase = pod.status.as_ref().and_then(|s| s.phase.as_deref());
            if matches!(phase, Some("Succeeded" | "Failed")) {
                continue;
            }
            let Some(container) = pod.spec.as_ref().map(|spec| &spec.containers[0]) else {
                continue;
            };
            let command = container.command.clone().unwrap_or_default().join(" ");
            let exit_code = if command.contains("exit 3") { 3 } else { 0 };
            let status = serde_json::json!({"status": {
                "phase": if exit_code == 0 { "Succeeded" } else { "Failed" },
                "containerStatuses": [{
                    "name": container.name,
                    "image": container.image,
                    "imageID": "",
                    "ready": false,
                    "restartCount": 0,
                    "state": {"terminated": {
                        "exitCode": exit_code,
                        "reason": if exit_code == 0 { "Completed" } else { "Error" },
                    }},
                }],
            }});
            if let Err(error) = pods
                .patch_status(
                    &pod.name_any(),
                    &PatchParams::default(),
                    &Patch::Merge(&status),
                )
                .await
            {
                panic!("report pod {} finished: {error}", pod.name_any());
            }
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// Server-side applies every CRD of `config/crd/bases/` and waits until they
/// are established. Returns the names of those that did not exist before.
async fn install_crds(client: &Client) -> Vec<String> {
    let crds: Api<CustomResourceDefinition> = Api::all(client.clone());
    let mut created = Vec::new();
    for crd in load_crds() {
        let name = crd.name_any();
        if crds.get_opt(&name).await.expect("CRDs readable").is_none() {
            created.push(name.clone());
        }
        crds.patch(
            &name,
            &PatchParams::apply(TEST_MANAGER).force(),
            &Patch::Apply(&crd),
        )
        .await
        .expect("CRD applies");
        let established = await_condition(crds.clone(), &name, conditions::is_crd_established());
        tokio::time::timeout(Duration::from_secs(30), established)
            .await
            .expect("CRD established in time")
            .expect("CRD watch works");
    }
    created
}

/// Every CRD of `config/crd/bases/`.
fn load_crds() -> Vec<CustomResourceDefinition> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/config/crd/bases");
    let mut crds = Vec::new();
    for entry in std::fs::read_dir(dir).expect("config/crd/bases is readable") {
        let path = entry.expect("directory entry").path();
        if path.extension().is_none_or(|ext| ext != "yaml") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("CRD file is readable");
        let documents: Vec<serde_json::Value> =
            serde_saphyr::from_multiple(&text).expect("CRD file is YAML");
        crds.extend(
            documents
                .into_iter()
                .filter(|document| !document.is_null())
                .map(|document| serde_json::from_value(document).expect("a CRD")),
        );
    }
    crds
}

/// The At of `config/samples/`.
fn load_sample() -> At {
    serde_saphyr::from_str(include_str!("../config/samples/cnat_v1alpha1_at.yaml"))
        .expect("the sample parses")
}

/// Deletes the namespace (and so the Ats and their pods), and the CRDs this
/// run installed.
async fn cleanup(client: &Client, namespace: &str, crds_created: &[String]) {
    let namespaces: Api<Namespace> = Api::all(client.clone());
    if let Err(error) = namespaces.delete(namespace, &DeleteParams::default()).await {
        eprintln!("warning: cannot delete namespace {namespace}: {error}");
    }
    let crds: Api<CustomResourceDefinition> = Api::all(client.clone());
    for name in crds_created {
        if let Err(error) = crds.delete(name, &DeleteParams::default()).await {
            eprintln!("warning: cannot delete CRD {name}: {error}");
        }
    }
}

fn new_at(name: &str, schedule: &str, command: &str) -> At {
    At::new(
        name,
        AtSpec {
            schedule: schedule.into(),
            command: command.into(),
        },
    )
}

async fn apply(ats: &Api<At>, at: At) {
    let name = at.name_any();
    // Only the fields this test sets: no status, no server-set metadata.
    let patch = serde_json::json!({
        "apiVersion": "cnat.programming-kubernetes.info/v1alpha1",
        "kind": "At",
        "metadata": {"name": name, "labels": at.labels()},
        "spec": at.spec,
    });
    ats.patch(
        &name,
        &PatchParams::apply(TEST_MANAGER),
        &Patch::Apply(&patch),
    )
    .await
    .unwrap_or_else(|error| panic!("At {name} applies: {error}"));
}

/// Polls the At until `done` holds, failing after [`TIMEOUT`].
async fn wait_for(ats: &Api<At>, name: &str, done: impl Fn(&At) -> bool) -> At {
    let deadline = tokio::time::Instant::now() + TIMEOUT;
    loop {
        let at = ats.get(name).await.expect("At readable");
        if done(&at) {
            return at;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "At {name} did not reach the expected state in time: {:?}",
            at.status
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

fn phase(at: &At) -> &str {
    at.status
        .as_ref()
        .map_or("", |status| status.phase.as_str())
}

fn condition<'a>(at: &'a At, type_: &str) -> Option<(&'a str, &'a str)> {
    let status = at.status.as_ref()?;
    let condition = status.conditions.iter().find(|c| c.type_ == type_)?;
    Some((condition.status.as_str(), condition.reason.as_str()))
}

fn condition_message(at: &At, type_: &str) -> String {
    at.status
        .iter()
        .flat_map(|status| &status.conditions)
        .find(|c| c.type_ == type_)
        .map(|c| c.message.clone())
        .unwrap_or_default()
}
