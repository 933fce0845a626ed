//! Objects a custom resource owns (a StatefulSet, a Service, a ConfigMap): applied with the
//! custom resource as their controller, so that deleting it deletes them and their changes
//! reach its controller, and never taken over from another controller or from nobody.
//!
//! - [`apply_owned`]: the usual one call (controller-runtime's `SetControllerReference` and
//!   `CreateOrPatch` in one): reads the child, refuses one it does not control, server-side
//!   applies the desired fields;
//! - [`get_owned`]: the read and the refusal alone, for a reconcile that compares before it
//!   writes (then [`Context::apply_params`] and [`controller_reference`] for the write);
//! - [`create_owned`]: a child created once and never updated (a one-shot Pod, a Job);
//! - [`delete_owned`]: deletes the children no longer desired;
//! - [`is_controlled_by`] and [`controller_reference`]: apimachinery's `IsControlledBy` and
//!   `NewControllerRef`.
//!
//! ```no_run
//! # use k8s_openapi::api::core::v1::ConfigMap;
//! # use kube::{ResourceExt, api::ListParams};
//! # async fn example(ctx: &opgen_runtime::Context, owner: &ConfigMap) -> opgen_runtime::Result<()> {
//! let mut child = ConfigMap::default();
//! child.metadata.name = Some(format!("{}-settings", owner.name_any()));
//! child.data = Some([("mode".to_owned(), "fast".to_owned())].into());
//! let applied = opgen_runtime::owned::apply_owned(ctx, owner, child).await?;
//! if applied.created() {
//!     // ... publish an event ...
//! }
//! // The owner's ConfigMaps of any other name go.
//! let name = applied.object.name_any();
//! opgen_runtime::owned::delete_owned::<ConfigMap, _>(ctx, owner, &ListParams::default(), |cm| {
//!     cm.name_any() == name
//! })
//! .await?;
//! # Ok(())
//! # }
//! ```

use std::{fmt::Debug, sync::Arc};

use k8s_openapi::{NamespaceResourceScope, apimachinery::pkg::apis::meta::v1::OwnerReference};
use kube::{
    Api, Resource, ResourceExt,
    api::{DeleteParams, ListParams, PartialObjectMeta, Patch, PostParams, Preconditions},
};
use serde::{Serialize, de::DeserializeOwned};

use crate::{
    Context, Error, Result,
    controller::{is_conflict, is_not_found},
};

/// Whether `owner` is the controller of `child` (its controller owner reference names
/// `owner`'s uid): apimachinery's `metav1.IsControlledBy`.
pub fn is_controlled_by(child: &impl Resource, owner: &impl Resource) -> bool {
    let uid = owner.meta().uid.as_deref();
    uid.is_some()
        && child
            .owner_references()
            .iter()
            .any(|r| r.controller == Some(true) && Some(r.uid.as_str()) == uid)
}

/// A controller owner reference to `owner` that blocks its deletion until the child is gone
/// (a foreground deletion waits for the child), as controller-runtime's
/// `SetControllerReference` writes it. Setting `blockOwnerDeletion` needs `update` on the
/// owner's `finalizers` subresource (OwnerReferencesPermissionEnforcement).
pub fn controller_reference<O>(owner: &O) -> Result<OwnerReference>
where
    O: Resource,
    O::DynamicType: Default,
{
    let reference = owner
        .controller_owner_ref(&O::DynamicType::default())
        .ok_or(Error::MissingObjectKey(".metadata.uid"))?;
    Ok(OwnerReference {
        block_owner_deletion: Some(true),
        ..reference
    })
}

