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

//! The At controller against a real API server (envtest: etcd and kube-apiserver, no kubelet,
//! no controller-manager), running as the manager's ServiceAccount under the role that
//! `opgen manifests` generates from its `+kubebuilder:rbac` markers: a missing marker fails
//! this test.
//!
//! It installs the CRD from `config/crd/bases/`, applies the sample from `config/samples/`
//! (a past schedule) and more Ats, and checks what the controller writes: the pod it controls,
//! the phases and conditions. No kubelet runs the pods, so the test writes the pod status a
//! kubelet would (succeeded, or failed with exit code 3). An At scheduled two to three seconds ahead
//! stays PENDING without a pod, then gets its pod. Without the envtest binaries
//! (`tools/envtest/setup.sh` of opgen) it prints how to get them and passes, except under
//! `CI=true`.

use opgen_envtest::OperatorClients;
use std::time::Duration;

use cnat_operator::{
    api::v1alpha1::{At, AtSpec},
    controllers::at,
};
use k8s_openapi::{
    api::core::v1::Pod,
    jiff::{SignedDuration, Timestamp},
};
use kube::{
    Api, ResourceExt,
    api::{Patch, PatchParams, PostParams},
};
use opgen_runtime::testing::RunningController;
use serde_json::json;

const SAMPLE: &str = "config/samples/cnat_v1alpha1_at.yaml";
const NAMESPACE: &str = "cnat-envtest";
const TIMEOUT: Duration = Duration::from_secs(30);

#[tokio::test]
async fn ats_run_their_command_under_the_generated_role() {
    opgen_runtime::testing::init_tracing();
    let Some(control_plane) = opgen_envtest::shared_or_skip().await else {
        return;
    };
    let OperatorClients { admin, manager } = control_plane
        .install_operator("config/crd/bases", "config/rbac/role.yaml", NAMESPACE)
        .await
        .expect("install the CRDs and bind the generated role to the manager's ServiceAccount");

    let controller = RunningController::start(
        at::CONTROLLER,
        manager,
        cnat_operator::PROJECT_NAME,
        vec![NAMESPACE.into()],
    );

    let ats: Api<At> = Api::namespaced(admin.clone(), NAMESPACE);
    let pods: Api<Pod> = Api::namespaced(admin.clone(), NAMESPACE);

    // The sample: a schedule in the past, so the command runs right away.
    let applied = opgen_envtest::apply_file(&admin, SAMPLE, NAMESPACE)
        .await
        .expect("the API server accepts the sample");
    let sample_name = applied[0].name_any();
    let sample_uid = applied[0].uid().expect("uid");
    // A failing command must reach DONE too (upstream stayed RUNNING forever).
    create(
        &ats,
        "failing",
        "2019-04-12T10:12:00Z",
        "echo failing; exit 3",
    )
    .await;
    // An invalid schedule: reported, never run.
    create(&ats, "invalid", "tomorrow", "echo never").await;

    // RUNNING: the sample's pod, controlled by it, runs the command once.
    let pod_name = format!("{sample_name}-pod");
    let pod = opgen_envtest::eventually(&format!("pod {pod_name}"), TIMEOUT, || async {
        pods.get_opt(&pod_name).await.ok().flatten()
    })
    .await;
    let owner = &pod.owner_references()[0];
    assert_eq!((owner.kind.as_str(), owner.controller), ("At", Some(true)));
    assert_eq!(owner.uid, sample_uid);
    let spec = pod.spec.as_ref().expect("pod spec");
    assert_eq!(spec.restart_policy.as_deref(), Some("Never"));
    assert_eq!(
        spec.containers[0].command,
        Some(vec!["/bin/sh".into(), "-c".into(), "echo YAY".into()])
    );
    let running = wait_for(&ats, &sample_name, "phase RUNNING", |at| {
        phase(at) == "RUNNING"
    })
    .await;
    assert_eq!(
        condition(&running, "ScheduleValid"),
        Some(("True", "ValidSchedule"))
    );

    // DONE once the pod has succeeded (the status a kubelet would write).
    finish_pod(&pods, &pod_name, 0).await;
    let done = wait_for(&ats, &sample_name, "phase DONE", |at| phase(at) == "DONE").await;
    assert_eq!(
        condition(&done, "Succeeded"),
        Some(("True", "PodSucceeded"))
    );

    // A failed pod: DONE, with the exit code in the condition.
    opgen_envtest::eventually("pod failing-pod", TIMEOUT, || async {
        pods.get_opt("failing-pod").await.ok().flatten()
    })
    .await;
    finish_pod(&pods, "failing-pod", 3).await;
    let failed = wait_for(&ats, "failing", "phase DONE", |at| phase(at) == "DONE").await;
    assert_eq!(
        condition(&failed, "Succeeded"),
        Some(("False", "PodFailed"))
    );
    let message = condition_message(&failed, "Succeeded");
    assert!(message.contains("exited with code 3"), "{message}");

    let invalid = wait_for(&ats, "invalid", "a ScheduleValid condition", |at| {
        condition(at, "ScheduleValid").is_some()
    })
    .await;
    assert_eq!(phase(&invalid), "PENDING");
    assert_eq!(
        condition(&invalid, "ScheduleValid"),
        Some(("False", "InvalidSchedule"))
    );
    assert!(pods.get_opt("invalid-pod").await.expect("get").is_none());

    // A schedule three seconds ahead: PENDING without a pod until then, then its pod.
    let schedule = (Timestamp::now() + SignedDuration::from_secs(3))
        .strftime("%Y-%m-%dT%H:%M:%SZ")
        .to_string();
    let due: Timestamp = schedule.parse().expect("a valid schedule");
    create(&ats, "soon", &schedule, "echo later").await;
    let pending = wait_for(&ats, "soon", "phase PENDING", |at| phase(at) == "PENDING").await;
    assert_eq!(
        condition(&pending, "ScheduleValid"),
        Some(("True", "ValidSchedule"))
    );
    if Timestamp::now() < due - SignedDuration::from_millis(500) {
        assert!(
            pods.get_opt("soon-pod").await.expect("get").is_none(),
            "a pod before the schedule"
        );
    }
    opgen_envtest::eventually("pod soon-pod after its schedule", TIMEOUT, || async {
        pods.get_opt("soon-pod").await.ok().flatten()
    })
    .await;
    assert!(Timestamp::now() >= due, "the pod came before the schedule");
    finish_pod(&pods, "soon-pod", 0).await;
    wait_for(&ats, "soon", "phase DONE", |at| phase(at) == "DONE").await;

    // The pod is created once: a DONE At never recreates a deleted pod.
    pods.delete(&pod_name, &Default::default())
        .await
        .expect("delete the sample's pod");
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert!(pods.get_opt(&pod_name).await.expect("get").is_none());

    controller
        .stop()
        .await
        .expect("the controller stops cleanly");
}

