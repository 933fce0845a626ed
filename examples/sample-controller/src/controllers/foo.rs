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

//! Controller for the `Foo` kind: the port of kubernetes/sample-controller.
//!
//! Each Foo owns one nginx Deployment named by `spec.deploymentName`, with
//! `spec.replicas` replicas; `status.availableReplicas` mirrors the
//! Deployment's. A Deployment of that name that the Foo does not control is
//! left alone and reported with a Warning event `ErrResourceExists`.
//!
//! Like upstream there is no finalizer: the Deployment carries a controller
//! owner reference to its Foo, so the garbage collector deletes it with the Foo.

use std::{collections::BTreeMap, sync::Arc, time::Duration};

use futures::FutureExt;
use k8s_openapi::{
    api::{
        apps::v1::{Deployment, DeploymentSpec},
        core::v1::{Container, PodSpec, PodTemplateSpec},
    },
    apimachinery::pkg::apis::meta::v1::{LabelSelector, ObjectMeta},
};
use kube::{
    Resource, ResourceExt,
    api::{ListParams, Patch},
    runtime::{controller::Action, events::EventType, reflector::ObjectRef, watcher},
};
use opgen_runtime::{
    Context, ControllerEntry, Error, Result, StatusUpdate,
    owned::{controller_reference, delete_owned, get_owned},
    watches::{Changed, Watches},
};
use tracing::{debug, error, info, instrument};

use crate::api::v1alpha1::{Foo, FooStatus};

/// Registry entry listed in [`super::CONTROLLERS`].
pub const CONTROLLER: ControllerEntry = ControllerEntry {
    name: NAME,
    run: |ctx| run(ctx).boxed(),
};

/// Name of this controller in logs and metrics.
const NAME: &str = "foo";

/// The image of the Deployment's only container, as upstream.
pub const NGINX_IMAGE: &str = "nginx:latest";

/// Name of the Deployment's only container.
const CONTAINER_NAME: &str = "nginx";

/// Event reason when a Foo was synced (something was written).
pub const REASON_SYNCED: &str = "Synced";
/// Event message when a Foo was synced.
pub const MESSAGE_SYNCED: &str = "Foo synced successfully";
/// Event reason when the Deployment exists but is not controlled by the Foo.
pub const REASON_ERR_RESOURCE_EXISTS: &str = "ErrResourceExists";

/// The `action` of this controller's events (events.k8s.io requires one).
const EVENT_ACTION: &str = "Sync";

/// Requeue period after a successful reconcile. Watch events trigger a reconcile
/// on every change anyway; this is a safety net against missed events.
const RESYNC_PERIOD: Duration = Duration::from_secs(5 * 60);

/// Watches Foo objects and the Deployments they own, and reconciles the Foos
/// until shutdown.
///
/// With `--namespace` set, runs one controller per namespace, so namespaced
/// RBAC (a Role per namespace) is enough.
pub async fn run(ctx: Arc<Context>) -> Result<()> {
    // A change of an owned Deployment (its status above all) reconciles the
    // Foo named in its owner reference; kube matches apiVersion and kind.
    let deployments = watcher::Config::default().any_semantic();
    // A Foo's own changes reconcile it when its spec changes (its generation),
    // not when the status this controller writes does.
    let watches = Watches::new()
        .reconcile_when(Changed::GENERATION)
        .owns::<Deployment>(deployments);
    watches.run(ctx, NAME, reconcile, error_policy).await
}

/// Brings one Foo to its desired state: upstream's `syncHandler`.
///
/// The RBAC markers below list exactly the calls made here and by the watches.
/// `foos/finalizers` `update` is needed because the Deployment's owner
/// reference sets `blockOwnerDeletion` (OwnerReferencesPermissionEnforcement).
/// Deployments are created by server-side apply, which the API server
/// authorizes as `create` when the object does not exist yet.
#[instrument(skip_all, fields(object = %ObjectRef::from_obj(&*obj)))]
// +kubebuilder:rbac:groups=samplecontroller.k8s.io,resources=foos,verbs=list;watch
// +kubebuilder:rbac:groups=samplecontroller.k8s.io,resources=foos/status,verbs=patch
// +kubebuilder:rbac:groups=samplecontroller.k8s.io,resources=foos/finalizers,verbs=update
// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch;create;patch;delete
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch
pub async fn reconcile(obj: Arc<Foo>, ctx: Arc<Context>) -> Result<Action> {
    let _timer = ctx.metrics.reconcile_started(NAME);

    let action = if obj.meta().deletion_timestamp.is_some() {
        // Being deleted: the garbage collector removes the Deployment.
        debug!("object is being deleted, nothing to do");
        Action::await_change()
    } else {
        sync(&obj, &ctx).await?
    };

    ctx.backoff.reset(&*obj);
    Ok(action)
}

