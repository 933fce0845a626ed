//! The Helm chart of `opgen create helm`, made from the project's rendered install manifests
//! (see [`package`](super::package)), as kubebuilder's helm/v2-alpha plugin makes it.
//!
//! Each object becomes one template under a folder that mirrors `config/`. The objects are
//! emitted with opgen's YAML writer, with holes (`__OPGEN_<n>__` strings) where the chart takes
//! a value; [`Holes::render`] then turns each hole's line into Go template text. The manager's
//! flags that values control (`--leader-elect`, `--metrics-bind-address`,
//! `--webhook-cert-path`) are written from values; its other arguments are kept as they are.
//!
//! CRDs are templates (`templates/crd/`, `crd.enable`), with `helm.sh/resource-policy: keep`
//! while `crd.keep`: Helm installs `crds/` once and never upgrades it, so a chart re-made after
//! `opgen manifests` changed a CRD would silently keep serving the old schema; and `keep` stops
//! `helm uninstall` from deleting every custom resource with its CRD.

use super::package::{self, Category, Object};
use crate::diag::{Error, Result};
use crate::yaml;
use serde_json::{Map, Value, json};
use std::collections::BTreeSet;
use std::path::Path;

/// Where the chart is written, as kubebuilder writes it.
pub const CHART_DIR: &str = "dist/chart";
/// The annotation of Chart.yaml that marks a chart opgen generated.
pub const GENERATED_BY: &str = "opgen.dev/generated-by";

#[derive(Debug, Clone)]
pub struct ChartOptions {
    /// The chart's name: the project's.
    pub name: String,
    pub version: String,
    pub app_version: String,
}

/// The chart's files (paths relative to [`CHART_DIR`]), not yet stamped for ownership.
#[derive(Debug, Clone)]
pub struct Chart {
    pub chart_yaml: String,
    /// values.yaml, one top-level section each (key, text with its comments).
    pub values: Vec<(String, String)>,
    /// `.helmignore`
    pub helmignore: String,
    /// `templates/...` files.
    pub templates: Vec<(String, String)>,
}

impl Chart {
    pub fn values_yaml(&self) -> String {
        let sections: Vec<&str> = self.values.iter().map(|(_, s)| s.as_str()).collect();
        format!("{VALUES_HEADER}\n{}", sections.join("\n"))
    }
}

const VALUES_HEADER: &str =
    "# Default values of the chart; `helm install --set` or `--values` overrides them.\n";

const HELMIGNORE: &str = "\
# Patterns to ignore when building packages.
.DS_Store
.git/
.gitignore
*.swp
*.bak
*.tmp
*.orig
*~
.idea/
.vscode/
";

const NS_TOKEN: &str = "__OPGEN_NS__";

/// The chart for `objects` (read from `source`).
pub fn generate(objects: &[Object], source: &Path, opts: &ChartOptions) -> Result<Chart> {
    let manager = objects
        .iter()
        .find(|o| package::category(o) == Category::Manager)
        .ok_or_else(|| {
            Error::with_help(
                format!(
                    "{}: no Deployment with a `manager` container, so there is no operator to package",
                    source.display()
                ),
                "it should be kustomize's output of config/default: regenerate it with `make build-installer`",
            )
        })?;
    let found = Found::in_objects(objects);
    Ok(Chart {
        chart_yaml: chart_yaml(opts, found.has_webhook),
        values: values(manager, &found),
        helmignore: HELMIGNORE.into(),
        templates: templates(objects, manager, &found, &format!("{}-", opts.name)),
    })
}

/// What the rendered objects hold that the chart's templates and values depend on.
struct Found<'a> {
    categories: BTreeSet<Category>,
    /// The namespace they install into.
    namespace: String,
    metrics_service: Option<&'a Object>,
    has_webhook: bool,
    has_cert_manager: bool,
}

