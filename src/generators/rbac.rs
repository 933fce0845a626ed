//! `RbacGenerator`: Roles and ClusterRoles from `+kubebuilder:rbac` markers, normalised and
//! merged exactly as controller-gen does (spec §8.2).

use crate::diag::{Diagnostic, Diagnostics};
use crate::markers::catalog::closest;
use crate::markers::typed::{Rbac, RbacMarker, Typed};
use crate::model::{ItemMarker, Model};
use serde_json::{Map, Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;

/// The ClusterRole (or Role) name the manager binds, as kubebuilder names it.
pub const DEFAULT_ROLE: &str = "manager-role";

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Rule {
    pub groups: Vec<String>,
    pub resources: Vec<String>,
    pub resource_names: Vec<String>,
    pub urls: Vec<String>,
    pub verbs: Vec<String>,
}

fn normalize(list: &mut Vec<String>) {
    list.sort();
    list.dedup();
}

impl Rule {
    /// The rule a marker asks for, as written.
    fn asked_by(marker: &Rbac) -> Rule {
        let list = |l: &Option<Vec<String>>| l.clone().unwrap_or_default();
        Rule {
            groups: list(&marker.groups),
            resources: list(&marker.resources),
            resource_names: list(&marker.resource_names),
            urls: list(&marker.urls),
            verbs: marker.verbs.clone(),
        }
    }

    fn normalized(mut self) -> Self {
        for g in &mut self.groups {
            if g == "core" {
                g.clear();
            }
        }
        normalize(&mut self.groups);
        normalize(&mut self.resources);
        normalize(&mut self.resource_names);
        normalize(&mut self.urls);
        normalize(&mut self.verbs);
        self
    }

    fn key_part(list: &[String]) -> String {
        list.join("&")
    }

    /// controller-gen's sort key: groups + resources + names + urls.
    fn sort_key(&self) -> String {
        [
            &self.groups,
            &self.resources,
            &self.resource_names,
            &self.urls,
        ]
        .iter()
        .map(|l| Rule::key_part(l))
        .collect::<Vec<_>>()
        .join(" + ")
    }

    fn to_json(&self) -> Value {
        let mut m = Map::new();
        let mut put = |k: &str, l: &[String]| {
            if !l.is_empty() {
                m.insert(k.into(), json!(l));
            }
        };
        put("apiGroups", &self.groups);
        put("nonResourceURLs", &self.urls);
        put("resourceNames", &self.resource_names);
        put("resources", &self.resources);
        let verbs = if self.verbs.iter().any(|v| v == "*") {
            vec!["*".to_owned()]
        } else {
            self.verbs.clone()
        };
        m.insert("verbs".into(), json!(verbs));
        Value::Object(m)
    }
}

#[derive(Clone, Copy)]
enum Field {
    Groups,
    Resources,
    Urls,
    Verbs,
}

fn field(r: &mut Rule, f: Field) -> &mut Vec<String> {
    match f {
        Field::Groups => &mut r.groups,
        Field::Resources => &mut r.resources,
        Field::Urls => &mut r.urls,
        Field::Verbs => &mut r.verbs,
    }
}

/// Merges rules that are equal except in `f`, taking the union of `f`; first occurrence keeps its place.
fn merge_on(rules: Vec<Rule>, f: Field) -> Vec<Rule> {
    let mut out: Vec<Rule> = Vec::new();
    let mut index: BTreeMap<String, usize> = BTreeMap::new();
    for mut r in rules {
        let mut probe = r.clone();
        field(&mut probe, f).clear();
        let key = format!("{} + {}", probe.sort_key(), Rule::key_part(&probe.verbs));
        match index.get(&key) {
            Some(&i) => {
                let target = field(&mut out[i], f);
                target.append(field(&mut r, f));
                normalize(target);
            }
            None => {
                index.insert(key, out.len());
                out.push(r);
            }
        }
    }
    out
}

/// Applies the normalisation and the four merges, and sorts.
pub fn merge_rules(rules: Vec<Rule>) -> Vec<Rule> {
    let mut split = Vec::new();
    for r in rules {
        if r.resources.is_empty() {
            split.push(r.normalized());
        } else {
            for res in &r.resources {
                split.push(
                    Rule {
                        resources: vec![res.clone()],
                        ..r.clone()
                    }
                    .normalized(),
                );
            }
        }
    }
    let mut rules = split;
    for f in [Field::Verbs, Field::Resources, Field::Groups, Field::Urls] {
        rules = merge_on(rules, f);
    }
    rules.sort_by_key(Rule::sort_key);
    rules
}

/// Role objects from the RBAC markers: ClusterRoles first, then Roles by namespace.
/// `empty_role_namespace`: when there is no rule at all, write an empty Role in this
/// namespace (namespace-scoped managers) instead of an empty ClusterRole.
/// The `+kubebuilder:rbac` markers, with where each stands.
fn rbac_markers<'m>(model: &'m Model<'_>) -> impl Iterator<Item = (&'m ItemMarker, &'m Rbac)> {
    model
        .item_markers
        .iter()
        .filter_map(|im| match &im.marker.typed {
            // The family's one marker: a second would not build until it is read here.
            Typed::Rbac(rbac) => match rbac {
                RbacMarker::Rbac(marker) => Some((im, marker)),
            },
            _ => None,
        })
}