/// The child `name` of kind `K` in `owner`'s namespace: `None` when it does not exist, and
/// [`Error::OwnedByAnother`] when it exists but `owner` does not control it (another owner
/// does, or nobody: a same-named object is never adopted). Read from the controller's cache
/// ([`Context::cache`]) when a watch keeps it there, else (not cached: not selected by the
/// watch, or not yet seen) from the API server: a same-named object the cache does not
/// select is refused all the same. Needs `get` on the child's resource.
pub async fn get_owned<K, O>(ctx: &Context, owner: &O, name: &str) -> Result<Option<K>>
where
    K: ChildKind,
    O: Resource,
{
    let namespace = owner_namespace(owner)?;
    let cached = ctx
        .cache::<K>()
        .and_then(|cache| cache.get(Some(&namespace), name));
    let existing = match cached {
        Some(cached) => Arc::unwrap_or_clone(cached),
        None => {
            let api: Api<K> = Api::namespaced(ctx.client.clone(), &namespace);
            let Some(existing) = api.get_opt(name).await? else {
                return Ok(None);
            };
            existing
        }
    };
    controlled(existing, owner).map(Some)
}

/// What the owned-child helpers need of a child's kind: a namespaced kind, as k8s-openapi's
/// and kube-derive's are, that the controller's cache can hold.
pub trait ChildKind:
    Resource<DynamicType = (), Scope = NamespaceResourceScope>
    + Clone
    + Debug
    + DeserializeOwned
    + Send
    + Sync
    + 'static
{
}

impl<K> ChildKind for K where
    K: Resource<DynamicType = (), Scope = NamespaceResourceScope>
        + Clone
        + Debug
        + DeserializeOwned
        + Send
        + Sync
        + 'static
{
}

/// A child's `.metadata.name`, which the helpers need to find it.
fn child_name(child: &impl Resource) -> Result<String> {
    child
        .meta()
        .name
        .clone()
        .ok_or(Error::MissingObjectKey(".metadata.name"))
}

/// `child` when `owner` controls it, else [`Error::OwnedByAnother`].
fn controlled<K>(child: K, owner: &impl Resource) -> Result<K>
where
    K: Resource<DynamicType = ()>,
{
    if is_controlled_by(&child, owner) {
        return Ok(child);
    }
    let controller = child
        .owner_references()
        .iter()
        .find(|r| r.controller == Some(true))
        .map(|r| format!("{} {}", r.kind, r.name));
    Err(Error::OwnedByAnother {
        object: format!(
            "{} {}/{}",
            K::kind(&()),
            child.namespace().unwrap_or_default(),
            child.name_any()
        ),
        controller,
    })
}

/// What [`apply_owned`] (or [`create_owned`]) found and left.
#[derive(Clone, Debug)]
pub struct Applied<K> {
    /// The child before the apply; `None` when the apply created it. Whole, except where the
    /// controller caches only the children's metadata ([`Watches::owns_metadata`]): then
    /// [`apply_owned`] gives the cached metadata alone (spec and status unset), which is all
    /// [`Applied::created`] and [`Applied::changed`] read.
    ///
    /// [`Watches::owns_metadata`]: crate::watches::Watches::owns_metadata
    pub previous: Option<K>,
    /// The child as the API server stored it.
    pub object: K,
}

impl<K: Resource> Applied<K> {
    /// Whether the apply created the child.
    pub fn created(&self) -> bool {
        self.previous.is_none()
    }

    /// Whether the apply changed the child: created it, or moved its generation (its spec
    /// changed), or for kinds without a generation its resourceVersion.
    pub fn changed(&self) -> bool {
        let Some(previous) = &self.previous else {
            return true;
        };
        let (before, after) = (previous.meta(), self.object.meta());
        match (before.generation, after.generation) {
            (Some(before), Some(after)) => before != after,
            _ => before.resource_version != after.resource_version,
        }
    }
}