/// Reconciles a live Foo.
async fn sync(obj: &Foo, ctx: &Context) -> Result<Action> {
    let Some(name) = obj
        .spec
        .deployment_name
        .as_deref()
        .filter(|n| !n.is_empty())
    else {
        // As upstream: report it and do not retry until the Foo changes.
        error!("Deployment name missing from object reference");
        return Ok(Action::await_change());
    };
    let desired = new_deployment(obj, name)?;

    // Never touch an object we do not control; retried with backoff, since
    // deleting the foreign Deployment does not trigger a reconcile.
    let existing = match get_owned::<Deployment, _>(ctx, obj, name).await {
        Err(Error::OwnedByAnother { .. }) => {
            let message = message_resource_exists(name);
            let reason = REASON_ERR_RESOURCE_EXISTS;
            ctx.publish_event(obj, EventType::Warning, reason, EVENT_ACTION, &message)
                .await;
            return Err(Error::other("resource_exists", message));
        }
        existing => existing?,
    };
    let written = match &existing {
        Some(existing) if is_up_to_date(existing, &desired) => None,
        _ => {
            if existing.is_none() {
                // Deployments of a former deploymentName (upstream keeps them running
                // until the Foo is deleted); deleted before the new one is created, so a
                // failure is retried while the new one is still missing.
                let params = ListParams::default();
                let stale = delete_owned::<Deployment, _>(ctx, obj, &params, |deployment| {
                    deployment.name_any() == name
                });
                for stale in stale.await? {
                    info!(
                        deployment = stale.name_any(),
                        "deleted Deployment of a former deploymentName"
                    );
                }
            }
            info!(deployment = name, replicas = ?obj.spec.replicas, "applying Deployment");
            let api = ctx.api_for::<Deployment>(obj)?;
            Some(
                api.patch(name, &ctx.apply_params(), &Patch::Apply(&desired))
                    .await?,
            )
        }
    };

    let deployment = written.as_ref().or(existing.as_ref());
    let status = FooStatus {
        available_replicas: deployment
            .and_then(|deployment| deployment.status.as_ref()?.available_replicas)
            .unwrap_or_default(),
    };
    let status_written = match ctx.update_status(obj, &status).await? {
        StatusUpdate::Gone => return Ok(Action::await_change()),
        update => update == StatusUpdate::Updated,
    };

    // Only when something was written, so periodic resyncs do not flood the
    // object's events (upstream emits it on every sync).
    if written.is_some() || status_written {
        let (reason, message) = (REASON_SYNCED, MESSAGE_SYNCED);
        ctx.publish_event(obj, EventType::Normal, reason, EVENT_ACTION, message)
            .await;
    } else {
        debug!("Deployment and status are up to date");
    }
    Ok(Action::requeue(RESYNC_PERIOD))
}

/// Decides when to retry a failed reconcile: per-object exponential backoff,
/// reset by the next successful reconcile of that object.
pub fn error_policy(obj: Arc<Foo>, error: &Error, ctx: Arc<Context>) -> Action {
    ctx.error_policy(NAME, &*obj, error)
}

/// The Deployment a Foo owns: upstream's `newDeployment`.
///
/// Fails only when the Foo has no uid, which the API server always sets.
pub fn new_deployment(owner: &Foo, name: &str) -> Result<Deployment> {
    let labels = BTreeMap::from([
        ("app".to_owned(), "nginx".to_owned()),
        ("controller".to_owned(), owner.name_any()),
    ]);
    Ok(Deployment {
        metadata: ObjectMeta {
            name: Some(name.to_owned()),
            namespace: owner.namespace(),
            owner_references: Some(vec![controller_reference(owner)?]),
            ..ObjectMeta::default()
        },
        spec: Some(DeploymentSpec {
            // Unset, the API server defaults the Deployment to 1 replica.
            replicas: owner.spec.replicas,
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
                        image: Some(NGINX_IMAGE.into()),
                        ..Container::default()
                    }],
                    ..PodSpec::default()
                }),
            },
            ..DeploymentSpec::default()
        }),
        status: None,
    })
}