impl<'a> Found<'a> {
    fn in_objects(objects: &'a [Object]) -> Self {
        let categories: BTreeSet<Category> = objects.iter().map(package::category).collect();
        Found {
            namespace: package::install_namespace(objects).unwrap_or_default(),
            metrics_service: objects
                .iter()
                .find(|o| package::category(o) == Category::MetricsService),
            has_webhook: categories.contains(&Category::Webhook)
                || categories.contains(&Category::WebhookService),
            has_cert_manager: categories.contains(&Category::CertManager),
            categories,
        }
    }
}

/// One template per object (in the folder its category maps to, without the name prefix
/// `prefix`), a ServiceMonitor when the objects have a metrics Service but none, and NOTES.txt;
/// sorted by path.
fn templates(
    objects: &[Object],
    manager: &Object,
    found: &Found<'_>,
    prefix: &str,
) -> Vec<(String, String)> {
    let present = &found.categories;
    let namespace = &found.namespace;
    let mut templates: Vec<(String, String)> = Vec::new();
    let mut add = |dir: &str, object: &Object, body: String| {
        let stem = object.name().strip_prefix(prefix).unwrap_or(object.name());
        let mut path = format!("templates/{dir}/{stem}.yaml");
        if templates.iter().any(|(p, _)| *p == path) {
            path = format!(
                "templates/{dir}/{stem}-{}.yaml",
                object.kind().to_lowercase()
            );
        }
        templates.push((path, body));
    };
    for object in objects {
        if let Some((dir, body)) = object_template(object, found) {
            add(dir, object, body);
        }
    }
    if !present.contains(&Category::ServiceMonitor)
        && let Some(service) = found.metrics_service
    {
        let monitor = service_monitor(service, namespace);
        let mut holes = Holes::default();
        let mut value = monitor.value.clone();
        substitute_namespace(&mut value, namespace);
        managed_by_helm(&mut value, &mut holes);
        let body = render(
            &value,
            &holes,
            Some("and .Values.metrics.enable .Values.prometheus.enable"),
        );
        add("prometheus", &monitor, body);
    }
    templates.push(("templates/NOTES.txt".into(), notes(manager, namespace)));
    templates.sort();
    templates
}

/// The template of one object: its folder under templates/ and its text, the values it
/// depends on as Go template holes; `None` for the Namespace (Helm's `--namespace` makes it).
fn object_template(object: &Object, found: &Found<'_>) -> Option<(&'static str, String)> {
    let mut holes = Holes::default();
    let mut value = object.value.clone();
    substitute_namespace(&mut value, &found.namespace);
    managed_by_helm(&mut value, &mut holes);
    cert_manager_injection(&mut value, &mut holes);
    let (dir, condition) = match package::category(object) {
        Category::Namespace => return None,
        Category::Crd => {
            let keep = holes.add(Hole::LineIf(".Values.crd.keep".into()));
            let annotations = ensure_map(&mut value, &["metadata", "annotations"]);
            annotations.insert(
                "helm.sh/resource-policy".into(),
                Value::String(format!("{keep}keep")),
            );
            // Webhook conversion only while the webhook server runs (else: strategy None).
            if found.has_webhook && value["spec"]["conversion"]["strategy"] == "Webhook" {
                let conversion = value["spec"]["conversion"].take();
                value["spec"]["conversion"] = holes.value(Hole::KeyIf {
                    cond: ".Values.webhook.enable".into(),
                    value: conversion,
                });
            }
            ("crd", Some(".Values.crd.enable"))
        }
        Category::ServiceAccount | Category::Rbac => ("rbac", None),
        Category::HelperRole => ("rbac", Some(".Values.rbac.helpers.enable")),
        Category::MetricsRbac => ("rbac", Some(".Values.metrics.enable")),
        Category::LeaderElectionRbac => ("rbac", Some(".Values.manager.leaderElection.enable")),
        Category::Manager => {
            manager_template(&mut value, &mut holes, found.has_webhook);
            ("manager", None)
        }
        Category::MetricsService => {
            if let Some(ports) = value
                .pointer_mut("/spec/ports")
                .and_then(Value::as_array_mut)
            {
                for port in ports.iter_mut().take(1) {
                    let p = holes.add(Hole::Inline("{{ .Values.metrics.port }}".into()));
                    port["port"] = Value::String(p.clone());
                    port["targetPort"] = Value::String(p);
                }
            }
            ("metrics", Some(".Values.metrics.enable"))
        }
        Category::WebhookService | Category::Webhook => ("webhook", Some(".Values.webhook.enable")),
        Category::CertManager => (
            "cert-manager",
            Some("and .Values.webhook.enable .Values.certManager.enable"),
        ),
        Category::ServiceMonitor => (
            "prometheus",
            Some("and .Values.metrics.enable .Values.prometheus.enable"),
        ),
        Category::NetworkPolicy => ("network-policy", Some(".Values.networkPolicy.enable")),
        Category::Other => ("extras", None),
    };
    Some((dir, render(&value, &holes, condition)))
}

