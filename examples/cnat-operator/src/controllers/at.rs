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

//! Controller for the `At` kind: runs `spec.command` once, in a pod, when
//! `spec.schedule` is reached.
//!
//! The At moves through the phases of `status.phase`:
//!
//! - `PENDING` (or no phase yet): parse `spec.schedule`. An invalid schedule is
//!   reported (condition `ScheduleValid=False` and a Warning event) and waits
//!   for a spec change. A future one requeues after exactly the time left. A due
//!   one switches to `RUNNING` and goes on with it in the same reconcile.
//! - `RUNNING`: create, once, the pod `<at-name>-pod` that runs the command
//!   through `/bin/sh -c`, then wait for it (owned pods are watched). When the
//!   pod has succeeded or failed, switch to `DONE` and record the outcome in the
//!   condition `Succeeded`.
//! - `DONE`: terminal, nothing to do.
//!
//! There is no finalizer, as upstream: the pod is garbage collected through its
//! owner reference and nothing outside the cluster needs cleaning up.

use std::{collections::BTreeMap, sync::Arc, time::Duration};

use futures::FutureExt;
use k8s_openapi::{
    api::core::v1::{Container, Pod, PodSpec},
    jiff::Timestamp,
};
use kube::{
    Resource, ResourceExt,
    api::ObjectMeta,
    runtime::{controller::Action, events::EventType, reflector::ObjectRef, watcher},
};
use opgen_runtime::{
    Context, ControllerEntry, Error, Result, StatusUpdate, condition_at,
    owned::{controller_reference, create_owned},
    set_condition,
    watches::{Changed, Watches},
};
use tracing::{debug, info, instrument, warn};

use crate::PROJECT_NAME;
use crate::api::v1alpha1::{At, AtStatus, PHASE_DONE, PHASE_PENDING, PHASE_RUNNING};

/// Registry entry listed in [`super::CONTROLLERS`].
pub const CONTROLLER: ControllerEntry = ControllerEntry {
    name: NAME,
    run: |ctx| run(ctx).boxed(),
};

/// Name of this controller in logs and metrics.
const NAME: &str = "at";

/// Condition type: whether `spec.schedule` parses.
pub const CONDITION_SCHEDULE_VALID: &str = "ScheduleValid";
/// Condition type, set when the phase becomes `DONE`: whether the command's pod succeeded.
pub const CONDITION_SUCCEEDED: &str = "Succeeded";

/// Reason of `ScheduleValid=True`.
pub const REASON_VALID_SCHEDULE: &str = "ValidSchedule";
/// Reason of `ScheduleValid=False`, and of the Warning event reporting it.
pub const REASON_INVALID_SCHEDULE: &str = "InvalidSchedule";
/// Reason of `Succeeded=True`, and of the Normal event reporting it.
pub const REASON_POD_SUCCEEDED: &str = "PodSucceeded";
/// Reason of `Succeeded=False`, and of the Warning event reporting it.
pub const REASON_POD_FAILED: &str = "PodFailed";
/// Reason of the event published when the command's pod is created.
pub const REASON_POD_CREATED: &str = "PodCreated";
/// Reason of the Warning event about a `<at-name>-pod` this At does not control.
pub const REASON_POD_CONFLICT: &str = "PodConflict";

/// The only layout `spec.schedule` accepts (Go layout `2006-01-02T15:04:05Z`).
pub const SCHEDULE_LAYOUT: &str = "YYYY-MM-DDTHH:MM:SSZ";

/// Image of the command's container. Upstream uses the untagged `busybox`.
pub const POD_IMAGE: &str = "busybox:1.37";
/// Name of the command's container, as upstream.
pub const CONTAINER_NAME: &str = "busybox";
/// Upstream's pod label, `app: <at-name>`.
pub const APP_LABEL: &str = "app";
/// Label on every pod this operator creates; the pod watch selects on it.
pub const MANAGED_BY_LABEL: &str = "app.kubernetes.io/managed-by";

/// Requeue period while the pod runs. The pod watch triggers a reconcile on
/// every change anyway; this is a safety net against missed events.
const RESYNC_PERIOD: Duration = Duration::from_secs(5 * 60);

/// Watches At objects, and the pods they own, and reconciles them until shutdown.
///
/// With `--namespace` set, runs one controller per namespace, so namespaced
/// RBAC (a Role per namespace) is enough. Only pods carrying
/// [`MANAGED_BY_LABEL`] are watched, not every pod of the cluster.
pub async fn run(ctx: Arc<Context>) -> Result<()> {
    let pods = watcher::Config::default()
        .labels(&format!("{MANAGED_BY_LABEL}={PROJECT_NAME}"))
        .any_semantic();
    // An At's own changes reconcile it when its spec changes (its generation),
    // not when the phase this controller writes does: each phase's step
    // continues in the reconcile that wrote it, or waits for its pod or a requeue.
    let watches = Watches::new()
        .reconcile_when(Changed::GENERATION)
        .owns::<Pod>(pods);
    watches.run(ctx, NAME, reconcile, error_policy).await
}

/// Moves one At through its phases; see the module documentation.
///
/// The RBAC markers below list exactly the calls made here and by the watches.
/// `ats/finalizers` `update` is needed because the pod's owner reference sets
/// `blockOwnerDeletion` (OwnerReferencesPermissionEnforcement).
#[instrument(skip_all, fields(object = %ObjectRef::from_obj(&*obj)))]
// +kubebuilder:rbac:groups=cnat.programming-kubernetes.info,resources=ats,verbs=list;watch
// +kubebuilder:rbac:groups=cnat.programming-kubernetes.info,resources=ats/status,verbs=patch
// +kubebuilder:rbac:groups=cnat.programming-kubernetes.info,resources=ats/finalizers,verbs=update
// +kubebuilder:rbac:groups="",resources=pods,verbs=get;list;watch;create
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch
pub async fn reconcile(obj: Arc<At>, ctx: Arc<Context>) -> Result<Action> {
    reconcile_at(obj, ctx, Timestamp::now()).await
}

