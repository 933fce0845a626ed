// Copyright 2026 The secret-operator Authors.
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

//! Controller for the `MultiSecret` kind: copies the Secret described by a
//! MultiSecret into every namespace.
//!
//! Each copy (a "child") is named `<name>.<namespace>.multisec` after its
//! MultiSecret and carries two annotations naming it: a namespaced owner cannot
//! own objects in other namespaces, so there are no ownerReferences and the
//! annotations map a child back to its MultiSecret, in the Secret watch and
//! before any write (a Secret that merely has the child's name is never touched).
//!
//! A reconcile reads the namespaces from its watch's cache, lists the children,
//! creates the missing
//! children, restores changed ones, deletes children in namespaces that must not
//! have one, and reports `wanted` and `created` in the status. A finalizer
//! deletes every child when the MultiSecret is deleted.

use std::{collections::BTreeMap, sync::Arc, time::Duration};

use futures::FutureExt;
use k8s_openapi::{
    ByteString,
    api::core::v1::{Namespace, ObjectReference, Secret},
    jiff::Timestamp,
};
use kube::{
    Api, ResourceExt,
    api::{DeleteParams, ListParams, ObjectMeta, PostParams},
    runtime::{
        controller::Action,
        events::EventType,
        reflector::{ObjectRef, Store},
        watcher,
    },
};
use opgen_runtime::{
    Context, ControllerEntry, Error, Result, StatusUpdate,
    controller::{self, is_not_found},
    watches::{Changed, Watches},
};
use tracing::{debug, info, instrument, warn};

use crate::api::v1alpha1::{MultiSecret, MultiSecretStatus};

/// Registry entry listed in [`super::CONTROLLERS`].
pub const CONTROLLER: ControllerEntry = ControllerEntry {
    name: NAME,
    run: |ctx| run(ctx).boxed(),
};

/// Name of this controller in logs and metrics.
const NAME: &str = "multisecret";

/// Keeps a deleted MultiSecret around until every child is deleted (upstream's name).
pub const FINALIZER: &str = "multisecrets.multi.ddnw.ml/finalizer";

/// Annotation of a child naming its MultiSecret (upstream's key).
pub const OWNER_ANNOTATION: &str = "multisecrets.multi.ddnw.ml/owner";

/// Annotation of a child naming the namespace of its MultiSecret (upstream's key).
pub const NAMESPACE_ANNOTATION: &str = "multisecrets.multi.ddnw.ml/namespace";

/// Label on every child, so that the Secret watch caches only children rather
/// than every Secret of the cluster. Not upstream.
pub const OWNED_LABEL: &str = "multisecrets.multi.ddnw.ml/owned";

/// Suffix of a child's name, lower-cased in use (upstream's `multiSec`).
const NAME_SUFFIX: &str = "multiSec";

/// Longest object name the API server accepts (a DNS subdomain).
const MAX_NAME_LENGTH: usize = 253;

/// Namespaces that never get a copy: a Secret written into `kube-system` can be
/// a bootstrap token, for one. Not upstream, which copies into every namespace.
pub const EXCLUDED_NAMESPACES: [&str; 3] = ["kube-system", "kube-public", "kube-node-lease"];

/// MultiSecret annotations that are not copied to the children:
/// `last-applied-configuration` holds the whole MultiSecret, data included.
const UNCOPIED_ANNOTATIONS: [&str; 1] = ["kubectl.kubernetes.io/last-applied-configuration"];

/// Requeue period after a successful reconcile. Watch events trigger a reconcile
/// on every change anyway; this is a safety net against missed events.
const RESYNC_PERIOD: Duration = Duration::from_secs(5 * 60);

/// Watches MultiSecrets, their children and the namespaces, and reconciles the
/// MultiSecrets until shutdown.
///
/// With `--namespace` set, runs one controller per namespace for the
/// MultiSecrets; children and namespaces are always watched cluster-wide.
pub async fn run(ctx: Arc<Context>) -> Result<()> {
    let children = watcher::Config::default().labels(&format!("{OWNED_LABEL}=true"));
    let namespaces = watcher::Config::default();
    Watches::new()
        // A MultiSecret's own changes reconcile it when its spec (generation) or
        // its finalizers change: not for the counts this controller writes. The
        // finalizer helper waits for the reconcile that adding FINALIZER causes.
        .reconcile_when(Changed::GENERATION | Changed::FINALIZERS)
        // A created, changed or deleted child reconciles its MultiSecret.
        .watches_all(children.any_semantic(), |secret: &Secret, _| {
            owner_of(secret)
        })
        // A new namespace needs a copy of every MultiSecret; a terminating one
        // changes the counts.
        .watches_all(namespaces.any_semantic(), |_: &Namespace, store| {
            all_multi_secrets(store)
        })
        .run(ctx, NAME, reconcile, error_policy)
        .await
}

/// Brings one MultiSecret to its desired state.
///
/// Runs inside the finalizer helper: a new object first gets [`FINALIZER`]
/// (which triggers the next reconcile), a live one goes to `apply`, and a
/// deleted one to `cleanup` before the finalizer is removed.
///
/// The RBAC markers below list exactly the calls made here and by the watches:
/// children are listed (by name, across namespaces), created, replaced and
/// deleted, never read one by one or patched. There is no
/// `multisecrets/finalizers` permission: children carry no ownerReferences.
#[instrument(skip_all, fields(object = %ObjectRef::from_obj(&*obj)))]
// +kubebuilder:rbac:groups=multi.ddnw.ml,resources=multisecrets,verbs=list;watch;patch
// +kubebuilder:rbac:groups=multi.ddnw.ml,resources=multisecrets/status,verbs=patch
// +kubebuilder:rbac:groups=core,resources=secrets,verbs=list;watch;create;update;delete
// +kubebuilder:rbac:groups=core,resources=namespaces,verbs=list;watch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch
pub async fn reconcile(obj: Arc<MultiSecret>, ctx: Arc<Context>) -> Result<Action> {
    let _timer = ctx.metrics.reconcile_started(NAME);
    let api = ctx.api_for::<MultiSecret>(&*obj)?;
    let (apply_ctx, cleanup_ctx) = (&*ctx, &*ctx);
    let action = controller::finalizer(
        &api,
        FINALIZER,
        obj.clone(),
        |obj| async move { apply(&obj, apply_ctx).await },
        |obj| async move { cleanup(&obj, cleanup_ctx).await },
    )
    .await?;
    ctx.backoff.reset(&*obj);
    Ok(action)
}

