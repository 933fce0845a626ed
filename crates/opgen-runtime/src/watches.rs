//! What a controller watches besides its own kind, declared rather than built: the kinds it
//! owns ([`Watches::owns`]), the objects its spec names ([`Watches::references`]), any other
//! relation as a mapping function ([`Watches::watches_all`]), which of its own objects it
//! reconciles at all ([`Watches::primary`]) and on which of their changes
//! ([`Watches::reconcile_when`]). Each watch keeps what it sees in a cache the reconciles read
//! ([`Context::cache`]), with the indexes [`Watches::index`] asks for.
//!
//! ```no_run
//! # use std::sync::Arc;
//! # use k8s_openapi::api::{apps::v1::Deployment, core::v1::{ConfigMap, Secret}};
//! # use kube::runtime::{controller::Action, watcher};
//! # use opgen_runtime::{Context, Result, cache::Index, watches::{Changed, Watches}};
//! # async fn reconcile(_: Arc<ConfigMap>, _: Arc<Context>) -> Result<Action> { todo!() }
//! # fn error_policy(_: Arc<ConfigMap>, _: &opgen_runtime::Error, _: Arc<Context>) -> Action { todo!() }
//! // The Secret a ConfigMap names in its data.
//! const SECRET: Index<ConfigMap> = Index::new("data.secret", |cm| {
//!     cm.data.iter().flatten().filter(|(k, _)| *k == "secret").map(|(_, v)| v.clone()).collect()
//! });
//! # async fn run(ctx: Arc<Context>) -> Result<()> {
//! let children = watcher::Config::default().labels("app.kubernetes.io/managed-by=demo");
//! Watches::new()
//!     // A ConfigMap's own changes reconcile it when its labels change (it has no generation).
//!     .reconcile_when(Changed::LABELS)
//!     // A change of an owned Deployment reconciles its controller.
//!     .owns::<Deployment>(children)
//!     // A Secret named in an object's data reconciles that object (found by the index,
//!     // which a reconcile can query too: `ctx.cache::<ConfigMap>()?.indexed(..)`).
//!     .references::<Secret>(SECRET)
//!     .run(ctx, "demo", reconcile, error_policy)
//!     .await
//! # }
//! ```

use std::{
    collections::hash_map::DefaultHasher,
    future::Future,
    hash::{Hash, Hasher},
    ops::BitOr,
    sync::Arc,
};

use futures::{
    FutureExt, StreamExt, TryStreamExt,
    future::{BoxFuture, Shared},
    stream::BoxStream,
};
use k8s_openapi::NamespaceResourceScope;
use kube::{
    Api, Resource, ResourceExt,
    api::PartialObjectMeta,
    runtime::{
        WatchStreamExt, applier,
        controller::{self, Action, ReconcileRequest, trigger_owners, trigger_self, trigger_with},
        reflector::{self, ObjectRef, Store},
        watcher,
    },
};
use tracing::Instrument;

use crate::{
    Cache, Context, Result,
    cache::{Index, Indexer, Indexes},
    controller::{ControlledKind, ensure_crd_installed, log_reconcile_result},
};

/// Which changes of an object of the controller's kind reconcile it (controller-runtime's
/// predicates on `For`), combined with `|`: [`Watches::reconcile_when`]. A new object, a
/// watch restart's relist of a changed one, and the reconciles the other watches or a
/// requeue ask for are never filtered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Changed(u8);

impl Changed {
    /// `metadata.generation` moved: the spec changed, or a deletion began. Updates of the
    /// status or of metadata alone do not reconcile (`GenerationChangedPredicate`). A kind
    /// without a generation (a ConfigMap) is reconciled on every change.
    ///
    /// Adding a finalizer moves no generation: a controller that adds one with
    /// [`controller::finalizer`](crate::controller::finalizer) and waits for the next
    /// reconcile combines this with [`Changed::FINALIZERS`].
    pub const GENERATION: Changed = Changed(1);
    /// The labels changed (`LabelChangedPredicate`).
    pub const LABELS: Changed = Changed(1 << 1);
    /// The annotations changed (`AnnotationChangedPredicate`).
    pub const ANNOTATIONS: Changed = Changed(1 << 2);
    /// The finalizers changed.
    pub const FINALIZERS: Changed = Changed(1 << 3);

