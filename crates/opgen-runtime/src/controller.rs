//! What every controller shares: the [`Context`] its reconciles get, the [`ControllerEntry`]
//! the [`Manager`](crate::Manager) starts it from, [`run`] around kube's
//! [`Controller`], and the helpers a reconcile calls: [`finalizer`], [`Context::patch_status`],
//! [`Context::publish_event`], [`Context::error_policy`].
//!
//! A controller module of an operator, in full (the reconcile itself aside):
//!
//! ```
//! # use std::sync::Arc;
//! # use futures::FutureExt;
//! # use k8s_openapi::api::core::v1::ConfigMap;
//! # use kube::runtime::controller::Action;
//! use opgen_runtime::{Context, ControllerEntry, Result, controller};
//!
//! pub const CONTROLLER: ControllerEntry = ControllerEntry {
//!     name: "configmap",
//!     run: |ctx| controller::run(ctx, "configmap", reconcile, error_policy).boxed(),
//! };
//!
//! async fn reconcile(obj: Arc<ConfigMap>, ctx: Arc<Context>) -> Result<Action> {
//!     let _timer = ctx.metrics.reconcile_started("configmap");
//!     // ... bring the world to what `obj` asks for ...
//!     ctx.backoff.reset(&*obj);
//!     Ok(Action::await_change())
//! }
//!
//! fn error_policy(obj: Arc<ConfigMap>, error: &opgen_runtime::Error, ctx: Arc<Context>) -> Action {
//!     ctx.error_policy("configmap", &*obj, error)
//! }
//! ```

use std::{fmt::Debug, future::Future, hash::Hash, sync::Arc};

use futures::{StreamExt, future::BoxFuture};
use k8s_openapi::{NamespaceResourceScope, api::core::v1::ObjectReference};
use kube::{
    Api, Client, Resource, ResourceExt,
    api::{ListParams, Patch, PatchParams},
    core::object::HasStatus,
    runtime::{
        Controller,
        controller::{self, Action},
        events::{Event, EventType, Reporter},
        finalizer::{self as kube_finalizer, Event as FinalizerEvent},
        reflector::{Lookup, ObjectRef},
        watcher,
    },
};
use serde::{Serialize, de::DeserializeOwned};
use serde_json::json;
use tokio_util::sync::CancellationToken;
use tracing::{debug, warn};

use crate::{
    Error, ErrorBackoff, MetricLabel, Result,
    cache::{Cache, Caches},
    events::Recorder,
    instance_name,
    metrics::Metrics,
};

/// A controller the manager can start.
#[derive(Clone, Copy, Debug)]
pub struct ControllerEntry {
    /// Name used in logs and as the `controller` metric label.
    pub name: &'static str,
    /// Runs the controller until [`Context::shutdown`] is cancelled; usually a closure
    /// calling [`run`].
    pub run: fn(Arc<Context>) -> BoxFuture<'static, Result<()>>,
}

/// State shared by all controllers and their reconciles.
pub struct Context {
    /// Kubernetes API client.
    pub client: Client,
    /// The operator's name: field manager of its server-side applies, reporter of its events.
    pub manager_name: String,
    /// Publishes `events.k8s.io/v1` Events. Shared, so that repeated events fold into series.
    pub recorder: Recorder,
    /// Reconcile counters and durations.
    pub metrics: Arc<Metrics>,
    /// Retry delays of objects whose last reconcile failed.
    pub backoff: ErrorBackoff,
    /// Namespaces to watch. Empty means all namespaces.
    pub namespaces: Vec<String>,
    /// Cancelled on SIGTERM or Ctrl-C: controllers finish running reconciles and return.
    pub shutdown: CancellationToken,
    /// What the controllers' watches keep, by kind ([`Context::cache`]).
    pub(crate) caches: Caches,
    /// How many objects each controller reconciles at once (0: no limit), as
    /// controller-runtime's `MaxConcurrentReconciles`; `--max-concurrent-reconciles`.
    pub max_concurrent_reconciles: u16,
}

impl Context {
    /// Creates the context of the operator `manager_name`, with events reported from this pod.
    pub fn new(
        client: Client,
        manager_name: impl Into<String>,
        metrics: Arc<Metrics>,
        namespaces: Vec<String>,
        shutdown: CancellationToken,
    ) -> Self {
        let manager_name = manager_name.into();
        let reporter = Reporter {
            controller: manager_name.clone(),
            instance: instance_name(),
        };
        Self {
            recorder: Recorder::new(client.clone(), reporter),
            client,
            manager_name,
            metrics,
            backoff: ErrorBackoff::default(),
            namespaces,
            shutdown,
            caches: Caches::default(),
            max_concurrent_reconciles: crate::cli::DEFAULT_MAX_CONCURRENT_RECONCILES,
        }
    }

