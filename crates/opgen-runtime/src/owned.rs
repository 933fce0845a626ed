//! Objects a custom resource owns (a StatefulSet, a Service, a ConfigMap): applied with the
//! custom resource as their controller, so that deleting it deletes them and their changes
//! reach its controller, and never taken over from another controller.
//!
//! ```no_run
//! # use k8s_openapi::api::core::v1::ConfigMap;
//! # use kube::ResourceExt;
//! # async fn example(ctx: &opgen_runtime::Context, owner: &ConfigMap) -> opgen_runtime::Result<()> {
//! let mut child = ConfigMap::default();
//! child.metadata.name = Some(format!("{}-settings", owner.name_any()));
//! child.data = Some([("mode".to_owned(), "fast".to_owned())].into());
//! opgen_runtime::owned::apply_owned(ctx, owner, child).await?;
//! # Ok(())
//! # }
//! ```

use std::fmt::Debug;

use k8s_openapi::NamespaceResourceScope;
use kube::{
    Api, Resource, ResourceExt,
    api::{Patch, PatchParams},
};
use serde::{Serialize, de::DeserializeOwned};

use crate::{Context, Error, Result};

/// Whether `owner` is the controller of `child` (its controller owner reference names
/// `owner`'s uid).
pub fn is_controlled_by(child: &impl Resource, owner: &impl Resource) -> bool {
    let uid = owner.meta().uid.as_deref();
    uid.is_some()
        && child
            .owner_references()
            .iter()
            .any(|r| r.controller == Some(true) && Some(r.uid.as_str()) == uid)
}

/// Server-side applies `child`, in `owner`'s namespace, with `owner` as its controller (the
/// owner reference blocks the owner's deletion until the child is gone) and the operator's
/// field manager, forced: a child someone changed is put back, a deleted one is created
/// again. A same-named object that another controller owns is not adopted:
/// [`Error::OwnedByAnother`]. Needs `get` and `patch` on the child's resource, and `create`
/// for the apply that creates it.
pub async fn apply_owned<K, O>(ctx: &Context, owner: &O, mut child: K) -> Result<K>
where
    K: Resource<Scope = NamespaceResourceScope> + Clone + Debug + Serialize + DeserializeOwned,
    K::DynamicType: Default,
    O: Resource,
    O::DynamicType: Default,
{
    let name = child
        .meta()
        .name
        .clone()
        .ok_or(Error::MissingObjectKey(".metadata.name"))?;
    let namespace = owner
        .namespace()
        .ok_or(Error::MissingObjectKey(".metadata.namespace"))?;
    let mut reference = owner
        .controller_owner_ref(&O::DynamicType::default())
        .ok_or(Error::MissingObjectKey(".metadata.uid"))?;
    reference.block_owner_deletion = Some(true);
    let api: Api<K> = Api::namespaced(ctx.client.clone(), &namespace);
    if let Some(existing) = api.get_opt(&name).await?
        && let Some(other) = existing
            .owner_references()
            .iter()
            .find(|r| r.controller == Some(true) && r.uid != reference.uid)
    {
        return Err(Error::OwnedByAnother {
            object: format!("{} {namespace}/{name}", K::kind(&K::DynamicType::default())),
            controller: format!("{} {}", other.kind, other.name),
        });
    }
    let meta = child.meta_mut();
    meta.namespace = Some(namespace);
    meta.owner_references = Some(vec![reference]);
    let params = PatchParams::apply(&ctx.manager_name).force();
    Ok(api.patch(&name, &params, &Patch::Apply(&child)).await?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{fake_client, test_context};
    use k8s_openapi::api::core::v1::ConfigMap;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;

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

    #[tokio::test]
    async fn a_child_is_applied_with_its_controller() {
        let (client, server) = fake_client();
        let ctx = test_context(client, "demo-operator");
        let owner = object("owner", "u-1");

        let applied = apply_owned(&ctx, &owner, child()).await.expect("applied");

        assert!(is_controlled_by(&applied, &owner));
        let stored = server.object(CHILD).expect("created");
        assert_eq!(stored["data"]["mode"], "fast");
        let reference = &stored["metadata"]["ownerReferences"][0];
        assert_eq!(reference["uid"], "u-1");
        assert_eq!(reference["blockOwnerDeletion"], true);
        let apply = server
            .requests()
            .into_iter()
            .find(|r| r.path == CHILD && r.method == crate::testing::Method::PATCH)
            .expect("an apply");
        assert!(
            apply.query.contains("fieldManager=demo-operator")
                && apply.query.contains("force=true"),
            "{}",
            apply.query
        );
    }

    #[tokio::test]
    async fn a_child_another_controller_owns_is_not_adopted() {
        let (client, server) = fake_client();
        let ctx = test_context(client, "demo-operator");
        let mut theirs = child();
        theirs.metadata.owner_references = Some(vec![OwnerReference {
            api_version: "v1".into(),
            kind: "ConfigMap".into(),
            name: "someone-else".into(),
            uid: "u-2".into(),
            controller: Some(true),
            block_owner_deletion: None,
        }]);
        server.insert(CHILD, &theirs);

        let error = apply_owned(&ctx, &object("owner", "u-1"), child())
            .await
            .unwrap_err();

        assert_eq!(
            error.to_string(),
            "ConfigMap default/child is controlled by ConfigMap someone-else: not adopting it (delete it if it is stale, or choose another name)"
        );
        assert!(
            server
                .requests()
                .iter()
                .all(|r| r.method == crate::testing::Method::GET),
            "only read: {:?}",
            server.requests()
        );
        assert!(!is_controlled_by(&theirs, &object("owner", "u-1")));
    }
}