/// Server-side applies `child` in `owner`'s namespace with `owner` as its controller
/// ([`controller_reference`]) and the operator's field manager, forced
/// ([`Context::apply_params`]): a child someone changed is put back, a deleted one is created
/// again. A same-named object `owner` does not control is refused first ([`get_owned`]: from
/// the controller's cache when it holds the child, whole or its metadata alone, so
/// [`Applied::previous`] may lag the API server by a watch event). Needs `get` and `patch` on
/// the child's resource, and `create` for the apply that creates it.
pub async fn apply_owned<K, O>(ctx: &Context, owner: &O, mut child: K) -> Result<Applied<K>>
where
    K: ChildKind + Serialize,
    O: Resource,
    O::DynamicType: Default,
{
    let name = child_name(&child)?;
    let namespace = owner_namespace(owner)?;
    let reference = controller_reference(owner)?;
    let previous = match cached_metadata_only::<K>(ctx, &namespace, &name) {
        Some(previous) => Some(controlled(previous, owner)?),
        None => get_owned::<K, O>(ctx, owner, &name).await?,
    };
    let meta = child.meta_mut();
    meta.namespace = Some(namespace.clone());
    meta.owner_references = Some(vec![reference]);
    let api: Api<K> = Api::namespaced(ctx.client.clone(), &namespace);
    let object = api
        .patch(&name, &ctx.apply_params(), &Patch::Apply(&child))
        .await?;
    Ok(Applied { previous, object })
}

/// The child `name` of kind `K` in `namespace` as a child with its metadata alone, when the
/// controller caches only the metadata of kind `K` ([`Watches::owns_metadata`]) and that cache
/// holds it; `None` otherwise, and for a kind whose spec is required (a custom resource), which
/// cannot be made without one.
///
/// [`Watches::owns_metadata`]: crate::watches::Watches::owns_metadata
fn cached_metadata_only<K: ChildKind>(ctx: &Context, namespace: &str, name: &str) -> Option<K> {
    if ctx.cache::<K>().is_some() {
        return None;
    }
    let cached = ctx
        .cache::<PartialObjectMeta<K>>()?
        .get(Some(namespace), name)?;
    let object = serde_json::json!({
        "apiVersion": K::api_version(&()),
        "kind": K::kind(&()),
        "metadata": cached.metadata,
    });
    serde_json::from_value(object).ok()
}

/// Creates `child` in `owner`'s namespace with `owner` as its controller
/// ([`controller_reference`]) unless it exists: a child made once and then left to run, never
/// updated (upstream cnat's pod, a Job), where [`apply_owned`] would put its fields back. An
/// existing child `owner` does not control is refused ([`get_owned`], from the cache when it
/// holds the child); one created between that read and the create (which meets AlreadyExists)
/// is read from the API server and refused the same way. [`Applied::created`] tells whether this call
/// created it. Needs `get` and `create` on the child's resource.
pub async fn create_owned<K, O>(ctx: &Context, owner: &O, mut child: K) -> Result<Applied<K>>
where
    K: ChildKind + Serialize,
    O: Resource,
    O::DynamicType: Default,
{
    let name = child_name(&child)?;
    if let Some(existing) = get_owned::<K, O>(ctx, owner, &name).await? {
        return Ok(Applied {
            previous: Some(existing.clone()),
            object: existing,
        });
    }
    let namespace = owner_namespace(owner)?;
    let meta = child.meta_mut();
    meta.namespace = Some(namespace.clone());
    meta.owner_references = Some(vec![controller_reference(owner)?]);
    let api: Api<K> = Api::namespaced(ctx.client.clone(), &namespace);
    let params = PostParams {
        field_manager: Some(ctx.manager_name.clone()),
        ..PostParams::default()
    };
    match api.create(&params, &child).await {
        Ok(object) => Ok(Applied {
            previous: None,
            object,
        }),
        Err(error) if is_conflict(&error) => {
            let existing = controlled(api.get(&name).await?, owner)?;
            Ok(Applied {
                previous: Some(existing.clone()),
                object: existing,
            })
        }
        Err(error) => Err(error.into()),
    }
}