    /// The objects of kind `K` the controllers' watches keep ([`Watches`](crate::watches::Watches)
    /// reflects each kind it watches), read without a request: `None` when no watch keeps
    /// that kind. Holds only what the watch selects (a label-filtered `owns` caches the
    /// operator's own children, not every object of the kind).
    pub fn cache<K>(&self) -> Option<Cache<K>>
    where
        K: Resource<DynamicType = ()> + Clone + Send + Sync + 'static,
    {
        self.caches.get()
    }

    /// The APIs a controller of a namespaced kind watches: one per watched
    /// namespace, or a single cluster-wide one.
    pub fn watched_apis<K>(&self) -> Vec<Api<K>>
    where
        K: Resource<Scope = NamespaceResourceScope>,
        K::DynamicType: Default,
    {
        if self.namespaces.is_empty() {
            return vec![Api::all(self.client.clone())];
        }
        self.namespaces
            .iter()
            .map(|namespace| Api::namespaced(self.client.clone(), namespace))
            .collect()
    }

    /// The API of a namespaced kind in `namespace`, or across all namespaces for `None`: for
    /// the owned kinds a [`run_with`] configuration watches next to the controller's kind.
    pub fn api_in<K>(&self, namespace: Option<&str>) -> Api<K>
    where
        K: Resource<Scope = NamespaceResourceScope>,
        K::DynamicType: Default,
    {
        match namespace {
            Some(namespace) => Api::namespaced(self.client.clone(), namespace),
            None => Api::all(self.client.clone()),
        }
    }

    /// The API of kind `K` in `obj`'s namespace: `obj`'s own kind's (for its finalizer), or
    /// its children's.
    pub fn api_for<K>(&self, obj: &impl Resource) -> Result<Api<K>>
    where
        K: Resource<Scope = NamespaceResourceScope>,
        K::DynamicType: Default,
    {
        let namespace = obj.meta().namespace.as_deref();
        let namespace = namespace.ok_or(Error::MissingObjectKey(".metadata.namespace"))?;
        Ok(Api::namespaced(self.client.clone(), namespace))
    }