    fn has(self, other: Changed) -> bool {
        self.0 & other.0 != 0
    }

    /// A hash of what these changes look at in `obj`: equal hashes mean no such change.
    /// `None` when `obj` has none of it (a generation alone on a kind without one), which
    /// lets every change through.
    fn hash<K: Resource>(self, obj: &K) -> Option<u64> {
        let meta = obj.meta();
        let generation = meta.generation.filter(|_| self.has(Changed::GENERATION));
        let others = self.0 & !Changed::GENERATION.0 != 0;
        if generation.is_none() && !others {
            return None;
        }
        let mut hasher = DefaultHasher::new();
        generation.hash(&mut hasher);
        self.has(Changed::LABELS)
            .then(|| obj.labels())
            .hash(&mut hasher);
        self.has(Changed::ANNOTATIONS)
            .then(|| obj.annotations())
            .hash(&mut hasher);
        self.has(Changed::FINALIZERS)
            .then(|| obj.finalizers())
            .hash(&mut hasher);
        Some(hasher.finish())
    }
}

impl BitOr for Changed {
    type Output = Changed;

    fn bitor(self, other: Changed) -> Changed {
        Changed(self.0 | other.0)
    }
}

/// What a controller's applier yields: each reconcile's object and action, or why none ran.
type Reconciled<K, E> = BoxStream<
    'static,
    std::result::Result<(ObjectRef<K>, Action), controller::Error<E, watcher::Error>>,
>;

type Triggers<K> = BoxStream<'static, Result<ReconcileRequest<K>, watcher::Error>>;

/// What a watch adds for one watched namespace: its triggers, and its cache's readiness.
struct Watch<K: Resource> {
    triggers: Triggers<K>,
    ready: BoxFuture<'static, ()>,
}

/// Adds a watch in a namespace (`None`: all), given the controller's cache there and the
/// indexes it keeps.
type AddWatch<K> =
    Box<dyn Fn(&Context, Option<&str>, &Cache<K>, &Indexes) -> Watch<K> + Send + Sync>;

/// Reflects `stream` (a watch of kind `T` in `namespace`) into a new store without the objects'
/// managedFields, added to the context's caches with the `indexes` of kind `T`: the store (as a
/// cache of its own) and its events, which have updated the store and its indexes when they
/// come out.
fn cached<T>(
    ctx: &Context,
    namespace: Option<&str>,
    stream: impl futures::Stream<Item = Result<watcher::Event<T>, watcher::Error>> + Send + 'static,
    indexes: &Indexes,
) -> (
    Cache<T>,
    impl futures::Stream<Item = Result<watcher::Event<T>, watcher::Error>> + Send + 'static,
)
where
    T: ControlledKind + Resource<DynamicType = ()>,
{
    // Nothing reads managedFields from a cache, and on objects the operator applies they are
    // often most of the object (controller-runtime's TransformStripManagedFields). `None`, not
    // an emptied list: that would keep the list's buffer.
    let stream = stream.modify(|obj| obj.meta_mut().managed_fields = None);
    let (store, writer) = reflector::store();
    let indexer = Arc::new(Indexer::new(indexes.of::<T>()));
    ctx.caches.add(namespace, store.clone(), indexer.clone());
    let cache = Cache::indexed_by(namespace.map(str::to_owned), store, indexer.clone());
    let events = reflector::reflector(writer, stream).inspect_ok(move |event| indexer.apply(event));
    (cache, events)
}

/// Resolves once `cache` has listed its objects.
fn ready<T>(cache: Cache<T>) -> BoxFuture<'static, ()>
where
    T: Resource<DynamicType = ()> + Clone + Send + Sync + 'static,
{
    async move { cache.ready().await }.boxed()
}

