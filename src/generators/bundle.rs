//! The OLM bundle, as `operator-sdk generate bundle` writes it: the ClusterServiceVersion (the
//! user's base CSV with the install strategy, owned CRDs, webhook definitions and alm-examples
//! filled in from the rendered install manifests, the samples and the CSV markers), the CRDs
//! and the other objects OLM installs, `metadata/annotations.yaml` and `bundle.Dockerfile`.
//!
//! Input is the project as `make deploy` installs it (config/default rendered by kustomize), so
//! the bundle follows every patch the user makes there. OLM issues webhook certificates itself:
//! cert-manager's objects are left out, and so are the manager's volumes of their Secrets.

use super::csv::{CsvKind, display_name};
use super::package::{self, group_version, kind, name};
use crate::diag::{Diagnostic, Error, Result};
use crate::yaml;
use serde_json::{Map, Value, json};
use std::cmp::Ordering;
use std::collections::BTreeSet;

pub const BUNDLE_DIR: &str = "bundle";
pub const MANIFESTS_DIR: &str = "bundle/manifests";
pub const ANNOTATIONS_FILE: &str = "bundle/metadata/annotations.yaml";
pub const DOCKERFILE: &str = "bundle.Dockerfile";
pub const BASES_DIR: &str = "config/manifests/bases";
pub const ALM_EXAMPLES: &str = "alm-examples";

/// Kinds OLM installs from a bundle besides the CSV and CRDs (operator-registry's list).
const SUPPORTED_KINDS: &[&str] = &[
    "ClusterRole",
    "ClusterRoleBinding",
    "ConfigMap",
    "ConsoleCLIDownload",
    "ConsoleLink",
    "ConsoleQuickStart",
    "ConsoleYAMLSample",
    "NetworkPolicy",
    "PodDisruptionBudget",
    "PriorityClass",
    "PrometheusRule",
    "Role",
    "RoleBinding",
    "Secret",
    "Service",
    "ServiceAccount",
    "ServiceMonitor",
    "VerticalPodAutoscaler",
];

#[derive(Debug, Clone)]
pub struct BundleOptions {
    /// The OLM package: the project name.
    pub package: String,
    /// Semantic version, already checked.
    pub version: String,
    pub channels: Vec<String>,
    pub default_channel: Option<String>,
    /// The manager image, written into containers named `manager`.
    pub image: Option<String>,
    /// PROJECT's layout, for the project_layout annotation.
    pub layout: String,
}

pub struct BundleInput<'a> {
    /// `kubectl kustomize config/default`, parsed.
    pub rendered: &'a [Value],
    /// `kubectl kustomize config/samples`, parsed.
    pub samples: &'a [Value],
    /// The user's base CSV, parsed.
    pub base: &'a Value,
    pub csv: &'a [CsvKind],
}

/// The bundle's files (paths relative to the project) and warnings.
#[derive(Debug, Default)]
pub struct Bundle {
    pub files: Vec<(String, String)>,
    pub warnings: Vec<Diagnostic>,
}

/// The path of the base CSV of a project.
pub fn base_path(package: &str) -> String {
    format!("{BASES_DIR}/{package}.clusterserviceversion.yaml")
}

/// The base CSV a project starts with: every field OperatorHub's validators require, with
/// placeholders for the user to replace (`opgen bundle` never rewrites the file).
pub fn initial_base(
    package: &str,
    link: &str,
    min_kube_version: Option<&str>,
    namespaced: bool,
) -> String {
    let display = display_name(&package.replace('-', " "))
        .split(' ')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_uppercase().chain(c).collect())
                .unwrap_or_default()
        })
        .collect::<Vec<String>>()
        .join(" ");
    let mode = |own: bool| if own { "true" } else { "false" };
    let min_kube = min_kube_version
        .map(|v| format!("  minKubeVersion: {v}\n"))
        .unwrap_or_default();
    format!(
        "# The hand-written part of {package}'s ClusterServiceVersion (OLM). `opgen bundle` reads
# this file on every run and writes bundle/manifests/ from it, filling in metadata.name,
# spec.version, spec.install (the manager Deployment and its roles), the owned CRDs (display
# names, descriptions, resources and descriptors from the +operator-sdk:csv markers),
# spec.webhookdefinitions and the alm-examples annotation (config/samples). Everything else is
# yours to edit: opgen never rewrites this file. Replace the placeholders (icon, maintainers,
# provider, links, description) before publishing.
apiVersion: operators.coreos.com/v1alpha1
kind: ClusterServiceVersion
metadata:
  annotations:
    capabilities: Basic Install
  name: {package}.v0.0.0
  namespace: placeholder
spec:
  apiservicedefinitions: {{}}
  customresourcedefinitions: {{}}
  description: {display} manages its custom resources on Kubernetes.
  displayName: {display}
  icon:
  - base64data: {ICON}
    mediatype: image/svg+xml
  install:
    spec:
      deployments: null
    strategy: \"\"
  installModes:
  - supported: {own}
    type: OwnNamespace
  - supported: {own}
    type: SingleNamespace
  - supported: false
    type: MultiNamespace
  - supported: {all}
    type: AllNamespaces
  keywords:
  - {package}
  links:
  - name: {display}
    url: {link}
  maintainers:
  - email: maintainer@example.com
    name: Maintainer Name
  maturity: alpha
{min_kube}  provider:
    name: Provider Name
    url: https://example.com
  version: 0.0.0
",
        own = mode(namespaced),
        all = mode(!namespaced),
    )
}

