//! What a controller watches besides its own kind, declared rather than built: the kinds it
//! owns ([`Watches::owns`]), the objects its spec names ([`Watches::references`]), any other
//! relation as a mapping function ([`Watches::watches_all`]), and which of its own objects it
//! reconciles at all ([`Watches::primary`]).
//!
//! ```no_run
//! # use std::sync::Arc;
//! # use k8s_openapi::api::{apps::v1::Deployment, core::v1::{ConfigMap, Secret}};
//! # use kube::runtime::{controller::Action, watcher};
//! # use opgen_runtime::{Context, Result, watches::Watches};
//! # async fn reconcile(_: Arc<ConfigMap>, _: Arc<Context>) -> Result<Action> { todo!() }
//! # fn error_policy(_: Arc<ConfigMap>, _: &opgen_runtime::Error, _: Arc<Context>) -> Action { todo!() }
//! # async fn run(ctx: Arc<Context>) -> Result<()> {
//! let children = watcher::Config::default().labels("app.kubernetes.io/managed-by=demo");
//! Watches::new()
//!     // A change of an owned Deployment reconciles its controller.
//!     .owns::<Deployment>(children)
//!     // A Secret named in an object's data reconciles that object.
//!     .references::<Secret>(|cm: &ConfigMap| {
//!         cm.data.iter().flatten().filter(|(k, _)| *k == "secret").map(|(_, v)| v.clone()).collect()
//!     })
//!     .run(ctx, "demo", reconcile, error_policy)
//!     .await
//! # }
//! ```

use std::{fmt::Debug, future::Future, hash::Hash, sync::Arc};

use k8s_openapi::NamespaceResourceScope;
use kube::{
    Resource, ResourceExt,
    runtime::{
        Controller,
        controller::Action,
        reflector::{ObjectRef, Store},
        watcher,
    },
};

use crate::{
    Context, Result,
    controller::{ControlledKind, run_configured},
};

type Configure<K> =
    Box<dyn Fn(Controller<K>, &Context, Option<&str>) -> Controller<K> + Send + Sync>;

/// The watches of a controller of kind `K`, run by [`Watches::run`] once per watched
/// namespace (`--namespace`), or once over the cluster.
pub struct Watches<K>
where
    K: Clone + Resource + Debug + 'static,
    K::DynamicType: Eq + Hash,
{
    primary: watcher::Config,
    extra: Vec<Configure<K>>,
}

impl<K> Default for Watches<K>
where
    K: ControlledKind + Resource<Scope = NamespaceResourceScope>,
{
    fn default() -> Self {
        Self::new()
    }
}

impl<K> Watches<K>
where
    K: ControlledKind + Resource<Scope = NamespaceResourceScope>,
{
    /// Every object of kind `K`, and nothing else yet.
    pub fn new() -> Self {
        Watches {
            primary: watcher::Config::default().any_semantic(),
            extra: Vec::new(),
        }
    }

    /// Reconciles only the objects of kind `K` that `config` selects (its label and field
    /// selectors): the others are neither cached nor reconciled.
    pub fn primary(mut self, config: watcher::Config) -> Self {
        self.primary = config;
        self
    }

    /// Watches the objects of kind `Child` that `config` selects (a label selector keeps the
    /// cache to the operator's own children) in the controller's namespaces: a change
    /// reconciles the object named in the child's controller owner reference (controller-
    /// runtime's `Owns`). Needs `list` and `watch` on `Child`.
    pub fn owns<Child>(mut self, config: watcher::Config) -> Self
    where
        Child: ControlledKind + Resource<DynamicType = (), Scope = NamespaceResourceScope>,
    {
        self.extra.push(Box::new(move |controller, ctx, namespace| {
            controller.owns(ctx.api_in::<Child>(namespace), config.clone())
        }));
        self
    }

    /// Watches the objects of kind `Other` in the controller's namespaces and reconciles the
    /// objects of kind `K` in the same namespace whose `names` name them, e.g. a Secret a spec
    /// refers to by name (controller-runtime's `Watches` with an index on the field). The
    /// objects are looked up in the controller's own cache. Needs `list` and `watch` on
    /// `Other`.
    pub fn references<Other>(mut self, names: fn(&K) -> Vec<String>) -> Self
    where
        Other: ControlledKind + Resource<DynamicType = (), Scope = NamespaceResourceScope>,
    {
        self.extra.push(Box::new(move |controller, ctx, namespace| {
            let store = controller.store();
            let config = watcher::Config::default().any_semantic();
            controller.watches(
                ctx.api_in::<Other>(namespace),
                config,
                move |other: Other| referencing(&store, &other, names),
            )
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
            .push(Box::new(move |controller, ctx, _namespace| {
                let (store, map) = (controller.store(), map.clone());
                let api = kube::Api::<Other>::all(ctx.client.clone());
                controller.watches(api, config.clone(), move |other: Other| map(&other, &store))
            }));
        self
    }

    /// Runs the controller as [`controller::run`](crate::controller::run) does, with these
    /// watches.
    pub async fn run<ReconcileFn, ReconcileFut, E, PolicyFn>(
        self,
        ctx: Arc<Context>,
        name: &'static str,
        reconcile: ReconcileFn,
        error_policy: PolicyFn,
    ) -> Result<()>
    where
        ReconcileFn: FnMut(Arc<K>, Arc<Context>) -> ReconcileFut + Clone,
        ReconcileFut: Future<Output = std::result::Result<Action, E>> + Send + 'static,
        E: std::error::Error + Send + Sync + 'static,
        PolicyFn: Fn(Arc<K>, &E, Arc<Context>) -> Action + Clone,
    {
        let Watches { primary, extra } = self;
        let configure = move |controller, ctx: &Context, namespace: Option<&str>| {
            extra.iter().fold(controller, |controller, add| {
                add(controller, ctx, namespace)
            })
        };
        run_configured(ctx, name, primary, configure, reconcile, error_policy).await
    }
}

/// The objects in `store` in `other`'s namespace whose `names` hold `other`'s name.
fn referencing<K, Other>(
    store: &Store<K>,
    other: &Other,
    names: fn(&K) -> Vec<String>,
) -> Vec<ObjectRef<K>>
where
    K: Resource + Clone,
    K::DynamicType: Eq + Hash + Clone + Default,
    Other: Resource,
{
    let name = other.name_any();
    store
        .state()
        .iter()
        .filter(|obj| obj.namespace() == other.namespace() && names(obj).contains(&name))
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

    fn secret_of(cm: &ConfigMap) -> Vec<String> {
        cm.data
            .iter()
            .flatten()
            .filter(|(k, _)| *k == "secret")
            .map(|(_, v)| v.clone())
            .collect()
    }

    #[test]
    fn a_referenced_object_maps_to_the_objects_naming_it_in_its_namespace() {
        let (store, mut writer) = reflector::store::<ConfigMap>();
        for cm in [
            config_map("a", "one", "shared"),
            config_map("a", "two", "shared"),
            config_map("a", "three", "other"),
            config_map("b", "four", "shared"),
        ] {
            writer.apply_watcher_event(&Event::Apply(cm));
        }
        let mut secret = Secret::default();
        secret.metadata.namespace = Some("a".into());
        secret.metadata.name = Some("shared".into());

        let mut owners: Vec<String> = referencing(&store, &secret, secret_of)
            .into_iter()
            .map(|r| r.name)
            .collect();
        owners.sort();

        assert_eq!(owners, ["one", "two"]);
    }
}