/// The (namespace, role name) whose role a marker's rule goes into.
fn role_of(marker: &Rbac) -> (String, String) {
    (
        marker.namespace.clone().unwrap_or_default(),
        marker
            .role_name
            .clone()
            .unwrap_or_else(|| DEFAULT_ROLE.to_owned()),
    )
}

pub fn generate(
    model: &Model<'_>,
    empty_role_namespace: Option<&str>,
    diags: &mut Diagnostics,
) -> Vec<Value> {
    let mut buckets: BTreeMap<(String, String), Vec<Rule>> = BTreeMap::new();
    for (im, marker) in rbac_markers(model) {
        let rule = Rule::asked_by(marker);
        if rule.verbs.is_empty() {
            diags.push(
                Diagnostic::error("an RBAC rule needs at least one verb")
                    .at(model.marker_location(im.file, &im.marker)),
            );
            continue;
        }
        if rule.resources.is_empty() && rule.urls.is_empty() {
            diags.push(
                Diagnostic::error("an RBAC rule needs resources or urls")
                    .at(model.marker_location(im.file, &im.marker))
                    .help("e.g. groups=apps,resources=deployments,verbs=get;list;watch"),
            );
            continue;
        }
        for (error, message, help) in check_rule(&rule, &project_resources(model)) {
            let d = if error {
                Diagnostic::error(message)
            } else {
                Diagnostic::warning(message)
            };
            let d = d.at(model.marker_location(im.file, &im.marker));
            diags.push(match help {
                Some(help) => d.help(help),
                None => d,
            });
        }
        buckets.entry(role_of(marker)).or_default().push(rule);
    }
    if buckets.is_empty() {
        let ns = empty_role_namespace.unwrap_or("").to_owned();
        buckets.insert((ns, DEFAULT_ROLE.to_owned()), Vec::new());
    }
    buckets
        .into_iter()
        .map(|((namespace, name), rules)| {
            let rules: Vec<Value> = merge_rules(rules).iter().map(Rule::to_json).collect();
            let mut metadata = Map::new();
            metadata.insert("name".into(), json!(name));
            let kind = if namespace.is_empty() {
                "ClusterRole"
            } else {
                metadata.insert("namespace".into(), json!(namespace));
                "Role"
            };
            json!({
                "apiVersion": "rbac.authorization.k8s.io/v1",
                "kind": kind,
                "metadata": metadata,
                "rules": rules,
            })
        })
        .collect()
}

/// Verbs the API server knows for resources: the standard ones and the special verbs
/// RBAC checks on some resources (use, bind, escalate, impersonate, approve, sign).
const RESOURCE_VERBS: &[&str] = &[
    "get",
    "list",
    "watch",
    "create",
    "update",
    "patch",
    "delete",
    "deletecollection",
    "use",
    "bind",
    "escalate",
    "impersonate",
    "approve",
    "sign",
    "*",
];
/// Verbs of non-resource URLs: HTTP methods, lowercase.
const URL_VERBS: &[&str] = &[
    "get", "post", "put", "patch", "delete", "head", "options", "*",
];