/// values.yaml's sections (name, text): the manager's, then one per optional part the objects
/// have, with the defaults the manifests have.
fn values(manager: &Object, found: &Found<'_>) -> Vec<(String, String)> {
    let present = &found.categories;
    let metrics_service = found.metrics_service;
    let (has_webhook, has_cert_manager) = (found.has_webhook, found.has_cert_manager);
    let manager_values = ManagerValues::from(manager);
    let metrics_port = metrics_service
        .and_then(|s| s.value.pointer("/spec/ports/0/targetPort"))
        .and_then(Value::as_u64)
        .or_else(|| container_port(manager, "https"))
        .unwrap_or(8443);
    let mut values = vec![("manager".to_owned(), manager_values.section())];
    if present.contains(&Category::HelperRole) {
        values.push((
            "rbac".into(),
            "# The admin/editor/viewer ClusterRoles of each kind, to grant people access to them.\nrbac:\n  helpers:\n    enable: true\n".into(),
        ));
    }
    if present.contains(&Category::Crd) {
        values.push((
            "crd".into(),
            "# Install the CRDs with the chart (off: you install them yourself). keep: `helm uninstall`\n# leaves them, and so every custom resource, in place.\ncrd:\n  enable: true\n  keep: true\n".into(),
        ));
    }
    values.push((
        "metrics".into(),
        format!(
            "# The manager's metrics endpoint (HTTPS, authenticated and authorized) and its Service.\nmetrics:\n  enable: {}\n  port: {metrics_port}\n",
            metrics_service.is_some()
        ),
    ));
    if metrics_service.is_some() {
        values.push((
            "prometheus".into(),
            format!(
                "# A ServiceMonitor for the Prometheus Operator (needs its CRDs in the cluster).\nprometheus:\n  enable: {}\n",
                present.contains(&Category::ServiceMonitor)
            ),
        ));
    }
    if has_webhook {
        values.push((
            "webhook".into(),
            "# The admission webhooks: their configurations, Service and the manager's webhook server.\nwebhook:\n  enable: true\n".into(),
        ));
    }
    if has_cert_manager {
        values.push((
            "certManager".into(),
            "# cert-manager issues the webhook server's certificate and injects its CA into the\n# webhook configurations (needs cert-manager in the cluster). Off: provide the Secret\n# webhook-server-cert and the caBundle yourself.\ncertManager:\n  enable: true\n".into(),
        ));
    }
    if present.contains(&Category::NetworkPolicy) {
        values.push((
            "networkPolicy".into(),
            "# The NetworkPolicies of config/network-policy (need a CNI that enforces them).\nnetworkPolicy:\n  enable: true\n".into(),
        ));
    }
    values
}

/// Chart.yaml.
fn chart_yaml(opts: &ChartOptions, has_webhook: bool) -> String {
    format!(
        "apiVersion: v2\nname: {name}\ndescription: A Helm chart of {name} (manager, CRDs, RBAC{webhooks}), made by opgen create helm\ntype: application\nversion: {version}\nappVersion: {app_version:?}\nannotations:\n  {GENERATED_BY}: opgen create helm\n",
        name = opts.name,
        webhooks = if has_webhook { ", webhooks" } else { "" },
        version = opts.version,
        app_version = opts.app_version,
    )
}

