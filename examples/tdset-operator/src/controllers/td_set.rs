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

//! Controller for the `TDSet` kind.
//!
//! Each TDSet owns a Deployment, named after it, whose replica count follows the
//! hour-of-day schedule in `spec.schedulingConfig` (UTC), and, while `spec.service` is
//! set, a ClusterIP Service of the same name. Both are server-side applied with the
//! project's field manager and garbage collected with the TDSet (no finalizer: there is
//! nothing outside the cluster to release). The status reports `Available`, `Progressing`
//! and `Degraded` from the Deployment's own status and the outcome of the reconcile.
//!
//! The current time is a parameter of [`reconcile_at`]; [`reconcile`] passes the wall
//! clock, the tests pass fixed instants.

use std::{collections::BTreeMap, sync::Arc, time::Duration};

use futures::FutureExt;
use k8s_openapi::{
    api::{
        apps::v1::{Deployment, DeploymentSpec},
        core::v1::{
            Container, ContainerPort, PodSpec, PodTemplateSpec, Service, ServicePort, ServiceSpec,
        },
    },
    apimachinery::pkg::{
        apis::meta::v1::{Condition, LabelSelector, ObjectMeta},
        util::intstr::IntOrString,
    },
    jiff::{Timestamp, tz::TimeZone},
};
use kube::{
    Resource, ResourceExt,
    api::ListParams,
    runtime::{controller::Action, events::EventType, reflector::ObjectRef, watcher},
};
use opgen_runtime::{
    Conditions, Context, ControllerEntry, Error, Result, StatusUpdate, condition_at,
    owned::{apply_owned, controller_reference, delete_owned},
    set_condition,
    watches::{Changed, Watches},
};
use tracing::{debug, instrument, warn};

use crate::api::v1::{Service as ServiceConfig, TDSet, TDSetSpec};

/// Registry entry listed in [`super::CONTROLLERS`].
pub const CONTROLLER: ControllerEntry = ControllerEntry {
    name: NAME,
    run: |ctx| run(ctx).boxed(),
};

/// Name of this controller in logs and metrics.
const NAME: &str = "tdset";

/// Condition type: the Deployment has the minimum number of replicas available.
pub const CONDITION_AVAILABLE: &str = "Available";
/// Condition type: the Deployment is still rolling out or scaling to the scheduled count.
pub const CONDITION_PROGRESSING: &str = "Progressing";
/// Condition type: the last reconcile failed, or the Deployment stopped progressing.
pub const CONDITION_DEGRADED: &str = "Degraded";

/// Name of the single container, and of its port (which the Service targets). Fixed,
/// because container and port names are DNS labels (at most 63 and 15 characters)
/// while a TDSet name may be a 253-character DNS subdomain.
pub const CONTAINER_NAME: &str = "tdset";

/// Label selecting the children this operator creates, so that the owned-object watches
/// only cache those, not every Deployment and Service of the cluster.
const PART_OF_LABEL: (&str, &str) = ("app.kubernetes.io/part-of", "tdset-operator");

/// Added to the time left until the next hour when a requeue waits for it, so that the
/// next reconcile reads the new hour even if the wall clock runs slightly behind the
/// timer.
const HOUR_BOUNDARY_MARGIN: Duration = Duration::from_secs(1);

/// Watches TDSet objects, and the Deployments and Services they own, and reconciles
/// them until shutdown.
///
/// With `--namespace` set, runs one controller per namespace, so namespaced
/// RBAC (a Role per namespace) is enough.
pub async fn run(ctx: Arc<Context>) -> Result<()> {
    let children = watcher::Config::default().labels(&part_of_selector());
    // A TDSet's own changes reconcile it when its spec changes (its generation),
    // not when the status this controller writes does.
    let watches = Watches::new()
        .reconcile_when(Changed::GENERATION)
        .owns::<Deployment>(children.clone())
        .owns::<Service>(children);
    watches.run(ctx, NAME, reconcile, error_policy).await
}

/// Brings one TDSet to its desired state at the current time: see [`reconcile_at`].
///
/// The RBAC markers below list exactly the calls made here and by the watches.
/// Server-side apply needs `create` besides `patch` when the object does not exist
/// yet. `tdsets/finalizers` `update` lets the children's owner references set
/// `blockOwnerDeletion` (OwnerReferencesPermissionEnforcement).
// +kubebuilder:rbac:groups=schedule.rs,resources=tdsets,verbs=list;watch
// +kubebuilder:rbac:groups=schedule.rs,resources=tdsets/status,verbs=patch
// +kubebuilder:rbac:groups=schedule.rs,resources=tdsets/finalizers,verbs=update
// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch;create;patch
// +kubebuilder:rbac:groups=core,resources=services,verbs=get;list;watch;create;patch;delete
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch
pub async fn reconcile(obj: Arc<TDSet>, ctx: Arc<Context>) -> Result<Action> {
    reconcile_at(obj, ctx, Timestamp::now()).await
}

/// Brings one TDSet to its desired state as of `now`.
///
/// A TDSet being deleted is left to the garbage collector, which removes its
/// Deployment and Service through their owner references. A live one gets its
/// children applied, its status updated, and a requeue for the next schedule check.
#[instrument(skip_all, fields(object = %ObjectRef::from_obj(&*obj), %now))]
pub async fn reconcile_at(obj: Arc<TDSet>, ctx: Arc<Context>, now: Timestamp) -> Result<Action> {
    let _timer = ctx.metrics.reconcile_started(NAME);
    if obj.meta().deletion_timestamp.is_some() {
        debug!("being deleted: the garbage collector removes the children");
        ctx.backoff.reset(&*obj);
        return Ok(Action::await_change());
    }
    let action = apply(&obj, &ctx, now).await?;
    ctx.backoff.reset(&*obj);
    Ok(action)
}