    /// Decides when to retry a failed reconcile of `obj` by `controller`: per-object
    /// exponential backoff (reset by [`ErrorBackoff::reset`] after a success); the failure
    /// is logged and counted in the metrics.
    pub fn error_policy<K, E>(&self, controller: &'static str, obj: &K, error: &E) -> Action
    where
        K: Resource + Lookup,
        <K as Lookup>::DynamicType: Default,
        E: std::fmt::Display + MetricLabel,
    {
        let delay = self.backoff.next_delay(obj);
        warn!(
            controller,
            object = %ObjectRef::from_obj(obj),
            %error,
            retry_in = ?delay,
            "reconcile failed"
        );
        self.metrics.reconcile_failed(controller, error);
        Action::requeue(delay)
    }

    /// The parameters of this operator's server-side applies: its field manager, forcing
    /// conflicts (the fields it applies are the controller's: a `kubectl scale` of a child is
    /// put back).
    pub fn apply_params(&self) -> PatchParams {
        PatchParams::apply(&self.manager_name).force()
    }

    /// Server-side applies `status` as the whole status of `obj` (as
    /// [`Context::patch_status`]), unless `obj` already has it: with
    /// [`set_condition`](crate::set_condition) keeping each condition's `lastTransitionTime`
    /// while its status holds, a reconcile that changes nothing writes nothing. When the
    /// status type has a top-level `observedGeneration`, it is set to `obj`'s generation. An
    /// object deleted after the cache saw it is [`StatusUpdate::Gone`], not an error.
    /// Namespaced and cluster-scoped kinds alike. [`Context::write_status`] writes by merge
    /// patch instead.
    pub async fn update_status<K>(&self, obj: &K, status: &K::Status) -> Result<StatusUpdate>
    where
        K: Resource<DynamicType = ()> + HasStatus + Clone + DeserializeOwned + Debug,
        K::Status: PartialEq + Serialize + DeserializeOwned,
    {
        self.write_status(obj, status, StatusWrite::Apply).await
    }

    /// [`Context::update_status`], written as `how` says.
    pub async fn write_status<K>(
        &self,
        obj: &K,
        status: &K::Status,
        how: StatusWrite,
    ) -> Result<StatusUpdate>
    where
        K: Resource<DynamicType = ()> + HasStatus + Clone + DeserializeOwned + Debug,
        K::Status: PartialEq + Serialize + DeserializeOwned,
    {
        let observed = with_observed_generation(status, obj.meta().generation);
        let status = observed.as_ref().unwrap_or(status);
        if obj.status() == Some(status) {
            debug!("status is up to date");
            return Ok(StatusUpdate::Unchanged);
        }
        let (params, patch) = match how {
            StatusWrite::Apply => (self.apply_params(), status_patch::<K>(status)),
            StatusWrite::Merge => {
                let json = |status| serde_json::to_value(status).map_err(kube::Error::SerdeError);
                let (current, desired) = (json(obj.status())?, json(Some(status))?);
                let patch = json!({ "status": merge_patch(&current, &desired) });
                (PatchParams::default(), Patch::Merge(patch))
            }
        };
        // A request in the object's own scope: an `Api` would have to know it statically.
        let url = K::url_path(&(), obj.meta().namespace.as_deref());
        let request = kube::core::Request::new(url)
            .patch_subresource("status", &obj.name_any(), &params, &patch)
            .map_err(kube::Error::BuildRequest)?;
        match self.client.request::<K>(request).await {
            Ok(_) => Ok(StatusUpdate::Updated),
            Err(error) if is_not_found(&error) => {
                debug!("object is gone, skipping status update");
                Ok(StatusUpdate::Gone)
            }
            Err(error) => Err(error.into()),
        }
    }

    /// Server-side applies `status` as the whole status of `obj` (in `api`, the API of its
    /// namespace), owned by this operator's field manager (forcing conflicts: the status is
    /// the controller's).
    pub async fn patch_status<K, S>(
        &self,
        api: &Api<K>,
        obj: &K,
        status: &S,
    ) -> Result<(), kube::Error>
    where
        K: Resource<DynamicType = ()> + Clone + DeserializeOwned + Debug,
        S: Serialize,
    {
        let patch = status_patch::<K>(status);
        api.patch_status(&obj.name_any(), &self.apply_params(), &patch)
            .await?;
        Ok(())
    }

    /// Publishes an event of `type_` about `obj`. Events are informational, so a failure is
    /// logged and not returned: it must not fail the reconcile (it would block deletion in a
    /// terminating namespace, for one).
    pub async fn publish_event<K>(
        &self,
        obj: &K,
        type_: EventType,
        reason: &str,
        action: &str,
        note: impl Into<String>,
    ) where
        K: Resource<DynamicType = ()>,
    {
        self.publish(obj, None, type_, reason, action, note.into())
            .await;
    }

    /// [`Context::publish_event`] with a `related` object (events.k8s.io's `related`, e.g.
    /// the child the event is about). The recorder folds repeated events into a series by
    /// regarding and related object, so events about different children stay apart.
    pub async fn publish_related_event<K>(
        &self,
        obj: &K,
        related: ObjectReference,
        type_: EventType,
        reason: &str,
        action: &str,
        note: impl Into<String>,
    ) where
        K: Resource<DynamicType = ()>,
    {
        self.publish(obj, Some(related), type_, reason, action, note.into())
            .await;
    }

    async fn publish<K>(
        &self,
        obj: &K,
        secondary: Option<ObjectReference>,
        type_: EventType,
        reason: &str,
        action: &str,
        note: String,
    ) where
        K: Resource<DynamicType = ()>,
    {
        let event = Event {
            type_,
            reason: reason.into(),
            note: Some(note),
            action: action.into(),
            secondary,
        };
        if let Err(error) = self.recorder.publish(&event, &obj.object_ref(&())).await {
            warn!(%error, reason, "failed to publish event");
        }
    }
}

/// The server-side apply of `status` as the whole status of a `K`.
fn status_patch<K: Resource<DynamicType = ()>>(
    status: &impl Serialize,
) -> Patch<serde_json::Value> {
    Patch::Apply(json!({
        "apiVersion": K::api_version(&()),
        "kind": K::kind(&()),
        "status": status,
    }))
}

/// How [`Context::write_status`] writes a status.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum StatusWrite {
    /// Server-side apply by the operator's field manager, forcing conflicts: the fields it
    /// sets are the controller's, and a field it stops setting is removed.
    #[default]
    Apply,
    /// A JSON merge patch of what differs from the status `obj` has (a field gone from the
    /// desired status is sent as `null`): for a status other writers share without
    /// server-side apply, or a CRD whose lists are not list-maps.
    Merge,
}

