//! The objects a controller's watches keep (controller-runtime's cache): each watch of
//! [`Watches`](crate::watches::Watches) reflects what it sees into a store that both triggers
//! reconciles and serves reads, so a reconcile reads its children with
//! [`Context::cache`](crate::Context::cache) instead of a GET, and finds objects by a value
//! of theirs through an [`Index`] (controller-runtime's `IndexField` and `MatchingFields`).
//!
//! ```no_run
//! # use std::sync::Arc;
//! # use k8s_openapi::api::{apps::v1::StatefulSet, core::v1::ConfigMap};
//! # use opgen_runtime::{Context, Result};
//! # async fn reconcile(owner: Arc<ConfigMap>, ctx: Arc<Context>) -> Result<()> {
//! // Filled by `Watches::owns::<StatefulSet>`: the children `owner` controls, read from memory.
//! let sets = ctx.cache::<StatefulSet>().expect("the controller owns StatefulSets");
//! for set in sets.controlled_by(&*owner) {
//!     // ...
//! }
//! # Ok(())
//! # }
//! ```

use std::{
    any::{Any, TypeId},
    collections::{HashMap, HashSet},
    sync::{Arc, RwLock},
};

use kube::{
    Resource, ResourceExt,
    runtime::{
        reflector::{ObjectRef, Store},
        watcher,
    },
};

use crate::owned::is_controlled_by;

/// A secondary key of the cached objects of kind `K`: a name and the values an object has
/// under it (controller-runtime's `IndexField`), looked up with [`Cache::indexed`], e.g. Pods
/// by `spec.nodeName`, or the objects that name a Secret by the Secret's name.
///
/// [`Watches::index`](crate::watches::Watches::index) (or
/// [`Watches::references`](crate::watches::Watches::references)) keeps it up to date in the
/// stores of the controller's watches as their events arrive: each event costs one call of
/// the key function and O(values) map updates, and a lookup costs O(m log m) for the m
/// objects of the store with that value (in any namespace; each is checked again against the
/// object the store holds, so a lookup never returns an object that does not match). A store no watch keeps the index in (another controller's
/// watch of the kind, or [`testing::fill_cache`](crate::testing::fill_cache)) is scanned
/// instead: one key function call per cached object. The name identifies the index: two
/// indexes of one kind need two names.
///
/// ```
/// # use std::sync::Arc;
/// use k8s_openapi::api::core::v1::Pod;
/// use opgen_runtime::cache::{Cache, Index};
///
/// const BY_NODE: Index<Pod> = Index::new("spec.nodeName", |pod| {
///     pod.spec.iter().filter_map(|spec| spec.node_name.clone()).collect()
/// });
///
/// # fn pod(name: &str, node: &str) -> Pod {
/// #     let mut pod = Pod::default();
/// #     pod.metadata.name = Some(name.into());
/// #     pod.metadata.namespace = Some("default".into());
/// #     pod.spec = Some(k8s_openapi::api::core::v1::PodSpec {
/// #         node_name: Some(node.into()),
/// #         ..Default::default()
/// #     });
/// #     pod
/// # }
/// # let (store, mut writer) = kube::runtime::reflector::store();
/// # for p in [pod("web-1", "node-a"), pod("web-2", "node-b"), pod("db", "node-a")] {
/// #     writer.apply_watcher_event(&kube::runtime::watcher::Event::Apply(p));
/// # }
/// # let cache: Cache<Pod> = Cache::new(None, store);
/// // In a reconcile: `let cache = ctx.cache::<Pod>().expect("watched");`
/// let on_a: Vec<String> = cache
///     .indexed(None, &BY_NODE, "node-a")
///     .iter()
///     .map(|pod| pod.metadata.name.clone().unwrap_or_default())
///     .collect();
/// assert_eq!(on_a, ["db", "web-1"]);
/// ```
pub struct Index<K> {
    name: &'static str,
    keys: fn(&K) -> Vec<String>,
}

