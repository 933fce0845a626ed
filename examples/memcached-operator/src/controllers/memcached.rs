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

//! Controller for the `Memcached` kind.
//!
//! Port of the operator-sdk tutorial's memcached controller: each Memcached gets a
//! Deployment of the same name running `spec.size` memcached pods on
//! `spec.containerPort`, with the image from the `MEMCACHED_IMAGE` environment
//! variable. The Deployment is server-side applied on every reconcile, so any drift
//! (replicas, image, port, ...) is corrected; a same-named Deployment the Memcached
//! does not control is left alone. `Available` and `Degraded` conditions report the
//! outcome, and a finalizer demonstrates cleanup on deletion (see the README).

use std::{collections::BTreeMap, sync::Arc};

use futures::FutureExt;
use k8s_openapi::{
    api::{
        apps::v1::{Deployment, DeploymentSpec},
        core::v1::{
            Capabilities, Container, ContainerPort, PodSecurityContext, PodSpec, PodTemplateSpec,
            SeccompProfile, SecurityContext,
        },
    },
    apimachinery::pkg::apis::meta::v1::{LabelSelector, ObjectMeta},
};
use kube::{
    ResourceExt,
    runtime::{controller::Action, events::EventType, reflector::ObjectRef, watcher},
};
use opgen_runtime::{
    Conditions, Context, ControllerEntry, Error, Result, StatusUpdate, controller,
    owned::{apply_owned, controller_reference},
    watches::{Changed, Watches},
};
use tracing::{debug, instrument, warn};

use crate::api::v1alpha1::Memcached;

/// Registry entry listed in [`super::CONTROLLERS`].
pub const CONTROLLER: ControllerEntry = ControllerEntry {
    name: NAME,
    run: |ctx| run(ctx).boxed(),
};

/// Name of this controller in logs and metrics.
const NAME: &str = "memcached";

/// Kept on every Memcached until the deletion has been reported (event and
/// `Degraded` condition). The Deployment itself is garbage collected through
/// its owner reference.
pub const FINALIZER: &str = "cache.example.com/finalizer";

/// Environment variable holding the memcached image (the operand).
pub const IMAGE_ENV_VAR: &str = "MEMCACHED_IMAGE";

/// Condition type: the Deployment has all `spec.size` replicas available.
pub const CONDITION_AVAILABLE: &str = "Available";

/// Condition type: the operator could not bring the Deployment to the spec, or
/// the Memcached is being finalized.
pub const CONDITION_DEGRADED: &str = "Degraded";

/// Condition reasons. `Reconciling` and `Finalizing` are upstream's; the others
/// name failures that upstream does not report (or reports as `Reconciling`).
/// Failure reasons are also the reasons of the Warning events.
const REASON_RECONCILING: &str = "Reconciling";
const REASON_FINALIZING: &str = "Finalizing";
const REASON_MISSING_IMAGE: &str = "MissingImage";
const REASON_RESOURCE_EXISTS: &str = "ErrResourceExists";
const REASON_APPLY_FAILED: &str = "ApplyFailed";

/// Labels of the memcached pods. The selector holds the stable ones only: it is
/// immutable, so the version label lives on the pod template alone.
const LABEL_NAME: &str = "app.kubernetes.io/name";
const LABEL_INSTANCE: &str = "app.kubernetes.io/instance";
const LABEL_MANAGED_BY: &str = "app.kubernetes.io/managed-by";
const LABEL_VERSION: &str = "app.kubernetes.io/version";
const APP_NAME: &str = "memcached-operator";
const MANAGED_BY: &str = "MemcachedController";

/// Name of the memcached container and of its port.
const CONTAINER_NAME: &str = "memcached";

/// Watches Memcached objects and their Deployments, and reconciles them until shutdown.
///
/// With `--namespace` set, runs one controller per namespace, so namespaced
/// RBAC (a Role per namespace) is enough.
pub async fn run(ctx: Arc<Context>) -> Result<()> {
    // A change to an owned Deployment (its status during a rollout, or
    // someone editing it) reconciles its Memcached: no periodic requeue. Only
    // their metadata is watched and cached: the reconcile reads a Deployment's
    // status from the object its apply returns.
    let deployments = watcher::Config::default().any_semantic();
    // A Memcached's own changes reconcile it when its spec (generation) or its
    // finalizers change: not for the status this controller writes. The
    // finalizer helper waits for the reconcile that adding FINALIZER causes.
    let watches = Watches::new()
        .reconcile_when(Changed::GENERATION | Changed::FINALIZERS)
        .owns_metadata::<Deployment>(deployments);
    watches.run(ctx, NAME, reconcile, error_policy).await
}

/// Brings one Memcached to its desired state.
///
/// Reads the operand image from [`IMAGE_ENV_VAR`] (upstream reads it on every
/// reconcile too) and runs [`reconcile_with_image`].
///
/// The RBAC markers below list exactly the calls made here and by the watches:
/// memcacheds are listed and watched, and patched by the finalizer helper;
/// the status is server-side applied; Deployments are read (get, and
/// list/watch for `owns`) and server-side applied, which is authorized as
/// `patch`, and also as `create` when the Deployment does not exist yet.
/// `memcacheds/finalizers` `update` is needed because the Deployment's owner
/// reference sets `blockOwnerDeletion` (OwnerReferencesPermissionEnforcement).
// +kubebuilder:rbac:groups=cache.example.com,resources=memcacheds,verbs=list;watch;patch
// +kubebuilder:rbac:groups=cache.example.com,resources=memcacheds/status,verbs=patch
// +kubebuilder:rbac:groups=cache.example.com,resources=memcacheds/finalizers,verbs=update
// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch;create;patch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch
pub async fn reconcile(obj: Arc<Memcached>, ctx: Arc<Context>) -> Result<Action> {
    let image = std::env::var(IMAGE_ENV_VAR)
        .ok()
        .filter(|image| !image.trim().is_empty());
    reconcile_with_image(obj, ctx, image.as_deref()).await
}