/// `status` with its top-level `observedGeneration` set to `generation`, when its type has
/// one (the field survives a round trip through the type): `None` when it has none, or
/// already says `generation`.
fn with_observed_generation<S>(status: &S, generation: Option<i64>) -> Option<S>
where
    S: Serialize + DeserializeOwned,
{
    let mut value = serde_json::to_value(status).ok()?;
    let fields = value.as_object_mut()?;
    if fields.get("observedGeneration") == Some(&json!(generation)) {
        return None;
    }
    fields.insert("observedGeneration".into(), json!(generation?));
    let observed: S = serde_json::from_value(value).ok()?;
    let kept = serde_json::to_value(&observed).ok()?;
    (kept.get("observedGeneration") == Some(&json!(generation))).then_some(observed)
}

/// The JSON merge patch (RFC 7386) that turns `current` into `desired`: the fields that
/// differ, nested objects patched field by field, removed fields as `null`.
fn merge_patch(current: &serde_json::Value, desired: &serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    let (Value::Object(current), Value::Object(desired)) = (current, desired) else {
        return desired.clone();
    };
    let removed = current
        .keys()
        .filter(|key| !desired.contains_key(*key))
        .map(|key| (key.clone(), Value::Null));
    let changed = desired
        .iter()
        .filter(|(key, value)| current.get(*key) != Some(value))
        .map(|(key, value)| {
            let patch = match current.get(key) {
                Some(old) => merge_patch(old, value),
                None => value.clone(),
            };
            (key.clone(), patch)
        });
    Value::Object(removed.chain(changed).collect())
}

/// What [`Context::update_status`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[must_use]
pub enum StatusUpdate {
    /// The object already had the status: nothing was written.
    Unchanged,
    /// The status was written.
    Updated,
    /// The object is gone (deleted after the cache saw it): nothing is left to reconcile.
    Gone,
}

/// What a controller's kind must be: an object kube-runtime can watch, cache and hand to the
/// reconcile tasks. Every `#[derive(CustomResource)]` kind and every k8s-openapi kind is one.
pub trait ControlledKind:
    Resource<DynamicType: Eq + Hash + Clone + Default + Debug + Unpin>
    + Clone
    + DeserializeOwned
    + Debug
    + Send
    + Sync
    + 'static
{
}

impl<K> ControlledKind for K where
    K: Resource<DynamicType: Eq + Hash + Clone + Default + Debug + Unpin>
        + Clone
        + DeserializeOwned
        + Debug
        + Send
        + Sync
        + 'static
{
}

/// Runs kube's [`Controller`] for kind `K` with `reconcile` and `error_policy` until
/// [`Context::shutdown`]: one controller per namespace of `--namespace` (so a Role per
/// namespace is enough), or one over the whole cluster. Fails at once, with a hint, when
/// the kind's CRD is not installed.
pub async fn run<K, ReconcileFn, ReconcileFut, E, PolicyFn>(
    ctx: Arc<Context>,
    name: &'static str,
    reconcile: ReconcileFn,
    error_policy: PolicyFn,
) -> Result<()>
where
    K: ControlledKind + Resource<Scope = NamespaceResourceScope>,
    ReconcileFn: FnMut(Arc<K>, Arc<Context>) -> ReconcileFut + Clone,
    ReconcileFut: Future<Output = std::result::Result<Action, E>> + Send + 'static,
    E: std::error::Error + Send + Sync + 'static,
    PolicyFn: Fn(Arc<K>, &E, Arc<Context>) -> Action + Clone,
{
    run_with(
        ctx,
        name,
        |controller, _, _| controller,
        reconcile,
        error_policy,
    )
    .await
}

/// [`run`] with each namespace's [`Controller`] configured by `configure` before it runs,
/// e.g. with the kinds it owns (`.owns(ctx.api_in::<Deployment>(namespace), ...)`) or
/// watches. `configure` gets the namespace the controller watches (`None`: all).
pub async fn run_with<K, ConfigureFn, ReconcileFn, ReconcileFut, E, PolicyFn>(
    ctx: Arc<Context>,
    name: &'static str,
    configure: ConfigureFn,
    reconcile: ReconcileFn,
    error_policy: PolicyFn,
) -> Result<()>
where
    K: ControlledKind + Resource<Scope = NamespaceResourceScope>,
    ConfigureFn: Fn(Controller<K>, &Context, Option<&str>) -> Controller<K>,
    ReconcileFn: FnMut(Arc<K>, Arc<Context>) -> ReconcileFut + Clone,
    ReconcileFut: Future<Output = std::result::Result<Action, E>> + Send + 'static,
    E: std::error::Error + Send + Sync + 'static,
    PolicyFn: Fn(Arc<K>, &E, Arc<Context>) -> Action + Clone,
{
    let primary = watcher::Config::default().any_semantic();
    run_configured(ctx, name, primary, configure, reconcile, error_policy).await
}