/// A blank 64×64 SVG, base64: OperatorHub requires an icon with data and a media type.
const ICON: &str =
    "PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHdpZHRoPSI2NCIgaGVpZ2h0PSI2NCIvPgo=";

pub fn generate(input: &BundleInput<'_>, opts: &BundleOptions) -> Result<Bundle> {
    let mut bundle = Bundle::default();
    let objects = input.rendered;
    let (deployments, accounts) = install_deployments(objects, opts)?;
    let (install_spec, consumed) = install_spec(objects, deployments, &accounts);
    let crds: Vec<&Value> = package::of_kind(objects, "CustomResourceDefinition").collect();
    let (webhooks, webhook_services) = webhook_definitions(objects, &crds)?;
    let csv = cluster_service_version(input, opts, install_spec, &crds, webhooks)?;

    let mut files = vec![(
        format!(
            "{MANIFESTS_DIR}/{}.clusterserviceversion.yaml",
            opts.package
        ),
        yaml::to_string(&csv),
    )];
    for crd in &crds {
        let group = crd["spec"]["group"].as_str().unwrap_or_default();
        let plural = crd["spec"]["names"]["plural"].as_str().unwrap_or_default();
        files.push((
            format!("{MANIFESTS_DIR}/{group}_{plural}.yaml"),
            yaml::to_string(crd),
        ));
    }
    files.extend(other_objects(
        objects,
        &accounts,
        &webhook_services,
        &consumed,
        &mut bundle.warnings,
    ));
    files.extend(metadata_files(opts));
    bundle.files = files;
    Ok(bundle)
}

/// The install strategy's Deployments (the manager's, without cert-manager's certificate
/// volumes, with `opts.image`, watching OLM's target namespaces) and their service accounts.
fn install_deployments(
    objects: &[Value],
    opts: &BundleOptions,
) -> Result<(Vec<Value>, BTreeSet<String>)> {
    let cert_secrets = package::certificate_secrets(objects);
    let mut deployments = Vec::new();
    let mut accounts = BTreeSet::new();
    for d in package::of_kind(objects, "Deployment") {
        let mut spec = d["spec"].clone();
        strip_certificate_volumes(&mut spec, &cert_secrets);
        if let Some(image) = &opts.image {
            set_manager_image(&mut spec, image);
        }
        watch_target_namespaces(&mut spec);
        let mut entry = Map::new();
        if let Some(labels) = d["metadata"]["labels"]
            .as_object()
            .filter(|l| !l.is_empty())
        {
            entry.insert("label".into(), Value::Object(labels.clone()));
        }
        entry.insert("name".into(), json!(name(d)));
        entry.insert("spec".into(), spec);
        deployments.push(Value::Object(entry));
        accounts.insert(package::service_account(d).to_owned());
    }
    if deployments.is_empty() {
        return Err(Error::with_help(
            "the rendered config/default has no Deployment: a bundle needs the manager's",
            "restore `- ../manager` in config/default/kustomization.yaml",
        ));
    }
    Ok((deployments, accounts))
}

