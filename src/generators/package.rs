//! The project's rendered install manifests (what `kubectl kustomize config/default` prints) as
//! objects, and the questions packaging asks of them: which roles the manager's service
//! accounts are bound to, which Service a webhook calls and which Deployment serves it.
//! Shared by the packaging generators (the OLM bundle; a Helm chart can use the same reading).

use crate::diag::{Error, Result};
use serde_json::Value;
use std::collections::BTreeSet;

/// Parses a multi-document YAML stream into its non-empty objects.
pub fn parse_documents(text: &str, source: &str) -> Result<Vec<Value>> {
    let docs: Vec<Value> = serde_saphyr::from_multiple(text).map_err(|e| {
        let at = e
            .location()
            .map(|l| format!(":{}:{}", l.line(), l.column()))
            .unwrap_or_default();
        Error::msg(format!(
            "{source}{at}: not valid YAML: {}",
            e.without_snippet()
        ))
    })?;
    Ok(docs
        .into_iter()
        .filter(|d| d.as_object().is_some_and(|o| !o.is_empty()))
        .collect())
}

pub fn kind(obj: &Value) -> &str {
    obj["kind"].as_str().unwrap_or_default()
}

pub fn name(obj: &Value) -> &str {
    obj["metadata"]["name"].as_str().unwrap_or_default()
}

/// `group` of `apiVersion` (empty for the core group) and its version.
pub fn group_version(obj: &Value) -> (&str, &str) {
    let api = obj["apiVersion"].as_str().unwrap_or_default();
    api.rsplit_once('/').unwrap_or(("", api))
}

pub fn of_kind<'a>(objects: &'a [Value], k: &'a str) -> impl Iterator<Item = &'a Value> + 'a {
    objects.iter().filter(move |o| kind(o) == k)
}

/// The service account a Deployment's pods run as (`default` when none is named).
pub fn service_account(deployment: &Value) -> &str {
    deployment["spec"]["template"]["spec"]["serviceAccountName"]
        .as_str()
        .filter(|s| !s.is_empty())
        .unwrap_or("default")
}

/// Names of the ServiceAccounts a binding grants its role to.
pub fn bound_service_accounts(binding: &Value) -> Vec<&str> {
    binding["subjects"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|s| s["kind"] == "ServiceAccount")
        .filter_map(|s| s["name"].as_str())
        .collect()
}

/// The roles (`Role` or `ClusterRole`, by name) that bindings of `binding_kind` grant to
/// `account`, in binding order.
pub fn roles_bound_to<'a>(
    objects: &'a [Value],
    binding_kind: &'a str,
    account: &str,
) -> Vec<(&'a str, &'a str)> {
    let mut out = Vec::new();
    for b in of_kind(objects, binding_kind) {
        if !bound_service_accounts(b).contains(&account) {
            continue;
        }
        let role_ref = &b["roleRef"];
        if let (Some(k), Some(n)) = (role_ref["kind"].as_str(), role_ref["name"].as_str()) {
            out.push((k, n));
        }
    }
    out
}

/// The Deployment whose pods a Service's selector picks.
pub fn deployment_behind<'a>(objects: &'a [Value], service: &Value) -> Option<&'a Value> {
    let selector = service["spec"]["selector"].as_object()?;
    of_kind(objects, "Deployment").find(|d| {
        let labels = &d["spec"]["template"]["metadata"]["labels"];
        selector.iter().all(|(k, v)| &labels[k] == v)
    })
}

/// Secrets that cert-manager Certificates in the render write (`spec.secretName`).
pub fn certificate_secrets(objects: &[Value]) -> BTreeSet<String> {
    objects
        .iter()
        .filter(|o| kind(o) == "Certificate" && group_version(o).0 == "cert-manager.io")
        .filter_map(|c| c["spec"]["secretName"].as_str().map(str::to_owned))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documents_and_bindings() {
        let objs = parse_documents(
            "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: b\nroleRef:\n  kind: ClusterRole\n  name: r\nsubjects:\n- kind: ServiceAccount\n  name: sa\n  namespace: ns\n---\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: s\nspec:\n  selector:\n    app: x\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\nspec:\n  template:\n    metadata:\n      labels:\n        app: x\n        other: y\n",
            "test",
        )
        .unwrap();
        assert_eq!(objs.len(), 3);
        assert_eq!(
            roles_bound_to(&objs, "ClusterRoleBinding", "sa"),
            [("ClusterRole", "r")]
        );
        assert!(roles_bound_to(&objs, "ClusterRoleBinding", "other").is_empty());
        assert_eq!(group_version(&objs[1]), ("", "v1"));
        assert_eq!(name(deployment_behind(&objs, &objs[1]).unwrap()), "d");
        assert_eq!(service_account(&objs[2]), "default");
        let err = parse_documents("a: [\n", "x.yaml").unwrap_err().to_string();
        assert!(err.contains("x.yaml:"), "{err}");
    }
}