/// [`reconcile`] with the current time passed in, so tests control the clock.
async fn reconcile_at(obj: Arc<At>, ctx: Arc<Context>, now: Timestamp) -> Result<Action> {
    let _timer = ctx.metrics.reconcile_started(NAME);
    let action = apply(&obj, &ctx, now).await?;
    ctx.backoff.reset(&*obj);
    Ok(action)
}

/// Dispatches on the phase.
async fn apply(obj: &At, ctx: &Context, now: Timestamp) -> Result<Action> {
    // Only seen with a foreground deletion (the At waits for its pod to go):
    // launching a command now would be wrong.
    if obj.meta().deletion_timestamp.is_some() {
        debug!("At is being deleted, nothing to do");
        return Ok(Action::await_change());
    }
    let status = obj.status.clone().unwrap_or_default();

    match status.phase.as_str() {
        "" | PHASE_PENDING => pending(obj, ctx, status, now).await,
        PHASE_RUNNING => running(obj, ctx, status, now).await,
        PHASE_DONE => {
            debug!("At is done");
            Ok(Action::await_change())
        }
        phase => {
            warn!(phase, "unknown phase, nothing to do");
            Ok(Action::await_change())
        }
    }
}

/// PENDING: waits for the schedule, then switches to RUNNING.
async fn pending(obj: &At, ctx: &Context, mut desired: AtStatus, now: Timestamp) -> Result<Action> {
    desired.phase = PHASE_PENDING.into();
    let generation = obj.meta().generation;

    let schedule = match parse_schedule(&obj.spec.schedule) {
        Ok(schedule) => schedule,
        Err(message) => {
            let (type_, reason) = (CONDITION_SCHEDULE_VALID, REASON_INVALID_SCHEDULE);
            let invalid = condition_at(type_, "False", reason, &message, generation, now);
            set_condition(&mut desired.conditions, invalid);
            // Once per distinct error: a resync or an unrelated change writes and
            // publishes nothing. Only a spec change can fix it, and it triggers a
            // reconcile: no requeue, no retry loop.
            if ctx.update_status(obj, &desired).await? == StatusUpdate::Updated {
                let warning = EventType::Warning;
                ctx.publish_event(obj, warning, reason, "Schedule", message)
                    .await;
            }
            return Ok(Action::await_change());
        }
    };
    let message = format!("the command runs at {}", obj.spec.schedule);
    let (type_, reason) = (CONDITION_SCHEDULE_VALID, REASON_VALID_SCHEDULE);
    let valid = condition_at(type_, "True", reason, message, generation, now);
    set_condition(&mut desired.conditions, valid);

    if let Some(wait) = time_left(schedule, now) {
        // Persist PENDING on first sight (upstream leaves the phase empty).
        if ctx.update_status(obj, &desired).await? == StatusUpdate::Gone {
            return Ok(Action::await_change());
        }
        debug!(?wait, "schedule not reached yet");
        return Ok(Action::requeue(wait));
    }

    info!(schedule = %obj.spec.schedule, "schedule reached, running the command");
    desired.phase = PHASE_RUNNING.into();
    if ctx.update_status(obj, &desired).await? == StatusUpdate::Gone {
        return Ok(Action::await_change());
    }
    running(obj, ctx, desired, now).await
}

/// RUNNING: creates the pod once (read from the cache of owned pods once it
/// exists, never updated), then waits for it to finish and switches to DONE.
async fn running(obj: &At, ctx: &Context, mut desired: AtStatus, now: Timestamp) -> Result<Action> {
    let name = pod_name(obj);
    let pod = match create_owned(ctx, obj, build_pod(obj)?).await {
        Ok(created) if created.created() => {
            info!(pod = %name, "pod launched");
            let note = format!("Created pod {name} to run: {}", obj.spec.command);
            let (normal, reason) = (EventType::Normal, REASON_POD_CREATED);
            let related = created.object.object_ref(&());
            ctx.publish_related_event(obj, related, normal, reason, "Run", note)
                .await;
            created.object
        }
        Ok(existing) => existing.object,
        Err(Error::OwnedByAnother { .. }) => {
            let note = format!(
                "Pod {name} exists but is not controlled by this At; delete it so the command can run"
            );
            warn!(pod = %name, "pod is not controlled by this At");
            let (warning, reason) = (EventType::Warning, REASON_POD_CONFLICT);
            ctx.publish_event(obj, warning, reason, "Run", note).await;
            // Foreign pods are not watched: look again later.
            return Ok(Action::requeue(RESYNC_PERIOD));
        }
        Err(error) => return Err(error),
    };

    let Some(outcome) = pod_outcome(&pod) else {
        debug!(pod = %name, "pod has not finished yet");
        return Ok(Action::requeue(RESYNC_PERIOD));
    };

    desired.phase = PHASE_DONE.into();
    let (type_, status, reason) = if outcome.succeeded {
        (EventType::Normal, "True", REASON_POD_SUCCEEDED)
    } else {
        (EventType::Warning, "False", REASON_POD_FAILED)
    };
    let generation = obj.meta().generation;
    let message = &outcome.message;
    let done = condition_at(
        CONDITION_SUCCEEDED,
        status,
        reason,
        message,
        generation,
        now,
    );
    set_condition(&mut desired.conditions, done);
    if ctx.update_status(obj, &desired).await? == StatusUpdate::Gone {
        return Ok(Action::await_change());
    }
    info!(pod = %name, succeeded = outcome.succeeded, "command finished");
    let related = pod.object_ref(&());
    ctx.publish_related_event(obj, related, type_, reason, "Complete", outcome.message)
        .await;
    Ok(Action::await_change())
}

/// Decides when to retry a failed reconcile: per-object exponential backoff,
/// reset by the next successful reconcile of that object.
pub fn error_policy(obj: Arc<At>, error: &Error, ctx: Arc<Context>) -> Action {
    ctx.error_policy(NAME, &*obj, error)
}