/// The install strategy's spec: the Deployments and, per service account, the rules of the
/// Roles and ClusterRoles bound to it as permissions and clusterPermissions; and the roles and
/// bindings they consumed, (kind, name), which the bundle then leaves out.
fn install_spec(
    objects: &[Value],
    deployments: Vec<Value>,
    accounts: &BTreeSet<String>,
) -> (Map<String, Value>, BTreeSet<(String, String)>) {
    // Roles bound to the manager's service accounts become the CSV's permissions; OLM creates
    // the accounts, roles and bindings itself.
    let mut consumed: BTreeSet<(String, String)> = BTreeSet::new();
    let mut permissions = Vec::new();
    let mut cluster_permissions = Vec::new();
    for account in accounts {
        let mut rules = Vec::new();
        let mut cluster_rules = Vec::new();
        for (binding_kind, cluster) in [("RoleBinding", false), ("ClusterRoleBinding", true)] {
            for b in package::of_kind(objects, binding_kind) {
                if package::bound_service_accounts(b).contains(&account.as_str()) {
                    consumed.insert((binding_kind.to_owned(), name(b).to_owned()));
                }
            }
            for (role_kind, role_name) in package::roles_bound_to(objects, binding_kind, account) {
                let Some(role) =
                    package::of_kind(objects, role_kind).find(|r| name(r) == role_name)
                else {
                    continue;
                };
                consumed.insert((role_kind.to_owned(), role_name.to_owned()));
                let target = if cluster {
                    &mut cluster_rules
                } else {
                    &mut rules
                };
                target.extend(role["rules"].as_array().cloned().unwrap_or_default());
            }
        }
        if !rules.is_empty() {
            permissions.push(json!({"serviceAccountName": account, "rules": rules}));
        }
        if !cluster_rules.is_empty() {
            cluster_permissions
                .push(json!({"serviceAccountName": account, "rules": cluster_rules}));
        }
    }
    let mut install_spec = Map::new();
    if !cluster_permissions.is_empty() {
        install_spec.insert(
            "clusterPermissions".into(),
            Value::Array(cluster_permissions),
        );
    }
    install_spec.insert("deployments".into(), Value::Array(deployments));
    if !permissions.is_empty() {
        install_spec.insert("permissions".into(), Value::Array(permissions));
    }
    (install_spec, consumed)
}

/// The user's base CSV with what this bundle installs: its name and version, the install
/// strategy, the owned CRDs, the webhook definitions, `alm-examples`.
fn cluster_service_version(
    input: &BundleInput<'_>,
    opts: &BundleOptions,
    install_spec: Map<String, Value>,
    crds: &[&Value],
    webhooks: Vec<Value>,
) -> Result<Value> {
    let mut csv = input.base.clone();
    let root = csv
        .as_object_mut()
        .ok_or_else(|| Error::msg("the base ClusterServiceVersion is not a YAML mapping"))?;
    root.insert("apiVersion".into(), json!("operators.coreos.com/v1alpha1"));
    root.insert("kind".into(), json!("ClusterServiceVersion"));
    let metadata = object_at(root, "metadata");
    metadata.insert(
        "name".into(),
        json!(format!("{}.v{}", opts.package, opts.version)),
    );
    let annotations = object_at(metadata, "annotations");
    annotations.insert(ALM_EXAMPLES.into(), json!(alm_examples(input.samples)));
    annotations.insert(
        "operators.operatorframework.io/builder".into(),
        json!(format!("opgen-v{}", env!("CARGO_PKG_VERSION"))),
    );
    annotations.insert(
        "operators.operatorframework.io/project_layout".into(),
        json!(opts.layout),
    );
    let spec = object_at(root, "spec");
    spec.insert(
        "install".into(),
        json!({"strategy": "deployment", "spec": Value::Object(install_spec)}),
    );
    spec.insert("version".into(), json!(opts.version));
    let crd_section = object_at(spec, "customresourcedefinitions");
    let base_owned = crd_section
        .get("owned")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let owned = owned_crds(crds, input.csv, &base_owned);
    if owned.is_empty() {
        crd_section.remove("owned");
    } else {
        crd_section.insert("owned".into(), Value::Array(owned));
    }
    if webhooks.is_empty() {
        spec.remove("webhookdefinitions");
    } else {
        spec.insert("webhookdefinitions".into(), Value::Array(webhooks));
    }
    Ok(csv)
}

