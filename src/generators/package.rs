//! The project's rendered install manifests (what `kubectl kustomize config/default` prints,
//! and `make build-installer` writes to `dist/install.yaml`) as objects, and the questions
//! packaging asks of them: which roles the manager's service accounts are bound to, which
//! Service a webhook calls and which Deployment serves it, and what role each object plays in an
//! operator (the Helm chart's templates follow it). Shared by the OLM bundle and the Helm chart.

use crate::diag::{Diagnostic, Error, Location, Result};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

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

/// Where `make build-installer` writes the rendered manifests.
pub const INSTALL_MANIFESTS: &str = "dist/install.yaml";

/// One object of the install manifests and where its document starts.
#[derive(Debug, Clone)]
pub struct Object {
    pub value: Value,
    pub line: usize,
}

impl Object {
    pub fn kind(&self) -> &str {
        kind(&self.value)
    }

    /// The API group (`""` for the core group).
    pub fn group(&self) -> &str {
        group_version(&self.value).0
    }

    pub fn name(&self) -> &str {
        name(&self.value)
    }

    pub fn namespace(&self) -> Option<&str> {
        self.value
            .pointer("/metadata/namespace")
            .and_then(Value::as_str)
    }
}

/// What an object is to an operator's package. kubebuilder's scaffold names (after the
/// kustomize `namePrefix`) tell the roles apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Category {
    Namespace,
    Crd,
    ServiceAccount,
    /// The per-kind admin/editor/viewer ClusterRoles `create api` scaffolds.
    HelperRole,
    /// The metrics endpoint's authentication and authorization roles and binding.
    MetricsRbac,
    LeaderElectionRbac,
    Rbac,
    Manager,
    MetricsService,
    WebhookService,
    Webhook,
    CertManager,
    ServiceMonitor,
    NetworkPolicy,
    Other,
}

pub fn category(object: &Object) -> Category {
    let name = object.name();
    match (object.group(), object.kind()) {
        ("", "Namespace") => Category::Namespace,
        ("apiextensions.k8s.io", "CustomResourceDefinition") => Category::Crd,
        ("", "ServiceAccount") => Category::ServiceAccount,
        ("rbac.authorization.k8s.io", kind) => {
            if kind == "ClusterRole"
                && ["-admin-role", "-editor-role", "-viewer-role"]
                    .iter()
                    .any(|s| name.ends_with(s))
            {
                Category::HelperRole
            } else if name.contains("metrics-auth-role") || name.ends_with("metrics-reader") {
                Category::MetricsRbac
            } else if name.contains("leader-election-role") {
                Category::LeaderElectionRbac
            } else {
                Category::Rbac
            }
        }
        ("apps", "Deployment") if manager_container(&object.value).is_some() => Category::Manager,
        ("", "Service") if name.ends_with("metrics-service") => Category::MetricsService,
        ("", "Service") if name.ends_with("webhook-service") => Category::WebhookService,
        (
            "admissionregistration.k8s.io",
            "MutatingWebhookConfiguration" | "ValidatingWebhookConfiguration",
        ) => Category::Webhook,
        ("cert-manager.io", _) => Category::CertManager,
        ("monitoring.coreos.com", "ServiceMonitor") => Category::ServiceMonitor,
        ("networking.k8s.io", "NetworkPolicy") => Category::NetworkPolicy,
        _ => Category::Other,
    }
}

/// The index of the `manager` container of a Deployment (kubebuilder's container name).
pub fn manager_container(deployment: &Value) -> Option<usize> {
    deployment
        .pointer("/spec/template/spec/containers")?
        .as_array()?
        .iter()
        .position(|c| c.get("name").and_then(Value::as_str) == Some("manager"))
}

/// The objects of the rendered manifests in `text`, read from `path` (for messages).
/// Every document must be a Kubernetes object; empty documents are skipped.
pub fn parse(path: &Path, text: &str) -> Result<Vec<Object>> {
    let mut objects = Vec::new();
    let mut problems = Vec::new();
    for (start, doc) in documents(text) {
        let value: Value = match serde_saphyr::from_str(doc) {
            Ok(v) => v,
            Err(e) => {
                let (line, column) = e
                    .location()
                    .map_or((1, 1), |l| (l.line() as usize, l.column() as usize));
                let message = e.without_snippet().to_string();
                let message = message.trim_start_matches("error: ");
                problems.push(
                    Diagnostic::error(format!("not valid YAML: {message}")).at(Location::new(
                        path,
                        start + line - 1,
                        column,
                    )
                    .with_source(text, 1)),
                );
                continue;
            }
        };
        if value.is_null() {
            continue;
        }
        let object = Object { value, line: start };
        let missing: Vec<&str> = [("apiVersion", "/apiVersion"), ("kind", "/kind")]
            .into_iter()
            .chain([("metadata.name", "/metadata/name")])
            .filter(|(_, p)| object.value.pointer(p).and_then(Value::as_str).is_none())
            .map(|(n, _)| n)
            .collect();
        if !missing.is_empty() {
            problems.push(
                Diagnostic::error(format!(
                    "not a Kubernetes object: no {}",
                    missing.join(", no ")
                ))
                .at(Location::new(path, start, 1).with_source(text, 1)),
            );
            continue;
        }
        objects.push(object);
    }
    if !problems.is_empty() {
        let last = problems.len() - 1;
        problems[last].help = Some(format!(
            "{} should be kustomize's output of config/default: regenerate it with `make build-installer`",
            path.display()
        ));
        return Err(Error::many(problems));
    }
    Ok(objects)
}

/// The documents of a YAML stream that hold something, and the line each starts on (1-based).
fn documents(text: &str) -> Vec<(usize, &str)> {
    crate::yaml::split_documents(text)
        .into_iter()
        .filter(|(_, doc)| !doc.trim().is_empty())
        .collect()
}

/// The namespace the manifests install into: the Namespace object's, else the manager's.
pub fn install_namespace(objects: &[Object]) -> Option<String> {
    objects
        .iter()
        .find(|o| category(o) == Category::Namespace)
        .map(|o| o.name().to_owned())
        .or_else(|| {
            objects
                .iter()
                .find(|o| category(o) == Category::Manager)
                .and_then(|o| o.namespace().map(str::to_owned))
        })
}

/// A rendered-manifests file given on the command line, relative to the project root.
pub fn manifests_path(arg: Option<&Path>) -> PathBuf {
    arg.map_or_else(|| PathBuf::from(INSTALL_MANIFESTS), Path::to_path_buf)
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

    #[test]
    fn documents_keep_their_start_lines_and_errors_point_at_them() {
        let text = "---\napiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: sa\n---\n\n---\napiVersion: v1\nkind: Service\nmetadata: {}\n";
        let err = parse(Path::new("dist/install.yaml"), text)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("dist/install.yaml:9:1") && err.contains("no metadata.name"),
            "{err}"
        );
        let ok = parse(
            Path::new("x"),
            &text.replace("metadata: {}", "metadata: {name: s}"),
        )
        .unwrap();
        assert_eq!(
            ok.iter().map(|o| (o.kind(), o.line)).collect::<Vec<_>>(),
            [("ServiceAccount", 2), ("Service", 9)]
        );
        let err = parse(Path::new("x"), "a: 1\n---\nkind: [\n")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("x:1:1") && err.contains("no apiVersion"),
            "{err}"
        );
        assert!(
            err.contains("not valid YAML") && err.contains("x:3:"),
            "{err}"
        );
    }
}