impl<K> Index<K> {
    /// The index `name` of the values `keys` gives for each object.
    pub const fn new(name: &'static str, keys: fn(&K) -> Vec<String>) -> Self {
        Index { name, keys }
    }

    /// Its name.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The values `obj` has in this index.
    pub fn keys(&self, obj: &K) -> Vec<String> {
        (self.keys)(obj)
    }
}

// Not derived: those would ask `K: Clone`.
impl<K> Clone for Index<K> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<K> Copy for Index<K> {}

impl<K> std::fmt::Debug for Index<K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Index").field(&self.name).finish()
    }
}

/// The objects of one index by value, and each object's values (to remove them again).
struct Postings<K: Resource> {
    by_value: HashMap<String, HashSet<ObjectRef<K>>>,
    values_of: HashMap<ObjectRef<K>, Vec<String>>,
}

impl<K> Default for Postings<K>
where
    K: Resource<DynamicType = ()>,
{
    fn default() -> Self {
        Postings {
            by_value: HashMap::new(),
            values_of: HashMap::new(),
        }
    }
}

impl<K> Postings<K>
where
    K: Resource<DynamicType = ()>,
{
    fn insert(&mut self, object: ObjectRef<K>, values: Vec<String>) {
        self.remove(&object);
        for value in &values {
            let objects = self.by_value.entry(value.clone()).or_default();
            objects.insert(object.clone());
        }
        if !values.is_empty() {
            self.values_of.insert(object, values);
        }
    }

    fn remove(&mut self, object: &ObjectRef<K>) {
        for value in self.values_of.remove(object).into_iter().flatten() {
            if let Some(objects) = self.by_value.get_mut(&value) {
                objects.remove(object);
                if objects.is_empty() {
                    self.by_value.remove(&value);
                }
            }
        }
    }
}

/// The indexes one store keeps, updated from its watch's events as the reflector updates the
/// store: a relist builds new postings and swaps them in when it is done.
pub(crate) struct Indexer<K: Resource> {
    indexes: Vec<Index<K>>,
    postings: RwLock<Generations<K>>,
}

/// The postings of each index: those of the store's objects, and those of a relist under way.
struct Generations<K: Resource> {
    live: Vec<Postings<K>>,
    relisted: Vec<Postings<K>>,
}

impl<K> Indexer<K>
where
    K: Resource<DynamicType = ()>,
{
    pub(crate) fn new(indexes: Vec<Index<K>>) -> Self {
        let empty = || indexes.iter().map(|_| Postings::default()).collect();
        Indexer {
            postings: RwLock::new(Generations {
                live: empty(),
                relisted: empty(),
            }),
            indexes,
        }
    }

    /// Updates the indexes with what `event` changes in the store.
    pub(crate) fn apply(&self, event: &watcher::Event<K>) {
        if self.indexes.is_empty() {
            return;
        }
        let mut postings = self.postings.write().expect("not poisoned");
        let Generations { live, relisted } = &mut *postings;
        let index = |postings: &mut Vec<Postings<K>>, obj: &K| {
            for (index, postings) in self.indexes.iter().zip(postings) {
                postings.insert(ObjectRef::from_obj(obj), index.keys(obj));
            }
        };
        match event {
            watcher::Event::Apply(obj) => index(live, obj),
            watcher::Event::Delete(obj) => {
                let object = ObjectRef::from_obj(obj);
                live.iter_mut()
                    .for_each(|postings| postings.remove(&object));
            }
            watcher::Event::Init => relisted.iter_mut().for_each(|p| *p = Postings::default()),
            watcher::Event::InitApply(obj) => index(relisted, obj),
            watcher::Event::InitDone => {
                std::mem::swap(live, relisted);
                relisted.iter_mut().for_each(|p| *p = Postings::default());
            }
        }
    }

    /// The objects whose values in the index `name` include `value`; `None` when this store
    /// does not keep that index.
    fn lookup(&self, name: &str, value: &str) -> Option<Vec<ObjectRef<K>>> {
        let position = self.indexes.iter().position(|index| index.name == name)?;
        let postings = self.postings.read().expect("not poisoned");
        let objects = postings.live[position].by_value.get(value);
        Some(objects.into_iter().flatten().cloned().collect())
    }
}