/// The objects OLM installs from the bundle as they are, without their namespace: all but the
/// CRDs, what the CSV carries (the Deployments, webhooks, the manager's service accounts and
/// the roles and bindings `consumed`), the webhooks' Services and cert-manager's objects. A
/// kind a bundle cannot carry is left out with a warning.
fn other_objects(
    objects: &[Value],
    accounts: &BTreeSet<String>,
    webhook_services: &BTreeSet<String>,
    consumed: &BTreeSet<(String, String)>,
    warnings: &mut Vec<Diagnostic>,
) -> Vec<(String, String)> {
    let mut files = Vec::new();
    for obj in objects {
        let k = kind(obj);
        let key = (k.to_owned(), name(obj).to_owned());
        let skip = match k {
            "CustomResourceDefinition"
            | "Deployment"
            | "Namespace"
            | "MutatingWebhookConfiguration"
            | "ValidatingWebhookConfiguration" => true,
            "ServiceAccount" => accounts.contains(name(obj)),
            "Service" => webhook_services.contains(name(obj)),
            _ => consumed.contains(&key),
        };
        if skip || group_version(obj).0 == "cert-manager.io" {
            continue;
        }
        if !SUPPORTED_KINDS.contains(&k) {
            warnings.push(
                Diagnostic::warning(format!(
                    "the bundle leaves out {k} {}: OLM bundles cannot carry that kind",
                    name(obj)
                ))
                .help("remove it from config/default, or install it apart from OLM"),
            );
            continue;
        }
        let mut obj = obj.clone();
        if let Some(meta) = obj.get_mut("metadata").and_then(Value::as_object_mut) {
            // OLM installs them into the operator's namespace.
            meta.remove("namespace");
        }
        let (group, version) = group_version(&obj);
        let group = if group.is_empty() {
            String::new()
        } else {
            format!("{group}_")
        };
        let file = format!("{}_{group}{version}_{}.yaml", name(&obj), k.to_lowercase());
        files.push((format!("{MANIFESTS_DIR}/{file}"), yaml::to_string(&obj)));
    }
    files
}

/// `metadata/annotations.yaml` and `bundle.Dockerfile`: the bundle's labels.
fn metadata_files(opts: &BundleOptions) -> [(String, String); 2] {
    let labels = bundle_labels(opts);
    let mut annotations = String::from("annotations:\n  # Core bundle annotations.\n");
    for (k, v) in &labels {
        annotations.push_str(&format!("  {k}: {v}\n"));
    }
    let mut dockerfile = String::from("FROM scratch\n\n# Core bundle labels.\n");
    for (k, v) in &labels {
        dockerfile.push_str(&format!("LABEL {k}={v}\n"));
    }
    dockerfile.push_str(
        "\n# Copy files to locations specified by labels.\nCOPY bundle/manifests /manifests/\nCOPY bundle/metadata /metadata/\n",
    );
    [
        (ANNOTATIONS_FILE.to_owned(), annotations),
        (DOCKERFILE.to_owned(), dockerfile),
    ]
}

fn bundle_labels(opts: &BundleOptions) -> Vec<(&'static str, String)> {
    let mut labels = vec![
        (
            "operators.operatorframework.io.bundle.mediatype.v1",
            "registry+v1".to_owned(),
        ),
        (
            "operators.operatorframework.io.bundle.manifests.v1",
            "manifests/".to_owned(),
        ),
        (
            "operators.operatorframework.io.bundle.metadata.v1",
            "metadata/".to_owned(),
        ),
        (
            "operators.operatorframework.io.bundle.package.v1",
            opts.package.clone(),
        ),
        (
            "operators.operatorframework.io.bundle.channels.v1",
            opts.channels.join(","),
        ),
    ];
    if let Some(default) = &opts.default_channel {
        labels.push((
            "operators.operatorframework.io.bundle.channel.default.v1",
            default.clone(),
        ));
    }
    labels.push((
        "operators.operatorframework.io.metrics.builder",
        format!("opgen-v{}", env!("CARGO_PKG_VERSION")),
    ));
    labels.push((
        "operators.operatorframework.io.metrics.mediatype.v1",
        "metrics+v1".to_owned(),
    ));
    labels.push((
        "operators.operatorframework.io.metrics.project_layout",
        opts.layout.clone(),
    ));
    labels
}

fn object_at<'m>(map: &'m mut Map<String, Value>, key: &str) -> &'m mut Map<String, Value> {
    let slot = map.entry(key).or_insert_with(|| json!({}));
    if !slot.is_object() {
        *slot = json!({});
    }
    slot.as_object_mut().expect("just made an object")
}