/// The values of the manager Deployment, with the defaults the manifests have.
struct ManagerValues {
    replicas: Value,
    repository: String,
    tag: String,
    digest: String,
    pull_policy: String,
    leader_election: bool,
    resources: Value,
    pod_security_context: Value,
    security_context: Value,
    node_selector: Value,
    tolerations: Value,
    affinity: Value,
    image_pull_secrets: Value,
}

impl ManagerValues {
    fn from(manager: &Object) -> Self {
        let pod = manager
            .value
            .pointer("/spec/template/spec")
            .cloned()
            .unwrap_or_default();
        let index = package::manager_container(&manager.value).unwrap_or(0);
        let container = pod["containers"][index].clone();
        let or = |v: &Value, default: Value| if v.is_null() { default } else { v.clone() };
        let image = container["image"].as_str().unwrap_or("controller:latest");
        let (name, digest) = image.split_once('@').unwrap_or((image, ""));
        let (repository, tag) = match name.rsplit_once(':') {
            Some((repo, tag)) if !tag.contains('/') => (repo, tag),
            _ => (name, if digest.is_empty() { "latest" } else { "" }),
        };
        // The scaffold's manager runs with --leader-elect; a manifest that lost the flag (an
        // args list replaced by a patch) still defaults to the safe choice for >1 replica.
        ManagerValues {
            replicas: or(&manager.value["spec"]["replicas"], json!(1)),
            repository: repository.into(),
            tag: tag.into(),
            digest: digest.into(),
            pull_policy: container["imagePullPolicy"]
                .as_str()
                .unwrap_or("IfNotPresent")
                .into(),
            leader_election: true,
            resources: or(&container["resources"], json!({})),
            pod_security_context: or(&pod["securityContext"], json!({})),
            security_context: or(&container["securityContext"], json!({})),
            node_selector: or(&pod["nodeSelector"], json!({})),
            tolerations: or(&pod["tolerations"], json!([])),
            affinity: or(&pod["affinity"], json!({})),
            image_pull_secrets: or(&pod["imagePullSecrets"], json!([])),
        }
    }

    fn section(&self) -> String {
        let mut out = String::from("# The manager Deployment.\nmanager:\n");
        out += "  # More than one replica is a hot standby: leader election keeps one active.\n";
        out += &entry("replicas", &self.replicas, 2);
        out += "  image:\n";
        out += &entry("repository", &json!(self.repository), 4);
        out += &entry("tag", &json!(self.tag), 4);
        out += "    # An image digest (sha256:...) wins over the tag.\n";
        out += &entry("digest", &json!(self.digest), 4);
        out += &entry("pullPolicy", &json!(self.pull_policy), 4);
        out += &entry("imagePullSecrets", &self.image_pull_secrets, 2);
        out += "  # Extra arguments and environment variables of the manager container.\n";
        out += "  args: []\n  env: []\n";
        out += "  # Lease-based leader election (--leader-elect), with its Role and RoleBinding.\n";
        out += &format!("  leaderElection:\n    enable: {}\n", self.leader_election);
        out += &entry("resources", &self.resources, 2);
        out += &entry("podSecurityContext", &self.pod_security_context, 2);
        out += &entry("securityContext", &self.security_context, 2);
        out += &entry("nodeSelector", &self.node_selector, 2);
        out += &entry("tolerations", &self.tolerations, 2);
        out += &entry("affinity", &self.affinity, 2);
        out
    }
}

/// `key: value` at `indent`, a nested value on the following lines.
fn entry(key: &str, value: &Value, indent: usize) -> String {
    let pad = " ".repeat(indent);
    let nested = matches!(value, Value::Object(m) if !m.is_empty())
        || matches!(value, Value::Array(a) if !a.is_empty());
    let text = yaml::to_string(value);
    if !nested {
        return format!("{pad}{key}: {}", text);
    }
    let body: String = text
        .lines()
        .map(|l| format!("{pad}  {l}\n"))
        .collect::<String>();
    format!("{pad}{key}:\n{body}")
}