/// [`run_with`] with the primary watch's configuration given (a label selector, say).
pub(crate) async fn run_configured<K, ConfigureFn, ReconcileFn, ReconcileFut, E, PolicyFn>(
    ctx: Arc<Context>,
    name: &'static str,
    primary: watcher::Config,
    configure: ConfigureFn,
    reconcile: ReconcileFn,
    error_policy: PolicyFn,
) -> Result<()>
where
    K: ControlledKind + Resource<Scope = NamespaceResourceScope>,
    ConfigureFn: Fn(Controller<K>, &Context, Option<&str>) -> Controller<K>,
    ReconcileFn: FnMut(Arc<K>, Arc<Context>) -> ReconcileFut + Clone,
    ReconcileFut: Future<Output = std::result::Result<Action, E>> + Send + 'static,
    E: std::error::Error + Send + Sync + 'static,
    PolicyFn: Fn(Arc<K>, &E, Arc<Context>) -> Action + Clone,
{
    let namespaces: Vec<Option<String>> = if ctx.namespaces.is_empty() {
        vec![None]
    } else {
        ctx.namespaces.iter().cloned().map(Some).collect()
    };
    let mut controllers = Vec::new();
    for namespace in &namespaces {
        let api = ctx.api_in::<K>(namespace.as_deref());
        ensure_crd_installed(&api).await?;
        let controller = Controller::new(api, primary.clone());
        controllers.push(configure(controller, &ctx, namespace.as_deref()));
    }
    drive(ctx, name, controllers, reconcile, error_policy).await;
    Ok(())
}

/// [`run`] for a cluster-scoped kind, or any kind over the `apis` given.
pub async fn run_on<K, ReconcileFn, ReconcileFut, E, PolicyFn>(
    ctx: Arc<Context>,
    name: &'static str,
    apis: Vec<Api<K>>,
    reconcile: ReconcileFn,
    error_policy: PolicyFn,
) -> Result<()>
where
    K: ControlledKind,
    ReconcileFn: FnMut(Arc<K>, Arc<Context>) -> ReconcileFut + Clone,
    ReconcileFut: Future<Output = std::result::Result<Action, E>> + Send + 'static,
    E: std::error::Error + Send + Sync + 'static,
    PolicyFn: Fn(Arc<K>, &E, Arc<Context>) -> Action + Clone,
{
    for api in &apis {
        ensure_crd_installed(api).await?;
    }
    let controllers = apis
        .into_iter()
        .map(|api| Controller::new(api, watcher::Config::default().any_semantic()))
        .collect();
    drive(ctx, name, controllers, reconcile, error_policy).await;
    Ok(())
}

/// Runs `controllers` until shutdown, logging what they yield.
async fn drive<K, ReconcileFn, ReconcileFut, E, PolicyFn>(
    ctx: Arc<Context>,
    name: &'static str,
    controllers: Vec<Controller<K>>,
    reconcile: ReconcileFn,
    error_policy: PolicyFn,
) where
    K: ControlledKind,
    ReconcileFn: FnMut(Arc<K>, Arc<Context>) -> ReconcileFut + Clone,
    ReconcileFut: Future<Output = std::result::Result<Action, E>> + Send + 'static,
    E: std::error::Error + Send + Sync + 'static,
    PolicyFn: Fn(Arc<K>, &E, Arc<Context>) -> Action + Clone,
{
    let controllers = controllers.into_iter().map(|controller| {
        let config = controller::Config::default().concurrency(ctx.max_concurrent_reconciles);
        controller
            .with_config(config)
            .graceful_shutdown_on(ctx.shutdown.clone().cancelled_owned())
            .run(reconcile.clone(), error_policy.clone(), ctx.clone())
            // future::ready, not an async block: the latter makes the future of a generic
            // caller fail the `Send` check (rust-lang/rust#102211).
            .for_each(move |result| {
                log_reconcile_result(name, result);
                futures::future::ready(())
            })
    });
    futures::future::join_all(controllers).await;
}