/// True when `existing` already has every field of `desired` this controller
/// manages: the replicas (when the Foo sets them), the pod labels and the
/// nginx container's image. Upstream compares the replicas only.
pub fn is_up_to_date(existing: &Deployment, desired: &Deployment) -> bool {
    let (Some(existing), Some(desired)) = (&existing.spec, &desired.spec) else {
        return false;
    };
    if desired.replicas.is_some() && existing.replicas != desired.replicas {
        return false;
    }
    let labels = |spec: &DeploymentSpec| {
        spec.template
            .metadata
            .as_ref()
            .and_then(|metadata| metadata.labels.clone())
            .unwrap_or_default()
    };
    let existing_labels = labels(existing);
    if labels(desired)
        .iter()
        .any(|(key, value)| existing_labels.get(key) != Some(value))
    {
        return false;
    }
    let image = |spec: &DeploymentSpec| {
        spec.template.spec.as_ref().and_then(|pod| {
            pod.containers
                .iter()
                .find(|container| container.name == CONTAINER_NAME)
                .and_then(|container| container.image.clone())
        })
    };
    image(existing) == image(desired)
}

/// The message of the `ErrResourceExists` event and error, as upstream's
/// `MessageResourceExists` (Go's `%q` and Rust's `{:?}` agree on object names).
pub fn message_resource_exists(name: &str) -> String {
    format!("Resource {name:?} already exists and is not managed by Foo")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::PROJECT_NAME;
    use crate::api::v1alpha1::FooSpec;
    use k8s_openapi::{
        api::apps::v1::DeploymentStatus,
        apimachinery::pkg::apis::meta::v1::{ListMeta, Time},
        jiff::Timestamp,
    };
    use kube::core::{ObjectList, Status, TypeMeta};
    use opgen_runtime::owned::is_controlled_by;
    use opgen_runtime::testing::{
        ApiServerVerifier, Method, StatusCode, mock_client, test_context,
    };
    use serde_json::json;

    const UID: &str = "4c0c9c1e-1b5a-4bd5-9d3b-3f7c3f9d2a10";
    const DEPLOYMENT: &str = "example-foo";
    const STATUS_PATH: &str =
        "/apis/samplecontroller.k8s.io/v1alpha1/namespaces/default/foos/test/status";
    const DEPLOYMENTS_PATH: &str = "/apis/apps/v1/namespaces/default/deployments";
    const DEPLOYMENT_PATH: &str = "/apis/apps/v1/namespaces/default/deployments/example-foo";
    const EVENTS_PATH: &str = "/apis/events.k8s.io/v1/namespaces/default/events";

    /// A Foo as the watch delivers it: `deploymentName` example-foo, `replicas`.
    fn foo(replicas: Option<i32>) -> Foo {
        let mut obj = Foo::new(
            "test",
            FooSpec {
                deployment_name: Some(DEPLOYMENT.into()),
                replicas,
            },
        );
        obj.metadata.namespace = Some("default".into());
        obj.metadata.uid = Some(UID.into());
        obj.metadata.generation = Some(1);
        obj
    }

    fn with_status(mut obj: Foo, available_replicas: i32) -> Foo {
        obj.status = Some(FooStatus { available_replicas });
        obj
    }

    /// The Deployment `name` as the API server returns it: the desired shape of
    /// `owner`, with `replicas` and `available` replicas.
    fn deployment(owner: &Foo, name: &str, replicas: i32, available: Option<i32>) -> Deployment {
        let mut deployment = new_deployment(owner, name).expect("the Foo has a uid");
        deployment.metadata.uid = Some(format!("uid-of-{name}"));
        deployment.metadata.resource_version = Some("42".into());
        if let Some(spec) = deployment.spec.as_mut() {
            spec.replicas = Some(replicas);
        }
        deployment.status = Some(DeploymentStatus {
            available_replicas: available,
            ..DeploymentStatus::default()
        });
        deployment
    }

    /// The same Deployment, created by someone else: no owner reference.
    fn foreign_deployment() -> Deployment {
        let mut deployment = deployment(&foo(Some(1)), DEPLOYMENT, 1, Some(1));
        deployment.metadata.owner_references = None;
        deployment
    }

    fn not_found(what: &str) -> Status {
        Status::failure(&format!("{what} not found"), "NotFound").with_code(404)
    }

    fn list_of(items: Vec<Deployment>) -> ObjectList<Deployment> {
        ObjectList {
            types: TypeMeta {
                api_version: "apps/v1".into(),
                kind: "DeploymentList".into(),
            },
            metadata: ListMeta::default(),
            items,
        }
    }

    /// Expects the event the Recorder posts, asserts it, and accepts it.
    async fn expect_event(server: &mut ApiServerVerifier, type_: &str, reason: &str, note: &str) {
        let request = server.expect(Method::POST, EVENTS_PATH).await;
        let event = &request.body;
        assert_eq!(event["type"], type_);
        assert_eq!(event["reason"], reason);
        assert_eq!(event["note"], note);
        assert_eq!(event["action"], EVENT_ACTION);
        assert_eq!(event["reportingController"], PROJECT_NAME);
        assert_eq!(event["regarding"]["kind"], "Foo");
        assert_eq!(event["regarding"]["name"], "test");
        assert_eq!(event["regarding"]["namespace"], "default");
        let response = event.clone();
        request.respond(StatusCode::CREATED, &response);
    }

    /// Expects the server-side apply of the Deployment with `replicas`, asserts
    /// its shape and answers with `response`.
    async fn expect_deployment_apply(
        server: &mut ApiServerVerifier,
        replicas: Option<i32>,
        response: &Deployment,
    ) {
        let request = server.expect(Method::PATCH, DEPLOYMENT_PATH).await;
        assert_eq!(
            request.content_type.as_deref(),
            Some("application/apply-patch+yaml")
        );
        assert!(request.query.contains("fieldManager=sample-controller"));
        assert!(request.query.contains("force=true"));
        let body = &request.body;
        assert_eq!(body["apiVersion"], "apps/v1");
        assert_eq!(body["kind"], "Deployment");
        assert_eq!(body["metadata"]["name"], DEPLOYMENT);
        assert_eq!(
            body["metadata"]["ownerReferences"],
            json!([{
                "apiVersion": "samplecontroller.k8s.io/v1alpha1",
                "kind": "Foo",
                "name": "test",
                "uid": UID,
                "controller": true,
                "blockOwnerDeletion": true,
            }])
        );
        let labels = json!({"app": "nginx", "controller": "test"});
        match replicas {
            Some(replicas) => assert_eq!(body["spec"]["replicas"], replicas),
            None => assert!(body["spec"].get("replicas").is_none()),
        }
        assert_eq!(body["spec"]["selector"], json!({"matchLabels": labels}));
        assert_eq!(body["spec"]["template"]["metadata"]["labels"], labels);
        assert_eq!(
            body["spec"]["template"]["spec"]["containers"],
            json!([{"name": "nginx", "image": "nginx:latest"}])
        );
        assert!(body.get("status").is_none());
        request.respond(StatusCode::OK, response);
    }

    /// Expects the status apply with `available_replicas`, and answers with
    /// `status` (200) or a 404.
    async fn expect_status_patch(
        server: &mut ApiServerVerifier,
        available_replicas: i32,
        found: bool,
    ) {
        let request = server.expect(Method::PATCH, STATUS_PATH).await;
        assert_eq!(
            request.content_type.as_deref(),
            Some("application/apply-patch+yaml")
        );
        assert!(request.query.contains("fieldManager=sample-controller"));
        assert!(request.query.contains("force=true"));
        assert_eq!(
            request.body,
            json!({
                "apiVersion": "samplecontroller.k8s.io/v1alpha1",
                "kind": "Foo",
                "status": {"availableReplicas": available_replicas},
            })
        );
        if found {
            let response = with_status(foo(Some(1)), available_replicas);
            request.respond(StatusCode::OK, &response);
        } else {
            request.respond(StatusCode::NOT_FOUND, &not_found("foos \"test\""));
        }
    }

    #[tokio::test]
    async fn missing_deployment_is_created_with_status_and_event() {
        let (client, server) = mock_client();
        let scenario = server.run(|mut server| async move {
            server.expect(Method::GET, DEPLOYMENT_PATH).await.respond(
                StatusCode::NOT_FOUND,
                &not_found("deployments \"example-foo\""),
            );
            // Looks for Deployments of a former deploymentName: there are none.
            let request = server.expect(Method::GET, DEPLOYMENTS_PATH).await;
            request.respond(StatusCode::OK, &list_of(vec![]));
            let created = deployment(&foo(Some(1)), DEPLOYMENT, 1, None);
            expect_deployment_apply(&mut server, Some(1), &created).await;
            // A new Foo has no status: availableReplicas 0 is written, as upstream.
            expect_status_patch(&mut server, 0, true).await;
            expect_event(&mut server, "Normal", "Synced", "Foo synced successfully").await;
            server.expect_no_more_requests().await;
        });

        let action = reconcile(Arc::new(foo(Some(1))), test_context(client, PROJECT_NAME)).await;

        assert_eq!(
            action.expect("reconcile succeeds"),
            Action::requeue(RESYNC_PERIOD)
        );
        scenario.verify().await;
    }

    #[tokio::test]
    async fn unset_replicas_are_left_to_the_api_server_default() {
        let (client, server) = mock_client();
        let scenario = server.run(|mut server| async move {
            server.expect(Method::GET, DEPLOYMENT_PATH).await.respond(
                StatusCode::NOT_FOUND,
                &not_found("deployments \"example-foo\""),
            );
            let request = server.expect(Method::GET, DEPLOYMENTS_PATH).await;
            request.respond(StatusCode::OK, &list_of(vec![]));
            // No replicas in the apply: the API server defaults them to 1.
            let created = deployment(&foo(None), DEPLOYMENT, 1, None);
            expect_deployment_apply(&mut server, None, &created).await;
            expect_status_patch(&mut server, 0, true).await;
            expect_event(&mut server, "Normal", "Synced", "Foo synced successfully").await;
            server.expect_no_more_requests().await;
        });

        let action = reconcile(Arc::new(foo(None)), test_context(client, PROJECT_NAME)).await;

        assert_eq!(
            action.expect("reconcile succeeds"),
            Action::requeue(RESYNC_PERIOD)
        );
        scenario.verify().await;
    }

    #[tokio::test]
    async fn changed_replicas_update_the_deployment() {
        let (client, server) = mock_client();
        let obj = with_status(foo(Some(3)), 1);
        let owner = obj.clone();
        let scenario = server.run(|mut server| async move {
            let current = deployment(&owner, DEPLOYMENT, 1, Some(1));
            server
                .expect(Method::GET, DEPLOYMENT_PATH)
                .await
                .respond(StatusCode::OK, &current);
            let scaled = deployment(&owner, DEPLOYMENT, 3, Some(1));
            expect_deployment_apply(&mut server, Some(3), &scaled).await;
            // availableReplicas is still 1: no status write.
            expect_event(&mut server, "Normal", "Synced", "Foo synced successfully").await;
            server.expect_no_more_requests().await;
        });

        let action = reconcile(Arc::new(obj), test_context(client, PROJECT_NAME)).await;

        assert_eq!(
            action.expect("reconcile succeeds"),
            Action::requeue(RESYNC_PERIOD)
        );
        scenario.verify().await;
    }

    #[tokio::test]
    async fn drifted_image_is_repaired() {
        let (client, server) = mock_client();
        let obj = with_status(foo(Some(1)), 1);
        let owner = obj.clone();
        let scenario = server.run(|mut server| async move {
            let mut current = deployment(&owner, DEPLOYMENT, 1, Some(1));
            if let Some(pod) = current.spec.as_mut().and_then(|s| s.template.spec.as_mut()) {
                pod.containers[0].image = Some("nginx:1.0".into());
            }
            server
                .expect(Method::GET, DEPLOYMENT_PATH)
                .await
                .respond(StatusCode::OK, &current);
            let repaired = deployment(&owner, DEPLOYMENT, 1, Some(1));
            expect_deployment_apply(&mut server, Some(1), &repaired).await;
            expect_event(&mut server, "Normal", "Synced", "Foo synced successfully").await;
            server.expect_no_more_requests().await;
        });

        let action = reconcile(Arc::new(obj), test_context(client, PROJECT_NAME)).await;

        assert_eq!(
            action.expect("reconcile succeeds"),
            Action::requeue(RESYNC_PERIOD)
        );
        scenario.verify().await;
    }

    #[tokio::test]
    async fn available_replicas_are_copied_to_the_status() {
        let (client, server) = mock_client();
        let obj = with_status(foo(Some(2)), 1);
        let owner = obj.clone();
        let scenario = server.run(|mut server| async move {
            let current = deployment(&owner, DEPLOYMENT, 2, Some(2));
            server
                .expect(Method::GET, DEPLOYMENT_PATH)
                .await
                .respond(StatusCode::OK, &current);
            // The Deployment is up to date: only the status is written.
            expect_status_patch(&mut server, 2, true).await;
            expect_event(&mut server, "Normal", "Synced", "Foo synced successfully").await;
            server.expect_no_more_requests().await;
        });

        let action = reconcile(Arc::new(obj), test_context(client, PROJECT_NAME)).await;

        assert_eq!(
            action.expect("reconcile succeeds"),
            Action::requeue(RESYNC_PERIOD)
        );
        scenario.verify().await;
    }

    #[tokio::test]
    async fn up_to_date_foo_makes_no_writes_and_no_event() {
        let (client, server) = mock_client();
        let obj = with_status(foo(Some(2)), 2);
        let owner = obj.clone();
        let scenario = server.run(|mut server| async move {
            let current = deployment(&owner, DEPLOYMENT, 2, Some(2));
            server
                .expect(Method::GET, DEPLOYMENT_PATH)
                .await
                .respond(StatusCode::OK, &current);
            server.expect_no_more_requests().await;
        });

        let action = reconcile(Arc::new(obj), test_context(client, PROJECT_NAME)).await;

        assert_eq!(
            action.expect("reconcile succeeds"),
            Action::requeue(RESYNC_PERIOD)
        );
        scenario.verify().await;
    }

    #[tokio::test]
    async fn missing_or_empty_deployment_name_is_reported_and_not_retried() {
        for deployment_name in [None, Some(String::new())] {
            let (client, server) = mock_client();
            let scenario = server.run(|server| server.expect_no_more_requests());
            let mut obj = foo(Some(1));
            obj.spec.deployment_name = deployment_name;

            let action = reconcile(Arc::new(obj), test_context(client, PROJECT_NAME)).await;

            // No API call and no error: nothing happens until the Foo changes.
            assert_eq!(action.expect("reconcile succeeds"), Action::await_change());
            scenario.verify().await;
        }
    }

    #[tokio::test]
    async fn foreign_deployment_gets_a_warning_event_and_no_write() {
        let (client, server) = mock_client();
        let scenario = server.run(|mut server| async move {
            server
                .expect(Method::GET, DEPLOYMENT_PATH)
                .await
                .respond(StatusCode::OK, &foreign_deployment());
            expect_event(
                &mut server,
                "Warning",
                "ErrResourceExists",
                "Resource \"example-foo\" already exists and is not managed by Foo",
            )
            .await;
            // Neither the Deployment nor the status is written.
            server.expect_no_more_requests().await;
        });
        let ctx = test_context(client, PROJECT_NAME);
        let obj = Arc::new(foo(Some(1)));

        let result = reconcile(obj.clone(), ctx.clone()).await;

        let error = result.expect_err("a foreign Deployment fails the reconcile");
        assert!(matches!(
            error,
            Error::Other {
                label: "resource_exists",
                ..
            }
        ));
        assert_eq!(
            error.to_string(),
            "Resource \"example-foo\" already exists and is not managed by Foo"
        );
        // Retried with backoff, as upstream requeues the error.
        assert_eq!(
            error_policy(obj, &error, ctx.clone()),
            Action::requeue(Duration::from_secs(5))
        );
        drop(ctx);
        scenario.verify().await;
    }

    #[tokio::test]
    async fn deployment_controlled_by_another_foo_is_foreign() {
        let (client, server) = mock_client();
        let scenario = server.run(|mut server| async move {
            let mut other = foo(Some(1));
            other.metadata.name = Some("other".into());
            other.metadata.uid = Some("another-uid".into());
            server
                .expect(Method::GET, DEPLOYMENT_PATH)
                .await
                .respond(StatusCode::OK, &deployment(&other, DEPLOYMENT, 1, Some(1)));
            let request = server.expect(Method::POST, EVENTS_PATH).await;
            assert_eq!(request.body["reason"], "ErrResourceExists");
            let response = request.body.clone();
            request.respond(StatusCode::CREATED, &response);
            server.expect_no_more_requests().await;
        });

        let result = reconcile(Arc::new(foo(Some(1))), test_context(client, PROJECT_NAME)).await;

        assert!(matches!(
            result,
            Err(Error::Other {
                label: "resource_exists",
                ..
            })
        ));
        scenario.verify().await;
    }

    #[tokio::test]
    async fn renamed_deployment_name_deletes_the_old_deployment() {
        let (client, server) = mock_client();
        let scenario = server.run(|mut server| async move {
            let owner = foo(Some(1));
            server.expect(Method::GET, DEPLOYMENT_PATH).await.respond(
                StatusCode::NOT_FOUND,
                &not_found("deployments \"example-foo\""),
            );
            let old = deployment(&owner, "old-name", 1, Some(1));
            let mut unrelated = foreign_deployment();
            unrelated.metadata.name = Some("unrelated".into());
            let request = server.expect(Method::GET, DEPLOYMENTS_PATH).await;
            request.respond(StatusCode::OK, &list_of(vec![old.clone(), unrelated]));
            // Only the Deployment this Foo controls is deleted, guarded by its uid.
            let request = server
                .expect(Method::DELETE, &format!("{DEPLOYMENTS_PATH}/old-name"))
                .await;
            assert_eq!(request.body["preconditions"]["uid"], "uid-of-old-name");
            request.respond(StatusCode::OK, &old);
            let created = deployment(&owner, DEPLOYMENT, 1, None);
            expect_deployment_apply(&mut server, Some(1), &created).await;
            expect_status_patch(&mut server, 0, true).await;
            expect_event(&mut server, "Normal", "Synced", "Foo synced successfully").await;
            server.expect_no_more_requests().await;
        });

        let obj = with_status(foo(Some(1)), 1);
        let action = reconcile(Arc::new(obj), test_context(client, PROJECT_NAME)).await;

        assert_eq!(
            action.expect("reconcile succeeds"),
            Action::requeue(RESYNC_PERIOD)
        );
        scenario.verify().await;
    }

    #[tokio::test]
    async fn foo_deleted_before_status_patch_ends_quietly() {
        let (client, server) = mock_client();
        let obj = foo(Some(1));
        let owner = obj.clone();
        let scenario = server.run(|mut server| async move {
            let current = deployment(&owner, DEPLOYMENT, 1, Some(1));
            server
                .expect(Method::GET, DEPLOYMENT_PATH)
                .await
                .respond(StatusCode::OK, &current);
            expect_status_patch(&mut server, 1, false).await;
            // No event for an object that no longer exists.
            server.expect_no_more_requests().await;
        });

        let action = reconcile(Arc::new(obj), test_context(client, PROJECT_NAME)).await;

        assert_eq!(
            action.expect("a 404 is not an error"),
            Action::await_change()
        );
        scenario.verify().await;
    }

    #[tokio::test]
    async fn deleted_foo_is_left_to_the_garbage_collector() {
        let (client, server) = mock_client();
        let scenario = server.run(|server| server.expect_no_more_requests());
        let mut obj = foo(Some(1));
        obj.metadata.deletion_timestamp = Some(Time(Timestamp::now()));

        let action = reconcile(Arc::new(obj), test_context(client, PROJECT_NAME)).await;

        assert_eq!(action.expect("reconcile succeeds"), Action::await_change());
        scenario.verify().await;
    }

    #[tokio::test]
    async fn api_error_fails_the_reconcile_for_a_retry() {
        let (client, server) = mock_client();
        let scenario = server.run(|mut server| async move {
            let unavailable =
                Status::failure("etcdserver: request timed out", "InternalError").with_code(500);
            server
                .expect(Method::GET, DEPLOYMENT_PATH)
                .await
                .respond(StatusCode::INTERNAL_SERVER_ERROR, &unavailable);
            server.expect_no_more_requests().await;
        });
        let ctx = test_context(client, PROJECT_NAME);
        let obj = Arc::new(foo(Some(1)));

        let error = reconcile(obj.clone(), ctx.clone())
            .await
            .expect_err("a 500 fails the reconcile");

        assert!(matches!(error, Error::Kube(_)));
        assert_eq!(
            error_policy(obj, &error, ctx.clone()),
            Action::requeue(Duration::from_secs(5))
        );
        drop(ctx);
        scenario.verify().await;
    }

    #[tokio::test]
    async fn failed_deployment_apply_fails_the_reconcile() {
        let (client, server) = mock_client();
        let scenario = server.run(|mut server| async move {
            server.expect(Method::GET, DEPLOYMENT_PATH).await.respond(
                StatusCode::NOT_FOUND,
                &not_found("deployments \"example-foo\""),
            );
            let request = server.expect(Method::GET, DEPLOYMENTS_PATH).await;
            request.respond(StatusCode::OK, &list_of(vec![]));
            let forbidden =
                Status::failure("deployments.apps is forbidden", "Forbidden").with_code(403);
            server
                .expect(Method::PATCH, DEPLOYMENT_PATH)
                .await
                .respond(StatusCode::FORBIDDEN, &forbidden);
            // No status write and no event after a failure.
            server.expect_no_more_requests().await;
        });

        let result = reconcile(Arc::new(foo(Some(1))), test_context(client, PROJECT_NAME)).await;

        assert!(matches!(result, Err(Error::Kube(_))));
        scenario.verify().await;
    }

    #[tokio::test]
    async fn error_policy_backs_off_per_object_until_a_success() {
        let (client, server) = mock_client();
        let scenario = server.run(|server| server.expect_no_more_requests());
        let ctx = test_context(client, PROJECT_NAME);
        let obj = Arc::new(foo(Some(1)));
        let other = Arc::new(Foo::new("other", FooSpec::default()));
        let error = Error::Kube(kube::Error::Api(
            Status::failure("etcdserver: request timed out", "InternalError")
                .with_code(500)
                .boxed(),
        ));
        let retry_after = |obj: &Arc<Foo>| error_policy(obj.clone(), &error, ctx.clone());

        assert_eq!(retry_after(&obj), Action::requeue(Duration::from_secs(5)));
        assert_eq!(retry_after(&obj), Action::requeue(Duration::from_secs(10)));
        assert_eq!(retry_after(&obj), Action::requeue(Duration::from_secs(20)));
        assert_eq!(retry_after(&other), Action::requeue(Duration::from_secs(5)));
        let metrics = ctx.metrics.encode();
        assert!(metrics.contains(
            "sample_controller_reconcile_errors_total{controller=\"foo\",error=\"kube\"} 4"
        ));

        // A successful reconcile of the same Foo (here one without deploymentName,
        // which makes no API calls) resets its backoff only.
        let mut unnamed = foo(Some(1));
        unnamed.spec.deployment_name = None;
        reconcile(Arc::new(unnamed), ctx.clone())
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
    fn new_deployment_matches_upstream_shape() {
        let deployment = new_deployment(&foo(Some(2)), "web").expect("the Foo has a uid");
        assert_eq!(
            serde_json::to_value(&deployment).expect("serializes"),
            json!({
                "apiVersion": "apps/v1",
                "kind": "Deployment",
                "metadata": {
                    "name": "web",
                    "namespace": "default",
                    "ownerReferences": [{
                        "apiVersion": "samplecontroller.k8s.io/v1alpha1",
                        "kind": "Foo",
                        "name": "test",
                        "uid": UID,
                        "controller": true,
                        "blockOwnerDeletion": true,
                    }],
                },
                "spec": {
                    "replicas": 2,
                    "selector": {"matchLabels": {"app": "nginx", "controller": "test"}},
                    "template": {
                        "metadata": {"labels": {"app": "nginx", "controller": "test"}},
                        "spec": {"containers": [{"name": "nginx", "image": "nginx:latest"}]},
                    },
                },
            })
        );
    }

    #[test]
    fn new_deployment_needs_the_foo_uid() {
        let mut obj = foo(Some(1));
        obj.metadata.uid = None;
        assert!(matches!(
            new_deployment(&obj, DEPLOYMENT),
            Err(Error::MissingObjectKey(".metadata.uid"))
        ));
    }

    #[test]
    fn is_controlled_by_needs_a_controller_reference_with_the_uid() {
        let owner = foo(Some(1));
        let owned = deployment(&owner, DEPLOYMENT, 1, None);
        assert!(is_controlled_by(&owned, &owner));

        let mut not_controller = owned.clone();
        if let Some(refs) = not_controller.metadata.owner_references.as_mut() {
            refs[0].controller = None;
        }
        assert!(!is_controlled_by(&not_controller, &owner));

        // Same name, new uid: a recreated Foo does not control the old Deployment.
        let mut recreated = owner.clone();
        recreated.metadata.uid = Some("new-uid".into());
        assert!(!is_controlled_by(&owned, &recreated));

        assert!(!is_controlled_by(&foreign_deployment(), &owner));
    }

    #[test]
    fn is_up_to_date_compares_the_managed_fields() {
        let owner = foo(Some(2));
        let desired = new_deployment(&owner, DEPLOYMENT).expect("the Foo has a uid");
        let current = deployment(&owner, DEPLOYMENT, 2, Some(2));
        assert!(is_up_to_date(&current, &desired));

        let scaled = deployment(&owner, DEPLOYMENT, 5, Some(2));
        assert!(!is_up_to_date(&scaled, &desired));

        // Unset replicas in the Foo: whatever the Deployment has is fine.
        let unset = new_deployment(&foo(None), DEPLOYMENT).expect("the Foo has a uid");
        assert!(is_up_to_date(&scaled, &unset));

        let mut relabelled = current.clone();
        if let Some(meta) = relabelled
            .spec
            .as_mut()
            .and_then(|s| s.template.metadata.as_mut())
        {
            meta.labels = Some(BTreeMap::from([("app".into(), "nginx".into())]));
        }
        assert!(!is_up_to_date(&relabelled, &desired));

        // Labels and containers added by others are kept.
        let mut extended = current.clone();
        if let Some(spec) = extended.spec.as_mut() {
            if let Some(meta) = spec.template.metadata.as_mut() {
                meta.labels
                    .get_or_insert_default()
                    .insert("team".into(), "web".into());
            }
            if let Some(pod) = spec.template.spec.as_mut() {
                pod.containers.push(Container {
                    name: "sidecar".into(),
                    image: Some("busybox".into()),
                    ..Container::default()
                });
            }
        }
        assert!(is_up_to_date(&extended, &desired));

        let mut without_container = current.clone();
        if let Some(pod) = without_container
            .spec
            .as_mut()
            .and_then(|s| s.template.spec.as_mut())
        {
            pod.containers[0].name = "web".into();
        }
        assert!(!is_up_to_date(&without_container, &desired));
    }

    #[test]
    fn resource_exists_message_matches_upstream() {
        assert_eq!(
            message_resource_exists("example-foo"),
            "Resource \"example-foo\" already exists and is not managed by Foo"
        );
    }
}