fn container_port(manager: &Object, name: &str) -> Option<u64> {
    let index = package::manager_container(&manager.value)?;
    manager.value["spec"]["template"]["spec"]["containers"][index]["ports"]
        .as_array()?
        .iter()
        .find(|p| p["name"] == name)?["containerPort"]
        .as_u64()
}

/// Makes the manager Deployment a template: values for replicas, image, resources, contexts
/// and scheduling; the flags and ports of leader election, metrics and webhooks conditional.
fn manager_template(value: &mut Value, holes: &mut Holes, has_webhook: bool) {
    value["spec"]["replicas"] = holes.value(Hole::Inline("{{ .Values.manager.replicas }}".into()));
    let index = package::manager_container(value).unwrap_or(0);
    let pod = &mut value["spec"]["template"]["spec"];
    pod["securityContext"] = holes.value(Hole::Block {
        value: ".Values.manager.podSecurityContext".into(),
        optional: false,
    });
    for (key, values_key) in [
        ("nodeSelector", "nodeSelector"),
        ("tolerations", "tolerations"),
        ("affinity", "affinity"),
        ("imagePullSecrets", "imagePullSecrets"),
    ] {
        pod[key] = holes.value(Hole::Block {
            value: format!(".Values.manager.{values_key}"),
            optional: true,
        });
    }
    let webhook_volume = |v: &Value| {
        v["name"] == "webhook-certs" || v["secret"]["secretName"] == "webhook-server-cert"
    };
    if has_webhook && let Some(volumes) = pod["volumes"].as_array_mut() {
        wrap_items(volumes, holes, ".Values.webhook.enable", webhook_volume);
    }
    let container = &mut pod["containers"][index];
    container["image"] = holes.value(Hole::Inline(
        "\"{{ .Values.manager.image.repository }}{{ if .Values.manager.image.digest }}@{{ .Values.manager.image.digest }}{{ else }}:{{ .Values.manager.image.tag | default .Chart.AppVersion }}{{ end }}\"".into(),
    ));
    container["imagePullPolicy"] = holes.value(Hole::Inline(
        "{{ .Values.manager.image.pullPolicy }}".into(),
    ));
    container["resources"] = holes.value(Hole::Block {
        value: ".Values.manager.resources".into(),
        optional: false,
    });
    container["securityContext"] = holes.value(Hole::Block {
        value: ".Values.manager.securityContext".into(),
        optional: false,
    });

    let old_args: Vec<String> = container["args"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|a| a.as_str().map(str::to_owned))
        .collect();
    let flag = |a: &str, name: &str| a == name || a.starts_with(&format!("{name}="));
    let webhook_cert = old_args
        .iter()
        .find(|a| flag(a, "--webhook-cert-path"))
        .cloned();
    let mut args = Vec::new();
    let mut conditional = |args: &mut Vec<Value>, cond: &str, item: Value| {
        args.push(holes.value(Hole::Lines(vec![format!("{{{{- if {cond} }}}}")])));
        args.push(item);
        args.push(holes.value(Hole::Lines(vec!["{{- end }}".into()])));
    };
    conditional(
        &mut args,
        ".Values.manager.leaderElection.enable",
        json!("--leader-elect"),
    );
    conditional(
        &mut args,
        ".Values.metrics.enable",
        json!("--metrics-bind-address=:{{ .Values.metrics.port }}"),
    );
    if has_webhook {
        let cert = webhook_cert
            .unwrap_or_else(|| "--webhook-cert-path=/tmp/k8s-webhook-server/serving-certs".into());
        conditional(&mut args, ".Values.webhook.enable", json!(cert));
    }
    args.extend(
        old_args
            .iter()
            .filter(|a| {
                ![
                    "--leader-elect",
                    "--metrics-bind-address",
                    "--webhook-cert-path",
                ]
                .iter()
                .any(|f| flag(a, f))
            })
            .map(|a| json!(a)),
    );
    args.push(holes.value(Hole::Lines(vec![
        "{{- range .Values.manager.args }}".into(),
        "- {{ . | quote }}".into(),
        "{{- end }}".into(),
    ])));
    container["args"] = Value::Array(args);

    let mut env = container["env"].as_array().cloned().unwrap_or_default();
    env.push(holes.value(Hole::Lines(vec![
        "{{- with .Values.manager.env }}".into(),
        "{{- toYaml . | nindent {col} }}".into(),
        "{{- end }}".into(),
    ])));
    container["env"] = Value::Array(env);

    if let Some(ports) = container["ports"].as_array_mut() {
        for port in ports.iter_mut() {
            if port["name"] == "https" {
                port["containerPort"] =
                    holes.value(Hole::Inline("{{ .Values.metrics.port }}".into()));
            }
        }
        wrap_items(ports, holes, ".Values.metrics.enable", |p| {
            p["name"] == "https"
        });
        if has_webhook {
            wrap_items(ports, holes, ".Values.webhook.enable", |p| {
                p["name"] == "webhook-server"
            });
        }
    }
    if has_webhook && let Some(mounts) = container["volumeMounts"].as_array_mut() {
        wrap_items(mounts, holes, ".Values.webhook.enable", webhook_volume);
    }
}