/// Reconciles a live TDSet: children first, then the status, then the requeue.
async fn apply(obj: &TDSet, ctx: &Context, now: Timestamp) -> Result<Action> {
    let mut desired = obj.status.clone().unwrap_or_default();
    let (deployment, replicas) = match apply_children(obj, ctx, now).await {
        Ok(children) => children,
        Err(error) => {
            // `Degraded` only: the other conditions keep their last values.
            let message = failure_message(obj, &error);
            let mut conditions = Conditions::of(&mut desired.conditions, obj).at(now);
            conditions.set(CONDITION_DEGRADED, "True", &error.reason(), &message);
            if let Err(status_error) = ctx.update_status(obj, &desired).await {
                warn!(%status_error, "failed to record the failure in the status");
            }
            let warning = EventType::Warning;
            ctx.publish_event(obj, warning, "ReconcileFailed", "Reconcile", message)
                .await;
            return Err(error);
        }
    };

    for condition in deployment_conditions(obj, &deployment, replicas, now) {
        set_condition(&mut desired.conditions, condition);
    }
    if ctx.update_status(obj, &desired).await? == StatusUpdate::Gone {
        return Ok(Action::await_change());
    }
    Ok(Action::requeue(requeue_after(&obj.spec, now)))
}

/// Applies the Deployment with the replica count scheduled for `now`, then the
/// Service. Returns the Deployment as the API server stored it, and the replica count.
async fn apply_children(obj: &TDSet, ctx: &Context, now: Timestamp) -> Result<(Deployment, i32)> {
    let name = obj.name_any();
    let hour = utc_hour(now);
    let replicas = scheduled_replicas(&obj.spec, hour)?;
    let applied = apply_owned(ctx, obj, build_deployment(obj, replicas)?).await?;

    let normal = EventType::Normal;
    match applied
        .previous
        .map(|previous| previous.spec.and_then(|spec| spec.replicas))
    {
        None => {
            let note =
                format!("Created Deployment for the TDSet: ({name}) with {replicas} replicas");
            ctx.publish_event(obj, normal, "DeploymentCreated", "Create", note)
                .await;
        }
        Some(previous) if previous != Some(replicas) => {
            let previous = previous.map_or_else(|| "unset".to_owned(), |n| n.to_string());
            let note = format!(
                "Updated replica for the TDSet ({name}): {previous} -> {replicas} at {hour:02}:00 UTC"
            );
            ctx.publish_event(obj, normal, "DeploymentScaled", "Scale", note)
                .await;
        }
        Some(_) => {}
    }

    apply_service(obj, ctx).await?;
    Ok((applied.object, replicas))
}

/// Applies the Service while `spec.service` is set; deletes the one this TDSet
/// controls once it is unset. A same-named Service it does not control is never
/// touched.
async fn apply_service(obj: &TDSet, ctx: &Context) -> Result<()> {
    let name = obj.name_any();
    let normal = EventType::Normal;
    if let Some(config) = &obj.spec.service {
        if apply_owned(ctx, obj, build_service(obj, config)?)
            .await?
            .created()
        {
            let note = format!(
                "Created Service for the TDSet: ({name}) on port {}",
                config.port
            );
            ctx.publish_event(obj, normal, "ServiceCreated", "Create", note)
                .await;
        }
        return Ok(());
    }
    let children = ListParams::default().labels(&part_of_selector());
    for _ in delete_owned::<Service, _>(ctx, obj, &children, |_| false).await? {
        let note = format!("Deleted Service of the TDSet: ({name}): spec.service is unset");
        ctx.publish_event(obj, normal, "ServiceDeleted", "Delete", note)
            .await;
    }
    Ok(())
}

/// Decides when to retry a failed reconcile: per-object exponential backoff,
/// reset by the next successful reconcile of that object.
pub fn error_policy(obj: Arc<TDSet>, error: &Error, ctx: Arc<Context>) -> Action {
    ctx.error_policy(NAME, &*obj, error)
}

/// The hour of day (0-23) of `now` in UTC.
pub fn utc_hour(now: Timestamp) -> i64 {
    i64::from(now.to_zoned(TimeZone::UTC).hour())
}

/// The replica count the schedule gives at `hour`, as a Deployment replica count.
pub fn scheduled_replicas(spec: &TDSetSpec, hour: i64) -> Result<i32> {
    let replicas = spec.replicas_at(hour);
    i32::try_from(replicas)
        .ok()
        .filter(|replicas| *replicas >= 0)
        .ok_or_else(|| {
            invalid_spec(format!(
                "replica {replicas} of the window containing hour {hour} is out of range"
            ))
        })
}

/// When to check the schedule again: after `intervalMint` minutes, or right after the
/// next full hour if the replica count changes then and that comes sooner.
pub fn requeue_after(spec: &TDSetSpec, now: Timestamp) -> Duration {
    const NANOS_PER_HOUR: i128 = 3_600 * 1_000_000_000;
    let interval = spec.interval();
    let hour = utc_hour(now);
    if spec.replicas_at((hour + 1) % 24) == spec.replicas_at(hour) {
        return interval;
    }
    let left = NANOS_PER_HOUR - now.as_nanosecond().rem_euclid(NANOS_PER_HOUR);
    let until_next_hour = Duration::from_nanos(u64::try_from(left).unwrap_or(u64::MAX));
    interval.min(until_next_hour + HOUR_BOUNDARY_MARGIN)
}

/// The labels of the pods, the Deployment's selector (immutable, so kept as upstream
/// set them), and the metadata of both children.
pub fn labels(obj: &TDSet) -> BTreeMap<String, String> {
    [
        ("app.kubernetes.io/name", "TDSet".to_owned()),
        ("app.kubernetes.io/instance", obj.name_any()),
        ("app.kubernetes.io/version", "v1".to_owned()),
        (PART_OF_LABEL.0, PART_OF_LABEL.1.to_owned()),
        (
            "app.kubernetes.io/created-by",
            "controller-manager".to_owned(),
        ),
    ]
    .into_iter()
    .map(|(key, value)| (key.to_owned(), value))
    .collect()
}

/// The Deployment of `obj` with `replicas` replicas, as this operator applies it.
pub fn build_deployment(obj: &TDSet, replicas: i32) -> Result<Deployment> {
    let labels = labels(obj);
    let container = &obj.spec.container;
    let port = port_number(container.port, "spec.container.port")?;
    Ok(Deployment {
        metadata: child_metadata(obj)?,
        spec: Some(DeploymentSpec {
            replicas: Some(replicas),
            selector: LabelSelector {
                match_labels: Some(labels.clone()),
                ..LabelSelector::default()
            },
            template: PodTemplateSpec {
                metadata: Some(ObjectMeta {
                    labels: Some(labels),
                    ..ObjectMeta::default()
                }),
                spec: Some(PodSpec {
                    containers: vec![Container {
                        name: CONTAINER_NAME.into(),
                        image: Some(container.image.clone()),
                        image_pull_policy: Some("IfNotPresent".into()),
                        ports: Some(vec![ContainerPort {
                            name: Some(CONTAINER_NAME.into()),
                            container_port: port,
                            protocol: Some("TCP".into()),
                            ..ContainerPort::default()
                        }]),
                        ..Container::default()
                    }],
                    ..PodSpec::default()
                }),
            },
            ..DeploymentSpec::default()
        }),
        ..Deployment::default()
    })
}