/// kube's [`finalizer`](kube_finalizer::finalizer) helper with `apply` for live objects and
/// `cleanup` for deleted ones: a new object first gets `finalizer_name` (which triggers the
/// next reconcile), a deleted one keeps it until `cleanup` succeeded. An object gone before
/// its finalizer could be added or removed (deleted after the cache saw it) leaves nothing
/// to do: `await_change`, not an error.
pub async fn finalizer<K, ApplyFut, CleanupFut>(
    api: &Api<K>,
    finalizer_name: &str,
    obj: Arc<K>,
    apply: impl FnOnce(Arc<K>) -> ApplyFut,
    cleanup: impl FnOnce(Arc<K>) -> CleanupFut,
) -> Result<Action>
where
    K: Resource + Clone + DeserializeOwned + Serialize + Debug,
    <K as Resource>::DynamicType: Default,
    ApplyFut: Future<Output = Result<Action>>,
    CleanupFut: Future<Output = Result<Action>>,
{
    kube_finalizer::finalizer(api, finalizer_name, obj, |event| async move {
        match event {
            FinalizerEvent::Apply(obj) => apply(obj).await,
            FinalizerEvent::Cleanup(obj) => cleanup(obj).await,
        }
    })
    .await
    .or_else(|error| match error {
        kube_finalizer::Error::AddFinalizer(error)
        | kube_finalizer::Error::RemoveFinalizer(error)
            if is_not_found(&error) =>
        {
            debug!("object is gone");
            Ok(Action::await_change())
        }
        error => Err(Error::Finalizer(Box::new(error))),
    })
}

/// Fails with a hint when the kind's CRD is missing, instead of letting the
/// watcher retry forever. A list with limit 1 is the cheapest call that checks it.
pub async fn ensure_crd_installed<K>(api: &Api<K>) -> Result<()>
where
    K: Resource + Clone + DeserializeOwned + Debug,
    K::DynamicType: Default,
{
    match api.list(&ListParams::default().limit(1)).await {
        Ok(_) => Ok(()),
        Err(error) if is_not_found(&error) => {
            let dyntype = K::DynamicType::default();
            Err(Error::CrdNotInstalled(format!(
                "{}.{}",
                K::plural(&dyntype),
                K::group(&dyntype)
            )))
        }
        Err(error) => Err(error.into()),
    }
}

/// True for a 404 from the API server.
///
/// Checks the code rather than `Status::is_not_found`, which in kube 5 only
/// matches when the response also carries `reason: NotFound`.
pub fn is_not_found(error: &kube::Error) -> bool {
    matches!(error, kube::Error::Api(status) if status.code == 404)
}

/// True for a 409 from the API server: a create of an object that exists (AlreadyExists), or
/// a write whose resourceVersion or uid precondition no longer holds (Conflict).
pub fn is_conflict(error: &kube::Error) -> bool {
    matches!(error, kube::Error::Api(status) if status.code == 409)
}