/// The samples as operator-sdk writes them: a JSON array, two-space indented.
fn alm_examples(samples: &[Value]) -> String {
    let samples: Vec<Value> = samples
        .iter()
        .map(|s| {
            let mut s = s.clone();
            if let Some(meta) = s.get_mut("metadata").and_then(Value::as_object_mut) {
                meta.remove("namespace");
            }
            s
        })
        .collect();
    serde_json::to_string_pretty(&samples).expect("JSON values serialize")
}

/// Removes the volumes of cert-manager's Secrets, and their mounts: OLM mounts its own
/// certificate where the webhook server reads it (/tmp/k8s-webhook-server/serving-certs).
fn strip_certificate_volumes(spec: &mut Value, secrets: &BTreeSet<String>) {
    let Some(pod) = spec
        .get_mut("template")
        .and_then(|t| t.get_mut("spec"))
        .filter(|p| p.is_object())
    else {
        return;
    };
    let mut removed = BTreeSet::new();
    if let Some(volumes) = pod.get_mut("volumes").and_then(Value::as_array_mut) {
        volumes.retain(|v| {
            let from_cert = v["secret"]["secretName"]
                .as_str()
                .is_some_and(|s| secrets.contains(s));
            if from_cert && let Some(n) = v["name"].as_str() {
                removed.insert(n.to_owned());
            }
            !from_cert
        });
        if volumes.is_empty() {
            pod.as_object_mut().map(|p| p.remove("volumes"));
        }
    }
    if removed.is_empty() {
        return;
    }
    for key in ["containers", "initContainers"] {
        let containers = pod.get_mut(key).and_then(Value::as_array_mut);
        for c in containers.into_iter().flatten() {
            if let Some(mounts) = c.get_mut("volumeMounts").and_then(Value::as_array_mut) {
                mounts.retain(|m| !m["name"].as_str().is_some_and(|n| removed.contains(n)));
                if mounts.is_empty() {
                    c.as_object_mut().map(|c| c.remove("volumeMounts"));
                }
            }
        }
    }
}

/// As operator-sdk does: a WATCH_NAMESPACE variable watches the namespaces OLM's OperatorGroup
/// targets (comma-separated; empty, which means all, in AllNamespaces mode).
fn watch_target_namespaces(spec: &mut Value) {
    let containers = spec
        .get_mut("template")
        .and_then(|t| t.get_mut("spec"))
        .and_then(|p| p.get_mut("containers"))
        .and_then(Value::as_array_mut);
    for c in containers.into_iter().flatten() {
        let env = c.get_mut("env").and_then(Value::as_array_mut);
        for var in env.into_iter().flatten() {
            if var["name"] == "WATCH_NAMESPACE" {
                *var = json!({
                    "name": "WATCH_NAMESPACE",
                    "valueFrom": {"fieldRef": {"fieldPath": "metadata.annotations['olm.targetNamespaces']"}},
                });
            }
        }
    }
}

fn set_manager_image(spec: &mut Value, image: &str) {
    let containers = spec
        .get_mut("template")
        .and_then(|t| t.get_mut("spec"))
        .and_then(|p| p.get_mut("containers"))
        .and_then(Value::as_array_mut);
    for c in containers.into_iter().flatten() {
        if c["name"] == "manager" {
            c["image"] = json!(image);
        }
    }
}

/// Kubernetes' version priority: GA before beta before alpha, higher numbers first.
fn compare_kube_versions(a: &str, b: &str) -> Ordering {
    fn key(v: &str) -> (u8, u64, u64) {
        let rest = v.strip_prefix('v').unwrap_or(v);
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        let major = digits.parse().unwrap_or(0);
        let tail = &rest[digits.len()..];
        let (rank, minor) = if tail.is_empty() {
            (3, 0)
        } else if let Some(n) = tail.strip_prefix("beta") {
            (2, n.parse().unwrap_or(0))
        } else if let Some(n) = tail.strip_prefix("alpha") {
            (1, n.parse().unwrap_or(0))
        } else {
            (0, 0)
        };
        (rank, major, minor)
    }
    key(b).cmp(&key(a)).then_with(|| a.cmp(b))
}