/// [`reconcile`] with the operand image given (`None`: the variable is unset).
///
/// Runs inside the finalizer helper. A deleted object is handled first: without
/// [`FINALIZER`] there is nothing to do (upstream instead tried to add the
/// finalizer to a deleting object, bug M1), with it `cleanup` runs and the
/// finalizer is removed. A live object first gets [`FINALIZER`] (which triggers
/// the next reconcile), then goes to `apply`.
#[instrument(skip_all, fields(object = %ObjectRef::from_obj(&*obj)))]
pub async fn reconcile_with_image(
    obj: Arc<Memcached>,
    ctx: Arc<Context>,
    image: Option<&str>,
) -> Result<Action> {
    let _timer = ctx.metrics.reconcile_started(NAME);
    let api = ctx.api_for::<Memcached>(&*obj)?;
    let (apply_ctx, cleanup_ctx) = (&*ctx, &*ctx);
    let action = controller::finalizer(
        &api,
        FINALIZER,
        obj.clone(),
        |obj| async move { apply(&obj, apply_ctx, image).await },
        |obj| async move { cleanup(&obj, cleanup_ctx).await },
    )
    .await?;
    ctx.backoff.reset(&*obj);
    Ok(action)
}

/// Reconciles a live Memcached: server-side applies its Deployment and reports
/// the outcome in the status and in events.
///
/// Returns `await_change`: the watches on the Memcached and on its Deployment
/// trigger every further reconcile (upstream's fixed requeues, bug M8, are gone).
/// Failures return an error, so `error_policy` retries with backoff.
async fn apply(obj: &Memcached, ctx: &Context, image: Option<&str>) -> Result<Action> {
    let name = obj.name_any();
    let unavailable = &[(CONDITION_AVAILABLE, "False"), (CONDITION_DEGRADED, "True")];

    // A missing image is reported, never a panic (upstream: Available=False).
    let Some(image) = image else {
        let error = format!("{IMAGE_ENV_VAR} environment variable is not set");
        let error = Error::other("missing_operand_image", error);
        let message =
            format!("Failed to create Deployment for the custom resource ({name}): ({error})");
        return fail(obj, ctx, unavailable, REASON_MISSING_IMAGE, message, error).await;
    };

    // Server-side apply the whole desired Deployment: creates it, and corrects
    // drift of every field we set, not only replicas (upstream bug M5). Never
    // adopt a Deployment someone else created (upstream scaled it, bug M4).
    let applied = match apply_owned(ctx, obj, build_deployment(obj, image)?).await {
        Ok(applied) => applied,
        Err(Error::OwnedByAnother { .. }) => {
            let message =
                format!("Resource {name:?} already exists and is not managed by Memcached");
            let error = Error::other("resource_exists", message.clone());
            return fail(
                obj,
                ctx,
                unavailable,
                REASON_RESOURCE_EXISTS,
                message,
                error,
            )
            .await;
        }
        Err(error) => {
            // Available keeps what was last observed: the old Deployment may serve.
            let message = format!(
                "Failed to apply the Deployment for the custom resource ({name}): ({error})"
            );
            let degraded = &[(CONDITION_DEGRADED, "True")];
            return fail(obj, ctx, degraded, REASON_APPLY_FAILED, message, error).await;
        }
    };

    let size = obj.spec.size();
    let available = (applied.object.status.as_ref())
        .and_then(|status| status.available_replicas)
        .unwrap_or(0);
    let mut desired = obj.status.clone().unwrap_or_default();
    let mut conditions = Conditions::of(&mut desired.conditions, obj);
    if available >= size {
        let message = format!(
            "Deployment for custom resource ({name}) with {size} replicas created successfully"
        );
        conditions.set(CONDITION_AVAILABLE, "True", REASON_RECONCILING, message);
    } else {
        let message = format!(
            "Deployment for custom resource ({name}) has {available} of {size} replicas available"
        );
        conditions.set(CONDITION_AVAILABLE, "False", REASON_RECONCILING, message);
    }
    let message = format!("Deployment for custom resource ({name}) is up to date");
    conditions.set(CONDITION_DEGRADED, "False", REASON_RECONCILING, message);
    if ctx.update_status(obj, &desired).await? == StatusUpdate::Gone {
        return Ok(Action::await_change());
    }

    // A new generation means the apply changed the Deployment's spec.
    let normal = EventType::Normal;
    if applied.created() {
        let note = format!("Created Deployment {name:?}");
        ctx.publish_event(obj, normal, "Created", "Create", note)
            .await;
    } else if applied.changed() {
        let note = format!("Updated Deployment {name:?} to match the spec");
        ctx.publish_event(obj, normal, "Updated", "Update", note)
            .await;
    } else {
        debug!("deployment is up to date");
    }
    Ok(Action::await_change())
}

/// Runs once for a deleted Memcached that still carries [`FINALIZER`].
///
/// Upstream's "finalizer operations" are this Warning event; the Deployment is
/// garbage collected through its owner reference. Upstream writes the status
/// twice (Degraded Unknown, then True); one write of the final state is enough.
async fn cleanup(obj: &Memcached, ctx: &Context) -> Result<Action> {
    let name = obj.name_any();
    let namespace = obj.namespace().unwrap_or_default();
    let note = format!("Custom Resource {name} is being deleted from the namespace {namespace}");
    ctx.publish_event(obj, EventType::Warning, "Deleting", "DeleteCR", note)
        .await;

    let mut desired = obj.status.clone().unwrap_or_default();
    let message =
        format!("Finalizer operations for custom resource {name} were successfully accomplished");
    Conditions::of(&mut desired.conditions, obj).set(
        CONDITION_DEGRADED,
        "True",
        REASON_FINALIZING,
        message,
    );
    let _ = ctx.update_status(obj, &desired).await?;
    Ok(Action::await_change())
}

/// Reports a failed reconcile: sets `conditions` (type, status) with `reason` and
/// `message` (written when they changed), publishes a Warning event with them, and
/// returns `error`, so that `error_policy` retries with backoff.
async fn fail(
    obj: &Memcached,
    ctx: &Context,
    conditions: &[(&str, &str)],
    reason: &str,
    message: String,
    error: Error,
) -> Result<Action> {
    let mut desired = obj.status.clone().unwrap_or_default();
    let mut set = Conditions::of(&mut desired.conditions, obj);
    for (type_, status) in conditions {
        set.set(type_, status, reason, &message);
    }
    match ctx.update_status(obj, &desired).await {
        // Deleted meanwhile: nothing left to report or retry.
        Ok(StatusUpdate::Gone) => return Ok(Action::await_change()),
        Ok(_) => {}
        // The original error matters more; the next attempt writes the status again.
        Err(status_error) => warn!(%status_error, "failed to report the failure in the status"),
    }
    ctx.publish_event(obj, EventType::Warning, reason, "Reconcile", message)
        .await;
    Err(error)
}