/// The watches of a controller of kind `K`, run by [`Watches::run`] once per watched
/// namespace (`--namespace`), or once over the cluster. Each watch keeps what it sees in a
/// cache the reconciles read ([`Context::cache`]).
pub struct Watches<K>
where
    K: ControlledKind + Resource<DynamicType = ()>,
{
    primary: watcher::Config,
    changed: Option<Changed>,
    extra: Vec<AddWatch<K>>,
    indexes: Indexes,
}

impl<K> Default for Watches<K>
where
    K: ControlledKind + Resource<DynamicType = (), Scope = NamespaceResourceScope>,
{
    fn default() -> Self {
        Self::new()
    }
}

impl<K> Watches<K>
where
    K: ControlledKind + Resource<DynamicType = (), Scope = NamespaceResourceScope>,
{
    /// Every object of kind `K`, and nothing else yet.
    pub fn new() -> Self {
        Watches {
            primary: watcher::Config::default().any_semantic(),
            changed: None,
            extra: Vec::new(),
            indexes: Indexes::default(),
        }
    }

    /// Reconciles only the objects of kind `K` that `config` selects (its label and field
    /// selectors): the others are neither cached nor reconciled.
    pub fn primary(mut self, config: watcher::Config) -> Self {
        self.primary = config;
        self
    }

    /// Reconciles an object of kind `K` on a change only when its `changes` changed, e.g.
    /// `Changed::GENERATION` for spec changes alone (the status the reconcile writes does not
    /// reconcile it again). The other watches and requeues still reconcile it.
    pub fn reconcile_when(mut self, changes: Changed) -> Self {
        self.changed = Some(changes);
        self
    }

    /// Watches the objects of kind `Child` that `config` selects (a label selector keeps the
    /// cache to the operator's own children) in the controller's namespaces: a change
    /// reconciles the object named in the child's controller owner reference (controller-
    /// runtime's `Owns`), and `ctx.cache::<Child>()` reads them. Needs `list` and `watch` on
    /// `Child`.
    pub fn owns<Child>(mut self, config: watcher::Config) -> Self
    where
        Child: ControlledKind + Resource<DynamicType = (), Scope = NamespaceResourceScope>,
    {
        self.extra.push(Box::new(move |ctx, namespace, _, indexes| {
            let api = ctx.api_in::<Child>(namespace);
            let events = watcher(api, config.clone()).default_backoff();
            let (cache, events) = cached(ctx, namespace, events, indexes);
            let triggers = trigger_owners(events.touched_objects(), (), ()).boxed();
            Watch {
                triggers,
                ready: ready(cache),
            }
        }));
        self
    }

    /// As [`Watches::owns`], for a controller that reads its children's metadata at most: the
    /// watch and its cache hold only each child's metadata (controller-runtime's `Owns` with
    /// `builder.OnlyMetadata`), so a child's spec and status take no memory, and
    /// `ctx.cache::<PartialObjectMeta<Child>>()` reads them. For children the reconcile learns
    /// of by applying them (the object [`apply_owned`](crate::owned::apply_owned) returns) or
    /// does not read at all, e.g. the memcached operator's Deployments: 1,000 of them cached
    /// whole are about a third of its heap. Needs `list` and `watch` on `Child`.
    pub fn owns_metadata<Child>(self, config: watcher::Config) -> Self
    where
        Child: ControlledKind + Resource<DynamicType = (), Scope = NamespaceResourceScope>,
    {
        // kube asks for metadata alone (PartialObjectMetadata) on an Api of these.
        self.owns::<PartialObjectMeta<Child>>(config)
    }

    /// Keeps `index` in the caches of the objects of kind `T` these watches keep (the
    /// controller's kind, or one it owns, references or watches), for the reconciles'
    /// [`Cache::indexed`] lookups (controller-runtime's `IndexField`). An index no watch keeps
    /// is computed at each lookup instead ([`Index`] says what each costs).
    pub fn index<T>(mut self, index: Index<T>) -> Self
    where
        T: Resource<DynamicType = ()> + Clone + Send + Sync + 'static,
    {
        self.indexes.add(index);
        self
    }

    /// Watches the objects of kind `Other` in the controller's namespaces and reconciles the
    /// objects of kind `K` in the same namespace whose values in `names` name them, e.g. a
    /// Secret a spec refers to by name (controller-runtime's `Watches` with an index on the
    /// field). The objects are looked up in the controller's own cache, where `names` is kept
    /// as an index ([`Watches::index`]). Needs `list` and `watch` on `Other`.
    pub fn references<Other>(mut self, names: Index<K>) -> Self
    where
        Other: ControlledKind + Resource<DynamicType = (), Scope = NamespaceResourceScope>,
    {
        self = self.index(names);
        self.extra
            .push(Box::new(move |ctx, namespace, primary, indexes| {
                let api = ctx.api_in::<Other>(namespace);
                let config = watcher::Config::default().any_semantic();
                let events = watcher(api, config).default_backoff();
                let (cache, events) = cached(ctx, namespace, events, indexes);
                let primary = primary.clone();
                let triggers = trigger_with(events.touched_objects(), move |other: Other| {
                    referencing(&primary, &other, &names)
                });
                Watch {
                    triggers: triggers.boxed(),
                    ready: ready(cache),
                }
            }));
        self
    }

    /// Watches the objects of kind `Other` that `config` selects in every namespace (or, of a
    /// cluster-scoped kind, all of them), whatever namespaces the controller watches, and
    /// reconciles the objects `map` returns for each, given the controller's cache: for
    /// relations no owner reference or name records (an annotation naming the owner, a new
    /// Namespace that every object must hear of). Needs cluster-wide `list` and `watch` on
    /// `Other`.
    pub fn watches_all<Other, I, F>(mut self, config: watcher::Config, map: F) -> Self
    where
        Other: ControlledKind + Resource<DynamicType = ()>,
        I: IntoIterator<Item = ObjectRef<K>> + 'static,
        I::IntoIter: Send,
        F: Fn(&Other, &Store<K>) -> I + Clone + Send + Sync + 'static,
    {
        self.extra
            .push(Box::new(move |ctx, _namespace, primary, indexes| {
                let (store, map) = (primary.store().clone(), map.clone());
                let api = Api::<Other>::all(ctx.client.clone());
                let events = watcher(api, config.clone()).default_backoff();
                let (cache, events) = cached(ctx, None, events, indexes);
                let triggers = trigger_with(events.touched_objects(), move |other: Other| {
                    map(&other, &store)
                });
                Watch {
                    triggers: triggers.boxed(),
                    ready: ready(cache),
                }
            }));
        self
    }

    /// Runs the controller as [`controller::run`](crate::controller::run) does, with these
    /// watches: a reconcile starts once every watch has listed its objects (its cache is
    /// filled, as controller-runtime's `WaitForCacheSync`).
    pub async fn run<ReconcileFn, ReconcileFut, E, PolicyFn>(
        self,
        ctx: Arc<Context>,
        name: &'static str,
        reconcile: ReconcileFn,
        error_policy: PolicyFn,
    ) -> Result<()>
    where
        ReconcileFn: FnMut(Arc<K>, Arc<Context>) -> ReconcileFut + Clone + Send + 'static,
        ReconcileFut: Future<Output = std::result::Result<Action, E>> + Send + 'static,
        E: std::error::Error + Send + Sync + 'static,
        PolicyFn: Fn(Arc<K>, &E, Arc<Context>) -> Action + Clone + Send + Sync + 'static,
    {
        let namespaces: Vec<Option<String>> = if ctx.namespaces.is_empty() {
            vec![None]
        } else {
            ctx.namespaces.iter().cloned().map(Some).collect()
        };
        let mut appliers = Vec::new();
        for namespace in namespaces.iter().map(Option::as_deref) {
            let api = ctx.api_in::<K>(namespace);
            ensure_crd_installed(&api).await?;
            appliers.push(self.applier(
                &ctx,
                namespace,
                api,
                reconcile.clone(),
                error_policy.clone(),
            ));
        }
        futures::future::join_all(appliers.into_iter().map(|applier| {
            // future::ready, not an async block: the latter makes the future of a generic
            // caller fail the `Send` check (rust-lang/rust#102211).
            applier.for_each(move |result| {
                log_reconcile_result(name, result);
                futures::future::ready(())
            })
        }))
        .await;
        Ok(())
    }

    /// kube-runtime's `applier` over these watches in `namespace`: what its `Controller`
    /// runs, with the primary watch filtered by [`Watches::reconcile_when`] (on stable
    /// kube-runtime APIs: `Controller::for_stream` needs an unstable feature).
    fn applier<ReconcileFn, ReconcileFut, E, PolicyFn>(
        &self,
        ctx: &Arc<Context>,
        namespace: Option<&str>,
        api: Api<K>,
        mut reconcile: ReconcileFn,
        error_policy: PolicyFn,
    ) -> Reconciled<K, E>
    where
        ReconcileFn: FnMut(Arc<K>, Arc<Context>) -> ReconcileFut + Send + 'static,
        ReconcileFut: Future<Output = std::result::Result<Action, E>> + Send + 'static,
        E: std::error::Error + Send + Sync + 'static,
        PolicyFn: Fn(Arc<K>, &E, Arc<Context>) -> Action + Send + Sync + 'static,
    {
        let events = watcher(api, self.primary.clone()).default_backoff();
        let (cache, events) = cached(ctx, namespace, events, &self.indexes);
        let objects = events.applied_objects();
        let primary = match self.changed {
            Some(changed) => {
                let predicate = move |obj: &K| changed.hash(obj);
                let filtered = objects.predicate_filter(predicate, Default::default());
                trigger_self(filtered, ()).boxed()
            }
            None => trigger_self(objects, ()).boxed(),
        };
        let mut triggers = vec![primary];
        let mut ready = vec![ready(cache.clone())];
        for add in &self.extra {
            let watch = add(ctx, namespace, &cache, &self.indexes);
            triggers.push(watch.triggers);
            ready.push(watch.ready);
        }
        let ready: Shared<BoxFuture<'static, ()>> =
            futures::future::join_all(ready).map(drop).boxed().shared();
        let queue = futures::stream::select_all(triggers)
            .take_until(ctx.shutdown.clone().cancelled_owned());
        let reconcile = move |obj, ctx| {
            let (ready, reconciled) = (ready.clone(), reconcile(obj, ctx));
            spawn(async move {
                ready.await;
                reconciled.await
            })
        };
        applier(
            reconcile,
            error_policy,
            ctx.clone(),
            cache.store().clone(),
            queue,
            controller::Config::default().concurrency(ctx.max_concurrent_reconciles),
        )
        .boxed()
    }
}