/// group → resource → subresources served by Kubernetes 1.33 or 1.37 (discovery of the
/// envtest API servers, kept true by tests/k8s_resources.rs).
type Served = BTreeMap<String, BTreeMap<String, BTreeSet<String>>>;

fn builtin_resources() -> &'static Served {
    static SERVED: OnceLock<Served> = OnceLock::new();
    SERVED.get_or_init(|| {
        let mut all = Served::new();
        for data in [
            include_str!("../../data/k8s-resources/1.33.json"),
            include_str!("../../data/k8s-resources/1.37.json"),
        ] {
            let one: Served = serde_json::from_str(data).expect("embedded discovery data parses");
            for (group, resources) in one {
                let group = all.entry(group).or_default();
                for (resource, subs) in resources {
                    group.entry(resource).or_default().extend(subs);
                }
            }
        }
        all
    })
}

/// The project's own groups: group → its kinds' resources (status, scale and finalizers
/// as subresources).
fn project_resources(model: &Model<'_>) -> Served {
    let mut out = Served::new();
    for kind in &model.kinds {
        for version in &kind.versions {
            let plural = version
                .attrs
                .plural
                .clone()
                .unwrap_or_else(|| crate::pluralize::kube_derive_plural(&kind.kind));
            out.entry(kind.group.clone()).or_default().insert(
                plural,
                ["status", "scale", "finalizers"].map(str::to_owned).into(),
            );
        }
    }
    for kind in &model.unresolved_kinds {
        for plural in &kind.plurals {
            out.entry(kind.group.clone()).or_default().insert(
                plural.clone(),
                ["status", "scale", "finalizers"].map(str::to_owned).into(),
            );
        }
    }
    out
}

/// Problems with one rule: (is an error, message, help). Unknown verbs are errors; so are
/// resources of built-in or project groups that look like a typo of a known one; other
/// unknown resources of those groups are warnings (an API the cluster may enable by a
/// feature gate). Groups that are neither are another operator's: not checked.
fn check_rule(rule: &Rule, project: &Served) -> Vec<(bool, String, Option<String>)> {
    let mut found = Vec::new();
    let verbs = if rule.resources.is_empty() {
        URL_VERBS
    } else {
        RESOURCE_VERBS
    };
    for verb in &rule.verbs {
        if !verbs.contains(&verb.as_str()) {
            let suggestion = closest(verb, verbs.iter().copied());
            found.push((
                true,
                format!(
                    "`{verb}` is not a Kubernetes verb{}",
                    if rule.resources.is_empty() {
                        " for urls"
                    } else {
                        ""
                    }
                ),
                Some(match suggestion {
                    Some(s) => format!("did you mean `{s}`? (verbs: {})", verbs.join(", ")),
                    None => format!("the verbs are {}", verbs.join(", ")),
                }),
            ));
        }
    }
    let builtin = builtin_resources();
    for group in &rule.groups {
        let group_key = if group == "core" { "" } else { group.as_str() };
        let (served, is_builtin) = match (builtin.get(group_key), project.get(group_key)) {
            (Some(served), _) => (served, true),
            (None, Some(served)) => (served, false),
            // Another operator's group, unless it is one edit from a known one (`app` for
            // `apps`); two for a group without a domain, as no real one is that short.
            (None, None) => {
                let known = builtin.keys().chain(project.keys()).map(String::as_str);
                let near = known
                    .filter(|k| !k.is_empty())
                    .map(|k| (crate::markers::catalog::edit_distance(group, k), k))
                    .filter(|(d, _)| *d == 1 || (*d == 2 && !group.contains('.')))
                    .min();
                if let Some((_, k)) = near {
                    found.push((
                        false,
                        format!("`{group}` is not a built-in API group nor one of this project's, so the rule is for another operator's API"),
                        Some(format!("did you mean `{k}`?")),
                    ));
                }
                continue;
            }
        };
        let shown_group = if group_key.is_empty() {
            "core".to_owned()
        } else {
            format!("`{group}`")
        };
        for resource in &rule.resources {
            if resource == "*" {
                continue;
            }
            let (name, sub) = match resource.split_once('/') {
                Some((name, sub)) => (name, Some(sub)),
                None => (resource.as_str(), None),
            };
            match (served.get(name), sub) {
                (Some(_), None) => {}
                (Some(subs), Some(sub)) if sub == "*" || subs.contains(sub) => {}
                (Some(subs), Some(sub)) => {
                    let suggestion = closest(sub, subs.iter().map(String::as_str));
                    found.push((
                        suggestion.is_some(),
                        format!("{shown_group} resource `{name}` has no subresource `{sub}`"),
                        Some(match suggestion {
                            Some(s) => format!("did you mean `{name}/{s}`?"),
                            None if subs.is_empty() => format!("`{name}` has no subresources"),
                            None => format!(
                                "its subresources are {}",
                                subs.iter().cloned().collect::<Vec<_>>().join(", ")
                            ),
                        }),
                    ));
                }
                (None, _) => {
                    let suggestion = closest(name, served.keys().map(String::as_str));
                    // A resource of another built-in group with this name: a wrong group.
                    let elsewhere = builtin
                        .iter()
                        .find(|(g, resources)| *g != group_key && resources.contains_key(name))
                        .map(|(g, _)| {
                            if g.is_empty() {
                                "core (\"\")".to_owned()
                            } else {
                                format!("`{g}`")
                            }
                        });
                    // A typo of a resource of another built-in group.
                    let elsewhere = elsewhere.or_else(|| {
                        builtin
                            .iter()
                            .filter_map(|(g, resources)| {
                                let close = closest(name, resources.keys().map(String::as_str))?;
                                Some(format!(
                                    "`{close}` in the {} group",
                                    if g.is_empty() {
                                        "core (\"\")".to_owned()
                                    } else {
                                        format!("`{g}`")
                                    }
                                ))
                            })
                            .next()
                            .map(|guess| format!("did you mean {guess}"))
                    });
                    let help = match (suggestion, &elsewhere) {
                        (Some(s), _) => format!("did you mean `{s}`?"),
                        (None, Some(g)) if g.starts_with("did you mean") => format!("{g}?"),
                        (None, Some(g)) => format!("`{name}` is in the {g} group"),
                        (None, None) if is_builtin => "Kubernetes 1.33–1.37 do not serve it, so the rule grants nothing; if a feature gate serves it in your cluster, ignore this warning".to_owned(),
                        (None, None) => format!(
                            "no kind of this project has that plural; its resources are {}",
                            served.keys().cloned().collect::<Vec<_>>().join(", ")
                        ),
                    };
                    found.push((
                        suggestion.is_some() || elsewhere.is_some() || !is_builtin,
                        format!("{shown_group} has no resource `{name}`"),
                        Some(help),
                    ));
                }
            }
        }
    }
    found
}