/// Reconciles a live MultiSecret: one child per wanted namespace, in its
/// desired state, and the counts in the status.
async fn apply(obj: &MultiSecret, ctx: &Context) -> Result<Action> {
    let name = child_name(obj);
    if name.len() > MAX_NAME_LENGTH {
        // Permanent until the MultiSecret is recreated under a shorter name.
        let note = format!(
            "The copies would be named {name}, which is longer than {MAX_NAME_LENGTH} characters"
        );
        ctx.publish_event(obj, EventType::Warning, "InvalidName", "Create", note)
            .await;
        return Ok(Action::await_change());
    }

    // From the cache of the Namespace watch (`run`): no list per reconcile.
    let namespaces = ctx
        .cache::<Namespace>()
        .ok_or_else(|| Error::other("no_namespace_cache", "the namespaces are not watched"))?
        .list(None);
    let mut children = list_children(ctx, &name).await?;

    let mut wanted = 0;
    let mut created = 0;
    let mut changed = false;
    for namespace in &namespaces {
        let ns = namespace.name_any();
        let desired = build_child(obj, &ns);
        let existing = children.remove(&ns);
        if !is_wanted(namespace) {
            // Upstream's delete branch: a copy where none is wanted (an excluded
            // namespace). Copies in terminating namespaces go with them.
            if let Some(child) = existing.filter(|child| is_owned(child, obj))
                && !is_terminating(namespace)
            {
                delete_child(ctx, obj, &child).await?;
                changed = true;
            }
            continue;
        }
        wanted += 1;
        match existing {
            None => {
                create_child(ctx, obj, &desired).await?;
                changed = true;
            }
            Some(child) if !is_owned(&child, obj) => {
                warn!(
                    namespace = %ns,
                    secret = %name,
                    "a Secret of someone else has the name of the copy; leaving it alone"
                );
                continue;
            }
            Some(child) => match drift(&child, &desired) {
                Drift::None => {}
                Drift::Changed => {
                    replace_child(ctx, obj, &child, desired).await?;
                    changed = true;
                }
                Drift::Immutable => {
                    delete_child(ctx, obj, &child).await?;
                    create_child(ctx, obj, &desired).await?;
                    changed = true;
                }
            },
        }
        created += 1;
    }

    let current = obj.status.clone().unwrap_or_default();
    if !changed && current.wanted == wanted && current.created == created {
        debug!(wanted, created, "copies and status are up to date");
        return Ok(Action::requeue(RESYNC_PERIOD));
    }
    let change_time = Some(rfc3339(Timestamp::now()));
    let status = MultiSecretStatus {
        wanted,
        created,
        change_time,
    };
    Ok(match ctx.update_status(obj, &status).await? {
        StatusUpdate::Gone => Action::await_change(),
        _ => Action::requeue(RESYNC_PERIOD),
    })
}

/// Runs once for a deleted MultiSecret that still carries [`FINALIZER`]: deletes
/// every child (in every namespace). The helper then removes the finalizer;
/// the status is not written any more (the object is about to disappear).
async fn cleanup(obj: &MultiSecret, ctx: &Context) -> Result<Action> {
    let children = list_children(ctx, &child_name(obj)).await?;
    for child in children.values().filter(|child| is_owned(child, obj)) {
        let (namespace, name) = (child.namespace().unwrap_or_default(), child.name_any());
        match Api::<Secret>::namespaced(ctx.client.clone(), &namespace)
            .delete(&name, &DeleteParams::default())
            .await
        {
            Ok(_) => info!(%namespace, secret = %name, "deleted copy"),
            Err(error) if is_not_found(&error) => {}
            Err(error) => return Err(error.into()),
        }
    }
    Ok(Action::await_change())
}

/// Decides when to retry a failed reconcile: per-object exponential backoff,
/// reset by the next successful reconcile of that object.
pub fn error_policy(obj: Arc<MultiSecret>, error: &Error, ctx: Arc<Context>) -> Action {
    ctx.error_policy(NAME, &*obj, error)
}

/// Name of every copy of `obj`: `<name>.<namespace>.multisec`.
pub fn child_name(obj: &MultiSecret) -> String {
    format!(
        "{}.{}.{NAME_SUFFIX}",
        obj.name_any(),
        obj.namespace().unwrap_or_default()
    )
    .to_lowercase()
}