/// Decides when to retry a failed reconcile: per-object exponential backoff,
/// reset by the next successful reconcile of that object.
pub fn error_policy(obj: Arc<Memcached>, error: &Error, ctx: Arc<Context>) -> Action {
    ctx.error_policy(NAME, &*obj, error)
}

/// Builds the memcached Deployment of `obj` (upstream's `deploymentForMemcached`).
///
/// Named and namespaced like the Memcached, controlled by it, with
/// `spec.size` replicas of one `memcached` container listening on
/// `spec.containerPort`, and upstream's restricted security settings.
pub fn build_deployment(obj: &Memcached, image: &str) -> Result<Deployment> {
    let name = obj.name_any();
    let owner = controller_reference(obj)?;
    let selector = selector_labels(obj);
    let mut pod_labels = selector.clone();
    if let Some(version) = version_label(image) {
        pod_labels.insert(LABEL_VERSION.into(), version.into());
    }
    Ok(Deployment {
        metadata: ObjectMeta {
            name: Some(name),
            namespace: obj.namespace(),
            owner_references: Some(vec![owner]),
            ..Default::default()
        },
        spec: Some(DeploymentSpec {
            replicas: Some(obj.spec.size()),
            selector: LabelSelector {
                match_labels: Some(selector),
                ..Default::default()
            },
            template: PodTemplateSpec {
                metadata: Some(ObjectMeta {
                    labels: Some(pod_labels),
                    ..Default::default()
                }),
                spec: Some(PodSpec {
                    security_context: Some(PodSecurityContext {
                        run_as_non_root: Some(true),
                        seccomp_profile: Some(SeccompProfile {
                            type_: "RuntimeDefault".into(),
                            ..Default::default()
                        }),
                        ..Default::default()
                    }),
                    containers: vec![Container {
                        name: CONTAINER_NAME.into(),
                        image: Some(image.into()),
                        image_pull_policy: Some("IfNotPresent".into()),
                        security_context: Some(SecurityContext {
                            run_as_non_root: Some(true),
                            run_as_user: Some(1001),
                            allow_privilege_escalation: Some(false),
                            capabilities: Some(Capabilities {
                                drop: Some(vec!["ALL".into()]),
                                ..Default::default()
                            }),
                            ..Default::default()
                        }),
                        ports: Some(vec![ContainerPort {
                            container_port: obj.spec.container_port(),
                            name: Some(CONTAINER_NAME.into()),
                            // The server default, spelled out: it is part of the
                            // key server-side apply merges container ports by.
                            protocol: Some("TCP".into()),
                            ..Default::default()
                        }]),
                        command: Some(
                            ["memcached", "-m=64", "-o", "modern", "-v"]
                                .map(String::from)
                                .into(),
                        ),
                        ..Default::default()
                    }],
                    ..Default::default()
                }),
            },
            ..Default::default()
        }),
        status: None,
    })
}

/// The Deployment's selector: upstream's name and managed-by labels, plus the
/// instance so that two Memcacheds in one namespace do not select each other's
/// pods. The instance is the Memcached's name, or its UID when the name is too
/// long for a label value (names may have 253 characters, label values 63).
fn selector_labels(obj: &Memcached) -> BTreeMap<String, String> {
    let name = obj.name_any();
    let instance = if is_label_value(&name) {
        name
    } else {
        obj.uid().unwrap_or_default()
    };
    BTreeMap::from([
        (LABEL_NAME.into(), APP_NAME.into()),
        (LABEL_INSTANCE.into(), instance),
        (LABEL_MANAGED_BY.into(), MANAGED_BY.into()),
    ])
}

/// The tag of an image reference: `memcached:1.4.36-alpine` → `1.4.36-alpine`.
/// `None` without a tag, e.g. `memcached`, `registry:5000/memcached` (the port
/// is no tag) or `memcached@sha256:…` (upstream panicked or produced an invalid
/// label for these, bug M3).
pub fn image_tag(image: &str) -> Option<&str> {
    let without_digest = image.split('@').next().unwrap_or(image);
    let last_component = without_digest.rsplit('/').next().unwrap_or(without_digest);
    last_component
        .split_once(':')
        .map(|(_, tag)| tag)
        .filter(|tag| !tag.is_empty())
}

/// The `app.kubernetes.io/version` label value for `image`: its tag, when that
/// is a valid label value.
pub fn version_label(image: &str) -> Option<&str> {
    image_tag(image).filter(|tag| is_label_value(tag))
}