const WRITE_VERBS: &[&str] = &[
    "create",
    "update",
    "patch",
    "delete",
    "deletecollection",
    "*",
];
const READ_VERBS: &[&str] = &["get", "list", "watch", "*"];

/// Resources whose write access lets the holder grant itself more, by API group.
const ESCALATING: &[(&str, &[&str])] = &[
    (
        "admissionregistration.k8s.io",
        &[
            "mutatingwebhookconfigurations",
            "validatingwebhookconfigurations",
        ],
    ),
    ("apiextensions.k8s.io", &["customresourcedefinitions"]),
    (
        "rbac.authorization.k8s.io",
        &[
            "roles",
            "clusterroles",
            "rolebindings",
            "clusterrolebindings",
        ],
    ),
];

/// One marker's rules, normalised, with where it stands.
struct MarkerRule<'a> {
    marker: &'a crate::model::ItemMarker,
    bucket: (String, String),
    rule: Rule,
}

fn covers(list: &[String], wanted: &[String]) -> bool {
    list.iter().any(|x| x == "*") || wanted.iter().all(|w| list.contains(w))
}

/// `a` grants everything `b` does (and they differ).
fn subsumes(a: &Rule, b: &Rule) -> bool {
    a != b
        && covers(&a.groups, &b.groups)
        && covers(&a.resources, &b.resources)
        && covers(&a.verbs, &b.verbs)
        && covers(&a.urls, &b.urls)
        && (a.resource_names.is_empty()
            || (!b.resource_names.is_empty() && covers(&a.resource_names, &b.resource_names)))
}