/// The ClusterIP Service of `obj`: `config.port` forwarded to the container port.
pub fn build_service(obj: &TDSet, config: &ServiceConfig) -> Result<Service> {
    let port = port_number(config.port, "spec.service.port")?;
    Ok(Service {
        metadata: child_metadata(obj)?,
        spec: Some(ServiceSpec {
            selector: Some(labels(obj)),
            ports: Some(vec![ServicePort {
                name: Some(CONTAINER_NAME.into()),
                port,
                protocol: Some("TCP".into()),
                target_port: Some(IntOrString::String(CONTAINER_NAME.into())),
                ..ServicePort::default()
            }]),
            ..ServiceSpec::default()
        }),
        ..Service::default()
    })
}

/// Name, namespace, labels and controller owner reference of a child of `obj`.
fn child_metadata(obj: &TDSet) -> Result<ObjectMeta> {
    Ok(ObjectMeta {
        name: Some(obj.name_any()),
        namespace: obj.namespace(),
        labels: Some(labels(obj)),
        owner_references: Some(vec![controller_reference(obj)?]),
        ..ObjectMeta::default()
    })
}

/// The label selector of the children this operator creates.
fn part_of_selector() -> String {
    format!("{}={}", PART_OF_LABEL.0, PART_OF_LABEL.1)
}

/// `port` as a port number, or an [`Error::InvalidSpec`] naming `field`.
fn port_number(port: i64, field: &str) -> Result<i32> {
    i32::try_from(port)
        .ok()
        .filter(|port| (1..=65535).contains(port))
        .ok_or_else(|| invalid_spec(format!("{field} {port} is not between 1 and 65535")))
}

/// Metric label of a spec value the API server accepted but the children cannot use.
const INVALID_SPEC: &str = "invalid_spec";

fn invalid_spec(message: String) -> Error {
    Error::other(INVALID_SPEC, format!("invalid spec: {message}"))
}

/// `Available`, `Progressing` and `Degraded` after a successful reconcile, read from
/// the Deployment as the API server returned it.
pub fn deployment_conditions(
    obj: &TDSet,
    deployment: &Deployment,
    replicas: i32,
    now: Timestamp,
) -> [Condition; 3] {
    let name = obj.name_any();
    let status = deployment.status.clone().unwrap_or_default();
    let find = |type_: &str| {
        status
            .conditions
            .iter()
            .flatten()
            .find(|condition| condition.type_ == type_)
    };
    let available = status.available_replicas.unwrap_or(0);
    let updated = status.updated_replicas.unwrap_or(0);
    let current = status.replicas.unwrap_or(0);
    let observed = status.observed_generation.unwrap_or(0);
    let generation = deployment.metadata.generation.unwrap_or(0);
    let counts = format!("{available}/{replicas} replicas available");
    let own_generation = obj.meta().generation;
    let condition = |type_: &str, status: &str, reason: &str, message: String| {
        condition_at(type_, status, reason, message, own_generation, now)
    };

    let availability = match find("Available").map(|c| c.status.as_str()) {
        Some("True") => condition(
            CONDITION_AVAILABLE,
            "True",
            "DeploymentAvailable",
            format!("Deployment {name} is available: {counts}"),
        ),
        Some("False") => condition(
            CONDITION_AVAILABLE,
            "False",
            "DeploymentUnavailable",
            format!("Deployment {name} is unavailable: {counts}"),
        ),
        _ => condition(
            CONDITION_AVAILABLE,
            "Unknown",
            "DeploymentPending",
            format!("Waiting for Deployment {name} to report its availability"),
        ),
    };

    let stalled = find("Progressing")
        .filter(|c| c.status == "False" && c.reason.as_deref() == Some("ProgressDeadlineExceeded"));
    let settled = observed >= generation
        && current == replicas
        && updated == replicas
        && available == replicas;
    let (progressing, degraded) = match stalled {
        Some(stalled) => {
            let message = format!(
                "Deployment {name} exceeded its progress deadline: {}",
                stalled.message.as_deref().unwrap_or_default()
            );
            (
                condition(
                    CONDITION_PROGRESSING,
                    "False",
                    "ProgressDeadlineExceeded",
                    message.clone(),
                ),
                condition(
                    CONDITION_DEGRADED,
                    "True",
                    "ProgressDeadlineExceeded",
                    message,
                ),
            )
        }
        None => {
            let progressing = if settled {
                condition(
                    CONDITION_PROGRESSING,
                    "False",
                    "RolloutComplete",
                    format!("Deployment {name} runs {replicas} up-to-date replicas"),
                )
            } else {
                condition(
                    CONDITION_PROGRESSING,
                    "True",
                    "RollingOut",
                    format!(
                        "Deployment {name} is rolling out to {replicas} replicas: {updated} updated, {counts}"
                    ),
                )
            };
            let degraded = condition(
                CONDITION_DEGRADED,
                "False",
                "Reconciled",
                format!("TDSet {name} is reconciled"),
            );
            (progressing, degraded)
        }
    };
    [availability, progressing, degraded]
}