/// Logs what a controller stream yields. Reconcile failures are logged by the
/// error policies, so they are skipped here.
pub fn log_reconcile_result<K, E>(
    controller: &str,
    result: std::result::Result<(ObjectRef<K>, Action), controller::Error<E, watcher::Error>>,
) where
    K: Lookup,
    E: std::error::Error,
{
    match result {
        Ok((object, action)) => debug!(controller, %object, ?action, "reconciled"),
        Err(controller::Error::ReconcilerFailed(..)) => {}
        // A requeued object was deleted meanwhile: expected, nothing to do.
        Err(error @ controller::Error::ObjectNotFound(_)) => debug!(controller, %error),
        Err(error) => warn!(controller, %error, "controller error"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        condition, set_condition,
        testing::{Method, fake_client, test_context},
    };
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
    use kube::CustomResource;
    use serde::Deserialize;

    const DEMO: &str = "/apis/demo.opgen.dev/v1/namespaces/default/demos/demo";

    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
    #[kube(
        group = "demo.opgen.dev",
        version = "v1",
        kind = "Demo",
        namespaced,
        status = "DemoStatus",
        schema = "disabled"
    )]
    struct DemoSpec {}

    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
    #[kube(
        group = "demo.opgen.dev",
        version = "v1",
        kind = "Global",
        status = "DemoStatus",
        schema = "disabled"
    )]
    struct GlobalSpec {}

    #[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
    struct DemoStatus {
        conditions: Vec<Condition>,
    }

    fn demo() -> Demo {
        let mut demo = Demo::new("demo", DemoSpec {});
        demo.metadata.namespace = Some("default".into());
        demo.metadata.generation = Some(2);
        demo
    }

    fn available(demo: &Demo, status: &str) -> DemoStatus {
        let mut desired = demo.status.clone().unwrap_or_default();
        let generation = demo.metadata.generation;
        let ready = condition("Available", status, "Reconciled", "ready", generation);
        set_condition(&mut desired.conditions, ready);
        desired
    }

    #[tokio::test]
    async fn a_status_is_written_only_when_it_changes() {
        let (client, server) = fake_client();
        let ctx = test_context(client, "demo-operator");
        server.insert(DEMO, &demo());

        let first = demo();
        let written = ctx.update_status(&first, &available(&first, "True")).await;
        assert_eq!(written.expect("written"), StatusUpdate::Updated);
        let stored: Demo = serde_json::from_value(server.object(DEMO).expect("kept")).unwrap();
        let time = stored.status.as_ref().unwrap().conditions[0]
            .last_transition_time
            .clone();

        // The next reconcile sees the stored object: same status, nothing written, the
        // transition time kept.
        let desired = available(&stored, "True");
        assert_eq!(desired.conditions[0].last_transition_time, time);
        let again = ctx.update_status(&stored, &desired).await;
        assert_eq!(again.expect("no write"), StatusUpdate::Unchanged);
        let patches = |server: &crate::testing::FakeApiServer| {
            server
                .requests()
                .iter()
                .filter(|r| r.method == Method::PATCH)
                .count()
        };
        assert_eq!(patches(&server), 1);

        let apply = &server.requests()[0];
        assert_eq!(apply.path, format!("{DEMO}/status"));
        assert!(
            apply.query.contains("fieldManager=demo-operator")
                && apply.query.contains("force=true")
        );
        assert_eq!(apply.body["apiVersion"], "demo.opgen.dev/v1");
        assert_eq!(apply.body["kind"], "Demo");
        assert_eq!(
            apply.body["status"]["conditions"][0]["observedGeneration"],
            2
        );
    }

    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
    #[kube(
        group = "demo.opgen.dev",
        version = "v1",
        kind = "Counted",
        namespaced,
        status = "CountedStatus",
        schema = "disabled"
    )]
    struct CountedSpec {}

    #[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
    #[serde(rename_all = "camelCase")]
    struct CountedStatus {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        observed_generation: Option<i64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        replicas: Option<i32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        selector: Option<String>,
    }

    const COUNTED: &str = "/apis/demo.opgen.dev/v1/namespaces/default/counteds/counted";

    fn counted(generation: i64, status: Option<CountedStatus>) -> Counted {
        let mut counted = Counted::new("counted", CountedSpec {});
        counted.metadata.namespace = Some("default".into());
        counted.metadata.generation = Some(generation);
        counted.status = status;
        counted
    }

    #[tokio::test]
    async fn a_status_with_an_observed_generation_is_written_with_the_objects() {
        let (client, server) = fake_client();
        let ctx = test_context(client, "demo-operator");
        server.insert(COUNTED, &counted(4, None));
        let desired = CountedStatus {
            replicas: Some(2),
            ..CountedStatus::default()
        };

        let written = ctx.update_status(&counted(4, None), &desired).await;

        assert_eq!(written.expect("written"), StatusUpdate::Updated);
        let stored = server.object(COUNTED).expect("kept");
        assert_eq!(
            stored["status"],
            json!({"observedGeneration": 4, "replicas": 2})
        );
        // The same status, observed at the same generation: nothing to write.
        let stored: Counted = serde_json::from_value(stored).unwrap();
        let again = ctx.update_status(&stored, &desired).await;
        assert_eq!(again.expect("no write"), StatusUpdate::Unchanged);
        // A new generation is observed: written again.
        let mut next = stored.clone();
        next.metadata.generation = Some(5);
        let moved = ctx.update_status(&next, &desired).await;
        assert_eq!(moved.expect("written"), StatusUpdate::Updated);
        assert_eq!(
            server.object(COUNTED).unwrap()["status"]["observedGeneration"],
            5
        );
    }

    #[tokio::test]
    async fn a_status_without_an_observed_generation_is_written_as_given() {
        let (client, server) = fake_client();
        let ctx = test_context(client, "demo-operator");
        server.insert(DEMO, &demo());

        let written = ctx
            .update_status(&demo(), &available(&demo(), "True"))
            .await;

        assert_eq!(written.expect("written"), StatusUpdate::Updated);
        let status = &server.requests()[0].body["status"];
        assert_eq!(status.as_object().map(|s| s.len()), Some(1), "{status}");
        assert!(status.get("conditions").is_some(), "{status}");
    }

    #[tokio::test]
    async fn a_status_merge_patch_sends_what_differs_and_nulls_what_went() {
        let (client, server) = fake_client();
        let ctx = test_context(client, "demo-operator");
        let before = CountedStatus {
            observed_generation: Some(3),
            replicas: Some(1),
            selector: Some("app=old".into()),
        };
        let obj = counted(3, Some(before));
        server.insert(COUNTED, &obj);
        let desired = CountedStatus {
            replicas: Some(3),
            ..CountedStatus::default()
        };

        let written = ctx.write_status(&obj, &desired, StatusWrite::Merge).await;

        assert_eq!(written.expect("written"), StatusUpdate::Updated);
        let patch = &server.requests()[0];
        assert_eq!(patch.path, format!("{COUNTED}/status"));
        assert_eq!(
            patch.content_type.as_deref(),
            Some("application/merge-patch+json")
        );
        assert!(!patch.query.contains("fieldManager"), "{}", patch.query);
        assert_eq!(
            patch.body,
            json!({"status": {"replicas": 3, "selector": null}})
        );
        let stored = server.object(COUNTED).expect("kept");
        assert_eq!(
            stored["status"],
            json!({"observedGeneration": 3, "replicas": 3})
        );
    }

    #[test]
    fn a_merge_patch_recurses_into_objects_and_replaces_lists() {
        let current = json!({"a": {"b": 1, "c": 2}, "list": [1, 2], "same": "x", "gone": true});
        let desired = json!({"a": {"b": 1, "c": 3, "d": 4}, "list": [2], "same": "x"});
        assert_eq!(
            merge_patch(&current, &desired),
            json!({"a": {"c": 3, "d": 4}, "list": [2], "gone": null})
        );
        let mut patched = current.clone();
        json_patch::merge(&mut patched, &merge_patch(&current, &desired));
        assert_eq!(patched, desired);
    }

    #[tokio::test]
    async fn a_status_of_a_cluster_scoped_object_is_written_at_its_path() {
        let (client, server) = fake_client();
        let ctx = test_context(client, "demo-operator");
        let path = "/apis/demo.opgen.dev/v1/globals/everywhere";
        let global = Global::new("everywhere", GlobalSpec {});
        server.insert(path, &global);
        let mut status = DemoStatus::default();
        let generation = Some(1);
        let ready = condition("Available", "True", "Reconciled", "ready", generation);
        set_condition(&mut status.conditions, ready);

        let written = ctx.update_status(&global, &status).await;

        assert_eq!(written.expect("written"), StatusUpdate::Updated);
        let stored = server.object(path).expect("kept");
        assert_eq!(stored["status"]["conditions"][0]["type"], "Available");
    }

    #[tokio::test]
    async fn a_status_of_a_deleted_object_is_gone_not_an_error() {
        let (client, _server) = fake_client();
        let ctx = test_context(client, "demo-operator");
        let obj = demo();
        let result = ctx.update_status(&obj, &available(&obj, "True")).await;
        assert_eq!(result.expect("not an error"), StatusUpdate::Gone);
    }

    #[tokio::test]
    async fn a_finalizer_of_a_vanished_object_is_nothing_to_do() {
        let (client, server) = fake_client();
        let ctx = test_context(client, "demo-operator");
        let api: Api<Demo> = ctx.api_for(&demo()).expect("namespaced");
        let obj = Arc::new(demo());

        let action = finalizer(
            &api,
            "demo.opgen.dev/cleanup",
            obj,
            |_| async { panic!("no apply before the finalizer is added") },
            |_| async { panic!("no cleanup of a live object") },
        )
        .await;

        assert_eq!(action.expect("not an error"), Action::await_change());
        let patch = &server.requests()[0];
        assert_eq!(
            (patch.method.clone(), patch.path.as_str()),
            (Method::PATCH, DEMO)
        );
    }

    #[tokio::test]
    async fn events_name_their_related_object() {
        let (client, server) = fake_client();
        let ctx = test_context(client, "demo-operator");
        let related = ObjectReference {
            api_version: Some("v1".into()),
            kind: Some("Secret".into()),
            namespace: Some("team-a".into()),
            name: Some("copy".into()),
            ..ObjectReference::default()
        };
        ctx.publish_related_event(
            &demo(),
            related,
            EventType::Normal,
            "Created",
            "Create",
            "made",
        )
        .await;
        ctx.publish_event(&demo(), EventType::Warning, "Failed", "Reconcile", "oops")
            .await;

        let events = server.created_in("/apis/events.k8s.io/v1/namespaces/default/events");
        assert_eq!(events.len(), 2, "{events:?}");
        assert_eq!(events[0]["related"]["name"], "copy");
        assert_eq!(events[0]["related"]["namespace"], "team-a");
        assert_eq!(events[0]["regarding"]["name"], "demo");
        assert_eq!(events[0]["reportingController"], "demo-operator");
        assert_eq!(events[0]["note"], "made");
        assert!(
            events[1]
                .get("related")
                .is_none_or(serde_json::Value::is_null)
        );
        assert_eq!(events[1]["type"], "Warning");
        assert_eq!(events[1]["reason"], "Failed");
    }
}