/// Parses `spec.schedule`: a UTC time in exactly the layout [`SCHEDULE_LAYOUT`],
/// like upstream's `time.Parse("2006-01-02T15:04:05Z", ...)`. The error is a
/// message for the condition and the event.
pub fn parse_schedule(schedule: &str) -> Result<Timestamp, String> {
    let invalid = |detail: &str| {
        format!(
            "spec.schedule {schedule:?} is not a UTC time in the layout {SCHEDULE_LAYOUT}{detail}"
        )
    };
    if schedule.is_empty() {
        return Err(
            "spec.schedule is empty: set a UTC time in the layout YYYY-MM-DDTHH:MM:SSZ".into(),
        );
    }
    let shape_ok = schedule.len() == SCHEDULE_LAYOUT.len()
        && schedule
            .bytes()
            .zip(SCHEDULE_LAYOUT.bytes())
            .all(|(c, l)| match l {
                b'Y' | b'M' | b'D' | b'H' | b'S' => c.is_ascii_digit(),
                _ => c == l,
            });
    if !shape_ok {
        return Err(invalid(""));
    }
    schedule
        .parse::<Timestamp>()
        .map_err(|error| invalid(&format!(": {error}")))
}

/// How long until `schedule`, or `None` when it is due.
pub fn time_left(schedule: Timestamp, now: Timestamp) -> Option<Duration> {
    let left = schedule.duration_since(now);
    if left.is_positive() {
        Duration::try_from(left).ok()
    } else {
        None
    }
}

/// Name of the At's pod, as upstream.
pub fn pod_name(obj: &At) -> String {
    format!("{}-pod", obj.name_any())
}

/// The one-shot pod running the At's command through `/bin/sh -c`, controlled
/// by the At.
pub fn build_pod(obj: &At) -> Result<Pod> {
    let owner = controller_reference(obj)?;
    let name = obj.name_any();
    let mut labels = BTreeMap::from([(MANAGED_BY_LABEL.to_string(), PROJECT_NAME.to_string())]);
    // A label value is at most 63 characters, an object name up to 253.
    if name.len() <= 63 {
        labels.insert(APP_LABEL.into(), name.clone());
    }
    Ok(Pod {
        metadata: ObjectMeta {
            name: Some(pod_name(obj)),
            namespace: obj.namespace(),
            labels: Some(labels),
            owner_references: Some(vec![owner]),
            ..ObjectMeta::default()
        },
        spec: Some(PodSpec {
            containers: vec![Container {
                name: CONTAINER_NAME.into(),
                image: Some(POD_IMAGE.into()),
                command: Some(vec![
                    "/bin/sh".into(),
                    "-c".into(),
                    obj.spec.command.clone(),
                ]),
                ..Container::default()
            }],
            // Never: a failing command must end in phase Failed, not restart forever.
            restart_policy: Some("Never".into()),
            ..PodSpec::default()
        }),
        ..Pod::default()
    })
}

/// How a finished pod ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PodOutcome {
    /// True for phase `Succeeded`, false for `Failed`.
    pub succeeded: bool,
    /// Human-readable summary for the condition and the event.
    pub message: String,
}