/// A store of the cache: the namespace its watch watches (`None`: all) and its indexes.
struct Cached<K: Resource<DynamicType = ()> + 'static> {
    namespace: Option<String>,
    store: Store<K>,
    indexer: Arc<Indexer<K>>,
}

// Not derived: that would ask `K: Clone` of the store's objects' kind alone.
impl<K> Clone for Cached<K>
where
    K: Resource<DynamicType = ()> + Clone + 'static,
{
    fn clone(&self) -> Self {
        Cached {
            namespace: self.namespace.clone(),
            store: self.store.clone(),
            indexer: self.indexer.clone(),
        }
    }
}

/// The cached objects of kind `K` the controllers watch: one store per watched namespace
/// (`None`: the whole cluster). A clone is cheap and sees the stores as they fill.
#[derive(Clone)]
pub struct Cache<K>
where
    K: Resource<DynamicType = ()> + Clone + 'static,
{
    stores: Vec<Cached<K>>,
}

impl<K> std::fmt::Debug for Cache<K>
where
    K: Resource<DynamicType = ()> + Clone + 'static,
{
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let namespaces: Vec<_> = self.stores.iter().map(|cached| &cached.namespace).collect();
        f.debug_struct("Cache")
            .field("namespaces", &namespaces)
            .finish()
    }
}

impl<K> Cache<K>
where
    K: Resource<DynamicType = ()> + Clone + 'static,
{
    /// A cache of the objects `store` holds in `namespace` (`None`: in every namespace).
    /// It keeps no index: [`Cache::indexed`] scans it.
    pub fn new(namespace: Option<String>, store: Store<K>) -> Self {
        Self::indexed_by(namespace, store, Arc::new(Indexer::new(Vec::new())))
    }

    pub(crate) fn indexed_by(
        namespace: Option<String>,
        store: Store<K>,
        indexer: Arc<Indexer<K>>,
    ) -> Self {
        let stores = vec![Cached {
            namespace,
            store,
            indexer,
        }];
        Cache { stores }
    }

    /// The store of a cache of one store (a watch's own).
    pub(crate) fn store(&self) -> &Store<K> {
        &self.stores[0].store
    }

    /// The stores that may hold objects of `namespace` (`None`: a cluster-scoped object).
    fn stores_for<'a>(&'a self, namespace: Option<&'a str>) -> impl Iterator<Item = &'a Store<K>> {
        self.stores
            .iter()
            .filter(move |cached| {
                cached.namespace.is_none() || cached.namespace.as_deref() == namespace
            })
            .map(|cached| &cached.store)
    }

    /// The stores a listing of `namespace` (`None`: of every namespace) reads.
    fn listed<'a>(&'a self, namespace: Option<&'a str>) -> impl Iterator<Item = &'a Cached<K>> {
        self.stores.iter().filter(move |cached| {
            namespace.is_none()
                || cached.namespace.is_none()
                || cached.namespace.as_deref() == namespace
        })
    }

    /// The object `name` in `namespace` (`None` for a cluster-scoped kind), if it is cached.
    pub fn get(&self, namespace: Option<&str>, name: &str) -> Option<Arc<K>> {
        let mut key = ObjectRef::new(name);
        key.namespace = namespace.map(str::to_owned);
        self.stores_for(namespace).find_map(|store| store.get(&key))
    }

    /// The cached objects in `namespace` (`None`: all of them), by namespace and name, so
    /// that a reconcile walking them writes in the same order every time.
    pub fn list(&self, namespace: Option<&str>) -> Vec<Arc<K>> {
        let all = self.listed(namespace).map(|cached| cached.store.state());
        distinct_in(namespace, all.flatten())
    }

    /// The cached objects in `owner`'s namespace that `owner` controls (apimachinery's
    /// `IsControlledBy`), by name.
    pub fn controlled_by(&self, owner: &impl Resource) -> Vec<Arc<K>> {
        let namespace = owner.meta().namespace.as_deref();
        let all = self.listed(namespace).map(|cached| cached.store.state());
        let mut children = distinct_in(namespace, all.flatten());
        children.retain(|child| {
            child.namespace().as_deref() == namespace && is_controlled_by(&**child, owner)
        });
        children
    }

    /// The cached objects in `namespace` (`None`: in every namespace) whose values in `index`
    /// include `value` (controller-runtime's `List` with `MatchingFields`), by namespace and
    /// name. See [`Index`] for what a lookup costs.
    pub fn indexed(&self, namespace: Option<&str>, index: &Index<K>, value: &str) -> Vec<Arc<K>> {
        let candidates =
            self.listed(namespace)
                .map(|cached| match cached.indexer.lookup(index.name, value) {
                    Some(objects) => objects
                        .iter()
                        .filter_map(|object| cached.store.get(object))
                        .collect(),
                    None => cached.store.state(),
                });
        let mut found = distinct_in(namespace, candidates.flatten());
        found.retain(|obj| index.keys(obj).iter().any(|key| key == value));
        found
    }

    /// Waits until every store has listed its objects once: until then a missing object may
    /// only not be listed yet. The reconciles of [`Watches`](crate::watches::Watches) start
    /// after their caches are filled.
    pub async fn ready(&self) {
        for cached in &self.stores {
            // A dropped writer (its watch stopped) leaves nothing to wait for.
            let _ = cached.store.wait_until_ready().await;
        }
    }
}