/// Surrounds each item of `items` that `matches` with `{{- if cond }}` … `{{- end }}`.
fn wrap_items(
    items: &mut Vec<Value>,
    holes: &mut Holes,
    cond: &str,
    matches: impl Fn(&Value) -> bool,
) {
    let mut out = Vec::with_capacity(items.len());
    for item in items.drain(..) {
        if matches(&item) {
            out.push(holes.value(Hole::Lines(vec![format!("{{{{- if {cond} }}}}")])));
            out.push(item);
            out.push(holes.value(Hole::Lines(vec!["{{- end }}".into()])));
        } else {
            out.push(item);
        }
    }
    *items = out;
}

/// The object at `path` under `value`, created as an empty map where missing.
fn ensure_map<'a>(value: &'a mut Value, path: &[&str]) -> &'a mut Map<String, Value> {
    let mut at = value;
    for key in path {
        if !at.get(*key).is_some_and(Value::is_object) {
            at[*key] = json!({});
        }
        at = &mut at[*key];
    }
    at.as_object_mut().expect("made a map above")
}

/// `app.kubernetes.io/managed-by: kustomize` becomes Helm's own value.
fn managed_by_helm(value: &mut Value, holes: &mut Holes) {
    for pointer in ["/metadata/labels", "/spec/template/metadata/labels"] {
        if let Some(label) = value
            .pointer_mut(pointer)
            .and_then(|l| l.get_mut("app.kubernetes.io/managed-by"))
            && label == "kustomize"
        {
            *label = holes.value(Hole::Inline("{{ .Release.Service }}".into()));
        }
    }
}

/// cert-manager's CA injection annotation only while cert-manager is on.
fn cert_manager_injection(value: &mut Value, holes: &mut Holes) {
    if let Some(Value::String(from)) = value
        .pointer_mut("/metadata/annotations")
        .and_then(|a| a.get_mut("cert-manager.io/inject-ca-from"))
    {
        let token = holes.add(Hole::LineIf(".Values.certManager.enable".into()));
        *from = format!("{token}{from}");
    }
}

/// Every occurrence of the install namespace as a name (not inside a longer name) becomes the
/// release's namespace.
fn substitute_namespace(value: &mut Value, namespace: &str) {
    if namespace.is_empty() {
        return;
    }
    match value {
        Value::String(s) if s.contains(namespace) => *s = replace_name(s, namespace, NS_TOKEN),
        Value::Array(items) => items
            .iter_mut()
            .for_each(|v| substitute_namespace(v, namespace)),
        Value::Object(map) => map
            .values_mut()
            .for_each(|v| substitute_namespace(v, namespace)),
        _ => {}
    }
}