/// Least-privilege warnings ("Programming Kubernetes" ch. 7: scaffolders grant too much),
/// each at the marker that asks for the permission.
pub fn lint(model: &Model<'_>) -> Vec<Diagnostic> {
    let rules: Vec<MarkerRule> = rbac_markers(model)
        .map(|(im, marker)| MarkerRule {
            marker: im,
            bucket: role_of(marker),
            rule: Rule::asked_by(marker).normalized(),
        })
        .collect();
    let mut out = Vec::new();
    let mut warn = |mr: &MarkerRule, message: String, help: &str| {
        out.push(
            Diagnostic::warning(message)
                .at(model.marker_location(mr.marker.file, &mr.marker.marker))
                .help(help.to_owned()),
        );
    };
    for mr in &rules {
        let r = &mr.rule;
        let cluster_wide = mr.bucket.0.is_empty();
        if r.verbs.iter().any(|v| v == "*") {
            warn(
                mr,
                "RBAC rule grants every verb (`*`)".into(),
                "list the verbs the controller calls",
            );
        }
        if r.resources.iter().any(|v| v == "*") {
            warn(
                mr,
                "RBAC rule grants every resource (`*`)".into(),
                "list the resources the controller uses",
            );
        }
        let core = r.groups.iter().any(|g| g.is_empty() || g == "*");
        let reads = r.verbs.iter().any(|v| READ_VERBS.contains(&v.as_str()));
        if cluster_wide
            && core
            && reads
            && r.resource_names.is_empty()
            && r.resources.iter().any(|x| x == "secrets" || x == "*")
        {
            warn(
                mr,
                "RBAC rule lets the manager read every Secret in the cluster".into(),
                "scope it with namespace=<ns> or resourceNames=<names>",
            );
        }
        let writes = r.verbs.iter().any(|v| WRITE_VERBS.contains(&v.as_str()));
        for (group, resources) in ESCALATING {
            let in_group = r.groups.iter().any(|g| g == group || g == "*");
            if writes
                && in_group
                && r.resources
                    .iter()
                    .any(|x| x == "*" || resources.contains(&x.as_str()))
            {
                warn(
                    mr,
                    format!(
                        "RBAC rule lets the manager change {group} objects, with which it can grant itself more"
                    ),
                    "grant only what the controller needs; install such objects out of band",
                );
            }
        }
        if let Some(broader) = rules
            .iter()
            .find(|o| o.bucket == mr.bucket && subsumes(&o.rule, r))
        {
            let at = model.marker_location(broader.marker.file, &broader.marker.marker);
            warn(
                mr,
                format!(
                    "RBAC rule is already granted by the broader rule at {}:{}",
                    at.file.display(),
                    at.line
                ),
                "remove this marker, or narrow the broader one",
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(groups: &[&str], resources: &[&str], verbs: &[&str]) -> Rule {
        let v = |l: &[&str]| l.iter().map(|s| s.to_string()).collect();
        Rule {
            groups: v(groups),
            resources: v(resources),
            verbs: v(verbs),
            ..Rule::default()
        }
    }

    #[test]
    fn merges_like_controller_gen() {
        let rules = merge_rules(vec![
            rule(&["apps"], &["deployments"], &["get", "list"]),
            rule(&["apps"], &["deployments"], &["watch", "get"]),
            rule(&["core"], &["pods"], &["get"]),
            rule(&[""], &["configmaps"], &["get"]),
            rule(&["batch"], &["jobs", "cronjobs"], &["*", "get"]),
        ]);
        let json: Vec<Value> = rules.iter().map(Rule::to_json).collect();
        assert_eq!(
            Value::Array(json),
            json!([
                {"apiGroups": [""], "resources": ["configmaps", "pods"], "verbs": ["get"]},
                {"apiGroups": ["apps"], "resources": ["deployments"], "verbs": ["get", "list", "watch"]},
                {"apiGroups": ["batch"], "resources": ["cronjobs", "jobs"], "verbs": ["*"]},
            ])
        );
    }

    #[test]
    fn groups_merge_when_everything_else_matches() {
        let rules = merge_rules(vec![
            rule(&["b.io"], &["things"], &["get"]),
            rule(&["a.io"], &["things"], &["get"]),
        ]);
        assert_eq!(rules.len(), 1);
        assert_eq!(rules[0].groups, ["a.io", "b.io"]);
    }
}
