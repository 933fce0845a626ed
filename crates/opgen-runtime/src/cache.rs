//! The objects a controller's watches keep (controller-runtime's cache): each watch of
//! [`Watches`](crate::watches::Watches) reflects what it sees into a store that both triggers
//! reconciles and serves reads, so a reconcile reads its children with
//! [`Context::cache`](crate::Context::cache) instead of a GET.
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
    collections::HashMap,
    sync::{Arc, RwLock},
};

use kube::{
    Resource, ResourceExt,
    runtime::reflector::{ObjectRef, Store},
};

use crate::owned::is_controlled_by;

/// The cached objects of kind `K` the controllers watch: one store per watched namespace
/// (`None`: the whole cluster). A clone is cheap and sees the stores as they fill.
#[derive(Clone)]
pub struct Cache<K>
where
    K: Resource<DynamicType = ()> + Clone + 'static,
{
    stores: Vec<(Option<String>, Store<K>)>,
}

impl<K> std::fmt::Debug for Cache<K>
where
    K: Resource<DynamicType = ()> + Clone + 'static,
{
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let namespaces: Vec<_> = self.stores.iter().map(|(ns, _)| ns).collect();
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
    pub fn new(namespace: Option<String>, store: Store<K>) -> Self {
        Cache {
            stores: vec![(namespace, store)],
        }
    }

    /// The stores that may hold objects of `namespace` (`None`: a cluster-scoped object).
    fn stores_for<'a>(&'a self, namespace: Option<&'a str>) -> impl Iterator<Item = &'a Store<K>> {
        self.stores
            .iter()
            .filter(move |(watched, _)| watched.is_none() || watched.as_deref() == namespace)
            .map(|(_, store)| store)
    }

    /// The object `name` in `namespace` (`None` for a cluster-scoped kind), if it is cached.
    pub fn get(&self, namespace: Option<&str>, name: &str) -> Option<Arc<K>> {
        let mut key = ObjectRef::new(name);
        key.namespace = namespace.map(str::to_owned);
        self.stores_for(namespace).find_map(|store| store.get(&key))
    }

    /// The cached objects in `namespace` (`None`: all of them).
    pub fn list(&self, namespace: Option<&str>) -> Vec<Arc<K>> {
        self.matching(namespace, |obj| {
            namespace.is_none() || obj.namespace().as_deref() == namespace
        })
    }

    /// The cached objects in `owner`'s namespace that `owner` controls (apimachinery's
    /// `IsControlledBy`), by name.
    pub fn controlled_by(&self, owner: &impl Resource) -> Vec<Arc<K>> {
        let namespace = owner.meta().namespace.as_deref();
        let mut children = self.matching(namespace, |child| {
            child.namespace().as_deref() == namespace && is_controlled_by(child, owner)
        });
        children.sort_by_key(|child| child.name_any());
        children
    }

    /// The objects of the stores of `namespace` (`None`: every store) that `keep` keeps, each
    /// once (two controllers' watches may both hold one).
    fn matching(&self, namespace: Option<&str>, keep: impl Fn(&K) -> bool) -> Vec<Arc<K>> {
        let stores: Vec<&Store<K>> = match namespace {
            Some(_) => self.stores_for(namespace).collect(),
            None => self.stores.iter().map(|(_, store)| store).collect(),
        };
        let mut seen = std::collections::HashSet::new();
        stores
            .into_iter()
            .flat_map(|store| store.state_filter(|obj| keep(obj)))
            .filter(|obj| seen.insert(ObjectRef::from_obj(&**obj)))
            .collect()
    }

    /// Waits until every store has listed its objects once: until then a missing object may
    /// only not be listed yet. The reconciles of [`Watches`](crate::watches::Watches) start
    /// after their caches are filled.
    pub async fn ready(&self) {
        for (_, store) in &self.stores {
            // A dropped writer (its watch stopped) leaves nothing to wait for.
            let _ = store.wait_until_ready().await;
        }
    }
}

/// Every kind's [`Cache`], filled as the controllers' watches start.
#[derive(Default)]
pub(crate) struct Caches {
    by_kind: RwLock<HashMap<TypeId, Box<dyn Any + Send + Sync>>>,
}

impl Caches {
    /// Adds the store of the objects of kind `K` in `namespace` (`None`: every namespace).
    pub(crate) fn add<K>(&self, namespace: Option<&str>, store: Store<K>)
    where
        K: Resource<DynamicType = ()> + Clone + Send + Sync + 'static,
    {
        let mut by_kind = self.by_kind.write().expect("not poisoned");
        let entry = (namespace.map(str::to_owned), store);
        match by_kind
            .get_mut(&TypeId::of::<K>())
            .and_then(|cache| cache.downcast_mut::<Cache<K>>())
        {
            Some(cache) => cache.stores.push(entry),
            None => {
                let cache = Cache {
                    stores: vec![entry],
                };
                by_kind.insert(TypeId::of::<K>(), Box::new(cache));
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

    #[test]
    fn a_cache_finds_objects_by_namespace_name_and_controller() {
        let caches = Caches::default();
        assert!(caches.get::<ConfigMap>().is_none());
        caches.add(
            Some("a"),
            store_of(vec![
                config_map("a", "mine-2", Some("uid-a-owner")),
                config_map("a", "mine-1", Some("uid-a-owner")),
                config_map("a", "theirs", Some("uid-a-other")),
                config_map("a", "orphan", None),
            ]),
        );
        caches.add(
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
        assert_eq!(cache.list(None).len(), 5);

        let owner = config_map("a", "owner", None);
        assert_eq!(names(&cache.controlled_by(&owner)), ["mine-1", "mine-2"]);
    }

    #[test]
    fn a_cluster_wide_store_serves_every_namespace() {
        let caches = Caches::default();
        caches.add(
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