/// The copy of `obj` in `namespace`: its labels and annotations (minus
/// [`UNCOPIED_ANNOTATIONS`]) plus the owner annotations and [`OWNED_LABEL`], and
/// its data with `stringData` merged in (the API server would do the same;
/// `stringData` wins on duplicate keys). An empty type is left to the server,
/// which defaults it to `Opaque`.
pub fn build_child(obj: &MultiSecret, namespace: &str) -> Secret {
    let mut labels = obj.labels().clone();
    labels.insert(OWNED_LABEL.into(), "true".into());
    let mut annotations = obj.annotations().clone();
    annotations.retain(|key, _| !UNCOPIED_ANNOTATIONS.contains(&key.as_str()));
    annotations.insert(OWNER_ANNOTATION.into(), obj.name_any());
    annotations.insert(
        NAMESPACE_ANNOTATION.into(),
        obj.namespace().unwrap_or_default(),
    );

    let mut data: BTreeMap<String, ByteString> = BTreeMap::new();
    for (key, value) in obj.spec.data.iter().flatten() {
        data.insert(key.clone(), ByteString(value.0.clone()));
    }
    for (key, value) in obj.spec.string_data.iter().flatten() {
        data.insert(key.clone(), ByteString(value.clone().into_bytes()));
    }

    Secret {
        metadata: ObjectMeta {
            name: Some(child_name(obj)),
            namespace: Some(namespace.into()),
            labels: Some(labels),
            annotations: Some(annotations),
            ..ObjectMeta::default()
        },
        data: (!data.is_empty()).then_some(data),
        type_: obj.spec.type_.clone().filter(|type_| !type_.is_empty()),
        ..Secret::default()
    }
}

/// True when `secret` carries the owner annotations of `obj`.
pub fn is_owned(secret: &Secret, obj: &MultiSecret) -> bool {
    let annotations = secret.annotations();
    annotations.get(OWNER_ANNOTATION) == Some(&obj.name_any())
        && annotations.get(NAMESPACE_ANNOTATION) == obj.namespace().as_ref()
}

/// The MultiSecret a child belongs to, from its owner annotations: the mapping of
/// the Secret watch.
pub fn owner_of(secret: &Secret) -> Option<ObjectRef<MultiSecret>> {
    let annotations = secret.annotations();
    let name = annotations.get(OWNER_ANNOTATION)?;
    let namespace = annotations.get(NAMESPACE_ANNOTATION)?;
    Some(ObjectRef::new(name).within(namespace))
}

/// Every MultiSecret in the controller's cache: the mapping of the Namespace watch.
fn all_multi_secrets(store: &Store<MultiSecret>) -> Vec<ObjectRef<MultiSecret>> {
    store
        .state()
        .iter()
        .map(|obj| ObjectRef::from_obj(&**obj))
        .collect()
}

/// True for a namespace that should hold a copy: not terminating and not one of
/// [`EXCLUDED_NAMESPACES`].
pub fn is_wanted(namespace: &Namespace) -> bool {
    !is_terminating(namespace) && !EXCLUDED_NAMESPACES.contains(&namespace.name_any().as_str())
}

fn is_terminating(namespace: &Namespace) -> bool {
    namespace.metadata.deletion_timestamp.is_some()
}

/// How an existing child differs from the desired one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Drift {
    /// Data, type, labels and annotations are as desired.
    None,
    /// Data, labels or annotations differ: replace the child.
    Changed,
    /// The type differs, or the child was made immutable and differs: both are
    /// immutable, so the child must be deleted and created again.
    Immutable,
}

/// Compares an existing child with the desired one. Labels and annotations must
/// match exactly: a copy is entirely the operator's.
pub fn drift(existing: &Secret, desired: &Secret) -> Drift {
    let type_of = |secret: &Secret| secret.type_.clone().unwrap_or_else(|| "Opaque".into());
    let immutable = existing.immutable == Some(true);
    if type_of(existing) != type_of(desired) {
        return Drift::Immutable;
    }
    let same = existing.data.clone().unwrap_or_default()
        == desired.data.clone().unwrap_or_default()
        && existing.labels() == desired.labels()
        && existing.annotations() == desired.annotations();
    match (same, immutable) {
        (true, false) => Drift::None,
        (false, false) => Drift::Changed,
        // Immutable is itself a difference: the desired copy is mutable.
        (_, true) => Drift::Immutable,
    }
}

/// Every Secret named `name` in any namespace, by namespace: the children of the
/// MultiSecret, and possibly Secrets of others with the same name.
async fn list_children(ctx: &Context, name: &str) -> Result<BTreeMap<String, Secret>> {
    let params = ListParams::default().fields(&format!("metadata.name={name}"));
    let secrets = Api::<Secret>::all(ctx.client.clone()).list(&params).await?;
    Ok(secrets
        .items
        .into_iter()
        .map(|secret| (secret.namespace().unwrap_or_default(), secret))
        .collect())
}

/// Creates a missing child. A plain create rather than a server-side apply: it
/// fails instead of taking over a Secret that someone created meanwhile.
async fn create_child(ctx: &Context, obj: &MultiSecret, child: &Secret) -> Result<()> {
    let (namespace, name) = (child.namespace().unwrap_or_default(), child.name_any());
    Api::<Secret>::namespaced(ctx.client.clone(), &namespace)
        .create(&PostParams::default(), child)
        .await?;
    info!(%namespace, secret = %name, "created copy");
    publish_child_event(ctx, obj, "Created", "Create", &namespace, &name).await;
    Ok(())
}

/// Restores a changed child. A replace rather than a server-side apply: an apply
/// cannot remove the keys and labels that other field managers added. The
/// resourceVersion makes it fail on a concurrent change (retried with backoff).
async fn replace_child(
    ctx: &Context,
    obj: &MultiSecret,
    existing: &Secret,
    mut desired: Secret,
) -> Result<()> {
    let (namespace, name) = (
        existing.namespace().unwrap_or_default(),
        existing.name_any(),
    );
    desired.metadata.resource_version = existing.resource_version();
    Api::<Secret>::namespaced(ctx.client.clone(), &namespace)
        .replace(&name, &PostParams::default(), &desired)
        .await?;
    info!(%namespace, secret = %name, "restored copy");
    publish_child_event(ctx, obj, "Updated", "Update", &namespace, &name).await;
    Ok(())
}