/// The objects of `objects` in `namespace` (`None`: all), each once (two controllers'
/// watches may both hold one), by namespace and name.
fn distinct_in<K>(namespace: Option<&str>, objects: impl Iterator<Item = Arc<K>>) -> Vec<Arc<K>>
where
    K: Resource<DynamicType = ()>,
{
    let mut seen = HashSet::new();
    let mut distinct: Vec<_> = objects
        .filter(|obj| namespace.is_none() || obj.meta().namespace.as_deref() == namespace)
        .filter(|obj| seen.insert(ObjectRef::from_obj(&**obj)))
        .collect();
    distinct.sort_by_cached_key(|obj| (obj.namespace(), obj.name_any()));
    distinct
}

/// The indexes a controller's watches keep, by kind.
#[derive(Default)]
pub(crate) struct Indexes {
    by_kind: HashMap<TypeId, Box<dyn Any + Send + Sync>>,
}

impl Indexes {
    /// Adds `index`, unless an index of its kind has its name already.
    pub(crate) fn add<K: 'static>(&mut self, index: Index<K>) {
        let entry = self.by_kind.entry(TypeId::of::<K>());
        let indexes = entry.or_insert_with(|| Box::new(Vec::<Index<K>>::new()));
        let indexes = indexes.downcast_mut::<Vec<Index<K>>>().expect("by kind");
        if indexes.iter().all(|known| known.name != index.name) {
            indexes.push(index);
        }
    }

    /// The indexes of kind `K`.
    pub(crate) fn of<K: 'static>(&self) -> Vec<Index<K>> {
        let indexes = self.by_kind.get(&TypeId::of::<K>());
        let indexes = indexes.and_then(|indexes| indexes.downcast_ref::<Vec<Index<K>>>());
        indexes.cloned().unwrap_or_default()
    }
}

/// Every kind's [`Cache`], filled as the controllers' watches start.
#[derive(Default)]
pub(crate) struct Caches {
    by_kind: RwLock<HashMap<TypeId, Box<dyn Any + Send + Sync>>>,
}

impl Caches {
    /// Adds the store of the objects of kind `K` in `namespace` (`None`: every namespace), with
    /// the indexes it keeps.
    pub(crate) fn add<K>(&self, namespace: Option<&str>, store: Store<K>, indexer: Arc<Indexer<K>>)
    where
        K: Resource<DynamicType = ()> + Clone + Send + Sync + 'static,
    {
        let mut by_kind = self.by_kind.write().expect("not poisoned");
        let added = Cache::indexed_by(namespace.map(str::to_owned), store, indexer);
        match by_kind
            .get_mut(&TypeId::of::<K>())
            .and_then(|cache| cache.downcast_mut::<Cache<K>>())
        {
            Some(cache) => cache.stores.extend(added.stores),
            None => {
                by_kind.insert(TypeId::of::<K>(), Box::new(added));
            }
        }
    }