/// Runs `reconcile` as a task of its own (the reconciles of different objects run in
/// parallel, as kube's `Controller` runs them), aborted when dropped.
fn spawn<T: Send + 'static>(
    reconcile: impl Future<Output = T> + Send + 'static,
) -> impl Future<Output = T> + Unpin {
    let task = tokio_util::task::AbortOnDropHandle::new(tokio::spawn(reconcile.in_current_span()));
    task.map(|joined| match joined {
        Ok(output) => output,
        Err(error) if error.is_panic() => std::panic::resume_unwind(error.into_panic()),
        Err(error) => panic!("a reconcile task was cancelled: {error}"),
    })
}

/// The objects in `cache` in `other`'s namespace whose values in `names` hold `other`'s name.
fn referencing<K, Other>(cache: &Cache<K>, other: &Other, names: &Index<K>) -> Vec<ObjectRef<K>>
where
    K: Resource<DynamicType = ()> + Clone + 'static,
    Other: Resource,
{
    let namespace = other.namespace();
    let found = cache.indexed(namespace.as_deref(), names, &other.name_any());
    found
        .iter()
        .map(|obj| ObjectRef::from_obj(&**obj))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::{ConfigMap, Secret};
    use kube::runtime::{reflector, watcher::Event};

    fn config_map(namespace: &str, name: &str, secret: &str) -> ConfigMap {
        let mut cm = ConfigMap::default();
        cm.metadata.namespace = Some(namespace.into());
        cm.metadata.name = Some(name.into());
        cm.data = Some([("secret".to_owned(), secret.to_owned())].into());
        cm
    }

    const SECRET: Index<ConfigMap> = Index::new("secret", |cm| {
        cm.data
            .iter()
            .flatten()
            .filter(|(k, _)| *k == "secret")
            .map(|(_, v)| v.clone())
            .collect()
    });

    #[test]
    fn a_generation_predicate_ignores_status_and_metadata_changes() {
        let mut widget = config_map("a", "one", "shared");
        widget.metadata.generation = Some(1);
        let hash = |changes: Changed, cm: &ConfigMap| changes.hash(cm);
        let before = widget.clone();
        widget.metadata.labels = Some([("tier".to_owned(), "web".to_owned())].into());
        widget.metadata.resource_version = Some("7".into());
        let generation = Changed::GENERATION;
        assert_eq!(hash(generation, &widget), hash(generation, &before));
        assert_ne!(
            hash(Changed::LABELS, &widget),
            hash(Changed::LABELS, &before)
        );
        let both = Changed::GENERATION | Changed::LABELS;
        assert_ne!(hash(both, &widget), hash(both, &before));

        let relabelled = widget.clone();
        widget.metadata.generation = Some(2);
        assert_ne!(hash(generation, &widget), hash(generation, &relabelled));
        assert_eq!(
            hash(Changed::LABELS, &widget),
            hash(Changed::LABELS, &relabelled)
        );
    }

    #[test]
    fn annotations_and_finalizers_are_predicates_of_their_own() {
        let plain = config_map("a", "one", "shared");
        let mut annotated = plain.clone();
        annotated.metadata.annotations = Some([("note".to_owned(), "x".to_owned())].into());
        let mut finalized = plain.clone();
        finalized.metadata.finalizers = Some(vec!["demo/cleanup".into()]);
        for (changes, changed) in [
            (Changed::ANNOTATIONS, &annotated),
            (Changed::FINALIZERS, &finalized),
        ] {
            assert_ne!(changes.hash(changed), changes.hash(&plain), "{changes:?}");
        }
        assert_eq!(
            Changed::ANNOTATIONS.hash(&finalized),
            Changed::ANNOTATIONS.hash(&plain)
        );
        assert_eq!(
            Changed::FINALIZERS.hash(&annotated),
            Changed::FINALIZERS.hash(&plain)
        );
    }

    #[test]
    fn a_generation_predicate_lets_every_change_of_a_kind_without_one_through() {
        let cm = config_map("a", "one", "shared");
        assert_eq!(Changed::GENERATION.hash(&cm), None);
        assert!((Changed::GENERATION | Changed::LABELS).hash(&cm).is_some());
    }

    #[test]
    fn a_referenced_object_maps_to_the_objects_naming_it_in_its_namespace() {
        let (store, mut writer) = reflector::store::<ConfigMap>();
        let mut indexes = Indexes::default();
        indexes.add(SECRET);
        let indexer = Arc::new(Indexer::new(indexes.of::<ConfigMap>()));
        for cm in [
            config_map("a", "one", "shared"),
            config_map("a", "two", "shared"),
            config_map("a", "three", "other"),
            config_map("b", "four", "shared"),
        ] {
            let event = Event::Apply(cm);
            writer.apply_watcher_event(&event);
            indexer.apply(&event);
        }
        let mut secret = Secret::default();
        secret.metadata.namespace = Some("a".into());
        secret.metadata.name = Some("shared".into());
        let indexed = Cache::indexed_by(None, store.clone(), indexer);
        let scanned = Cache::new(None, store);

        for cache in [indexed, scanned] {
            let owners: Vec<String> = referencing(&cache, &secret, &SECRET)
                .into_iter()
                .map(|r| r.name)
                .collect();
            assert_eq!(owners, ["one", "two"]);
        }
    }
}