/// The outcome of a pod in phase `Succeeded` or `Failed`; `None` while it has
/// not finished (Pending, Running, Unknown).
pub fn pod_outcome(pod: &Pod) -> Option<PodOutcome> {
    let name = pod.name_any();
    let status = pod.status.as_ref()?;
    match status.phase.as_deref()? {
        "Succeeded" => Some(PodOutcome {
            succeeded: true,
            message: format!("pod {name} succeeded"),
        }),
        "Failed" => {
            let exit = status
                .container_statuses
                .iter()
                .flatten()
                .find_map(|container| {
                    let terminated = container.state.as_ref()?.terminated.as_ref()?;
                    (terminated.exit_code != 0).then(|| {
                        format!(
                            "container {} exited with code {}",
                            container.name, terminated.exit_code
                        )
                    })
                });
            let detail = exit
                .or_else(|| status.message.clone())
                .or_else(|| status.reason.clone());
            let message = match detail {
                Some(detail) => format!("pod {name} failed: {detail}"),
                None => format!("pod {name} failed"),
            };
            Some(PodOutcome {
                succeeded: false,
                message,
            })
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::v1alpha1::AtSpec;
    use k8s_openapi::api::core::v1::{
        ContainerState, ContainerStateTerminated, ContainerStatus, PodStatus,
    };
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, Time};
    use kube::core::Status;
    use opgen_runtime::testing::{
        ApiServerVerifier, Method, StatusCode, mock_client, test_context,
    };
    use opgen_runtime::{MetricLabel, owned::is_controlled_by};
    use serde_json::json;

    const STATUS_PATH: &str =
        "/apis/cnat.programming-kubernetes.info/v1alpha1/namespaces/default/ats/test/status";
    const PODS_PATH: &str = "/api/v1/namespaces/default/pods";
    const POD_PATH: &str = "/api/v1/namespaces/default/pods/test-pod";
    const EVENTS_PATH: &str = "/apis/events.k8s.io/v1/namespaces/default/events";
    const UID: &str = "4c0c9c1e-1b5a-4bd5-9d3b-3f7c3f9d2a10";

    /// The tests' clock: 2026-01-01T00:00:00.25Z.
    fn now() -> Timestamp {
        "2026-01-01T00:00:00.25Z".parse().expect("valid timestamp")
    }

    /// An At as the watch delivers it right after `kubectl apply`.
    fn at(schedule: &str) -> At {
        let mut obj = At::new(
            "test",
            AtSpec {
                schedule: schedule.into(),
                command: "echo YAY > /tmp/out && cat /tmp/out".into(),
            },
        );
        obj.metadata.namespace = Some("default".into());
        obj.metadata.uid = Some(UID.into());
        obj.metadata.generation = Some(1);
        obj
    }

    /// A condition as an earlier reconcile wrote it.
    fn written(type_: &str, status: bool, reason: &str, message: &str) -> Condition {
        let status = if status { "True" } else { "False" };
        let at = Timestamp::from_second(1_700_000_000).expect("valid");
        condition_at(type_, status, reason, message, Some(1), at)
    }

    fn with_status(mut obj: At, phase: &str, conditions: Vec<Condition>) -> At {
        obj.status = Some(AtStatus {
            phase: phase.into(),
            conditions,
        });
        obj
    }

    /// A due At that an earlier reconcile switched to RUNNING.
    fn running_at() -> At {
        let valid = written(
            CONDITION_SCHEDULE_VALID,
            true,
            REASON_VALID_SCHEDULE,
            "the command runs at 2019-04-12T10:12:00Z",
        );
        with_status(at("2019-04-12T10:12:00Z"), PHASE_RUNNING, vec![valid])
    }

    /// The At's pod as the API server returns it, in `phase`.
    fn pod(phase: &str) -> Pod {
        let mut pod = build_pod(&at("2019-04-12T10:12:00Z")).expect("pod builds");
        pod.metadata.uid = Some("0d7e4a4e-7d52-4c36-a8d3-2d5b1f3c9e11".into());
        pod.status = Some(PodStatus {
            phase: Some(phase.into()),
            ..PodStatus::default()
        });
        pod
    }

    fn failed_pod(exit_code: i32) -> Pod {
        let mut pod = pod("Failed");
        pod.status.as_mut().expect("status").container_statuses = Some(vec![ContainerStatus {
            name: CONTAINER_NAME.into(),
            state: Some(ContainerState {
                terminated: Some(ContainerStateTerminated {
                    exit_code,
                    reason: Some("Error".into()),
                    ..ContainerStateTerminated::default()
                }),
                ..ContainerState::default()
            }),
            ..ContainerStatus::default()
        }]);
        pod
    }

    fn api_error(code: u16, reason: &str, message: &str) -> Status {
        Status::failure(message, reason).with_code(code)
    }

    fn not_found(what: &str) -> Status {
        api_error(404, "NotFound", &format!("{what} not found"))
    }

    /// Expects the server-side apply of the status and returns its `status`.
    async fn expect_status_apply(
        server: &mut ApiServerVerifier,
        respond: &At,
    ) -> serde_json::Value {
        let request = server.expect(Method::PATCH, STATUS_PATH).await;
        assert_eq!(
            request.content_type.as_deref(),
            Some("application/apply-patch+yaml")
        );
        assert!(request.query.contains("fieldManager=cnat-operator"));
        assert!(request.query.contains("force=true"));
        assert_eq!(
            request.body["apiVersion"],
            "cnat.programming-kubernetes.info/v1alpha1"
        );
        assert_eq!(request.body["kind"], "At");
        let status = request.body["status"].clone();
        request.respond(StatusCode::OK, respond);
        status
    }

    /// Asserts the condition of `type_` in a status body.
    fn assert_condition(
        status: &serde_json::Value,
        type_: &str,
        value: &str,
        reason: &str,
    ) -> String {
        let conditions = status["conditions"]
            .as_array()
            .expect("conditions is a list");
        let condition = conditions
            .iter()
            .find(|c| c["type"] == type_)
            .unwrap_or_else(|| panic!("no {type_} condition in {status}"));
        assert_eq!(condition["status"], value);
        assert_eq!(condition["reason"], reason);
        assert_eq!(condition["observedGeneration"], 1);
        assert!(condition["lastTransitionTime"].is_string());
        condition["message"].as_str().expect("message").to_owned()
    }

    /// Expects the event the Recorder posts, accepts it, and returns its note.
    async fn expect_event(
        server: &mut ApiServerVerifier,
        type_: &str,
        reason: &str,
        action: &str,
        related_pod: bool,
    ) -> String {
        let request = server.expect(Method::POST, EVENTS_PATH).await;
        let event = &request.body;
        assert_eq!(event["type"], type_);
        assert_eq!(event["reason"], reason);
        assert_eq!(event["action"], action);
        assert_eq!(event["reportingController"], PROJECT_NAME);
        assert_eq!(event["regarding"]["kind"], "At");
        assert_eq!(event["regarding"]["name"], "test");
        assert_eq!(event["regarding"]["namespace"], "default");
        if related_pod {
            assert_eq!(event["related"]["kind"], "Pod");
            assert_eq!(event["related"]["name"], "test-pod");
        } else {
            assert!(event.get("related").is_none_or(|r| r.is_null()));
        }
        let note = event["note"].as_str().expect("note").to_owned();
        let response = event.clone();
        request.respond(StatusCode::CREATED, &response);
        note
    }

    /// Expects the pod creation, asserts the pod, and answers with `pod("Pending")`.
    async fn expect_pod_creation(server: &mut ApiServerVerifier) {
        let request = server.expect(Method::POST, PODS_PATH).await;
        assert!(request.query.contains("fieldManager=cnat-operator"));
        let body = &request.body;
        assert_eq!(body["metadata"]["name"], "test-pod");
        assert_eq!(body["metadata"]["namespace"], "default");
        assert_eq!(
            body["metadata"]["labels"],
            json!({"app": "test", "app.kubernetes.io/managed-by": "cnat-operator"})
        );
        assert_eq!(
            body["metadata"]["ownerReferences"],
            json!([{
                "apiVersion": "cnat.programming-kubernetes.info/v1alpha1",
                "kind": "At",
                "name": "test",
                "uid": UID,
                "controller": true,
                "blockOwnerDeletion": true,
            }])
        );
        assert_eq!(body["spec"]["restartPolicy"], "Never");
        let containers = body["spec"]["containers"].as_array().expect("containers");
        assert_eq!(containers.len(), 1);
        assert_eq!(containers[0]["name"], "busybox");
        assert_eq!(containers[0]["image"], POD_IMAGE);
        assert_eq!(
            containers[0]["command"],
            json!(["/bin/sh", "-c", "echo YAY > /tmp/out && cat /tmp/out"])
        );
        request.respond(StatusCode::CREATED, &pod("Pending"));
    }

    // --- PENDING ---------------------------------------------------------

    #[tokio::test]
    async fn future_schedule_persists_pending_and_requeues_for_the_time_left() {
        let (client, server) = mock_client();
        let obj = at("2026-01-01T00:01:30Z");
        let scenario = server.run(|mut server| async move {
            let status = expect_status_apply(&mut server, &at("2026-01-01T00:01:30Z")).await;
            assert_eq!(status["phase"], "PENDING");
            let message = assert_condition(&status, "ScheduleValid", "True", "ValidSchedule");
            assert_eq!(message, "the command runs at 2026-01-01T00:01:30Z");
            // No pod, no event.
            server.expect_no_more_requests().await;
        });

        let action = reconcile_at(Arc::new(obj), test_context(client, PROJECT_NAME), now()).await;

        // Exactly the time left: 90 s minus the 250 ms already past the second.
        assert_eq!(
            action.expect("reconcile succeeds"),
            Action::requeue(Duration::from_millis(89_750))
        );
        scenario.verify().await;
    }

    #[tokio::test]
    async fn pending_at_with_future_schedule_only_requeues() {
        let (client, server) = mock_client();
        let scenario = server.run(|server| server.expect_no_more_requests());
        let valid = written(
            CONDITION_SCHEDULE_VALID,
            true,
            REASON_VALID_SCHEDULE,
            "the command runs at 2026-01-02T00:00:00Z",
        );
        let obj = with_status(at("2026-01-02T00:00:00Z"), PHASE_PENDING, vec![valid]);

        let action = reconcile_at(Arc::new(obj), test_context(client, PROJECT_NAME), now()).await;

        assert_eq!(
            action.expect("reconcile succeeds"),
            Action::requeue(Duration::from_millis(86_399_750))
        );
        scenario.verify().await;
    }

    #[tokio::test]
    async fn past_schedule_switches_to_running_and_creates_the_pod() {
        let (client, server) = mock_client();
        let scenario = server.run(|mut server| async move {
            let status = expect_status_apply(&mut server, &running_at()).await;
            assert_eq!(status["phase"], "RUNNING");
            assert_condition(&status, "ScheduleValid", "True", "ValidSchedule");

            server
                .expect(Method::GET, POD_PATH)
                .await
                .respond(StatusCode::NOT_FOUND, &not_found("pods \"test-pod\""));
            expect_pod_creation(&mut server).await;
            let note = expect_event(&mut server, "Normal", "PodCreated", "Run", true).await;
            assert_eq!(
                note,
                "Created pod test-pod to run: echo YAY > /tmp/out && cat /tmp/out"
            );
            server.expect_no_more_requests().await;
        });

        // Through the public entry point, with the real clock: 2019 is past.
        let action = reconcile(
            Arc::new(at("2019-04-12T10:12:00Z")),
            test_context(client, PROJECT_NAME),
        )
        .await;

        assert_eq!(
            action.expect("reconcile succeeds"),
            Action::requeue(RESYNC_PERIOD)
        );
        scenario.verify().await;
    }

    #[tokio::test]
    async fn schedule_due_right_now_runs() {
        let (client, server) = mock_client();
        let scenario = server.run(|mut server| async move {
            let status = expect_status_apply(&mut server, &running_at()).await;
            assert_eq!(status["phase"], "RUNNING");
            server
                .expect(Method::GET, POD_PATH)
                .await
                .respond(StatusCode::OK, &pod("Pending"));
            server.expect_no_more_requests().await;
        });
        let exactly_now: Timestamp = "2026-01-01T00:00:00Z".parse().expect("valid");

        let action = reconcile_at(
            Arc::new(at("2026-01-01T00:00:00Z")),
            test_context(client, PROJECT_NAME),
            exactly_now,
        )
        .await;

        assert_eq!(
            action.expect("reconcile succeeds"),
            Action::requeue(RESYNC_PERIOD)
        );
        scenario.verify().await;
    }

    #[tokio::test]
    async fn invalid_schedule_is_reported_once_without_retrying() {
        let (client, server) = mock_client();
        let scenario = server.run(|mut server| async move {
            let status = expect_status_apply(&mut server, &at("tomorrow")).await;
            assert_eq!(status["phase"], "PENDING");
            let message = assert_condition(&status, "ScheduleValid", "False", "InvalidSchedule");
            assert_eq!(
                message,
                "spec.schedule \"tomorrow\" is not a UTC time in the layout YYYY-MM-DDTHH:MM:SSZ"
            );
            let note =
                expect_event(&mut server, "Warning", "InvalidSchedule", "Schedule", false).await;
            assert_eq!(note, message);
            // No pod, and no retry: only a spec change can fix it.
            server.expect_no_more_requests().await;
        });

        let action = reconcile_at(
            Arc::new(at("tomorrow")),
            test_context(client, PROJECT_NAME),
            now(),
        )
        .await;

        assert_eq!(
            action.expect("an invalid schedule is not an error"),
            Action::await_change()
        );
        scenario.verify().await;
    }

    #[tokio::test]
    async fn invalid_schedule_already_reported_writes_nothing() {
        let (client, server) = mock_client();
        let scenario = server.run(|server| server.expect_no_more_requests());
        let message = parse_schedule("2026-13-01T00:00:00Z").expect_err("month 13 is invalid");
        let invalid = written(
            CONDITION_SCHEDULE_VALID,
            false,
            REASON_INVALID_SCHEDULE,
            &message,
        );
        let obj = with_status(at("2026-13-01T00:00:00Z"), PHASE_PENDING, vec![invalid]);

        let action = reconcile_at(Arc::new(obj), test_context(client, PROJECT_NAME), now()).await;

        assert_eq!(action.expect("reconcile succeeds"), Action::await_change());
        scenario.verify().await;
    }

    #[tokio::test]
    async fn fixed_schedule_turns_the_condition_true_again() {
        let (client, server) = mock_client();
        let scenario = server.run(|mut server| async move {
            let status = expect_status_apply(&mut server, &at("2026-01-01T00:01:00Z")).await;
            assert_eq!(status["phase"], "PENDING");
            assert_condition(&status, "ScheduleValid", "True", "ValidSchedule");
            assert_eq!(status["conditions"].as_array().map(Vec::len), Some(1));
            server.expect_no_more_requests().await;
        });
        let invalid = written(
            CONDITION_SCHEDULE_VALID,
            false,
            REASON_INVALID_SCHEDULE,
            "bad",
        );
        let obj = with_status(at("2026-01-01T00:01:00Z"), PHASE_PENDING, vec![invalid]);

        let action = reconcile_at(Arc::new(obj), test_context(client, PROJECT_NAME), now()).await;

        assert_eq!(
            action.expect("reconcile succeeds"),
            Action::requeue(Duration::from_millis(59_750))
        );
        scenario.verify().await;
    }

    // --- RUNNING ---------------------------------------------------------

    #[tokio::test]
    async fn running_at_without_pod_creates_it_without_a_status_write() {
        let (client, server) = mock_client();
        let scenario = server.run(|mut server| async move {
            server
                .expect(Method::GET, POD_PATH)
                .await
                .respond(StatusCode::NOT_FOUND, &not_found("pods \"test-pod\""));
            expect_pod_creation(&mut server).await;
            expect_event(&mut server, "Normal", "PodCreated", "Run", true).await;
            server.expect_no_more_requests().await;
        });

        let action = reconcile_at(
            Arc::new(running_at()),
            test_context(client, PROJECT_NAME),
            now(),
        )
        .await;

        assert_eq!(
            action.expect("reconcile succeeds"),
            Action::requeue(RESYNC_PERIOD)
        );
        scenario.verify().await;
    }

    #[tokio::test]
    async fn pod_created_meanwhile_is_read_again_not_created_twice() {
        let (client, server) = mock_client();
        let scenario = server.run(|mut server| async move {
            server
                .expect(Method::GET, POD_PATH)
                .await
                .respond(StatusCode::NOT_FOUND, &not_found("pods \"test-pod\""));
            server.expect(Method::POST, PODS_PATH).await.respond(
                StatusCode::CONFLICT,
                &api_error(409, "AlreadyExists", "pods \"test-pod\" already exists"),
            );
            server
                .expect(Method::GET, POD_PATH)
                .await
                .respond(StatusCode::OK, &pod("Running"));
            // No PodCreated event: this reconcile did not create it.
            server.expect_no_more_requests().await;
        });

        let action = reconcile_at(
            Arc::new(running_at()),
            test_context(client, PROJECT_NAME),
            now(),
        )
        .await;

        assert_eq!(
            action.expect("reconcile succeeds"),
            Action::requeue(RESYNC_PERIOD)
        );
        scenario.verify().await;
    }

    #[tokio::test]
    async fn running_pod_keeps_the_at_running() {
        for phase in ["Pending", "Running", "Unknown"] {
            let (client, server) = mock_client();
            let scenario = server.run(move |mut server| async move {
                server
                    .expect(Method::GET, POD_PATH)
                    .await
                    .respond(StatusCode::OK, &pod(phase));
                // No status write, no event, no second pod.
                server.expect_no_more_requests().await;
            });

            let action = reconcile_at(
                Arc::new(running_at()),
                test_context(client, PROJECT_NAME),
                now(),
            )
            .await;

            assert_eq!(
                action.expect("reconcile succeeds"),
                Action::requeue(RESYNC_PERIOD),
                "pod phase {phase}"
            );
            scenario.verify().await;
        }
    }

    #[tokio::test]
    async fn succeeded_pod_makes_the_at_done() {
        let (client, server) = mock_client();
        let scenario = server.run(|mut server| async move {
            server
                .expect(Method::GET, POD_PATH)
                .await
                .respond(StatusCode::OK, &pod("Succeeded"));
            let status = expect_status_apply(&mut server, &running_at()).await;
            assert_eq!(status["phase"], "DONE");
            // The schedule condition is kept.
            assert_condition(&status, "ScheduleValid", "True", "ValidSchedule");
            let message = assert_condition(&status, "Succeeded", "True", "PodSucceeded");
            assert_eq!(message, "pod test-pod succeeded");
            let note = expect_event(&mut server, "Normal", "PodSucceeded", "Complete", true).await;
            assert_eq!(note, message);
            server.expect_no_more_requests().await;
        });

        let action = reconcile_at(
            Arc::new(running_at()),
            test_context(client, PROJECT_NAME),
            now(),
        )
        .await;

        assert_eq!(action.expect("reconcile succeeds"), Action::await_change());
        scenario.verify().await;
    }

    #[tokio::test]
    async fn failed_pod_makes_the_at_done_and_records_the_failure() {
        let (client, server) = mock_client();
        let scenario = server.run(|mut server| async move {
            server
                .expect(Method::GET, POD_PATH)
                .await
                .respond(StatusCode::OK, &failed_pod(2));
            let status = expect_status_apply(&mut server, &running_at()).await;
            assert_eq!(status["phase"], "DONE");
            let message = assert_condition(&status, "Succeeded", "False", "PodFailed");
            assert_eq!(
                message,
                "pod test-pod failed: container busybox exited with code 2"
            );
            let note = expect_event(&mut server, "Warning", "PodFailed", "Complete", true).await;
            assert_eq!(note, message);
            server.expect_no_more_requests().await;
        });

        let action = reconcile_at(
            Arc::new(running_at()),
            test_context(client, PROJECT_NAME),
            now(),
        )
        .await;

        assert_eq!(action.expect("reconcile succeeds"), Action::await_change());
        scenario.verify().await;
    }

    #[tokio::test]
    async fn foreign_pod_of_the_same_name_is_reported_not_used() {
        let (client, server) = mock_client();
        let scenario = server.run(|mut server| async move {
            let mut foreign = pod("Succeeded");
            foreign.metadata.owner_references = None;
            server
                .expect(Method::GET, POD_PATH)
                .await
                .respond(StatusCode::OK, &foreign);
            let note = expect_event(&mut server, "Warning", "PodConflict", "Run", false).await;
            assert!(note.starts_with("Pod test-pod exists but is not controlled by this At"));
            // The foreign pod's phase does not make the At DONE.
            server.expect_no_more_requests().await;
        });

        let action = reconcile_at(
            Arc::new(running_at()),
            test_context(client, PROJECT_NAME),
            now(),
        )
        .await;

        assert_eq!(
            action.expect("reconcile succeeds"),
            Action::requeue(RESYNC_PERIOD)
        );
        scenario.verify().await;
    }

    // --- DONE, unknown phases, deletion ----------------------------------

    #[tokio::test]
    async fn done_is_terminal() {
        let (client, server) = mock_client();
        let scenario = server.run(|server| server.expect_no_more_requests());
        let obj = with_status(at("2019-04-12T10:12:00Z"), PHASE_DONE, vec![]);

        let action = reconcile_at(Arc::new(obj), test_context(client, PROJECT_NAME), now()).await;

        assert_eq!(action.expect("reconcile succeeds"), Action::await_change());
        scenario.verify().await;
    }

    #[tokio::test]
    async fn unknown_phase_is_left_alone() {
        let (client, server) = mock_client();
        let scenario = server.run(|server| server.expect_no_more_requests());
        let obj = with_status(at("2019-04-12T10:12:00Z"), "PAUSED", vec![]);

        let action = reconcile_at(Arc::new(obj), test_context(client, PROJECT_NAME), now()).await;

        assert_eq!(action.expect("reconcile succeeds"), Action::await_change());
        scenario.verify().await;
    }

    #[tokio::test]
    async fn at_being_deleted_launches_nothing() {
        let (client, server) = mock_client();
        let scenario = server.run(|server| server.expect_no_more_requests());
        let mut obj = at("2019-04-12T10:12:00Z");
        obj.metadata.deletion_timestamp = Some(Time(now()));
        obj.metadata.finalizers = Some(vec!["foregroundDeletion".into()]);

        let action = reconcile_at(Arc::new(obj), test_context(client, PROJECT_NAME), now()).await;

        assert_eq!(action.expect("reconcile succeeds"), Action::await_change());
        scenario.verify().await;
    }

    // --- not found and errors ----------------------------------------------

    #[tokio::test]
    async fn at_deleted_before_the_status_write_ends_quietly() {
        let (client, server) = mock_client();
        let scenario = server.run(|mut server| async move {
            server.expect(Method::PATCH, STATUS_PATH).await.respond(
                StatusCode::NOT_FOUND,
                &not_found("ats.cnat.programming-kubernetes.info \"test\""),
            );
            // No pod and no event for an object that no longer exists.
            server.expect_no_more_requests().await;
        });

        let action = reconcile_at(
            Arc::new(at("2019-04-12T10:12:00Z")),
            test_context(client, PROJECT_NAME),
            now(),
        )
        .await;

        assert_eq!(
            action.expect("a 404 is not an error"),
            Action::await_change()
        );
        scenario.verify().await;
    }

    #[tokio::test]
    async fn at_deleted_before_done_is_written_ends_quietly() {
        let (client, server) = mock_client();
        let scenario = server.run(|mut server| async move {
            server
                .expect(Method::GET, POD_PATH)
                .await
                .respond(StatusCode::OK, &pod("Succeeded"));
            server.expect(Method::PATCH, STATUS_PATH).await.respond(
                StatusCode::NOT_FOUND,
                &not_found("ats.cnat.programming-kubernetes.info \"test\""),
            );
            server.expect_no_more_requests().await;
        });

        let action = reconcile_at(
            Arc::new(running_at()),
            test_context(client, PROJECT_NAME),
            now(),
        )
        .await;

        assert_eq!(
            action.expect("a 404 is not an error"),
            Action::await_change()
        );
        scenario.verify().await;
    }

    #[tokio::test]
    async fn status_write_error_fails_the_reconcile() {
        let (client, server) = mock_client();
        let scenario = server.run(|mut server| async move {
            server.expect(Method::PATCH, STATUS_PATH).await.respond(
                StatusCode::INTERNAL_SERVER_ERROR,
                &api_error(500, "InternalError", "etcdserver: request timed out"),
            );
            // No pod before RUNNING is recorded.
            server.expect_no_more_requests().await;
        });

        let result = reconcile_at(
            Arc::new(at("2019-04-12T10:12:00Z")),
            test_context(client, PROJECT_NAME),
            now(),
        )
        .await;

        let error = result.expect_err("a 500 fails the reconcile");
        assert_eq!(error.metric_label(), "kube");
        scenario.verify().await;
    }

    #[tokio::test]
    async fn pod_errors_fail_the_reconcile() {
        // The GET fails.
        let (client, server) = mock_client();
        let scenario = server.run(|mut server| async move {
            server.expect(Method::GET, POD_PATH).await.respond(
                StatusCode::FORBIDDEN,
                &api_error(403, "Forbidden", "pods \"test-pod\" is forbidden"),
            );
            server.expect_no_more_requests().await;
        });
        let result = reconcile_at(
            Arc::new(running_at()),
            test_context(client, PROJECT_NAME),
            now(),
        )
        .await;
        assert!(matches!(result, Err(Error::Kube(_))));
        scenario.verify().await;

        // The creation fails.
        let (client, server) = mock_client();
        let scenario = server.run(|mut server| async move {
            server
                .expect(Method::GET, POD_PATH)
                .await
                .respond(StatusCode::NOT_FOUND, &not_found("pods \"test-pod\""));
            server.expect(Method::POST, PODS_PATH).await.respond(
                StatusCode::INTERNAL_SERVER_ERROR,
                &api_error(500, "InternalError", "etcdserver: request timed out"),
            );
            server.expect_no_more_requests().await;
        });
        let result = reconcile_at(
            Arc::new(running_at()),
            test_context(client, PROJECT_NAME),
            now(),
        )
        .await;
        assert!(matches!(result, Err(Error::Kube(_))));
        scenario.verify().await;
    }

    #[tokio::test]
    async fn error_policy_backs_off_per_object_until_a_success() {
        let (client, server) = mock_client();
        let scenario = server.run(|server| server.expect_no_more_requests());
        let ctx = test_context(client, PROJECT_NAME);
        let obj = Arc::new(with_status(at("2019-04-12T10:12:00Z"), PHASE_DONE, vec![]));
        let other = Arc::new(At::new("other", AtSpec::default()));
        let error = Error::Kube(kube::Error::Api(
            api_error(500, "InternalError", "etcdserver: request timed out").boxed(),
        ));
        let retry_after = |obj: &Arc<At>| error_policy(obj.clone(), &error, ctx.clone());

        assert_eq!(retry_after(&obj), Action::requeue(Duration::from_secs(5)));
        assert_eq!(retry_after(&obj), Action::requeue(Duration::from_secs(10)));
        assert_eq!(retry_after(&obj), Action::requeue(Duration::from_secs(20)));
        assert_eq!(retry_after(&other), Action::requeue(Duration::from_secs(5)));
        let metrics = ctx.metrics.encode();
        assert!(
            metrics.contains(
                "cnat_operator_reconcile_errors_total{controller=\"at\",error=\"kube\"} 4"
            )
        );

        // A successful reconcile (DONE: no API calls) resets the backoff.
        reconcile(obj.clone(), ctx.clone())
            .await
            .expect("reconcile succeeds");
        assert_eq!(retry_after(&obj), Action::requeue(Duration::from_secs(5)));
        assert_eq!(
            retry_after(&other),
            Action::requeue(Duration::from_secs(10))
        );

        drop(ctx);
        scenario.verify().await;
    }

    // --- pure functions ----------------------------------------------------

    #[test]
    fn parse_schedule_accepts_only_the_upstream_layout() {
        assert_eq!(
            parse_schedule("2019-04-12T10:12:00Z"),
            Ok(Timestamp::from_second(1_555_063_920).expect("valid"))
        );
        for rejected in [
            "",
            "tomorrow",
            "2019-04-12T10:12:00+02:00",
            "2019-04-12T10:12:00.5Z",
            "2019-04-12T10:12:00z",
            "2019-04-12 10:12:00Z",
            "2019-4-12T10:12:00Z",
            "2019-04-12T10:12Z",
            " 2019-04-12T10:12:00Z",
            "2019-13-12T10:12:00Z",
            "2019-02-30T10:12:00Z",
            "2019-04-12T24:12:00Z",
        ] {
            assert!(
                parse_schedule(rejected).is_err(),
                "{rejected:?} must be rejected"
            );
        }
        assert_eq!(
            parse_schedule(""),
            Err("spec.schedule is empty: set a UTC time in the layout YYYY-MM-DDTHH:MM:SSZ".into())
        );
        let message = parse_schedule("2019-02-30T10:12:00Z").expect_err("no 30 February");
        assert!(
            message.starts_with(
                "spec.schedule \"2019-02-30T10:12:00Z\" is not a UTC time in the layout YYYY-MM-DDTHH:MM:SSZ: "
            ),
            "{message}"
        );
    }

    #[test]
    fn time_left_is_exact_and_none_when_due() {
        let schedule = parse_schedule("2026-01-01T00:00:10Z").expect("valid");
        assert_eq!(
            time_left(schedule, now()),
            Some(Duration::from_millis(9_750))
        );
        assert_eq!(time_left(schedule, schedule), None);
        let later: Timestamp = "2026-01-01T00:00:11Z".parse().expect("valid");
        assert_eq!(time_left(schedule, later), None);
    }

    #[test]
    fn build_pod_runs_the_command_in_a_shell_once() {
        let pod = build_pod(&at("2019-04-12T10:12:00Z")).expect("pod builds");
        let value = serde_json::to_value(&pod).expect("pod serializes");
        assert_eq!(
            value,
            json!({
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {
                    "name": "test-pod",
                    "namespace": "default",
                    "labels": {"app": "test", "app.kubernetes.io/managed-by": "cnat-operator"},
                    "ownerReferences": [{
                        "apiVersion": "cnat.programming-kubernetes.info/v1alpha1",
                        "kind": "At",
                        "name": "test",
                        "uid": UID,
                        "controller": true,
                        "blockOwnerDeletion": true,
                    }],
                },
                "spec": {
                    "containers": [{
                        "name": "busybox",
                        "image": "busybox:1.37",
                        "command": ["/bin/sh", "-c", "echo YAY > /tmp/out && cat /tmp/out"],
                    }],
                    "restartPolicy": "Never",
                },
            })
        );
        assert!(is_controlled_by(&pod, &at("2019-04-12T10:12:00Z")));
    }

    #[test]
    fn build_pod_handles_empty_commands_and_long_names() {
        let mut obj = at("2019-04-12T10:12:00Z");
        obj.spec.command = String::new();
        obj.metadata.name = Some("a".repeat(64));
        let pod = build_pod(&obj).expect("pod builds");
        let container = &pod.spec.as_ref().expect("spec").containers[0];
        // `sh -c ""` exits 0; upstream produced the invalid command [""].
        assert_eq!(
            container.command,
            Some(vec!["/bin/sh".into(), "-c".into(), String::new()])
        );
        // The name does not fit in a label value: only the managed-by label remains.
        assert_eq!(
            pod.labels(),
            &BTreeMap::from([(MANAGED_BY_LABEL.into(), PROJECT_NAME.into())])
        );
        assert_eq!(pod.name_any(), format!("{}-pod", "a".repeat(64)));
    }

    #[test]
    fn build_pod_needs_the_uid_for_the_owner_reference() {
        let mut obj = at("2019-04-12T10:12:00Z");
        obj.metadata.uid = None;
        assert!(matches!(
            build_pod(&obj),
            Err(Error::MissingObjectKey(".metadata.uid"))
        ));
    }

    #[test]
    fn is_controlled_by_checks_the_controller_uid() {
        let obj = at("2019-04-12T10:12:00Z");
        let mut pod = pod("Running");
        assert!(is_controlled_by(&pod, &obj));

        let owners = pod.metadata.owner_references.as_mut().expect("owners");
        owners[0].controller = Some(false);
        assert!(!is_controlled_by(&pod, &obj));

        let owners = pod.metadata.owner_references.as_mut().expect("owners");
        owners[0].controller = Some(true);
        owners[0].uid = "another-at".into();
        assert!(!is_controlled_by(&pod, &obj));
    }

    #[test]
    fn pod_outcome_covers_every_phase() {
        for phase in ["Pending", "Running", "Unknown"] {
            assert_eq!(pod_outcome(&pod(phase)), None, "{phase}");
        }
        assert_eq!(pod_outcome(&Pod::default()), None);
        assert_eq!(
            pod_outcome(&pod("Succeeded")),
            Some(PodOutcome {
                succeeded: true,
                message: "pod test-pod succeeded".into(),
            })
        );
        assert_eq!(
            pod_outcome(&failed_pod(127)),
            Some(PodOutcome {
                succeeded: false,
                message: "pod test-pod failed: container busybox exited with code 127".into(),
            })
        );
        let mut evicted = pod("Failed");
        let status = evicted.status.as_mut().expect("status");
        status.reason = Some("Evicted".into());
        status.message = Some("The node was low on resource: memory.".into());
        assert_eq!(
            pod_outcome(&evicted).map(|outcome| outcome.message),
            Some("pod test-pod failed: The node was low on resource: memory.".into())
        );
        assert_eq!(
            pod_outcome(&pod("Failed")).map(|outcome| outcome.message),
            Some("pod test-pod failed".into())
        );
    }
}