/// One owned entry per CRD version: the markers' display name and descriptors, the schema's
/// description; keys the user added to a matching entry in the base CSV are kept.
fn owned_crds(crds: &[&Value], csv: &[CsvKind], base_owned: &[Value]) -> Vec<Value> {
    let mut out = Vec::new();
    for crd in crds {
        let crd_name = name(crd);
        let group = crd["spec"]["group"].as_str().unwrap_or_default();
        let crd_kind = crd["spec"]["names"]["kind"].as_str().unwrap_or_default();
        for v in crd["spec"]["versions"].as_array().into_iter().flatten() {
            let version = v["name"].as_str().unwrap_or_default();
            let marked = csv
                .iter()
                .find(|c| c.group == group && c.kind == crd_kind && c.version == version);
            let mut entry = base_owned
                .iter()
                .find(|o| o["name"] == crd_name && o["version"] == version && o["kind"] == crd_kind)
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default();
            entry.insert("name".into(), json!(crd_name));
            entry.insert("version".into(), json!(version));
            entry.insert("kind".into(), json!(crd_kind));
            let display = marked
                .and_then(|m| m.display_name.clone())
                .unwrap_or_else(|| display_name(crd_kind));
            entry.insert("displayName".into(), json!(display));
            if let Some(d) = v["schema"]["openAPIV3Schema"]["description"]
                .as_str()
                .filter(|d| !d.is_empty())
            {
                entry.insert("description".into(), json!(d));
            }
            if let Some(m) = marked {
                if !m.resources.is_empty() {
                    let mut rs = m.resources.clone();
                    rs.sort_by(|a, b| {
                        a.name
                            .cmp(&b.name)
                            .then_with(|| a.kind.cmp(&b.kind))
                            .then_with(|| compare_kube_versions(&a.version, &b.version))
                    });
                    rs.dedup();
                    entry.insert(
                        "resources".into(),
                        rs.iter()
                            .map(|r| json!({"kind": r.kind, "name": r.name, "version": r.version}))
                            .collect(),
                    );
                }
                for (key, ds) in [
                    ("specDescriptors", &m.spec_descriptors),
                    ("statusDescriptors", &m.status_descriptors),
                ] {
                    if ds.is_empty() {
                        continue;
                    }
                    let list: Vec<Value> = ds
                        .iter()
                        .map(|d| {
                            let mut o = Map::new();
                            if !d.description.is_empty() {
                                o.insert("description".into(), json!(d.description));
                            }
                            o.insert("displayName".into(), json!(d.display_name));
                            o.insert("path".into(), json!(d.path));
                            if !d.x_descriptors.is_empty() {
                                o.insert("x-descriptors".into(), json!(d.x_descriptors));
                            }
                            Value::Object(o)
                        })
                        .collect();
                    entry.insert(key.into(), Value::Array(list));
                }
            }
            out.push(Value::Object(entry));
        }
    }
    out.sort_by(|a, b| {
        let s = |v: &Value, k: &str| v[k].as_str().unwrap_or_default().to_owned();
        s(a, "name")
            .cmp(&s(b, "name"))
            .then_with(|| s(a, "kind").cmp(&s(b, "kind")))
            .then_with(|| compare_kube_versions(&s(a, "version"), &s(b, "version")))
    });
    out
}