/// True for a non-empty valid label value: at most 63 characters, alphanumerics,
/// `-`, `_` and `.`, starting and ending with an alphanumeric.
fn is_label_value(value: &str) -> bool {
    let bytes = value.as_bytes();
    match (bytes.first(), bytes.last()) {
        (Some(first), Some(last)) => {
            bytes.len() <= 63
                && first.is_ascii_alphanumeric()
                && last.is_ascii_alphanumeric()
                && bytes
                    .iter()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::PROJECT_NAME;
    use crate::api::v1alpha1::{MemcachedSpec, MemcachedStatus};
    use k8s_openapi::{
        api::apps::v1::DeploymentStatus,
        apimachinery::pkg::apis::meta::v1::{Condition, Time},
        jiff::Timestamp,
    };
    use kube::{core::Status, runtime::finalizer};
    use opgen_runtime::MetricLabel;
    use opgen_runtime::owned::is_controlled_by;
    use opgen_runtime::testing::{
        ApiServerVerifier, Method, StatusCode, mock_client, test_context,
    };
    use serde_json::Value;
    use serde_json::json;
    use std::time::Duration;

    const OBJECT_PATH: &str = "/apis/cache.example.com/v1alpha1/namespaces/default/memcacheds/test";
    const STATUS_PATH: &str =
        "/apis/cache.example.com/v1alpha1/namespaces/default/memcacheds/test/status";
    const DEPLOYMENT_PATH: &str = "/apis/apps/v1/namespaces/default/deployments/test";
    const EVENTS_PATH: &str = "/apis/events.k8s.io/v1/namespaces/default/events";
    const UID: &str = "4c0c9c1e-1b5a-4bd5-9d3b-3f7c3f9d2a10";
    const IMAGE: &str = "memcached:1.4.36-alpine";

    /// A Memcached as the watch delivers it right after `kubectl apply`.
    fn memcached() -> Memcached {
        let mut obj = Memcached::new(
            "test",
            MemcachedSpec {
                size: Some(2),
                container_port: Some(11211),
            },
        );
        obj.metadata.namespace = Some("default".into());
        obj.metadata.uid = Some(UID.into());
        obj.metadata.generation = Some(1);
        obj
    }

    fn with_finalizer(mut obj: Memcached) -> Memcached {
        obj.finalizers_mut().push(FINALIZER.into());
        obj
    }

    fn being_deleted(mut obj: Memcached) -> Memcached {
        obj.metadata.deletion_timestamp = Some(Time(Timestamp::now()));
        obj
    }

    fn fixed_condition(type_: &str, status: &str, reason: &str, message: &str) -> Condition {
        Condition {
            type_: type_.into(),
            status: status.into(),
            reason: reason.into(),
            message: message.into(),
            observed_generation: Some(1),
            last_transition_time: Time(Timestamp::from_second(1_700_000_000).expect("valid")),
        }
    }

    /// The object as it looks after a successful reconcile with 2 available replicas.
    fn available(mut obj: Memcached) -> Memcached {
        obj.status = Some(MemcachedStatus {
            conditions: vec![
                fixed_condition(
                    "Available",
                    "True",
                    "Reconciling",
                    "Deployment for custom resource (test) with 2 replicas created successfully",
                ),
                fixed_condition(
                    "Degraded",
                    "False",
                    "Reconciling",
                    "Deployment for custom resource (test) is up to date",
                ),
            ],
        });
        obj
    }

    /// The Deployment the operator created for `memcached()`, as the API server
    /// returns it: with a generation and `available` replicas available.
    fn owned_deployment(generation: i64, available: i32) -> Deployment {
        let mut deployment = build_deployment(&memcached(), IMAGE).expect("deployment builds");
        deployment.metadata.generation = Some(generation);
        deployment.metadata.resource_version = Some(format!("{generation}00"));
        deployment.status = Some(DeploymentStatus {
            available_replicas: Some(available),
            ..Default::default()
        });
        deployment
    }

    fn not_found(what: &str) -> Status {
        Status::failure(&format!("{what} \"test\" not found"), "NotFound").with_code(404)
    }

    /// Expects the Deployment GET and answers with `deployment`, or 404.
    async fn expect_get_deployment(server: &mut ApiServerVerifier, deployment: Option<Deployment>) {
        let request = server.expect(Method::GET, DEPLOYMENT_PATH).await;
        match deployment {
            Some(deployment) => request.respond(StatusCode::OK, &deployment),
            None => request.respond(StatusCode::NOT_FOUND, &not_found("deployments.apps")),
        }
    }

    /// Expects the server-side apply of the Deployment, answers with `response`
    /// and returns the applied body.
    async fn expect_apply_deployment(
        server: &mut ApiServerVerifier,
        response: Deployment,
    ) -> Value {
        let request = server.expect(Method::PATCH, DEPLOYMENT_PATH).await;
        assert_eq!(
            request.content_type.as_deref(),
            Some("application/apply-patch+yaml")
        );
        assert!(request.query.contains("fieldManager=memcached-operator"));
        assert!(request.query.contains("force=true"));
        let body = request.body.clone();
        assert_eq!(body["apiVersion"], "apps/v1");
        assert_eq!(body["kind"], "Deployment");
        assert_eq!(body["metadata"]["name"], "test");
        assert_eq!(body["metadata"]["namespace"], "default");
        assert_eq!(
            body["metadata"]["ownerReferences"],
            json!([{
                "apiVersion": "cache.example.com/v1alpha1",
                "kind": "Memcached",
                "name": "test",
                "uid": UID,
                "controller": true,
                "blockOwnerDeletion": true,
            }])
        );
        assert!(body.get("status").is_none());
        request.respond(StatusCode::OK, &response);
        body
    }

    /// Expects the status apply, answers with `obj` and returns the conditions.
    async fn expect_status_patch(server: &mut ApiServerVerifier, obj: Memcached) -> Vec<Value> {
        let request = server.expect(Method::PATCH, STATUS_PATH).await;
        assert_eq!(
            request.content_type.as_deref(),
            Some("application/apply-patch+yaml")
        );
        assert!(request.query.contains("fieldManager=memcached-operator"));
        assert!(request.query.contains("force=true"));
        assert_eq!(request.body["apiVersion"], "cache.example.com/v1alpha1");
        assert_eq!(request.body["kind"], "Memcached");
        let conditions = request.body["status"]["conditions"]
            .as_array()
            .expect("conditions is a list")
            .clone();
        for condition in &conditions {
            assert!(condition["lastTransitionTime"].is_string());
        }
        request.respond(StatusCode::OK, &obj);
        conditions
    }

    /// Asserts a condition of the status patch (all but its transition time).
    fn assert_condition(
        conditions: &[Value],
        type_: &str,
        status: &str,
        reason: &str,
        message: &str,
        generation: i64,
    ) {
        let condition = conditions
            .iter()
            .find(|c| c["type"] == type_)
            .unwrap_or_else(|| panic!("no {type_} condition in {conditions:?}"));
        assert_eq!(condition["status"], status, "{type_}");
        assert_eq!(condition["reason"], reason, "{type_}");
        assert_eq!(condition["message"], message, "{type_}");
        assert_eq!(condition["observedGeneration"], generation, "{type_}");
    }

    /// Expects the event the Recorder posts, accepts it and returns its note.
    async fn expect_event(
        server: &mut ApiServerVerifier,
        type_: &str,
        reason: &str,
        action: &str,
    ) -> String {
        let request = server.expect(Method::POST, EVENTS_PATH).await;
        let event = &request.body;
        assert_eq!(event["type"], type_);
        assert_eq!(event["reason"], reason);
        assert_eq!(event["action"], action);
        assert_eq!(event["reportingController"], PROJECT_NAME);
        assert_eq!(event["regarding"]["kind"], "Memcached");
        assert_eq!(event["regarding"]["name"], "test");
        assert_eq!(event["regarding"]["namespace"], "default");
        let note = event["note"].as_str().expect("note is a string").to_owned();
        let response = event.clone();
        request.respond(StatusCode::CREATED, &response);
        note
    }

    async fn run_reconcile(obj: Memcached, ctx: Arc<Context>) -> Result<Action> {
        reconcile_with_image(Arc::new(obj), ctx, Some(IMAGE)).await
    }

    #[tokio::test]
    async fn new_object_gets_the_finalizer_first() {
        let (client, server) = mock_client();
        let scenario = server.run(|mut server| async move {
            let request = server.expect(Method::PATCH, OBJECT_PATH).await;
            assert_eq!(
                request.content_type.as_deref(),
                Some("application/json-patch+json")
            );
            assert_eq!(
                request.body,
                json!([
                    {"op": "test", "path": "/metadata/finalizers", "value": null},
                    {"op": "add", "path": "/metadata/finalizers", "value": [FINALIZER]},
                ])
            );
            request.respond(StatusCode::OK, &with_finalizer(memcached()));
            server.expect_no_more_requests().await;
        });

        let action = run_reconcile(memcached(), test_context(client, PROJECT_NAME)).await;

        // The finalizer patch triggers the next reconcile, which does the work.
        assert_eq!(action.expect("reconcile succeeds"), Action::await_change());
        scenario.verify().await;
    }

    #[tokio::test]
    async fn deleting_object_without_the_finalizer_is_left_alone() {
        // Upstream bug M1: it tried to add the finalizer, which the API server
        // refuses for an object being deleted, and looped on the error.
        let (client, server) = mock_client();
        let scenario = server.run(|server| server.expect_no_more_requests());

        let action = run_reconcile(
            being_deleted(memcached()),
            test_context(client, PROJECT_NAME),
        )
        .await;

        assert_eq!(action.expect("reconcile succeeds"), Action::await_change());
        scenario.verify().await;
    }

    #[tokio::test]
    async fn missing_deployment_is_created_and_reported() {
        let (client, server) = mock_client();
        let scenario = server.run(|mut server| async move {
            expect_get_deployment(&mut server, None).await;

            let body = expect_apply_deployment(&mut server, owned_deployment(1, 0)).await;
            let spec = &body["spec"];
            assert_eq!(spec["replicas"], 2);
            assert_eq!(
                spec["selector"],
                json!({"matchLabels": {
                    "app.kubernetes.io/name": "memcached-operator",
                    "app.kubernetes.io/instance": "test",
                    "app.kubernetes.io/managed-by": "MemcachedController",
                }})
            );
            assert_eq!(
                spec["template"]["metadata"]["labels"]["app.kubernetes.io/version"],
                "1.4.36-alpine"
            );
            let container = &spec["template"]["spec"]["containers"][0];
            assert_eq!(container["name"], "memcached");
            assert_eq!(container["image"], IMAGE);
            assert_eq!(
                container["ports"],
                json!([{"containerPort": 11211, "name": "memcached", "protocol": "TCP"}])
            );

            let conditions = expect_status_patch(&mut server, with_finalizer(memcached())).await;
            assert_eq!(conditions.len(), 2);
            assert_condition(
                &conditions,
                "Available",
                "False",
                "Reconciling",
                "Deployment for custom resource (test) has 0 of 2 replicas available",
                1,
            );
            assert_condition(
                &conditions,
                "Degraded",
                "False",
                "Reconciling",
                "Deployment for custom resource (test) is up to date",
                1,
            );

            let note = expect_event(&mut server, "Normal", "Created", "Create").await;
            assert_eq!(note, "Created Deployment \"test\"");
            server.expect_no_more_requests().await;
        });

        let action = run_reconcile(
            with_finalizer(memcached()),
            test_context(client, PROJECT_NAME),
        )
        .await;

        // No fixed requeue (upstream bug M8): the Deployment watch brings the next reconcile.
        assert_eq!(action.expect("reconcile succeeds"), Action::await_change());
        scenario.verify().await;
    }

    #[tokio::test]
    async fn available_deployment_makes_the_memcached_available() {
        let (client, server) = mock_client();
        let scenario = server.run(|mut server| async move {
            expect_get_deployment(&mut server, Some(owned_deployment(1, 0))).await;
            expect_apply_deployment(&mut server, owned_deployment(1, 2)).await;

            let conditions = expect_status_patch(&mut server, with_finalizer(memcached())).await;
            assert_condition(
                &conditions,
                "Available",
                "True",
                "Reconciling",
                "Deployment for custom resource (test) with 2 replicas created successfully",
                1,
            );
            assert_condition(
                &conditions,
                "Degraded",
                "False",
                "Reconciling",
                "Deployment for custom resource (test) is up to date",
                1,
            );
            // The apply changed nothing (same generation): no event.
            server.expect_no_more_requests().await;
        });

        let action = run_reconcile(
            with_finalizer(memcached()),
            test_context(client, PROJECT_NAME),
        )
        .await;

        assert_eq!(action.expect("reconcile succeeds"), Action::await_change());
        scenario.verify().await;
    }

    #[tokio::test]
    async fn up_to_date_object_only_reapplies_the_deployment() {
        let (client, server) = mock_client();
        let scenario = server.run(|mut server| async move {
            expect_get_deployment(&mut server, Some(owned_deployment(1, 2))).await;
            expect_apply_deployment(&mut server, owned_deployment(1, 2)).await;
            // Status unchanged and Deployment unchanged: no status write, no event.
            server.expect_no_more_requests().await;
        });

        let obj = available(with_finalizer(memcached()));
        let action = run_reconcile(obj, test_context(client, PROJECT_NAME)).await;

        assert_eq!(action.expect("reconcile succeeds"), Action::await_change());
        scenario.verify().await;
    }

    #[tokio::test]
    async fn resized_memcached_scales_the_deployment() {
        let mut obj = available(with_finalizer(memcached()));
        obj.spec.size = Some(3);
        obj.metadata.generation = Some(2);

        let (client, server) = mock_client();
        let scenario = server.run(|mut server| async move {
            expect_get_deployment(&mut server, Some(owned_deployment(1, 2))).await;

            let mut scaled = owned_deployment(2, 2);
            scaled.spec.as_mut().expect("spec").replicas = Some(3);
            let body = expect_apply_deployment(&mut server, scaled).await;
            assert_eq!(body["spec"]["replicas"], 3);

            let conditions = expect_status_patch(&mut server, with_finalizer(memcached())).await;
            assert_condition(
                &conditions,
                "Available",
                "False",
                "Reconciling",
                "Deployment for custom resource (test) has 2 of 3 replicas available",
                2,
            );
            assert_condition(
                &conditions,
                "Degraded",
                "False",
                "Reconciling",
                "Deployment for custom resource (test) is up to date",
                2,
            );

            let note = expect_event(&mut server, "Normal", "Updated", "Update").await;
            assert_eq!(note, "Updated Deployment \"test\" to match the spec");
            server.expect_no_more_requests().await;
        });

        let action = run_reconcile(obj, test_context(client, PROJECT_NAME)).await;

        // Upstream requeued at once after a resize (bug M8); the watch suffices.
        assert_eq!(action.expect("reconcile succeeds"), Action::await_change());
        scenario.verify().await;
    }

    #[tokio::test]
    async fn image_and_port_drift_is_corrected() {
        // Someone edited the Deployment: upstream only ever corrected replicas (bug M5).
        let mut drifted = owned_deployment(3, 2);
        let container = &mut drifted
            .spec
            .as_mut()
            .expect("spec")
            .template
            .spec
            .as_mut()
            .expect("pod spec")
            .containers[0];
        container.image = Some("memcached:1.6.0".into());
        container.ports.as_mut().expect("ports")[0].container_port = 11311;

        let (client, server) = mock_client();
        let scenario = server.run(|mut server| async move {
            expect_get_deployment(&mut server, Some(drifted)).await;

            let body = expect_apply_deployment(&mut server, owned_deployment(4, 2)).await;
            let template = &body["spec"]["template"];
            assert_eq!(template["spec"]["containers"][0]["image"], IMAGE);
            assert_eq!(
                template["spec"]["containers"][0]["ports"][0]["containerPort"],
                11211
            );
            assert_eq!(
                template["metadata"]["labels"]["app.kubernetes.io/version"],
                "1.4.36-alpine"
            );

            // The status was already right: only the event reports the correction.
            let note = expect_event(&mut server, "Normal", "Updated", "Update").await;
            assert_eq!(note, "Updated Deployment \"test\" to match the spec");
            server.expect_no_more_requests().await;
        });

        let obj = available(with_finalizer(memcached()));
        let action = run_reconcile(obj, test_context(client, PROJECT_NAME)).await;

        assert_eq!(action.expect("reconcile succeeds"), Action::await_change());
        scenario.verify().await;
    }

    #[tokio::test]
    async fn foreign_deployment_is_reported_and_left_alone() {
        // Same name, but created by someone else (no controller reference to us).
        let mut foreign = owned_deployment(1, 1);
        foreign.metadata.owner_references = None;

        let (client, server) = mock_client();
        let scenario = server.run(|mut server| async move {
            expect_get_deployment(&mut server, Some(foreign)).await;

            let message = "Resource \"test\" already exists and is not managed by Memcached";
            let conditions = expect_status_patch(&mut server, with_finalizer(memcached())).await;
            assert_condition(
                &conditions,
                "Available",
                "False",
                "ErrResourceExists",
                message,
                1,
            );
            assert_condition(
                &conditions,
                "Degraded",
                "True",
                "ErrResourceExists",
                message,
                1,
            );
            let note = expect_event(&mut server, "Warning", "ErrResourceExists", "Reconcile").await;
            assert_eq!(note, message);
            // No write to the Deployment.
            server.expect_no_more_requests().await;
        });

        let ctx = test_context(client, PROJECT_NAME);
        let obj = Arc::new(with_finalizer(memcached()));
        let result = reconcile_with_image(obj.clone(), ctx.clone(), Some(IMAGE)).await;

        // An error, like sample-controller: retried with backoff, so the
        // Memcached takes over once the foreign Deployment is gone.
        let error = result.expect_err("a foreign Deployment fails the reconcile");
        assert!(
            matches!(&error, Error::Finalizer(inner) if matches!(inner.as_ref(), finalizer::Error::ApplyFailed(Error::Other { label: "resource_exists", .. }))),
            "{error:?}"
        );
        assert_eq!(
            error_policy(obj, &error, ctx.clone()),
            Action::requeue(Duration::from_secs(5))
        );
        assert!(ctx.metrics.encode().contains(
            "memcached_operator_reconcile_errors_total{controller=\"memcached\",error=\"resource_exists\"} 1"
        ));
        drop(ctx);
        scenario.verify().await;
    }

    #[tokio::test]
    async fn missing_image_is_reported_and_retried_with_backoff() {
        let message = "Failed to create Deployment for the custom resource (test): \
                       (MEMCACHED_IMAGE environment variable is not set)";
        let (client, server) = mock_client();
        let scenario = server.run(move |mut server| async move {
            // No Deployment request at all: there is nothing to apply.
            let conditions = expect_status_patch(&mut server, with_finalizer(memcached())).await;
            assert_condition(
                &conditions,
                "Available",
                "False",
                "MissingImage",
                message,
                1,
            );
            assert_condition(&conditions, "Degraded", "True", "MissingImage", message, 1);
            let note = expect_event(&mut server, "Warning", "MissingImage", "Reconcile").await;
            assert_eq!(note, message);

            // The retry finds the status already reporting it: only the event
            // again, which the Recorder folds into a series of the first one.
            let request = server
                .expect_prefix(Method::PATCH, &format!("{EVENTS_PATH}/test."))
                .await;
            assert_eq!(request.body["series"]["count"], 2);
            let response = request.body.clone();
            request.respond(StatusCode::OK, &response);
            server.expect_no_more_requests().await;
        });

        let ctx = test_context(client, PROJECT_NAME);
        let obj = Arc::new(with_finalizer(memcached()));
        let error = reconcile_with_image(obj.clone(), ctx.clone(), None)
            .await
            .expect_err("a missing image fails the reconcile");
        assert!(
            matches!(&error, Error::Finalizer(inner) if matches!(inner.as_ref(), finalizer::Error::ApplyFailed(Error::Other { label: "missing_operand_image", source }) if source.to_string() == "MEMCACHED_IMAGE environment variable is not set")),
            "{error:?}"
        );
        assert_eq!(
            error_policy(obj.clone(), &error, ctx.clone()),
            Action::requeue(Duration::from_secs(5))
        );

        let mut reported = with_finalizer(memcached());
        reported.status = Some(MemcachedStatus {
            conditions: vec![
                fixed_condition("Available", "False", "MissingImage", message),
                fixed_condition("Degraded", "True", "MissingImage", message),
            ],
        });
        let error = reconcile_with_image(Arc::new(reported), ctx.clone(), None)
            .await
            .expect_err("still failing");
        assert_eq!(
            error_policy(obj, &error, ctx.clone()),
            Action::requeue(Duration::from_secs(10))
        );
        drop(ctx);
        scenario.verify().await;
    }

    #[tokio::test]
    async fn failed_apply_is_reported_and_retried_with_backoff() {
        let (client, server) = mock_client();
        let scenario = server.run(|mut server| async move {
            expect_get_deployment(&mut server, Some(owned_deployment(1, 2))).await;
            let timeout =
                Status::failure("etcdserver: request timed out", "InternalError").with_code(500);
            server
                .expect(Method::PATCH, DEPLOYMENT_PATH)
                .await
                .respond(StatusCode::INTERNAL_SERVER_ERROR, &timeout);

            let conditions = expect_status_patch(&mut server, with_finalizer(memcached())).await;
            // Available keeps what was last observed; Degraded reports the failure.
            assert_condition(
                &conditions,
                "Available",
                "True",
                "Reconciling",
                "Deployment for custom resource (test) with 2 replicas created successfully",
                1,
            );
            let degraded = conditions
                .iter()
                .find(|c| c["type"] == "Degraded")
                .expect("Degraded condition");
            assert_eq!(degraded["status"], "True");
            assert_eq!(degraded["reason"], "ApplyFailed");
            let message = degraded["message"].as_str().expect("message");
            assert!(
                message.starts_with(
                    "Failed to apply the Deployment for the custom resource (test): ("
                ) && message.contains("etcdserver: request timed out"),
                "{message}"
            );
            expect_event(&mut server, "Warning", "ApplyFailed", "Reconcile").await;
            server.expect_no_more_requests().await;
        });

        let ctx = test_context(client, PROJECT_NAME);
        let obj = Arc::new(available(with_finalizer(memcached())));
        let error = reconcile_with_image(obj.clone(), ctx.clone(), Some(IMAGE))
            .await
            .expect_err("the apply failed");
        assert_eq!(error.metric_label(), "kube");
        assert_eq!(
            error_policy(obj, &error, ctx.clone()),
            Action::requeue(Duration::from_secs(5))
        );
        drop(ctx);
        scenario.verify().await;
    }

    #[tokio::test]
    async fn object_deleted_before_status_patch_ends_quietly() {
        let (client, server) = mock_client();
        let scenario = server.run(|mut server| async move {
            expect_get_deployment(&mut server, None).await;
            expect_apply_deployment(&mut server, owned_deployment(1, 0)).await;
            server.expect(Method::PATCH, STATUS_PATH).await.respond(
                StatusCode::NOT_FOUND,
                &not_found("memcacheds.cache.example.com"),
            );
            // No event for an object that no longer exists; the Deployment is
            // garbage collected with it.
            server.expect_no_more_requests().await;
        });

        let action = run_reconcile(
            with_finalizer(memcached()),
            test_context(client, PROJECT_NAME),
        )
        .await;

        assert_eq!(
            action.expect("a 404 is not an error"),
            Action::await_change()
        );
        scenario.verify().await;
    }

    #[tokio::test]
    async fn deleted_object_is_reported_then_released() {
        let (client, server) = mock_client();
        let scenario = server.run(|mut server| async move {
            let note = expect_event(&mut server, "Warning", "Deleting", "DeleteCR").await;
            assert_eq!(
                note,
                "Custom Resource test is being deleted from the namespace default"
            );

            let conditions =
                expect_status_patch(&mut server, being_deleted(with_finalizer(memcached()))).await;
            assert_condition(
                &conditions,
                "Degraded",
                "True",
                "Finalizing",
                "Finalizer operations for custom resource test were successfully accomplished",
                1,
            );
            // The other conditions are kept (the whole status is applied).
            assert_condition(
                &conditions,
                "Available",
                "True",
                "Reconciling",
                "Deployment for custom resource (test) with 2 replicas created successfully",
                1,
            );

            let request = server.expect(Method::PATCH, OBJECT_PATH).await;
            assert_eq!(
                request.content_type.as_deref(),
                Some("application/json-patch+json")
            );
            assert_eq!(
                request.body,
                json!([
                    {"op": "test", "path": "/metadata/finalizers/0", "value": FINALIZER},
                    {"op": "remove", "path": "/metadata/finalizers/0"},
                ])
            );
            request.respond(StatusCode::OK, &being_deleted(memcached()));
            // No Deployment request: garbage collection deletes it.
            server.expect_no_more_requests().await;
        });

        let obj = being_deleted(available(with_finalizer(memcached())));
        let action = run_reconcile(obj, test_context(client, PROJECT_NAME)).await;

        assert_eq!(action.expect("reconcile succeeds"), Action::await_change());
        scenario.verify().await;
    }

    #[tokio::test]
    async fn object_gone_during_cleanup_ends_quietly() {
        let (client, server) = mock_client();
        let scenario = server.run(|mut server| async move {
            expect_event(&mut server, "Warning", "Deleting", "DeleteCR").await;
            let gone = not_found("memcacheds.cache.example.com");
            server
                .expect(Method::PATCH, STATUS_PATH)
                .await
                .respond(StatusCode::NOT_FOUND, &gone);
            server
                .expect(Method::PATCH, OBJECT_PATH)
                .await
                .respond(StatusCode::NOT_FOUND, &gone);
            server.expect_no_more_requests().await;
        });

        let obj = being_deleted(with_finalizer(memcached()));
        let action = run_reconcile(obj, test_context(client, PROJECT_NAME)).await;

        assert_eq!(
            action.expect("a 404 is not an error"),
            Action::await_change()
        );
        scenario.verify().await;
    }

    #[tokio::test]
    async fn error_policy_backs_off_per_object_until_a_success() {
        let (client, server) = mock_client();
        let scenario = server.run(|mut server| async move {
            // The successful reconcile below.
            expect_get_deployment(&mut server, Some(owned_deployment(1, 2))).await;
            expect_apply_deployment(&mut server, owned_deployment(1, 2)).await;
            server.expect_no_more_requests().await;
        });
        let ctx = test_context(client, PROJECT_NAME);
        let obj = Arc::new(available(with_finalizer(memcached())));
        let other = Arc::new(Memcached::new("other", MemcachedSpec::default()));
        let error = Error::Kube(kube::Error::Api(
            Status::failure("etcdserver: request timed out", "InternalError")
                .with_code(500)
                .boxed(),
        ));
        let retry_after = |obj: &Arc<Memcached>| error_policy(obj.clone(), &error, ctx.clone());

        assert_eq!(retry_after(&obj), Action::requeue(Duration::from_secs(5)));
        assert_eq!(retry_after(&obj), Action::requeue(Duration::from_secs(10)));
        assert_eq!(retry_after(&obj), Action::requeue(Duration::from_secs(20)));
        assert_eq!(retry_after(&other), Action::requeue(Duration::from_secs(5)));
        let metrics = ctx.metrics.encode();
        assert!(metrics.contains(
            "memcached_operator_reconcile_errors_total{controller=\"memcached\",error=\"kube\"} 4"
        ));

        // A successful reconcile resets the backoff of that object only.
        reconcile_with_image(obj.clone(), ctx.clone(), Some(IMAGE))
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
    fn deployment_has_the_upstream_shape() {
        let deployment = build_deployment(&memcached(), IMAGE).expect("deployment builds");
        let json = serde_json::to_value(&deployment).expect("serializes");
        assert_eq!(
            json,
            json!({
                "apiVersion": "apps/v1",
                "kind": "Deployment",
                "metadata": {
                    "name": "test",
                    "namespace": "default",
                    "ownerReferences": [{
                        "apiVersion": "cache.example.com/v1alpha1",
                        "kind": "Memcached",
                        "name": "test",
                        "uid": UID,
                        "controller": true,
                        "blockOwnerDeletion": true,
                    }],
                },
                "spec": {
                    "replicas": 2,
                    "selector": {"matchLabels": {
                        "app.kubernetes.io/instance": "test",
                        "app.kubernetes.io/managed-by": "MemcachedController",
                        "app.kubernetes.io/name": "memcached-operator",
                    }},
                    "template": {
                        "metadata": {"labels": {
                            "app.kubernetes.io/instance": "test",
                            "app.kubernetes.io/managed-by": "MemcachedController",
                            "app.kubernetes.io/name": "memcached-operator",
                            "app.kubernetes.io/version": "1.4.36-alpine",
                        }},
                        "spec": {
                            "securityContext": {
                                "runAsNonRoot": true,
                                "seccompProfile": {"type": "RuntimeDefault"},
                            },
                            "containers": [{
                                "name": "memcached",
                                "image": IMAGE,
                                "imagePullPolicy": "IfNotPresent",
                                "securityContext": {
                                    "runAsNonRoot": true,
                                    "runAsUser": 1001,
                                    "allowPrivilegeEscalation": false,
                                    "capabilities": {"drop": ["ALL"]},
                                },
                                "ports": [{
                                    "containerPort": 11211,
                                    "name": "memcached",
                                    "protocol": "TCP",
                                }],
                                "command": ["memcached", "-m=64", "-o", "modern", "-v"],
                            }],
                        },
                    },
                },
            })
        );
    }

    #[test]
    fn omitted_size_and_port_take_the_defaults() {
        let mut obj = memcached();
        obj.spec = MemcachedSpec::default();
        let deployment = build_deployment(&obj, IMAGE).expect("deployment builds");
        let spec = deployment.spec.expect("spec");
        assert_eq!(spec.replicas, Some(3));
        let ports = spec.template.spec.expect("pod spec").containers[0]
            .ports
            .clone()
            .expect("ports");
        assert_eq!(ports[0].container_port, 11211);
    }

    #[test]
    fn image_tags_are_parsed_without_panicking() {
        assert_eq!(image_tag("memcached:1.4.36-alpine"), Some("1.4.36-alpine"));
        assert_eq!(image_tag("docker.io/library/memcached:1.6"), Some("1.6"));
        assert_eq!(image_tag("registry:5000/memcached:1.6"), Some("1.6"));
        assert_eq!(image_tag("memcached:1.6@sha256:abc"), Some("1.6"));
        // Upstream panicked on the first and mislabelled the next two (bug M3).
        assert_eq!(image_tag("memcached"), None);
        assert_eq!(image_tag("registry:5000/memcached"), None);
        assert_eq!(
            image_tag(&format!("memcached@sha256:{}", "a".repeat(64))),
            None
        );
        assert_eq!(image_tag("memcached:"), None);
    }

    #[test]
    fn version_label_is_set_only_for_valid_label_values() {
        assert_eq!(
            version_label("memcached:1.4.36-alpine"),
            Some("1.4.36-alpine")
        );
        assert_eq!(version_label("memcached"), None);
        assert_eq!(
            version_label(&format!("memcached:{}", "1".repeat(64))),
            None
        );
        assert_eq!(version_label("memcached:_private"), None);

        for image in [
            "memcached",
            "registry:5000/memcached",
            "memcached@sha256:abc",
        ] {
            let deployment = build_deployment(&memcached(), image).expect("deployment builds");
            let template = deployment.spec.expect("spec").template;
            let labels = template.metadata.expect("metadata").labels.expect("labels");
            assert!(!labels.contains_key(LABEL_VERSION), "{image}");
        }
    }

    #[test]
    fn selector_never_holds_the_version() {
        // The selector is immutable: an image upgrade must not change it.
        let old = build_deployment(&memcached(), "memcached:1.4.36-alpine").expect("builds");
        let new = build_deployment(&memcached(), "memcached:1.6.26-alpine").expect("builds");
        let selector = |d: Deployment| d.spec.expect("spec").selector;
        assert_eq!(selector(old), selector(new));
    }

    #[test]
    fn long_names_use_the_uid_as_instance_label() {
        let mut obj = memcached();
        obj.metadata.name = Some("m".repeat(64));
        let labels = selector_labels(&obj);
        assert_eq!(labels[LABEL_INSTANCE], UID);
        assert_eq!(selector_labels(&memcached())[LABEL_INSTANCE], "test");
    }

    #[test]
    fn control_is_decided_by_the_controller_reference_uid() {
        let obj = memcached();
        let owned = build_deployment(&obj, IMAGE).expect("builds");
        assert!(is_controlled_by(&owned, &obj));

        let mut unowned = owned.clone();
        unowned.metadata.owner_references = None;
        assert!(!is_controlled_by(&unowned, &obj));

        let mut other_controller = owned.clone();
        other_controller
            .metadata
            .owner_references
            .as_mut()
            .expect("refs")[0]
            .uid = "another-uid".into();
        assert!(!is_controlled_by(&other_controller, &obj));

        let mut not_controller = owned;
        not_controller
            .metadata
            .owner_references
            .as_mut()
            .expect("refs")[0]
            .controller = Some(false);
        assert!(!is_controlled_by(&not_controller, &obj));

        let mut without_uid = obj;
        without_uid.metadata.uid = None;
        assert!(build_deployment(&without_uid, IMAGE).is_err());
    }
}