async fn create(ats: &Api<At>, name: &str, schedule: &str, command: &str) {
    let mut at = At::new(
        name,
        AtSpec {
            schedule: schedule.into(),
            command: command.into(),
        },
    );
    at.metadata.namespace = Some(NAMESPACE.into());
    ats.create(&PostParams::default(), &at)
        .await
        .unwrap_or_else(|error| panic!("create At {name}: {error}"));
}

/// Writes the status a kubelet writes when the pod's only container exits with `exit_code`.
async fn finish_pod(pods: &Api<Pod>, name: &str, exit_code: i32) {
    let pod = pods.get(name).await.expect("get the pod");
    let container = &pod.spec.as_ref().expect("pod spec").containers[0];
    let status = json!({"status": {
        "phase": if exit_code == 0 { "Succeeded" } else { "Failed" },
        "containerStatuses": [{
            "name": container.name,
            "image": container.image,
            "imageID": "",
            "ready": false,
            "restartCount": 0,
            "state": {"terminated": {"exitCode": exit_code}},
        }],
    }});
    pods.patch_status(name, &PatchParams::default(), &Patch::Merge(&status))
        .await
        .unwrap_or_else(|error| panic!("write the status of pod {name}: {error}"));
}

/// Polls the At until `done` holds, failing after [`TIMEOUT`] naming `what`.
async fn wait_for(ats: &Api<At>, name: &str, what: &str, done: impl Fn(&At) -> bool) -> At {
    opgen_envtest::eventually(&format!("{what} on At {name}"), TIMEOUT, || async {
        ats.get(name).await.ok().filter(|at| done(at))
    })
    .await
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