/// Deletes a child; one that is already gone counts as deleted (without an event).
async fn delete_child(ctx: &Context, obj: &MultiSecret, child: &Secret) -> Result<()> {
    let (namespace, name) = (child.namespace().unwrap_or_default(), child.name_any());
    match Api::<Secret>::namespaced(ctx.client.clone(), &namespace)
        .delete(&name, &DeleteParams::default())
        .await
    {
        Ok(_) => {
            info!(%namespace, secret = %name, "deleted copy");
            publish_child_event(ctx, obj, "Deleted", "Delete", &namespace, &name).await;
            Ok(())
        }
        Err(error) if is_not_found(&error) => Ok(()),
        Err(error) => Err(error.into()),
    }
}

/// A timestamp as RFC 3339 in UTC, to the second (Go's `time.RFC3339`).
fn rfc3339(time: Timestamp) -> String {
    time.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// Publishes upstream's Normal event about a child: reason `Created`, `Updated`
/// or `Deleted`, note `<reason> corev1.Secret, NameSpace: <ns>, Name: <name>`.
///
/// The child is the event's `related` object. The Recorder folds repeated events
/// into a series by regarding and related object (not by note), so without it the
/// events about the copies in different namespaces would fold into one.
async fn publish_child_event(
    ctx: &Context,
    obj: &MultiSecret,
    reason: &str,
    action: &str,
    namespace: &str,
    name: &str,
) {
    let note = format!("{reason} corev1.Secret, NameSpace: {namespace}, Name: {name}");
    let child = ObjectReference {
        api_version: Some("v1".into()),
        kind: Some("Secret".into()),
        namespace: Some(namespace.into()),
        name: Some(name.into()),
        ..ObjectReference::default()
    };
    ctx.publish_related_event(obj, child, EventType::Normal, reason, action, note)
        .await;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::PROJECT_NAME;
    use crate::api::v1alpha1::{MultiSecretSpec, SecretBytes};
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
    use kube::core::Status;
    use opgen_runtime::MetricLabel;
    use opgen_runtime::testing::{
        ApiServerVerifier, Method, StatusCode, fill_cache, mock_client, test_context,
    };
    use serde_json::{Value, json};

    const OBJECT_PATH: &str = "/apis/multi.ddnw.ml/v1alpha1/namespaces/default/multisecrets/test";
    const STATUS_PATH: &str =
        "/apis/multi.ddnw.ml/v1alpha1/namespaces/default/multisecrets/test/status";
    const EVENTS_PATH: &str = "/apis/events.k8s.io/v1/namespaces/default/events";
    const SECRETS_PATH: &str = "/api/v1/secrets";
    const CHILD: &str = "test.default.multisec";
    const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

    /// A MultiSecret as the watch delivers it right after `kubectl apply`.
    fn multi_secret() -> MultiSecret {
        let mut obj = MultiSecret::new(
            "test",
            MultiSecretSpec {
                data: Some(BTreeMap::from([(
                    "secret".into(),
                    SecretBytes(b"topSecret\n".to_vec()),
                )])),
                string_data: Some(BTreeMap::from([("user".into(), "admin".into())])),
                type_: None,
            },
        );
        obj.metadata.namespace = Some("default".into());
        obj.metadata.uid = Some("4c0c9c1e-1b5a-4bd5-9d3b-3f7c3f9d2a10".into());
        obj.metadata.generation = Some(1);
        obj.metadata.labels = Some(BTreeMap::from([("app".into(), "demo".into())]));
        obj.metadata.annotations = Some(BTreeMap::from([
            ("team".into(), "platform".into()),
            (LAST_APPLIED.into(), "{\"spec\":{\"data\":\"...\"}}".into()),
        ]));
        obj
    }

    fn with_finalizer(mut obj: MultiSecret) -> MultiSecret {
        obj.finalizers_mut().push(FINALIZER.into());
        obj
    }

    fn being_deleted(mut obj: MultiSecret) -> MultiSecret {
        obj.metadata.deletion_timestamp = Some(Time(Timestamp::now()));
        obj
    }

    fn with_status(mut obj: MultiSecret, wanted: i64, created: i64) -> MultiSecret {
        obj.status = Some(MultiSecretStatus {
            wanted,
            created,
            change_time: Some("2026-01-01T00:00:00Z".into()),
        });
        obj
    }

    /// A finalized MultiSecret that last saw `wanted` and `created` copies.
    fn reconciled(wanted: i64, created: i64) -> MultiSecret {
        with_status(with_finalizer(multi_secret()), wanted, created)
    }

    fn namespace(name: &str) -> Namespace {
        Namespace {
            metadata: ObjectMeta {
                name: Some(name.into()),
                ..ObjectMeta::default()
            },
            ..Namespace::default()
        }
    }

    fn terminating(name: &str) -> Namespace {
        let mut ns = namespace(name);
        ns.metadata.deletion_timestamp = Some(Time(Timestamp::now()));
        ns
    }

    /// The copy of the test MultiSecret in `namespace`, as the API server returns it.
    fn child_in(namespace: &str) -> Secret {
        let mut child = build_child(&multi_secret(), namespace);
        child.metadata.resource_version = Some("7".into());
        child.type_ = Some("Opaque".into());
        child
    }

    fn list(kind: &str, items: Vec<Value>) -> Value {
        json!({
            "apiVersion": "v1",
            "kind": kind,
            "metadata": {"resourceVersion": "100"},
            "items": items,
        })
    }

    /// `ctx` with the namespaces the Namespace watch of `run` would have cached.
    fn with_namespaces(ctx: Arc<Context>, namespaces: &[Namespace]) -> Arc<Context> {
        fill_cache(&ctx, namespaces.to_vec());
        ctx
    }

    /// Expects the cluster-wide list of the Secrets named like the copies.
    async fn expect_children(server: &mut ApiServerVerifier, secrets: &[Secret]) {
        let request = server.expect(Method::GET, SECRETS_PATH).await;
        assert!(
            request
                .query
                .contains(&format!("fieldSelector=metadata.name%3D{CHILD}")),
            "children are listed by name: {}",
            request.query
        );
        let items = secrets.iter().map(|secret| json!(secret)).collect();
        request.respond(StatusCode::OK, &list("SecretList", items));
    }

    /// Asserts the whole shape of a copy written into `namespace`.
    fn assert_is_copy(body: &Value, namespace: &str) {
        assert_eq!(body["metadata"]["name"], CHILD);
        assert_eq!(body["metadata"]["namespace"], namespace);
        assert_eq!(
            body["metadata"]["labels"],
            json!({"app": "demo", OWNED_LABEL: "true"})
        );
        assert_eq!(
            body["metadata"]["annotations"],
            json!({"team": "platform", OWNER_ANNOTATION: "test", NAMESPACE_ANNOTATION: "default"})
        );
        assert!(body["metadata"].get("ownerReferences").is_none());
        // "topSecret\n" and "admin", base64; stringData is merged into data.
        assert_eq!(
            body["data"],
            json!({"secret": "dG9wU2VjcmV0Cg==", "user": "YWRtaW4="})
        );
        assert!(body.get("stringData").is_none());
        assert!(body.get("type").is_none());
    }

    async fn expect_create(server: &mut ApiServerVerifier, namespace: &str) {
        let request = server
            .expect(
                Method::POST,
                &format!("/api/v1/namespaces/{namespace}/secrets"),
            )
            .await;
        assert_is_copy(&request.body, namespace);
        let response = child_in(namespace);
        request.respond(StatusCode::CREATED, &response);
    }

    async fn expect_delete(server: &mut ApiServerVerifier, namespace: &str, found: bool) {
        let request = server
            .expect(
                Method::DELETE,
                &format!("/api/v1/namespaces/{namespace}/secrets/{CHILD}"),
            )
            .await;
        if found {
            request.respond(StatusCode::OK, &child_in(namespace));
        } else {
            let not_found = Status::failure(&format!("secrets \"{CHILD}\" not found"), "NotFound")
                .with_code(404);
            request.respond(StatusCode::NOT_FOUND, &not_found);
        }
    }

    /// Expects the event the Recorder posts for a child, and accepts it.
    async fn expect_child_event(
        server: &mut ApiServerVerifier,
        reason: &str,
        action: &str,
        namespace: &str,
    ) {
        let request = server.expect(Method::POST, EVENTS_PATH).await;
        let event = &request.body;
        assert_eq!(event["type"], "Normal");
        assert_eq!(event["reason"], reason);
        assert_eq!(event["action"], action);
        assert_eq!(
            event["note"],
            format!("{reason} corev1.Secret, NameSpace: {namespace}, Name: {CHILD}")
        );
        assert_eq!(event["reportingController"], PROJECT_NAME);
        assert_eq!(event["regarding"]["kind"], "MultiSecret");
        assert_eq!(event["regarding"]["name"], "test");
        assert_eq!(event["regarding"]["namespace"], "default");
        assert_eq!(event["related"]["kind"], "Secret");
        assert_eq!(event["related"]["name"], CHILD);
        assert_eq!(event["related"]["namespace"], namespace);
        let response = event.clone();
        request.respond(StatusCode::CREATED, &response);
    }

    /// Expects the server-side apply of the status with these counts.
    async fn expect_status(server: &mut ApiServerVerifier, wanted: i64, created: i64) {
        let request = server.expect(Method::PATCH, STATUS_PATH).await;
        assert_eq!(
            request.content_type.as_deref(),
            Some("application/apply-patch+yaml")
        );
        assert!(request.query.contains("fieldManager=secret-operator"));
        assert!(request.query.contains("force=true"));
        assert_eq!(request.body["apiVersion"], "multi.ddnw.ml/v1alpha1");
        assert_eq!(request.body["kind"], "MultiSecret");
        let status = &request.body["status"];
        assert_eq!(status["wanted"], wanted);
        assert_eq!(status["created"], created);
        let change_time = status["change_time"].as_str().expect("change_time is set");
        assert_ne!(
            change_time, "2026-01-01T00:00:00Z",
            "change_time is renewed"
        );
        assert!(
            change_time.parse::<Timestamp>().is_ok() && change_time.ends_with('Z'),
            "change_time is RFC 3339: {change_time}"
        );
        request.respond(
            StatusCode::OK,
            &reconciled(wanted, created), // the content of the answer is not used
        );
    }

    // ---- reconcile scenarios (mocked API server) ----

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
            request.respond(StatusCode::OK, &with_finalizer(multi_secret()));
            server.expect_no_more_requests().await;
        });

        let action = reconcile(Arc::new(multi_secret()), test_context(client, PROJECT_NAME)).await;

        // The finalizer patch triggers the next reconcile, which does the work.
        assert_eq!(action.expect("reconcile succeeds"), Action::await_change());
        scenario.verify().await;
    }

    #[tokio::test]
    async fn creates_a_copy_in_every_wanted_namespace_and_counts_them() {
        let namespaces = [
            namespace("default"),
            namespace("kube-system"),
            namespace("team-a"),
            terminating("old"),
        ];
        let (client, server) = mock_client();
        let scenario = server.run(|mut server| async move {
            expect_children(&mut server, &[]).await;
            // All copies in one reconcile (upstream made one per reconcile);
            // none in kube-system or in the terminating namespace.
            expect_create(&mut server, "default").await;
            expect_child_event(&mut server, "Created", "Create", "default").await;
            expect_create(&mut server, "team-a").await;
            expect_child_event(&mut server, "Created", "Create", "team-a").await;
            expect_status(&mut server, 2, 2).await;
            server.expect_no_more_requests().await;
        });

        let obj = with_finalizer(multi_secret());
        let action = reconcile(
            Arc::new(obj),
            with_namespaces(test_context(client, PROJECT_NAME), &namespaces),
        )
        .await;

        assert_eq!(
            action.expect("reconcile succeeds"),
            Action::requeue(RESYNC_PERIOD)
        );
        scenario.verify().await;
    }

    #[tokio::test]
    async fn added_namespace_gets_a_copy() {
        let (client, server) = mock_client();
        let scenario = server.run(|mut server| async move {
            expect_children(&mut server, &[child_in("default")]).await;
            expect_create(&mut server, "new").await;
            expect_child_event(&mut server, "Created", "Create", "new").await;
            expect_status(&mut server, 2, 2).await;
            server.expect_no_more_requests().await;
        });

        let action = reconcile(
            Arc::new(reconciled(1, 1)),
            with_namespaces(
                test_context(client, PROJECT_NAME),
                &[namespace("default"), namespace("new")],
            ),
        )
        .await;

        assert_eq!(
            action.expect("reconcile succeeds"),
            Action::requeue(RESYNC_PERIOD)
        );
        scenario.verify().await;
    }

    #[tokio::test]
    async fn deleted_copy_is_recreated() {
        let (client, server) = mock_client();
        let scenario = server.run(|mut server| async move {
            expect_children(&mut server, &[child_in("default")]).await;
            expect_create(&mut server, "team-a").await;
            expect_child_event(&mut server, "Created", "Create", "team-a").await;
            // Same counts, but a copy changed: change_time is renewed.
            expect_status(&mut server, 2, 2).await;
            server.expect_no_more_requests().await;
        });

        let action = reconcile(
            Arc::new(reconciled(2, 2)),
            with_namespaces(
                test_context(client, PROJECT_NAME),
                &[namespace("default"), namespace("team-a")],
            ),
        )
        .await;

        assert_eq!(
            action.expect("reconcile succeeds"),
            Action::requeue(RESYNC_PERIOD)
        );
        scenario.verify().await;
    }

    #[tokio::test]
    async fn changed_copy_is_restored() {
        let (client, server) = mock_client();
        let scenario = server.run(|mut server| async move {
            let mut changed = child_in("team-a");
            let data = changed.data.as_mut().expect("data");
            data.insert("secret".into(), ByteString(b"edited".to_vec()));
            data.insert("extra".into(), ByteString(b"added".to_vec()));
            changed
                .labels_mut()
                .insert("edited-by".into(), "someone".into());
            expect_children(&mut server, &[child_in("default"), changed]).await;

            let request = server
                .expect(
                    Method::PUT,
                    &format!("/api/v1/namespaces/team-a/secrets/{CHILD}"),
                )
                .await;
            assert_is_copy(&request.body, "team-a");
            assert_eq!(request.body["metadata"]["resourceVersion"], "7");
            request.respond(StatusCode::OK, &child_in("team-a"));
            expect_child_event(&mut server, "Updated", "Update", "team-a").await;
            expect_status(&mut server, 2, 2).await;
            server.expect_no_more_requests().await;
        });

        let action = reconcile(
            Arc::new(reconciled(2, 2)),
            with_namespaces(
                test_context(client, PROJECT_NAME),
                &[namespace("default"), namespace("team-a")],
            ),
        )
        .await;

        assert_eq!(
            action.expect("reconcile succeeds"),
            Action::requeue(RESYNC_PERIOD)
        );
        scenario.verify().await;
    }

    #[tokio::test]
    async fn copy_of_another_type_is_deleted_and_created_again() {
        let (client, server) = mock_client();
        let scenario = server.run(|mut server| async move {
            let mut tls = child_in("default");
            tls.type_ = Some("kubernetes.io/tls".into());
            expect_children(&mut server, &[tls]).await;
            // The type of a Secret is immutable.
            expect_delete(&mut server, "default", true).await;
            expect_child_event(&mut server, "Deleted", "Delete", "default").await;
            expect_create(&mut server, "default").await;
            expect_child_event(&mut server, "Created", "Create", "default").await;
            expect_status(&mut server, 1, 1).await;
            server.expect_no_more_requests().await;
        });

        let action = reconcile(
            Arc::new(reconciled(1, 1)),
            with_namespaces(test_context(client, PROJECT_NAME), &[namespace("default")]),
        )
        .await;

        assert_eq!(
            action.expect("reconcile succeeds"),
            Action::requeue(RESYNC_PERIOD)
        );
        scenario.verify().await;
    }

    #[tokio::test]
    async fn up_to_date_copies_and_status_need_no_write() {
        let (client, server) = mock_client();
        let scenario = server.run(|mut server| async move {
            expect_children(&mut server, &[child_in("default"), child_in("team-a")]).await;
            server.expect_no_more_requests().await;
        });

        let action = reconcile(
            Arc::new(reconciled(2, 2)),
            with_namespaces(
                test_context(client, PROJECT_NAME),
                &[namespace("default"), namespace("team-a")],
            ),
        )
        .await;

        assert_eq!(
            action.expect("reconcile succeeds"),
            Action::requeue(RESYNC_PERIOD)
        );
        scenario.verify().await;
    }

    #[tokio::test]
    async fn status_counts_only_copies_of_this_multi_secret() {
        let (client, server) = mock_client();
        let scenario = server.run(|mut server| async move {
            // A Secret of someone else that happens to have the copy's name.
            let mut foreign = child_in("team-a");
            foreign.metadata.annotations = None;
            foreign.metadata.labels = None;
            expect_children(&mut server, &[child_in("default"), foreign]).await;
            // Not overwritten, not counted.
            expect_status(&mut server, 2, 1).await;
            server.expect_no_more_requests().await;
        });

        let action = reconcile(
            Arc::new(reconciled(0, 0)),
            with_namespaces(
                test_context(client, PROJECT_NAME),
                &[namespace("default"), namespace("team-a")],
            ),
        )
        .await;

        assert_eq!(
            action.expect("reconcile succeeds"),
            Action::requeue(RESYNC_PERIOD)
        );
        scenario.verify().await;
    }

    #[tokio::test]
    async fn copy_in_an_excluded_namespace_is_deleted() {
        let namespaces = [namespace("default"), namespace("kube-system")];
        let (client, server) = mock_client();
        let scenario = server.run(|mut server| async move {
            expect_children(&mut server, &[child_in("default"), child_in("kube-system")]).await;
            expect_delete(&mut server, "kube-system", true).await;
            expect_child_event(&mut server, "Deleted", "Delete", "kube-system").await;
            expect_status(&mut server, 1, 1).await;
            server.expect_no_more_requests().await;
        });

        let action = reconcile(
            Arc::new(reconciled(1, 1)),
            with_namespaces(test_context(client, PROJECT_NAME), &namespaces),
        )
        .await;

        assert_eq!(
            action.expect("reconcile succeeds"),
            Action::requeue(RESYNC_PERIOD)
        );
        scenario.verify().await;
    }

    #[tokio::test]
    async fn deletion_deletes_every_copy_then_releases_the_finalizer() {
        let (client, server) = mock_client();
        let scenario = server.run(|mut server| async move {
            let mut foreign = child_in("other");
            foreign.metadata.annotations = None;
            let copies = [child_in("default"), foreign, child_in("team-a")];
            expect_children(&mut server, &copies).await;
            expect_delete(&mut server, "default", true).await;
            // Already gone: fine. The foreign Secret in "other" is not touched.
            expect_delete(&mut server, "team-a", false).await;

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
            request.respond(StatusCode::OK, &being_deleted(multi_secret()));
            // No status write for an object that is about to disappear.
            server.expect_no_more_requests().await;
        });

        let obj = being_deleted(reconciled(2, 2));
        let action = reconcile(Arc::new(obj), test_context(client, PROJECT_NAME)).await;

        assert_eq!(action.expect("reconcile succeeds"), Action::await_change());
        scenario.verify().await;
    }

    #[tokio::test]
    async fn failed_copy_deletion_keeps_the_finalizer() {
        let (client, server) = mock_client();
        let scenario = server.run(|mut server| async move {
            expect_children(&mut server, &[child_in("default")]).await;
            let forbidden = Status::failure("forbidden", "Forbidden").with_code(403);
            server
                .expect(
                    Method::DELETE,
                    &format!("/api/v1/namespaces/default/secrets/{CHILD}"),
                )
                .await
                .respond(StatusCode::FORBIDDEN, &forbidden);
            // No finalizer removal.
            server.expect_no_more_requests().await;
        });

        let obj = being_deleted(reconciled(1, 1));
        let error = reconcile(Arc::new(obj), test_context(client, PROJECT_NAME))
            .await
            .expect_err("the cleanup fails");

        assert_eq!(error.metric_label(), "kube");
        scenario.verify().await;
    }

    #[tokio::test]
    async fn object_deleted_before_status_patch_ends_quietly() {
        let (client, server) = mock_client();
        let scenario = server.run(|mut server| async move {
            expect_children(&mut server, &[child_in("default")]).await;
            let not_found =
                Status::failure("multisecrets.multi.ddnw.ml \"test\" not found", "NotFound")
                    .with_code(404);
            server
                .expect(Method::PATCH, STATUS_PATH)
                .await
                .respond(StatusCode::NOT_FOUND, &not_found);
            server.expect_no_more_requests().await;
        });

        let obj = with_finalizer(multi_secret());
        let action = reconcile(
            Arc::new(obj),
            with_namespaces(test_context(client, PROJECT_NAME), &[namespace("default")]),
        )
        .await;

        assert_eq!(
            action.expect("a 404 is not an error"),
            Action::await_change()
        );
        scenario.verify().await;
    }

    #[tokio::test]
    async fn api_error_fails_the_reconcile_and_is_retried_with_backoff() {
        let (client, server) = mock_client();
        let scenario = server.run(|mut server| async move {
            expect_children(&mut server, &[]).await;
            let internal =
                Status::failure("etcdserver: request timed out", "InternalError").with_code(500);
            server
                .expect(Method::POST, "/api/v1/namespaces/default/secrets")
                .await
                .respond(StatusCode::INTERNAL_SERVER_ERROR, &internal);
            // No event and no status after a failure.
            server.expect_no_more_requests().await;
        });
        let ctx = with_namespaces(test_context(client, PROJECT_NAME), &[namespace("default")]);
        let obj = Arc::new(reconciled(1, 0));

        let error = reconcile(obj.clone(), ctx.clone())
            .await
            .expect_err("the create fails");

        assert_eq!(error.metric_label(), "kube");
        assert_eq!(
            error_policy(obj, &error, ctx.clone()),
            Action::requeue(Duration::from_secs(5))
        );
        drop(ctx);
        scenario.verify().await;
    }

    #[tokio::test]
    async fn too_long_copy_name_is_reported_and_not_retried() {
        let (client, server) = mock_client();
        let mut obj = with_finalizer(multi_secret());
        obj.metadata.name = Some("x".repeat(240));
        let scenario = server.run(|mut server| async move {
            let request = server.expect(Method::POST, EVENTS_PATH).await;
            assert_eq!(request.body["type"], "Warning");
            assert_eq!(request.body["reason"], "InvalidName");
            let note = request.body["note"].as_str().expect("note").to_owned();
            assert!(note.contains("longer than 253 characters"), "{note}");
            let response = request.body.clone();
            request.respond(StatusCode::CREATED, &response);
            server.expect_no_more_requests().await;
        });

        let action = reconcile(Arc::new(obj), test_context(client, PROJECT_NAME)).await;

        assert_eq!(action.expect("reconcile succeeds"), Action::await_change());
        scenario.verify().await;
    }

    #[tokio::test]
    async fn error_policy_backs_off_per_object_until_a_success() {
        let (client, server) = mock_client();
        let scenario = server.run(|mut server| async move {
            // The successful reconcile below: everything is up to date.
            expect_children(&mut server, &[child_in("default")]).await;
            server.expect_no_more_requests().await;
        });
        let ctx = with_namespaces(test_context(client, PROJECT_NAME), &[namespace("default")]);
        let obj = Arc::new(reconciled(1, 1));
        let other = Arc::new(MultiSecret::new("other", MultiSecretSpec::default()));
        let error = Error::Kube(kube::Error::Api(
            Status::failure("etcdserver: request timed out", "InternalError")
                .with_code(500)
                .boxed(),
        ));
        let retry_after = |obj: &Arc<MultiSecret>| error_policy(obj.clone(), &error, ctx.clone());

        assert_eq!(retry_after(&obj), Action::requeue(Duration::from_secs(5)));
        assert_eq!(retry_after(&obj), Action::requeue(Duration::from_secs(10)));
        assert_eq!(retry_after(&obj), Action::requeue(Duration::from_secs(20)));
        assert_eq!(retry_after(&other), Action::requeue(Duration::from_secs(5)));
        let metrics = ctx.metrics.encode();
        assert!(metrics.contains(
            "secret_operator_reconcile_errors_total{controller=\"multisecret\",error=\"kube\"} 4"
        ));

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

    // ---- pure functions ----

    #[test]
    fn child_name_is_upstreams_lower_cased() {
        let mut obj = multi_secret();
        obj.metadata.name = Some("Db-Creds".into());
        obj.metadata.namespace = Some("Team-A".into());
        assert_eq!(child_name(&obj), "db-creds.team-a.multisec");
    }

    #[test]
    fn child_copies_metadata_and_data_without_last_applied() {
        let child = build_child(&multi_secret(), "team-a");
        let body = serde_json::to_value(&child).expect("serializes");
        assert_is_copy(&body, "team-a");
        assert!(!child.annotations().contains_key(LAST_APPLIED));
    }

    #[test]
    fn string_data_wins_over_data_and_type_is_copied() {
        let mut obj = multi_secret();
        obj.spec.string_data = Some(BTreeMap::from([("secret".into(), "plain".into())]));
        obj.spec.type_ = Some("kubernetes.io/basic-auth".into());
        let child = build_child(&obj, "default");
        assert_eq!(
            child.data,
            Some(BTreeMap::from([(
                "secret".into(),
                ByteString(b"plain".to_vec())
            )]))
        );
        assert_eq!(child.type_.as_deref(), Some("kubernetes.io/basic-auth"));
    }

    #[test]
    fn empty_spec_gives_an_empty_opaque_copy() {
        let mut obj = multi_secret();
        obj.spec = MultiSecretSpec {
            type_: Some(String::new()),
            ..MultiSecretSpec::default()
        };
        let child = build_child(&obj, "default");
        assert_eq!(child.data, None);
        assert_eq!(child.type_, None);
        assert_eq!(drift(&child_in("default"), &child), Drift::Changed);
    }

    #[test]
    fn drift_compares_data_type_labels_and_annotations() {
        let desired = build_child(&multi_secret(), "default");
        assert_eq!(drift(&child_in("default"), &desired), Drift::None);

        let mut extra_annotation = child_in("default");
        extra_annotation
            .annotations_mut()
            .insert("x".into(), "y".into());
        assert_eq!(drift(&extra_annotation, &desired), Drift::Changed);

        let mut missing_label = child_in("default");
        missing_label.labels_mut().remove(OWNED_LABEL);
        assert_eq!(drift(&missing_label, &desired), Drift::Changed);

        let mut no_data = child_in("default");
        no_data.data = None;
        assert_eq!(drift(&no_data, &desired), Drift::Changed);

        let mut other_type = child_in("default");
        other_type.type_ = Some("kubernetes.io/tls".into());
        assert_eq!(drift(&other_type, &desired), Drift::Immutable);

        let mut immutable = child_in("default");
        immutable.immutable = Some(true);
        assert_eq!(drift(&immutable, &desired), Drift::Immutable);
    }

    #[test]
    fn owner_annotations_map_a_secret_to_its_multi_secret() {
        let obj = multi_secret();
        let child = child_in("team-a");
        assert!(is_owned(&child, &obj));
        assert_eq!(
            owner_of(&child),
            Some(ObjectRef::<MultiSecret>::new("test").within("default"))
        );

        let mut other_namespace = child_in("team-a");
        other_namespace
            .annotations_mut()
            .insert(NAMESPACE_ANNOTATION.into(), "elsewhere".into());
        assert!(!is_owned(&other_namespace, &obj));

        let mut plain = child_in("team-a");
        plain.annotations_mut().remove(OWNER_ANNOTATION);
        assert!(!is_owned(&plain, &obj));
        assert_eq!(owner_of(&plain), None);
    }

    #[test]
    fn every_active_namespace_but_the_system_ones_is_wanted() {
        assert!(is_wanted(&namespace("default")));
        assert!(is_wanted(&namespace("team-a")));
        for excluded in EXCLUDED_NAMESPACES {
            assert!(!is_wanted(&namespace(excluded)), "{excluded}");
        }
        assert!(!is_wanted(&terminating("team-b")));
    }

    #[test]
    fn change_time_is_rfc3339_to_the_second_in_utc() {
        let time = Timestamp::from_second(1_700_000_000).expect("valid");
        assert_eq!(rfc3339(time), "2023-11-14T22:13:20Z");
    }
}