/// The CSV's webhook definitions (admission and conversion) and the Services they call, which
/// OLM creates itself.
fn webhook_definitions(
    objects: &[Value],
    crds: &[&Value],
) -> Result<(Vec<Value>, BTreeSet<String>)> {
    let mut defs = Vec::new();
    let mut services = BTreeSet::new();
    let mut target = |service_ref: &Value, what: &str| -> Result<(String, Value, Value)> {
        let service_name = service_ref["name"].as_str().unwrap_or_default();
        let service = package::of_kind(objects, "Service")
            .find(|s| name(s) == service_name)
            .ok_or_else(|| {
                Error::with_help(
                    format!("{what} calls the Service {service_name}, which config/default does not define"),
                    "keep `- ../webhook` in config/default/kustomization.yaml",
                )
            })?;
        let deployment = package::deployment_behind(objects, service).ok_or_else(|| {
            Error::with_help(
                format!("no Deployment's pods match the selector of the Service {service_name} that {what} calls"),
                "make config/webhook/service.yaml select the manager's pod labels",
            )
        })?;
        services.insert(service_name.to_owned());
        let port = service_ref["port"].as_i64().unwrap_or(443);
        let service_port = service["spec"]["ports"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|p| p["port"].as_i64() == Some(port))
            .cloned()
            .unwrap_or(Value::Null);
        let target_port = match &service_port["targetPort"] {
            Value::Null => json!(port),
            t => t.clone(),
        };
        Ok((name(deployment).to_owned(), json!(port), target_port))
    };
    for (config_kind, ty) in [
        (
            "ValidatingWebhookConfiguration",
            "ValidatingAdmissionWebhook",
        ),
        ("MutatingWebhookConfiguration", "MutatingAdmissionWebhook"),
    ] {
        for config in package::of_kind(objects, config_kind) {
            for w in config["webhooks"].as_array().into_iter().flatten() {
                let hook = w["name"].as_str().unwrap_or_default();
                let Some(service_ref) = w["clientConfig"].get("service") else {
                    return Err(Error::with_help(
                        format!(
                            "webhook {hook} is called by URL; OLM serves webhooks only through the manager's Service"
                        ),
                        "give it a clientConfig.service",
                    ));
                };
                let (deployment, port, target_port) =
                    target(service_ref, &format!("webhook {hook}"))?;
                let mut d = Map::new();
                for key in [
                    "admissionReviewVersions",
                    "failurePolicy",
                    "matchPolicy",
                    "objectSelector",
                    "reinvocationPolicy",
                    "rules",
                    "sideEffects",
                    "timeoutSeconds",
                ] {
                    if let Some(v) = w.get(key) {
                        d.insert(key.into(), v.clone());
                    }
                }
                d.insert("containerPort".into(), port);
                d.insert("deploymentName".into(), json!(deployment));
                d.insert("generateName".into(), json!(hook));
                d.insert("targetPort".into(), target_port);
                d.insert("type".into(), json!(ty));
                if let Some(path) = service_ref.get("path") {
                    d.insert("webhookPath".into(), path.clone());
                }
                defs.push(Value::Object(d));
            }
        }
    }
    for crd in crds {
        let conversion = &crd["spec"]["conversion"];
        if conversion["strategy"] != "Webhook" {
            continue;
        }
        let crd_name = name(crd);
        let Some(service_ref) = conversion["webhook"]["clientConfig"].get("service") else {
            continue;
        };
        let (deployment, port, target_port) = target(
            service_ref,
            &format!("the conversion webhook of {crd_name}"),
        )?;
        let plural = crd["spec"]["names"]["plural"].as_str().unwrap_or_default();
        let mut d = Map::new();
        d.insert(
            "admissionReviewVersions".into(),
            conversion["webhook"]["conversionReviewVersions"].clone(),
        );
        d.insert("containerPort".into(), port);
        d.insert("conversionCRDs".into(), json!([crd_name]));
        d.insert("deploymentName".into(), json!(deployment));
        d.insert("generateName".into(), json!(format!("c{plural}.kb.io")));
        d.insert("sideEffects".into(), json!("None"));
        d.insert("targetPort".into(), target_port);
        d.insert("type".into(), json!("ConversionWebhook"));
        if let Some(path) = service_ref.get("path") {
            d.insert("webhookPath".into(), path.clone());
        }
        defs.push(Value::Object(d));
    }
    Ok((defs, services))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kube_versions_sort_ga_first() {
        let mut v = vec!["v1alpha1", "v1", "v2beta1", "v1beta2", "v2"];
        v.sort_by(|a, b| compare_kube_versions(a, b));
        assert_eq!(v, ["v2", "v1", "v2beta1", "v1beta2", "v1alpha1"]);
    }

    #[test]
    fn certificate_volumes_are_removed_with_their_mounts() {
        let mut spec = json!({"template": {"spec": {
            "containers": [{"name": "manager", "volumeMounts": [{"name": "certs", "mountPath": "/c"}]}],
            "volumes": [{"name": "certs", "secret": {"secretName": "webhook-server-cert"}}, {"name": "keep", "emptyDir": {}}]
        }}});
        strip_certificate_volumes(
            &mut spec,
            &BTreeSet::from(["webhook-server-cert".to_owned()]),
        );
        let pod = &spec["template"]["spec"];
        assert_eq!(pod["volumes"], json!([{"name": "keep", "emptyDir": {}}]));
        assert!(pod["containers"][0].get("volumeMounts").is_none());
    }
}