    /// The cache of kind `K`, if a watch keeps one.
    pub(crate) fn get<K>(&self) -> Option<Cache<K>>
    where
        K: Resource<DynamicType = ()> + Clone + Send + Sync + 'static,
    {
        let by_kind = self.by_kind.read().expect("not poisoned");
        by_kind
            .get(&TypeId::of::<K>())
            .and_then(|cache| cache.downcast_ref::<Cache<K>>())
            .cloned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::{
        api::core::v1::ConfigMap, apimachinery::pkg::apis::meta::v1::OwnerReference,
    };
    use kube::runtime::{reflector, watcher::Event};

    fn config_map(namespace: &str, name: &str, owner_uid: Option<&str>) -> ConfigMap {
        let mut cm = ConfigMap::default();
        cm.metadata.namespace = Some(namespace.into());
        cm.metadata.name = Some(name.into());
        cm.metadata.uid = Some(format!("uid-{namespace}-{name}"));
        cm.metadata.owner_references = owner_uid.map(|uid| {
            vec![OwnerReference {
                api_version: "v1".into(),
                kind: "ConfigMap".into(),
                name: "owner".into(),
                uid: uid.into(),
                controller: Some(true),
                block_owner_deletion: None,
            }]
        });
        cm
    }

    fn store_of(objects: Vec<ConfigMap>) -> Store<ConfigMap> {
        let (store, mut writer) = reflector::store();
        for obj in objects {
            writer.apply_watcher_event(&Event::Apply(obj));
        }
        store
    }

    fn names(objects: &[Arc<ConfigMap>]) -> Vec<String> {
        objects.iter().map(|obj| obj.name_any()).collect()
    }

    fn add(caches: &Caches, namespace: Option<&str>, store: Store<ConfigMap>) {
        caches.add(namespace, store, Arc::new(Indexer::new(Vec::new())));
    }

    /// ConfigMaps by the node their data names.
    const BY_NODE: Index<ConfigMap> = Index::new("data.node", |cm| {
        let node = cm.data.as_ref().and_then(|data| data.get("node"));
        node.into_iter().cloned().collect()
    });

    fn on_node(namespace: &str, name: &str, node: &str) -> ConfigMap {
        let mut cm = config_map(namespace, name, None);
        cm.data = Some([("node".to_owned(), node.to_owned())].into());
        cm
    }

    #[test]
    fn an_index_follows_the_watch_events_and_swaps_in_a_relist() {
        let (store, mut writer) = reflector::store();
        let indexer = Arc::new(Indexer::new(vec![BY_NODE]));
        let indexed = Cache::indexed_by(None, store.clone(), indexer.clone());
        let scanned = Cache::new(None, store);
        let mut apply = |event: Event<ConfigMap>| {
            writer.apply_watcher_event(&event);
            indexer.apply(&event);
        };
        // What the kept index and a scan find on `node` in namespace `a` and everywhere.
        let found = |node: &str| {
            let kept = names(&indexed.indexed(None, &BY_NODE, node));
            assert_eq!(
                kept,
                names(&scanned.indexed(None, &BY_NODE, node)),
                "{node}"
            );
            let in_a = names(&indexed.indexed(Some("a"), &BY_NODE, node));
            assert_eq!(in_a, names(&scanned.indexed(Some("a"), &BY_NODE, node)));
            (kept, in_a)
        };

        apply(Event::Apply(on_node("a", "web-2", "x")));
        apply(Event::Apply(on_node("a", "web-1", "x")));
        apply(Event::Apply(on_node("b", "db", "x")));
        apply(Event::Apply(on_node("a", "cache", "y")));
        assert_eq!(
            found("x"),
            (
                vec!["web-1".into(), "web-2".into(), "db".into()],
                vec!["web-1".into(), "web-2".into()]
            )
        );
        // Moved to another node, then deleted.
        apply(Event::Apply(on_node("a", "web-2", "y")));
        assert_eq!(found("y").0, ["cache", "web-2"]);
        apply(Event::Delete(on_node("a", "web-1", "x")));
        assert_eq!(found("x").0, ["db"]);
        assert_eq!(
            indexer.lookup("data.node", "x").map(|refs| refs.len()),
            Some(1)
        );
        assert_eq!(indexer.lookup("spec.nodeName", "x"), None, "not kept");

        // A relist: the old entries hold until it is done, then only the relisted ones.
        apply(Event::Init);
        apply(Event::InitApply(on_node("a", "batch", "z")));
        assert_eq!(found("y").0, ["cache", "web-2"]);
        assert!(found("z").0.is_empty());
        apply(Event::InitDone);
        assert_eq!(found("z").0, ["batch"]);
        for gone in ["x", "y"] {
            assert!(found(gone).0.is_empty(), "{gone}");
            assert_eq!(indexer.lookup("data.node", gone), Some(vec![]));
        }
    }

    #[test]
    fn an_indexed_lookup_returns_only_what_the_store_holds() {
        let (store, _writer) = reflector::store();
        let indexer = Arc::new(Indexer::new(vec![BY_NODE]));
        // The index saw an event its store has not (a lookup between the two).
        indexer.apply(&Event::Apply(on_node("a", "web", "x")));
        let cache = Cache::indexed_by(None, store, indexer);
        assert!(cache.indexed(None, &BY_NODE, "x").is_empty());
    }

    #[test]
    fn a_cache_finds_objects_by_namespace_name_and_controller() {
        let caches = Caches::default();
        assert!(caches.get::<ConfigMap>().is_none());
        add(
            &caches,
            Some("a"),
            store_of(vec![
                config_map("a", "mine-2", Some("uid-a-owner")),
                config_map("a", "mine-1", Some("uid-a-owner")),
                config_map("a", "theirs", Some("uid-a-other")),
                config_map("a", "orphan", None),
            ]),
        );
        add(
            &caches,
            Some("b"),
            store_of(vec![config_map("b", "mine-1", Some("uid-a-owner"))]),
        );
        let cache = caches.get::<ConfigMap>().expect("a cache");

        let found = cache.get(Some("a"), "theirs").expect("cached");
        assert_eq!(found.namespace().as_deref(), Some("a"));
        assert!(cache.get(Some("b"), "theirs").is_none());
        assert!(cache.get(Some("c"), "mine-1").is_none());
        assert_eq!(
            cache
                .get(Some("b"), "mine-1")
                .unwrap()
                .namespace()
                .as_deref(),
            Some("b")
        );
        assert_eq!(cache.list(Some("b")).len(), 1);
        let everywhere = cache.list(None);
        let keys: Vec<_> = everywhere
            .iter()
            .map(|obj| format!("{}/{}", obj.namespace().unwrap(), obj.name_any()))
            .collect();
        assert_eq!(
            keys,
            ["a/mine-1", "a/mine-2", "a/orphan", "a/theirs", "b/mine-1"],
            "by namespace and name, whatever the stores' order"
        );
        assert_eq!(names(&cache.list(Some("a")))[..2], ["mine-1", "mine-2"]);

        let owner = config_map("a", "owner", None);
        assert_eq!(names(&cache.controlled_by(&owner)), ["mine-1", "mine-2"]);
    }

    #[test]
    fn a_cluster_wide_store_serves_every_namespace() {
        let caches = Caches::default();
        add(
            &caches,
            None,
            store_of(vec![
                config_map("a", "one", None),
                config_map("b", "two", None),
            ]),
        );
        let cache = caches.get::<ConfigMap>().expect("a cache");
        assert!(cache.get(Some("a"), "one").is_some());
        assert!(cache.get(Some("a"), "two").is_none());
        assert_eq!(names(&cache.list(Some("b"))), ["two"]);
    }
}