fn replace_name(text: &str, name: &str, with: &str) -> String {
    let is_name_char = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '-');
    let mut out = String::with_capacity(text.len());
    let mut done = 0;
    for (at, _) in text.match_indices(name) {
        let before = text[..at].chars().last();
        let after = text[at + name.len()..].chars().next();
        if at < done || is_name_char(before) || is_name_char(after) {
            continue;
        }
        out.push_str(&text[done..at]);
        out.push_str(with);
        done = at + name.len();
    }
    out.push_str(&text[done..]);
    out
}

/// A ServiceMonitor for the metrics Service, as config/prometheus/monitor.yaml has it, for
/// manifests rendered without config/prometheus.
fn service_monitor(service: &Object, namespace: &str) -> Object {
    let name = service
        .name()
        .strip_suffix("-metrics-service")
        .unwrap_or(service.name());
    let port = service.value["spec"]["ports"][0]["name"]
        .as_str()
        .unwrap_or("https");
    Object {
        value: json!({
            "apiVersion": "monitoring.coreos.com/v1",
            "kind": "ServiceMonitor",
            "metadata": {
                "labels": service.value["metadata"]["labels"],
                "name": format!("{name}-metrics-monitor"),
                "namespace": namespace,
            },
            "spec": {
                "endpoints": [{
                    "bearerTokenFile": "/var/run/secrets/kubernetes.io/serviceaccount/token",
                    "path": "/metrics",
                    "port": port,
                    "scheme": "https",
                    "tlsConfig": {"insecureSkipVerify": true},
                }],
                "selector": {"matchLabels": service.value["spec"]["selector"]},
            },
        }),
        line: service.line,
    }
}

fn notes(manager: &Object, namespace: &str) -> String {
    let name = replace_name(manager.name(), namespace, "{{ .Release.Namespace }}");
    format!(
        "{{{{ .Chart.Name }}}} {{{{ .Chart.AppVersion }}}} is installed in namespace {{{{ .Release.Namespace }}}}.\n\nCheck the manager:\n  kubectl --namespace {{{{ .Release.Namespace }}}} get deployment {name}\n  kubectl --namespace {{{{ .Release.Namespace }}}} logs deployment/{name}\n"
    )
}

/// An object's template: its YAML with the holes filled, inside `{{- if condition }}`.
fn render(value: &Value, holes: &Holes, condition: Option<&str>) -> String {
    let body = holes
        .render(&yaml::to_string(value))
        .replace(NS_TOKEN, "{{ .Release.Namespace }}");
    match condition {
        Some(cond) => format!("{{{{- if {cond} }}}}\n{body}{{{{- end }}}}\n"),
        None => body,
    }
}

/// Where the chart takes a value, in an object about to be written as YAML.
#[derive(Debug, Clone)]
enum Hole {
    /// The token is replaced, inside its line, by this text.
    Inline(String),
    /// A `key: TOKEN` line becomes `key:` and the value at this path rendered with toYaml;
    /// an optional one only when the value is not empty.
    Block { value: String, optional: bool },
    /// A `- TOKEN` line is replaced by these lines at its indentation (`{col}`: its width).
    Lines(Vec<String>),
    /// The line holding the token (without it) is kept only when the condition holds.
    LineIf(String),
    /// A `key: TOKEN` line becomes `key:` and this value, only when the condition holds.
    KeyIf { cond: String, value: Value },
}

#[derive(Debug, Default)]
struct Holes(Vec<Hole>);

impl Holes {
    fn add(&mut self, hole: Hole) -> String {
        self.0.push(hole);
        format!("__OPGEN_{}__", self.0.len() - 1)
    }

    fn value(&mut self, hole: Hole) -> Value {
        Value::String(self.add(hole))
    }

