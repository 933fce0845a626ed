//! The project's rendered install manifests, read into objects for the packages made from
//! them: the Helm chart of `opgen create helm` (and the OLM bundle can share it).
//!
//! The input is kustomize's output of `config/default` (what `make build-installer` writes to
//! `dist/install.yaml`), as kubebuilder's helm/v2-alpha plugin reads it: a package then ships
//! whatever the user customised under `config/`, not a second copy of opgen's templates.

use crate::diag::{Diagnostic, Error, Location, Result};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Where `make build-installer` writes the rendered manifests.
pub const INSTALL_MANIFESTS: &str = "dist/install.yaml";

/// One object of the install manifests and where its document starts.
#[derive(Debug, Clone)]
pub struct Object {
    pub value: Value,
    pub line: usize,
}

impl Object {
    fn str_at(&self, pointer: &str) -> &str {
        self.value
            .pointer(pointer)
            .and_then(Value::as_str)
            .unwrap_or("")
    }

    pub fn kind(&self) -> &str {
        self.str_at("/kind")
    }

    pub fn api_version(&self) -> &str {
        self.str_at("/apiVersion")
    }

    /// The API group (`""` for the core group).
    pub fn group(&self) -> &str {
        self.api_version().rsplit_once('/').map_or("", |(g, _)| g)
    }

    pub fn name(&self) -> &str {
        self.str_at("/metadata/name")
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
        let value: Value = match serde_saphyr::from_str(&doc) {
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

/// The documents of a YAML stream and the line each starts on (1-based).
fn documents(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut start = 1;
    for (index, line) in text.split_inclusive('\n').enumerate() {
        let bare = line.trim_end();
        if bare == "---" || bare.starts_with("--- ") {
            if !current.trim().is_empty() {
                out.push((start, std::mem::take(&mut current)));
            }
            current.clear();
            start = index + 2;
            continue;
        }
        current.push_str(line);
    }
    if !current.trim().is_empty() {
        out.push((start, current));
    }
    out
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