fn failure_message(obj: &TDSet, error: &Error) -> String {
    format!(
        "Failed to reconcile the TDSet ({}): ({error})",
        obj.name_any()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::PROJECT_NAME;
    use crate::api::v1::{Container as ContainerConfig, Scheduling, TDSetStatus};
    use k8s_openapi::api::apps::v1::{DeploymentCondition, DeploymentStatus};
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
    use kube::core::Status;
    use opgen_runtime::testing::{
        ApiServerVerifier, Method, ReceivedRequest, StatusCode, mock_client, test_context,
    };
    use serde_json::json;

    const STATUS_PATH: &str = "/apis/schedule.rs/v1/namespaces/default/tdsets/test/status";
    const EVENTS_PATH: &str = "/apis/events.k8s.io/v1/namespaces/default/events";
    const DEPLOYMENT_PATH: &str = "/apis/apps/v1/namespaces/default/deployments/test";
    const SERVICE_PATH: &str = "/api/v1/namespaces/default/services/test";
    const SERVICES_PATH: &str = "/api/v1/namespaces/default/services";
    const UID: &str = "4c0c9c1e-1b5a-4bd5-9d3b-3f7c3f9d2a10";
    /// 2023-11-15T00:00:00Z.
    const MIDNIGHT: i64 = 1_700_006_400;

    /// `hour:minute` UTC on the test day.
    fn at(hour: i64, minute: i64) -> Timestamp {
        Timestamp::from_second(MIDNIGHT + hour * 3600 + minute * 60).expect("valid timestamp")
    }

    fn window(start_time: i64, end_time: i64, replica: i64) -> Scheduling {
        Scheduling {
            start_time,
            end_time,
            replica,
        }
    }

    /// The upstream sample as the watch delivers it: 5 replicas from 18 to 19,
    /// 1 from 1 to 2, 3 otherwise.
    fn td_set() -> TDSet {
        let mut obj = TDSet::new(
            "test",
            TDSetSpec {
                container: ContainerConfig {
                    image: "crccheck/hello-world".into(),
                    port: 8000,
                },
                service: None,
                scheduling_config: vec![window(18, 19, 5), window(1, 2, 1)],
                default_replica: 3,
                interval_mint: None,
            },
        );
        obj.metadata.namespace = Some("default".into());
        obj.metadata.uid = Some(UID.into());
        obj.metadata.generation = Some(1);
        obj
    }

    fn with_service(mut obj: TDSet, port: i64) -> TDSet {
        obj.spec.service = Some(ServiceConfig { port });
        obj
    }

    fn being_deleted(mut obj: TDSet) -> TDSet {
        obj.metadata.deletion_timestamp = Some(Time(at(12, 0)));
        obj.metadata.finalizers = Some(vec!["foregroundDeletion".into()]);
        obj
    }

    /// `obj` with the status a reconcile at `now` writes for `deployment`.
    fn with_status(
        mut obj: TDSet,
        deployment: &Deployment,
        replicas: i32,
        now: Timestamp,
    ) -> TDSet {
        let mut status = TDSetStatus::default();
        for condition in deployment_conditions(&obj, deployment, replicas, now) {
            set_condition(&mut status.conditions, condition);
        }
        obj.status = Some(status);
        obj
    }

    /// The Deployment as the API server returns it right after creating it.
    fn created(replicas: i32) -> Deployment {
        let mut deployment = build_deployment(&td_set(), replicas).expect("valid spec");
        deployment.metadata.uid = Some("d0c9a3a8-0000-4000-8000-000000000001".into());
        deployment.metadata.generation = Some(1);
        deployment
    }

    /// The Deployment once its controller has rolled out `replicas` replicas.
    fn rolled_out(replicas: i32) -> Deployment {
        let mut deployment = created(replicas);
        deployment.status = Some(DeploymentStatus {
            observed_generation: Some(1),
            replicas: Some(replicas),
            updated_replicas: Some(replicas),
            ready_replicas: Some(replicas),
            available_replicas: Some(replicas),
            conditions: Some(vec![
                deployment_condition("Available", "True", "MinimumReplicasAvailable", ""),
                deployment_condition("Progressing", "True", "NewReplicaSetAvailable", ""),
            ]),
            ..DeploymentStatus::default()
        });
        deployment
    }

    fn deployment_condition(
        type_: &str,
        status: &str,
        reason: &str,
        message: &str,
    ) -> DeploymentCondition {
        DeploymentCondition {
            type_: type_.into(),
            status: status.into(),
            reason: Some(reason.into()),
            message: Some(message.into()),
            ..DeploymentCondition::default()
        }
    }

    /// A same-named Service this TDSet owns.
    fn owned_service(port: i64) -> Service {
        let mut service = build_service(&td_set(), &ServiceConfig { port }).expect("valid port");
        service.metadata.uid = Some("5e7c1d2a-0000-4000-8000-000000000002".into());
        service
    }

    fn not_found(what: &str) -> Status {
        Status::failure(&format!("{what} \"test\" not found"), "NotFound").with_code(404)
    }

    /// Expects the list of the operator's Services (made while `spec.service` is unset,
    /// to delete the TDSet's) and answers with `items`.
    async fn expect_services(server: &mut ApiServerVerifier, items: Vec<Service>) {
        let request = server.expect(Method::GET, SERVICES_PATH).await;
        let selector = "labelSelector=app.kubernetes.io%2Fpart-of%3Dtdset-operator";
        assert!(request.query.contains(selector), "{}", request.query);
        let list =
            json!({"apiVersion": "v1", "kind": "ServiceList", "metadata": {}, "items": items});
        request.respond(StatusCode::OK, &list);
    }

    async fn expect_get_not_found(server: &mut ApiServerVerifier, path: &str, what: &str) {
        server
            .expect(Method::GET, path)
            .await
            .respond(StatusCode::NOT_FOUND, &not_found(what));
    }

    /// Expects a server-side apply by this operator at `path`.
    async fn expect_apply(server: &mut ApiServerVerifier, path: &str) -> ReceivedRequest {
        let request = server.expect(Method::PATCH, path).await;
        assert_eq!(
            request.content_type.as_deref(),
            Some("application/apply-patch+yaml")
        );
        assert!(request.query.contains("fieldManager=tdset-operator"));
        assert!(request.query.contains("force=true"));
        request
    }

    /// Expects the event the Recorder posts for `reason`, accepts it, and returns its note.
    async fn expect_event(
        server: &mut ApiServerVerifier,
        type_: &str,
        reason: &str,
        action: &str,
    ) -> String {
        let request = server.expect(Method::POST, EVENTS_PATH).await;
        let event = request.body.clone();
        assert_eq!(event["type"], type_);
        assert_eq!(event["reason"], reason);
        assert_eq!(event["action"], action);
        assert_eq!(event["reportingController"], PROJECT_NAME);
        assert_eq!(event["regarding"]["kind"], "TDSet");
        assert_eq!(event["regarding"]["name"], "test");
        assert_eq!(event["regarding"]["namespace"], "default");
        request.respond(StatusCode::CREATED, &event);
        event["note"].as_str().expect("note is a string").to_owned()
    }

    /// Expects the status apply and returns its conditions by type.
    async fn expect_status(
        server: &mut ApiServerVerifier,
        respond_with: &TDSet,
    ) -> BTreeMap<String, serde_json::Value> {
        let request = expect_apply(server, STATUS_PATH).await;
        assert_eq!(request.body["apiVersion"], "schedule.rs/v1");
        assert_eq!(request.body["kind"], "TDSet");
        let conditions = request.body["status"]["conditions"]
            .as_array()
            .expect("conditions is a list")
            .iter()
            .map(|c| (c["type"].as_str().expect("type").to_owned(), c.clone()))
            .collect();
        request.respond(StatusCode::OK, respond_with);
        conditions
    }

    fn assert_condition(
        conditions: &BTreeMap<String, serde_json::Value>,
        type_: &str,
        status: &str,
        reason: &str,
    ) {
        let condition = &conditions[type_];
        assert_eq!(condition["status"], status, "{type_}: {condition}");
        assert_eq!(condition["reason"], reason, "{type_}: {condition}");
        assert_eq!(condition["observedGeneration"], 1, "{type_}: {condition}");
    }

    #[tokio::test]
    async fn new_tdset_creates_the_deployment_with_the_scheduled_replicas() {
        let (client, server) = mock_client();
        let now = at(18, 30);
        let scenario = server.run(move |mut server| async move {
            expect_get_not_found(&mut server, DEPLOYMENT_PATH, "deployments.apps").await;

            let request = expect_apply(&mut server, DEPLOYMENT_PATH).await;
            let body = &request.body;
            assert_eq!(body["apiVersion"], "apps/v1");
            assert_eq!(body["kind"], "Deployment");
            assert_eq!(body["metadata"]["name"], "test");
            assert_eq!(body["metadata"]["namespace"], "default");
            assert_eq!(
                body["metadata"]["ownerReferences"],
                json!([{
                    "apiVersion": "schedule.rs/v1",
                    "kind": "TDSet",
                    "name": "test",
                    "uid": UID,
                    "controller": true,
                    "blockOwnerDeletion": true,
                }])
            );
            assert_eq!(body["spec"]["replicas"], 5, "18:30 is in the 18-19 window");
            let labels = json!({
                "app.kubernetes.io/name": "TDSet",
                "app.kubernetes.io/instance": "test",
                "app.kubernetes.io/version": "v1",
                "app.kubernetes.io/part-of": "tdset-operator",
                "app.kubernetes.io/created-by": "controller-manager",
            });
            assert_eq!(body["spec"]["selector"], json!({"matchLabels": labels}));
            assert_eq!(body["spec"]["template"]["metadata"]["labels"], labels);
            assert_eq!(
                body["spec"]["template"]["spec"]["containers"],
                json!([{
                    "name": "tdset",
                    "image": "crccheck/hello-world",
                    "imagePullPolicy": "IfNotPresent",
                    "ports": [{"name": "tdset", "containerPort": 8000, "protocol": "TCP"}],
                }])
            );
            request.respond(StatusCode::CREATED, &created(5));

            let note = expect_event(&mut server, "Normal", "DeploymentCreated", "Create").await;
            assert_eq!(
                note,
                "Created Deployment for the TDSet: (test) with 5 replicas"
            );
            expect_services(&mut server, vec![]).await;

            let conditions = expect_status(&mut server, &td_set()).await;
            assert_eq!(conditions.len(), 3);
            assert_condition(&conditions, "Available", "Unknown", "DeploymentPending");
            assert_condition(&conditions, "Progressing", "True", "RollingOut");
            assert_condition(&conditions, "Degraded", "False", "Reconciled");
            assert_eq!(
                conditions["Available"]["lastTransitionTime"],
                "2023-11-15T18:30:00Z"
            );
            server.expect_no_more_requests().await;
        });

        let action =
            reconcile_at(Arc::new(td_set()), test_context(client, PROJECT_NAME), now).await;

        // The next full hour changes nothing (19-1 is all default) until 1:00.
        assert_eq!(
            action.expect("reconcile succeeds"),
            Action::requeue(Duration::from_secs(5 * 60))
        );
        scenario.verify().await;
    }

    #[tokio::test]
    async fn replicas_change_when_the_hour_moves_into_a_window() {
        let (client, server) = mock_client();
        let before = at(17, 59);
        let now = at(18, 0);
        // Reconciled at 17:59: 3 replicas rolled out, and the status says so.
        let obj = with_status(td_set(), &rolled_out(3), 3, before);
        let scenario = server.run(|mut server| async move {
            server
                .expect(Method::GET, DEPLOYMENT_PATH)
                .await
                .respond(StatusCode::OK, &rolled_out(3));

            let request = expect_apply(&mut server, DEPLOYMENT_PATH).await;
            assert_eq!(request.body["spec"]["replicas"], 5);
            // The API server returns the new spec with the old status.
            let mut scaled = rolled_out(3);
            scaled.spec.as_mut().expect("spec").replicas = Some(5);
            scaled.metadata.generation = Some(2);
            request.respond(StatusCode::OK, &scaled);

            let note = expect_event(&mut server, "Normal", "DeploymentScaled", "Scale").await;
            assert_eq!(
                note,
                "Updated replica for the TDSet (test): 3 -> 5 at 18:00 UTC"
            );
            expect_services(&mut server, vec![]).await;

            let conditions = expect_status(&mut server, &td_set()).await;
            assert_condition(&conditions, "Available", "True", "DeploymentAvailable");
            assert_eq!(
                conditions["Available"]["message"],
                "Deployment test is available: 3/5 replicas available"
            );
            // Unchanged status: the transition time stays at 17:59.
            assert_eq!(
                conditions["Available"]["lastTransitionTime"],
                "2023-11-15T17:59:00Z"
            );
            assert_condition(&conditions, "Progressing", "True", "RollingOut");
            assert_eq!(
                conditions["Progressing"]["lastTransitionTime"],
                "2023-11-15T18:00:00Z"
            );
            assert_condition(&conditions, "Degraded", "False", "Reconciled");
            server.expect_no_more_requests().await;
        });

        let action = reconcile_at(Arc::new(obj), test_context(client, PROJECT_NAME), now).await;

        assert_eq!(
            action.expect("reconcile succeeds"),
            Action::requeue(Duration::from_secs(5 * 60))
        );
        scenario.verify().await;
    }

    #[tokio::test]
    async fn settled_tdset_writes_nothing_but_the_idempotent_apply() {
        let (client, server) = mock_client();
        let now = at(17, 59);
        let obj = with_status(td_set(), &rolled_out(3), 3, at(17, 0));
        let scenario = server.run(|mut server| async move {
            server
                .expect(Method::GET, DEPLOYMENT_PATH)
                .await
                .respond(StatusCode::OK, &rolled_out(3));
            let request = expect_apply(&mut server, DEPLOYMENT_PATH).await;
            assert_eq!(request.body["spec"]["replicas"], 3);
            request.respond(StatusCode::OK, &rolled_out(3));
            expect_services(&mut server, vec![]).await;
            // No event (replicas unchanged) and no status write (conditions unchanged).
            server.expect_no_more_requests().await;
        });

        let action = reconcile_at(Arc::new(obj), test_context(client, PROJECT_NAME), now).await;

        // 18:00 switches to 5 replicas: come back one second after it, not in 5 minutes.
        assert_eq!(
            action.expect("reconcile succeeds"),
            Action::requeue(Duration::from_secs(61))
        );
        scenario.verify().await;
    }

    #[tokio::test]
    async fn requeue_follows_interval_mint() {
        let (client, server) = mock_client();
        let now = at(10, 0);
        let mut obj = with_status(td_set(), &rolled_out(3), 3, at(9, 0));
        obj.spec.interval_mint = Some(15);
        let scenario = server.run(|mut server| async move {
            server
                .expect(Method::GET, DEPLOYMENT_PATH)
                .await
                .respond(StatusCode::OK, &rolled_out(3));
            expect_apply(&mut server, DEPLOYMENT_PATH)
                .await
                .respond(StatusCode::OK, &rolled_out(3));
            expect_services(&mut server, vec![]).await;
            server.expect_no_more_requests().await;
        });

        let action = reconcile_at(Arc::new(obj), test_context(client, PROJECT_NAME), now).await;

        assert_eq!(
            action.expect("reconcile succeeds"),
            Action::requeue(Duration::from_secs(15 * 60))
        );
        scenario.verify().await;
    }

    #[tokio::test]
    async fn service_is_created_when_set() {
        let (client, server) = mock_client();
        let now = at(12, 0);
        let obj = with_status(with_service(td_set(), 80), &rolled_out(3), 3, at(11, 0));
        let scenario = server.run(|mut server| async move {
            server
                .expect(Method::GET, DEPLOYMENT_PATH)
                .await
                .respond(StatusCode::OK, &rolled_out(3));
            expect_apply(&mut server, DEPLOYMENT_PATH)
                .await
                .respond(StatusCode::OK, &rolled_out(3));
            expect_get_not_found(&mut server, SERVICE_PATH, "services").await;

            let request = expect_apply(&mut server, SERVICE_PATH).await;
            let body = &request.body;
            assert_eq!(body["apiVersion"], "v1");
            assert_eq!(body["kind"], "Service");
            assert_eq!(body["metadata"]["name"], "test");
            assert_eq!(body["metadata"]["ownerReferences"][0]["uid"], UID);
            assert_eq!(body["metadata"]["ownerReferences"][0]["controller"], true);
            assert_eq!(
                body["spec"]["selector"]["app.kubernetes.io/instance"],
                "test"
            );
            assert_eq!(
                body["spec"]["ports"],
                json!([{"name": "tdset", "port": 80, "protocol": "TCP", "targetPort": "tdset"}])
            );
            assert!(body["spec"].get("type").is_none(), "ClusterIP by default");
            request.respond(StatusCode::CREATED, &owned_service(80));

            let note = expect_event(&mut server, "Normal", "ServiceCreated", "Create").await;
            assert_eq!(note, "Created Service for the TDSet: (test) on port 80");
            server.expect_no_more_requests().await;
        });

        let action = reconcile_at(Arc::new(obj), test_context(client, PROJECT_NAME), now).await;

        assert_eq!(
            action.expect("reconcile succeeds"),
            Action::requeue(Duration::from_secs(5 * 60))
        );
        scenario.verify().await;
    }

    #[tokio::test]
    async fn owned_service_is_deleted_when_unset() {
        let (client, server) = mock_client();
        let now = at(12, 0);
        let obj = with_status(td_set(), &rolled_out(3), 3, at(11, 0));
        let scenario = server.run(|mut server| async move {
            server
                .expect(Method::GET, DEPLOYMENT_PATH)
                .await
                .respond(StatusCode::OK, &rolled_out(3));
            expect_apply(&mut server, DEPLOYMENT_PATH)
                .await
                .respond(StatusCode::OK, &rolled_out(3));
            expect_services(&mut server, vec![owned_service(80)]).await;

            let request = server.expect(Method::DELETE, SERVICE_PATH).await;
            assert_eq!(
                request.body["preconditions"],
                json!({"uid": "5e7c1d2a-0000-4000-8000-000000000002"})
            );
            request.respond(StatusCode::OK, &owned_service(80));

            let note = expect_event(&mut server, "Normal", "ServiceDeleted", "Delete").await;
            assert_eq!(
                note,
                "Deleted Service of the TDSet: (test): spec.service is unset"
            );
            server.expect_no_more_requests().await;
        });

        let action = reconcile_at(Arc::new(obj), test_context(client, PROJECT_NAME), now).await;

        assert_eq!(
            action.expect("reconcile succeeds"),
            Action::requeue(Duration::from_secs(5 * 60))
        );
        scenario.verify().await;
    }

    #[tokio::test]
    async fn foreign_service_is_left_alone_when_unset() {
        let (client, server) = mock_client();
        let obj = with_status(td_set(), &rolled_out(3), 3, at(11, 0));
        let scenario = server.run(|mut server| async move {
            server
                .expect(Method::GET, DEPLOYMENT_PATH)
                .await
                .respond(StatusCode::OK, &rolled_out(3));
            expect_apply(&mut server, DEPLOYMENT_PATH)
                .await
                .respond(StatusCode::OK, &rolled_out(3));
            let mut foreign = owned_service(80);
            foreign.metadata.owner_references = None;
            expect_services(&mut server, vec![foreign]).await;
            server.expect_no_more_requests().await;
        });

        let action =
            reconcile_at(Arc::new(obj), test_context(client, PROJECT_NAME), at(12, 0)).await;

        assert!(action.is_ok());
        scenario.verify().await;
    }

    #[tokio::test]
    async fn foreign_deployment_is_not_adopted() {
        let (client, server) = mock_client();
        let scenario = server.run(|mut server| async move {
            let mut foreign = rolled_out(2);
            foreign.metadata.owner_references = None;
            server
                .expect(Method::GET, DEPLOYMENT_PATH)
                .await
                .respond(StatusCode::OK, &foreign);

            let conditions = expect_status(&mut server, &td_set()).await;
            assert_eq!(conditions.len(), 1);
            assert_condition(&conditions, "Degraded", "True", "NotOwned");
            assert_eq!(
                conditions["Degraded"]["message"],
                "Failed to reconcile the TDSet (test): (Deployment default/test exists without a controller: not adopting it (delete it if it is stale, or choose another name))"
            );
            expect_event(&mut server, "Warning", "ReconcileFailed", "Reconcile").await;
            server.expect_no_more_requests().await;
        });

        let result = reconcile_at(
            Arc::new(td_set()),
            test_context(client, PROJECT_NAME),
            at(12, 0),
        )
        .await;

        assert!(
            matches!(
                result,
                Err(Error::OwnedByAnother {
                    controller: None,
                    ..
                })
            ),
            "{result:?}"
        );
        scenario.verify().await;
    }

    #[tokio::test]
    async fn failed_apply_is_reported_and_returned_for_a_retry() {
        let (client, server) = mock_client();
        let ctx = test_context(client, PROJECT_NAME);
        let obj = Arc::new(with_status(td_set(), &rolled_out(3), 3, at(11, 0)));
        let scenario = server.run(|mut server| async move {
            server
                .expect(Method::GET, DEPLOYMENT_PATH)
                .await
                .respond(StatusCode::OK, &rolled_out(3));
            let internal =
                Status::failure("etcdserver: request timed out", "InternalError").with_code(500);
            expect_apply(&mut server, DEPLOYMENT_PATH)
                .await
                .respond(StatusCode::INTERNAL_SERVER_ERROR, &internal);

            let conditions = expect_status(&mut server, &td_set()).await;
            assert_condition(&conditions, "Degraded", "True", "ReconcileFailed");
            assert_eq!(
                conditions["Degraded"]["lastTransitionTime"],
                "2023-11-15T12:00:00Z"
            );
            assert!(
                conditions["Degraded"]["message"]
                    .as_str()
                    .expect("message")
                    .contains("etcdserver: request timed out")
            );
            // The other conditions keep their last values.
            assert_condition(&conditions, "Available", "True", "DeploymentAvailable");
            assert_condition(&conditions, "Progressing", "False", "RolloutComplete");
            expect_event(&mut server, "Warning", "ReconcileFailed", "Reconcile").await;
            server.expect_no_more_requests().await;
        });

        let error = reconcile_at(obj.clone(), ctx.clone(), at(12, 0))
            .await
            .expect_err("the error is returned, not swallowed");

        assert!(matches!(error, Error::Kube(kube::Error::Api(ref s)) if s.code == 500));
        assert_eq!(
            error_policy(obj, &error, ctx.clone()),
            Action::requeue(Duration::from_secs(5))
        );
        drop(ctx);
        scenario.verify().await;
    }

    #[tokio::test]
    async fn tdset_deleted_before_the_status_write_ends_quietly() {
        let (client, server) = mock_client();
        let scenario = server.run(|mut server| async move {
            expect_get_not_found(&mut server, DEPLOYMENT_PATH, "deployments.apps").await;
            expect_apply(&mut server, DEPLOYMENT_PATH)
                .await
                .respond(StatusCode::CREATED, &created(3));
            expect_event(&mut server, "Normal", "DeploymentCreated", "Create").await;
            expect_services(&mut server, vec![]).await;
            expect_apply(&mut server, STATUS_PATH)
                .await
                .respond(StatusCode::NOT_FOUND, &not_found("tdsets.schedule.rs"));
            server.expect_no_more_requests().await;
        });

        let action = reconcile_at(
            Arc::new(td_set()),
            test_context(client, PROJECT_NAME),
            at(12, 0),
        )
        .await;

        assert_eq!(
            action.expect("a 404 is not an error"),
            Action::await_change()
        );
        scenario.verify().await;
    }

    #[tokio::test]
    async fn tdset_being_deleted_is_left_to_the_garbage_collector() {
        let (client, server) = mock_client();
        let scenario = server.run(|server| server.expect_no_more_requests());

        let obj = being_deleted(with_service(td_set(), 80));
        let action =
            reconcile_at(Arc::new(obj), test_context(client, PROJECT_NAME), at(18, 0)).await;

        // Nothing is re-applied while the garbage collector deletes the children.
        assert_eq!(action.expect("reconcile succeeds"), Action::await_change());
        scenario.verify().await;
    }

    #[tokio::test]
    async fn error_policy_backs_off_per_object_until_a_success() {
        let (client, server) = mock_client();
        let scenario = server.run(|server| server.expect_no_more_requests());
        let ctx = test_context(client, PROJECT_NAME);
        let obj = Arc::new(being_deleted(td_set()));
        let other = Arc::new(TDSet::new("other", TDSetSpec::default()));
        let error = Error::Kube(kube::Error::Api(
            Status::failure("etcdserver: request timed out", "InternalError")
                .with_code(500)
                .boxed(),
        ));
        let retry_after = |obj: &Arc<TDSet>| error_policy(obj.clone(), &error, ctx.clone());

        assert_eq!(retry_after(&obj), Action::requeue(Duration::from_secs(5)));
        assert_eq!(retry_after(&obj), Action::requeue(Duration::from_secs(10)));
        assert_eq!(retry_after(&obj), Action::requeue(Duration::from_secs(20)));
        assert_eq!(retry_after(&other), Action::requeue(Duration::from_secs(5)));
        let metrics = ctx.metrics.encode();
        assert!(metrics.contains(
            "tdset_operator_reconcile_errors_total{controller=\"tdset\",error=\"kube\"} 4"
        ));

        // A successful reconcile (being deleted: no API calls) resets the backoff.
        reconcile_at(obj.clone(), ctx.clone(), at(12, 0))
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

    #[test]
    fn utc_hour_reads_the_hour_in_utc() {
        assert_eq!(utc_hour(at(0, 0)), 0);
        assert_eq!(utc_hour(at(18, 59)), 18);
        assert_eq!(utc_hour(at(23, 59)), 23);
        assert_eq!(utc_hour(at(24, 0)), 0);
    }

    #[test]
    fn scheduled_replicas_at_window_boundaries() {
        let mut spec = td_set().spec;
        spec.scheduling_config.push(window(22, 6, 0));
        assert_eq!(scheduled_replicas(&spec, 17).expect("in range"), 3);
        assert_eq!(scheduled_replicas(&spec, 18).expect("in range"), 5);
        assert_eq!(scheduled_replicas(&spec, 19).expect("in range"), 3);
        // 1-2 comes first and wins over 22-6 at 1:00.
        assert_eq!(scheduled_replicas(&spec, 1).expect("in range"), 1);
        assert_eq!(scheduled_replicas(&spec, 23).expect("in range"), 0);
        assert_eq!(scheduled_replicas(&spec, 5).expect("in range"), 0);
        assert_eq!(scheduled_replicas(&spec, 6).expect("in range"), 3);
    }

    #[test]
    fn scheduled_replicas_reject_counts_beyond_i32() {
        let mut spec = td_set().spec;
        spec.scheduling_config = vec![window(0, 0, 1), window(12, 13, i64::from(i32::MAX) + 1)];
        assert!(matches!(
            scheduled_replicas(&spec, 12),
            Err(Error::Other {
                label: INVALID_SPEC,
                ..
            })
        ));
        assert_eq!(scheduled_replicas(&spec, 13).expect("default"), 3);
    }

    #[test]
    fn requeue_waits_for_the_next_hour_only_when_the_count_changes_then() {
        let mut spec = td_set().spec;
        // 17:59:30 -> 18:00 switches 3 -> 5: 30 s plus the margin.
        let just_before =
            Timestamp::from_second(MIDNIGHT + 17 * 3600 + 59 * 60 + 30).expect("valid timestamp");
        assert_eq!(requeue_after(&spec, just_before), Duration::from_secs(31));
        // 18:57 -> 19:00 switches 5 -> 3.
        assert_eq!(requeue_after(&spec, at(18, 57)), Duration::from_secs(181));
        // 12:58 -> 13:00 changes nothing: the plain interval.
        assert_eq!(requeue_after(&spec, at(12, 58)), Duration::from_secs(300));
        // Far from the switch, the interval is shorter.
        assert_eq!(requeue_after(&spec, at(17, 0)), Duration::from_secs(300));
        spec.interval_mint = Some(120);
        assert_eq!(requeue_after(&spec, at(17, 0)), Duration::from_secs(3601));
        assert_eq!(requeue_after(&spec, at(12, 0)), Duration::from_secs(7200));
    }

    #[test]
    fn deployment_uses_a_fixed_container_name_and_the_spec_port() {
        let mut obj = td_set();
        obj.metadata.name =
            Some("a.name-with.dots-that-is-longer-than-a-dns-label-of-63-characters".into());
        let deployment = build_deployment(&obj, 0).expect("valid spec");
        let spec = deployment.spec.expect("spec");
        assert_eq!(spec.replicas, Some(0));
        let pod = spec.template.spec.expect("pod spec");
        assert_eq!(pod.containers.len(), 1);
        assert_eq!(pod.containers[0].name, "tdset");
        assert_eq!(
            pod.containers[0].ports.as_ref().expect("ports")[0].container_port,
            8000
        );
        assert_eq!(
            spec.selector.match_labels,
            spec.template.metadata.expect("meta").labels
        );
        assert_eq!(deployment.metadata.labels, spec.selector.match_labels);
    }

    #[test]
    fn children_reject_invalid_ports() {
        let mut obj = td_set();
        obj.spec.container.port = 70000;
        assert!(
            matches!(build_deployment(&obj, 1), Err(Error::Other { label: INVALID_SPEC, source }) if source.to_string().contains("spec.container.port"))
        );
        assert!(matches!(
            build_service(&td_set(), &ServiceConfig { port: 0 }),
            Err(Error::Other { label: INVALID_SPEC, source }) if source.to_string().contains("spec.service.port")
        ));
    }

    #[test]
    fn children_need_the_owner_uid() {
        let mut obj = td_set();
        obj.metadata.uid = None;
        assert!(matches!(
            build_deployment(&obj, 1),
            Err(Error::MissingObjectKey(".metadata.uid"))
        ));
    }

    #[test]
    fn conditions_follow_the_deployment_status() {
        let obj = td_set();
        let now = at(12, 0);
        let statuses = |deployment: &Deployment, replicas| {
            deployment_conditions(&obj, deployment, replicas, now).map(|c| (c.status, c.reason))
        };
        let pair = |status: &str, reason: &str| (status.to_owned(), reason.to_owned());

        assert_eq!(
            statuses(&rolled_out(3), 3),
            [
                pair("True", "DeploymentAvailable"),
                pair("False", "RolloutComplete"),
                pair("False", "Reconciled"),
            ]
        );
        assert_eq!(
            statuses(&created(3), 3),
            [
                pair("Unknown", "DeploymentPending"),
                pair("True", "RollingOut"),
                pair("False", "Reconciled"),
            ]
        );

        let mut unavailable = rolled_out(3);
        let status = unavailable.status.as_mut().expect("status");
        status.available_replicas = Some(0);
        status.conditions = Some(vec![
            deployment_condition("Available", "False", "MinimumReplicasUnavailable", ""),
            deployment_condition(
                "Progressing",
                "False",
                "ProgressDeadlineExceeded",
                "ReplicaSet \"test-5d4\" has timed out progressing.",
            ),
        ]);
        let conditions = deployment_conditions(&obj, &unavailable, 3, now);
        assert_eq!(
            conditions.clone().map(|c| (c.status, c.reason)),
            [
                pair("False", "DeploymentUnavailable"),
                pair("False", "ProgressDeadlineExceeded"),
                pair("True", "ProgressDeadlineExceeded"),
            ]
        );
        assert_eq!(
            conditions[2].message,
            "Deployment test exceeded its progress deadline: ReplicaSet \"test-5d4\" has timed out progressing."
        );

        // A newer Deployment generation not yet observed is still rolling out.
        let mut stale = rolled_out(3);
        stale.metadata.generation = Some(2);
        assert_eq!(statuses(&stale, 3)[1], pair("True", "RollingOut"));
    }
}