    /// The first hole token in `line`: its byte range and index.
    fn find(line: &str) -> Option<(usize, usize, usize)> {
        let mut from = 0;
        while let Some(at) = line[from..].find("__OPGEN_") {
            let start = from + at;
            let digits: String = line[start + 8..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            let end = start + 8 + digits.len();
            if !digits.is_empty() && line[end..].starts_with("__") {
                return Some((start, end + 2, digits.parse().ok()?));
            }
            from = start + 8;
        }
        None
    }

    fn render(&self, yaml: &str) -> String {
        let mut out = String::with_capacity(yaml.len());
        for line in yaml.lines() {
            self.render_line(line, &mut out);
        }
        out
    }

    fn render_line(&self, line: &str, out: &mut String) {
        let Some((start, end, index)) = Self::find(line) else {
            out.push_str(line);
            out.push('\n');
            return;
        };
        let indent = &line[..line.len() - line.trim_start().len()];
        match &self.0[index] {
            Hole::Inline(text) => {
                let line = format!("{}{text}{}", &line[..start], &line[end..]);
                self.render_line(&line, out);
            }
            Hole::Block { value, optional } => {
                let key = line[..start].trim_end();
                let col = indent.len() + 2;
                if *optional {
                    out.push_str(&format!(
                        "{indent}{{{{- with {value} }}}}\n{key}\n{indent}  {{{{- toYaml . | nindent {col} }}}}\n{indent}{{{{- end }}}}\n"
                    ));
                } else {
                    out.push_str(&format!(
                        "{key}\n{indent}  {{{{- toYaml {value} | nindent {col} }}}}\n"
                    ));
                }
            }
            Hole::Lines(lines) => {
                for l in lines {
                    out.push_str(indent);
                    out.push_str(&l.replace("{col}", &indent.len().to_string()));
                    out.push('\n');
                }
            }
            Hole::KeyIf { cond, value } => {
                out.push_str(&format!("{indent}{{{{- if {cond} }}}}\n"));
                out.push_str(line[..start].trim_end());
                out.push('\n');
                for l in yaml::to_string(value).lines() {
                    out.push_str(&format!("{indent}  {l}\n"));
                }
                out.push_str(&format!("{indent}{{{{- end }}}}\n"));
            }
            Hole::LineIf(cond) => {
                out.push_str(&format!("{indent}{{{{- if {cond} }}}}\n"));
                self.render_line(&format!("{}{}", &line[..start], &line[end..]), out);
                out.push_str(&format!("{indent}{{{{- end }}}}\n"));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_namespace_is_replaced_only_as_a_whole_name() {
        let ns = "op-system";
        assert_eq!(replace_name("op-system", ns, "N"), "N");
        assert_eq!(replace_name("svc.op-system.svc", ns, "N"), "svc.N.svc");
        assert_eq!(replace_name("op-system/cert", ns, "N"), "N/cert");
        assert_eq!(replace_name("my-op-system", ns, "N"), "my-op-system");
        assert_eq!(
            replace_name("op-systems op-system", ns, "N"),
            "op-systems N"
        );
    }

    #[test]
    fn holes_become_template_lines_at_their_indentation() {
        let mut holes = Holes::default();
        let value = json!({
            "a": {
                "list": [holes.value(Hole::Lines(vec!["{{- if x }}".into()])), "v",
                         holes.value(Hole::Lines(vec!["{{- toYaml . | nindent {col} }}".into()]))],
                "res": holes.value(Hole::Block { value: ".Values.r".into(), optional: false }),
                "sel": holes.value(Hole::Block { value: ".Values.s".into(), optional: true }),
                "num": holes.value(Hole::Inline("{{ .Values.n }}".into())),
                "ann": format!("{}keep", holes.add(Hole::LineIf(".Values.k".into()))),
                "conv": holes.value(Hole::KeyIf { cond: ".Values.w".into(), value: json!({"strategy": "Webhook"}) }),
            }
        });
        let out = holes.render(&yaml::to_string(&value));
        assert_eq!(
            out,
            "a:\n  {{- if .Values.k }}\n  ann: keep\n  {{- end }}\n  {{- if .Values.w }}\n  conv:\n    strategy: Webhook\n  {{- end }}\n  list:\n  {{- if x }}\n  - v\n  {{- toYaml . | nindent 2 }}\n  num: {{ .Values.n }}\n  res:\n    {{- toYaml .Values.r | nindent 4 }}\n  {{- with .Values.s }}\n  sel:\n    {{- toYaml . | nindent 4 }}\n  {{- end }}\n"
        );
    }
}