/// Deletes the children of kind `K` in `owner`'s namespace that `owner` controls, that
/// `params` selects (a label selector keeps the list small) and that `keep` rejects: those
/// left behind by a renamed or disabled child. Each delete carries the child's uid as a
/// precondition, so an object created meanwhile under the same name survives. Returns the
/// children it deleted (not those already gone). Needs `list` and `delete`.
pub async fn delete_owned<K, O>(
    ctx: &Context,
    owner: &O,
    params: &ListParams,
    keep: impl Fn(&K) -> bool,
) -> Result<Vec<K>>
where
    K: Resource<Scope = NamespaceResourceScope> + Clone + Debug + DeserializeOwned,
    K::DynamicType: Default,
    O: Resource,
{
    let api: Api<K> = Api::namespaced(ctx.client.clone(), &owner_namespace(owner)?);
    let mut deleted = Vec::new();
    for child in api.list(params).await?.items {
        if !is_controlled_by(&child, owner) || keep(&child) {
            continue;
        }
        let params = DeleteParams {
            preconditions: Some(Preconditions {
                uid: child.uid(),
                resource_version: None,
            }),
            ..DeleteParams::default()
        };
        match api.delete(&child.name_any(), &params).await {
            Ok(_) => deleted.push(child),
            Err(error) if is_not_found(&error) => {}
            Err(error) => return Err(error.into()),
        }
    }
    Ok(deleted)
}

fn owner_namespace(owner: &impl Resource) -> Result<String> {
    owner
        .meta()
        .namespace
        .clone()
        .ok_or(Error::MissingObjectKey(".metadata.namespace"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{Method, fake_client, test_context};
    use k8s_openapi::api::core::v1::ConfigMap;

    const CONFIG_MAPS: &str = "/api/v1/namespaces/default/configmaps";
    const CHILD: &str = "/api/v1/namespaces/default/configmaps/child";

    fn object(name: &str, uid: &str) -> ConfigMap {
        let mut cm = ConfigMap::default();
        cm.metadata.name = Some(name.into());
        cm.metadata.namespace = Some("default".into());
        cm.metadata.uid = Some(uid.into());
        cm
    }

    fn child() -> ConfigMap {
        let mut cm = ConfigMap::default();
        cm.metadata.name = Some("child".into());
        cm.data = Some([("mode".to_owned(), "fast".to_owned())].into());
        cm
    }

    /// A child as the API server stores it: `name`, controlled by the object of `owner_uid`.
    fn stored_child(name: &str, uid: &str, owner_uid: Option<&str>) -> ConfigMap {
        let mut cm = object(name, uid);
        cm.metadata.owner_references = owner_uid.map(|owner_uid| {
            vec![OwnerReference {
                api_version: "v1".into(),
                kind: "ConfigMap".into(),
                name: "someone-else".into(),
                uid: owner_uid.into(),
                controller: Some(true),
                block_owner_deletion: None,
            }]
        });
        cm
    }

    #[tokio::test]
    async fn a_child_is_applied_with_its_controller() {
        let (client, server) = fake_client();
        let ctx = test_context(client, "demo-operator");
        let owner = object("owner", "u-1");

        let applied = apply_owned(&ctx, &owner, child()).await.expect("applied");

        assert!(applied.created() && applied.changed());
        assert!(is_controlled_by(&applied.object, &owner));
        let stored = server.object(CHILD).expect("created");
        assert_eq!(stored["data"]["mode"], "fast");
        let reference = &stored["metadata"]["ownerReferences"][0];
        assert_eq!(reference["uid"], "u-1");
        assert_eq!(reference["controller"], true);
        assert_eq!(reference["blockOwnerDeletion"], true);
        let apply = server
            .requests()
            .into_iter()
            .find(|r| r.path == CHILD && r.method == Method::PATCH)
            .expect("an apply");
        assert!(
            apply.query.contains("fieldManager=demo-operator")
                && apply.query.contains("force=true"),
            "{}",
            apply.query
        );

        let again = apply_owned(&ctx, &owner, child()).await.expect("applied");
        assert!(!again.created());
        assert!(again.previous.is_some_and(|p| is_controlled_by(&p, &owner)));
    }

    #[tokio::test]
    async fn a_child_another_controller_owns_or_nobody_owns_is_not_adopted() {
        let (client, server) = fake_client();
        let ctx = test_context(client, "demo-operator");
        let owner = object("owner", "u-1");
        for (theirs, message) in [
            (
                stored_child("child", "c-1", Some("u-2")),
                "ConfigMap default/child is controlled by ConfigMap someone-else: not adopting it (delete it if it is stale, or choose another name)",
            ),
            (
                stored_child("child", "c-1", None),
                "ConfigMap default/child exists without a controller: not adopting it (delete it if it is stale, or choose another name)",
            ),
        ] {
            server.insert(CHILD, &theirs);

            let error = apply_owned(&ctx, &owner, child()).await.unwrap_err();

            assert!(matches!(error, Error::OwnedByAnother { .. }), "{error}");
            assert_eq!(error.to_string(), message);
            assert_eq!(error.reason(), "NotOwned");
            assert_eq!(
                server.object(CHILD).expect("kept")["metadata"]["ownerReferences"],
                serde_json::to_value(&theirs).unwrap()["metadata"]["ownerReferences"]
            );
        }
        assert!(
            server.requests().iter().all(|r| r.method == Method::GET),
            "only read: {:?}",
            server.requests()
        );
    }

    #[tokio::test]
    async fn get_owned_reads_only_controlled_children() {
        let (client, server) = fake_client();
        let ctx = test_context(client, "demo-operator");
        let owner = object("owner", "u-1");
        let missing: Option<ConfigMap> = get_owned(&ctx, &owner, "child").await.expect("read");
        assert!(missing.is_none());

        server.insert(CHILD, &stored_child("child", "c-1", Some("u-1")));
        let ours: Option<ConfigMap> = get_owned(&ctx, &owner, "child").await.expect("read");
        assert_eq!(ours.map(|c| c.name_any()).as_deref(), Some("child"));

        let stranger = object("stranger", "u-3");
        let refused = get_owned::<ConfigMap, _>(&ctx, &stranger, "child").await;
        assert!(matches!(refused, Err(Error::OwnedByAnother { .. })));
    }

    #[tokio::test]
    async fn a_cached_child_is_read_from_the_cache_without_a_request() {
        let (client, server) = fake_client();
        let ctx = test_context(client, "demo-operator");
        let owner = object("owner", "u-1");
        crate::testing::fill_cache(&ctx, [stored_child("child", "c-1", Some("u-1"))]);

        let ours: Option<ConfigMap> = get_owned(&ctx, &owner, "child").await.expect("read");
        assert_eq!(ours.and_then(|c| c.uid()).as_deref(), Some("c-1"));
        assert!(server.requests().is_empty(), "{:?}", server.requests());

        // Not cached (not selected by the watch): read from the API server, and refused.
        server.insert(
            &format!("{CONFIG_MAPS}/unlabelled"),
            &stored_child("unlabelled", "c-2", Some("u-2")),
        );
        let refused = get_owned::<ConfigMap, _>(&ctx, &owner, "unlabelled").await;
        assert!(matches!(refused, Err(Error::OwnedByAnother { .. })));
        assert_eq!(server.requests().len(), 1);
    }

    #[tokio::test]
    async fn a_created_child_is_created_once_and_never_updated() {
        let (client, server) = fake_client();
        let ctx = test_context(client, "demo-operator");
        let owner = object("owner", "u-1");

        let created = create_owned(&ctx, &owner, child()).await.expect("created");

        assert!(created.created() && created.changed());
        let stored = server.object(CHILD).expect("created");
        assert_eq!(stored["metadata"]["ownerReferences"][0]["uid"], "u-1");
        assert_eq!(stored["metadata"]["ownerReferences"][0]["controller"], true);
        let post = &server.requests()[1];
        assert_eq!(
            (post.method.clone(), post.path.as_str()),
            (Method::POST, CONFIG_MAPS)
        );
        assert!(
            post.query.contains("fieldManager=demo-operator"),
            "{}",
            post.query
        );

        // A different desired child: the existing one is kept as it is.
        let mut changed = child();
        changed.data = Some([("mode".to_owned(), "slow".to_owned())].into());
        let again = create_owned(&ctx, &owner, changed).await.expect("read");
        assert!(!again.created() && !again.changed());
        assert_eq!(again.object.data, child().data);
        assert_eq!(server.object(CHILD).expect("kept")["data"]["mode"], "fast");
        let writes = server
            .requests()
            .into_iter()
            .filter(|r| r.method != Method::GET);
        assert_eq!(writes.count(), 1);

        // One it does not control is refused, and left alone.
        server.insert(CHILD, &stored_child("child", "c-1", Some("u-2")));
        let refused = create_owned(&ctx, &owner, child()).await;
        assert!(matches!(refused, Err(Error::OwnedByAnother { .. })));
        assert_eq!(
            server.object(CHILD).expect("kept")["metadata"]["uid"],
            "c-1"
        );
    }

    #[tokio::test]
    async fn a_child_created_meanwhile_is_read_not_created_twice() {
        use crate::testing::{StatusCode, mock_client};
        let (client, server) = mock_client();
        let ctx = test_context(client, "demo-operator");
        let owner = object("owner", "u-1");
        // Created by another writer between the read and the create.
        let theirs = stored_child("child", "c-1", Some("u-1"));
        let scenario = server.run(|mut server| async move {
            let exists =
                kube::core::Status::failure("configmaps \"child\" already exists", "AlreadyExists");
            server.expect(Method::GET, CHILD).await.respond(
                StatusCode::NOT_FOUND,
                &kube::core::Status::failure("not found", "NotFound").with_code(404),
            );
            server
                .expect(Method::POST, CONFIG_MAPS)
                .await
                .respond(StatusCode::CONFLICT, &exists.with_code(409));
            server
                .expect(Method::GET, CHILD)
                .await
                .respond(StatusCode::OK, &theirs);
            server.expect_no_more_requests().await;
        });

        let found = create_owned(&ctx, &owner, child()).await.expect("found");

        assert!(!found.created());
        assert_eq!(found.object.uid().as_deref(), Some("c-1"));
        drop(ctx);
        scenario.verify().await;
    }

    #[tokio::test]
    async fn only_unwanted_children_of_the_owner_are_deleted() {
        let (client, server) = fake_client();
        let ctx = test_context(client, "demo-operator");
        let owner = object("owner", "u-1");
        for (name, owner_uid) in [
            ("kept", Some("u-1")),
            ("stale", Some("u-1")),
            ("foreign", Some("u-2")),
            ("orphan", None),
        ] {
            let path = format!("{CONFIG_MAPS}/{name}");
            server.insert(&path, &stored_child(name, &format!("c-{name}"), owner_uid));
        }
        // Another namespace's child is out of reach.
        let mut elsewhere = stored_child("elsewhere", "c-elsewhere", Some("u-1"));
        elsewhere.metadata.namespace = Some("other".into());
        server.insert("/api/v1/namespaces/other/configmaps/elsewhere", &elsewhere);

        let deleted = delete_owned::<ConfigMap, _>(&ctx, &owner, &ListParams::default(), |cm| {
            cm.name_any() == "kept"
        })
        .await
        .expect("deleted");

        let names: Vec<String> = deleted.iter().map(ResourceExt::name_any).collect();
        assert_eq!(names, ["stale"]);
        for (name, present) in [
            ("kept", true),
            ("stale", false),
            ("foreign", true),
            ("orphan", true),
        ] {
            let path = format!("{CONFIG_MAPS}/{name}");
            assert_eq!(server.object(&path).is_some(), present, "{name}");
        }
        assert!(
            server
                .object("/api/v1/namespaces/other/configmaps/elsewhere")
                .is_some()
        );
        let delete = server
            .requests()
            .into_iter()
            .find(|r| r.method == Method::DELETE)
            .expect("a delete");
        assert_eq!(delete.body["preconditions"]["uid"], "c-stale");
    }

    #[test]
    fn changed_means_a_new_generation_or_else_a_new_resource_version() {
        let at = |generation: Option<i64>, version: &str| {
            let mut cm = object("child", "c-1");
            cm.metadata.generation = generation;
            cm.metadata.resource_version = Some(version.into());
            cm
        };
        let applied = |previous, object| Applied {
            previous: Some(previous),
            object,
        };
        assert!(!applied(at(Some(1), "5"), at(Some(1), "6")).changed());
        assert!(applied(at(Some(1), "5"), at(Some(2), "6")).changed());
        assert!(!applied(at(None, "5"), at(None, "5")).changed());
        assert!(applied(at(None, "5"), at(None, "6")).changed());
    }
}
