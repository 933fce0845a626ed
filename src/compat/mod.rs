//! **compat**: what changed between two sets of CustomResourceDefinitions, and what each change
//! does to the objects and clients of the old one (`opgen diff`). Values in, findings out: the
//! CRDs come from `load_crd` (files, git, a cluster or `opgen manifests`' staging) through `ops`.
//!
//! Every finding is classified by what the API server does with it, not by how the text
//! changed:
//! * **breaking**: a request that the old CRD accepts is refused, or stored data is lost or
//!   read back differently (pruned fields, a version gone, a subresource moved);
//! * **possibly breaking**: whether anything is refused or lost depends on the objects or on
//!   what clients expect (a changed pattern or CEL rule, a new default, a removed column);
//! * **compatible**: every old request is accepted and every stored object reads back the same.
//!
//! Like buf's wire and source levels, a change that only clients can notice (an enum value
//! added, a default changed, a field now kept unvalidated) is a finding of the
//! [`Strictness::Client`] level: [`Strictness::Wire`] counts only what the API server refuses or
//! loses.

mod cel;
mod schema;

use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;

/// How bad a change is for the objects and clients of the old CRD.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Severity {
    Compatible,
    PossiblyBreaking,
    Breaking,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Compatible => "compatible",
            Severity::PossiblyBreaking => "possibly breaking",
            Severity::Breaking => "breaking",
        }
    }
}

/// Which changes count (buf's wire and source levels).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Strictness {
    /// What the API server refuses or loses: requests, stored objects, server-side apply.
    Wire,
    /// Also what clients of the API can notice: new enum values, defaults, nullability,
    /// columns, fields no longer validated.
    Client,
}

/// What kind of change a finding is; its name is the `rule` of `--output json`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Rule {
    CrdAdded,
    CrdRemoved,
    ScopeChanged,
    NamesChanged,
    VersionAdded,
    VersionRemoved,
    StoredVersionRemoved,
    VersionServedChanged,
    StorageVersionChanged,
    ServedVersionsDiverged,
    ConversionChanged,
    SubresourceChanged,
    PrinterColumnChanged,
    SelectableFieldChanged,
    FieldAdded,
    FieldRemoved,
    TypeChanged,
    RequiredAdded,
    RequiredRemoved,
    EnumAdded,
    EnumRemoved,
    EnumValuesAdded,
    EnumValuesRemoved,
    DefaultAdded,
    DefaultChanged,
    DefaultRemoved,
    BoundTightened,
    BoundLoosened,
    PatternAdded,
    PatternChanged,
    PatternRemoved,
    NullableAdded,
    NullableRemoved,
    FormatChanged,
    ListTypeChanged,
    MapKeysChanged,
    MapTypeChanged,
    PreserveUnknownFieldsAdded,
    PreserveUnknownFieldsRemoved,
    EmbeddedResourceChanged,
    IntOrStringChanged,
    CelRuleAdded,
    CelRuleRemoved,
    CelRuleTightened,
    CelRuleLoosened,
    CelRuleChanged,
    CompositionChanged,
    Unclassified,
}

/// One change and its classification.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// The CRD's name (`<plural>.<group>`).
    pub crd: String,
    /// The version the change is in; none for a change of the whole CRD.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// The schema node, `.spec.ports[*].name` (`[*]` a list's items, `.*` a map's values).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    pub rule: Rule,
    /// The schema keyword a bound finding is about (`maxLength`, `minimum`...).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub keyword: Option<&'static str>,
    pub severity: Severity,
    /// The strictness from which `severity` counts; below it the change is compatible.
    pub level: Strictness,
    pub message: String,
}

impl Finding {
    /// The severity at `strictness`.
    pub fn severity_at(&self, strictness: Strictness) -> Severity {
        if self.level <= strictness {
            self.severity
        } else {
            Severity::Compatible
        }
    }
}

/// The findings of one comparison, sorted by CRD, version and path.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Report {
    pub findings: Vec<Finding>,
}

impl Report {
    /// The worst severity at `strictness` (compatible when nothing changed).
    pub fn verdict(&self, strictness: Strictness) -> Severity {
        self.findings
            .iter()
            .map(|f| f.severity_at(strictness))
            .max()
            .unwrap_or(Severity::Compatible)
    }
}

/// Where findings of one CRD go while it is compared.
struct Sink<'a> {
    crd: &'a str,
    version: Option<String>,
    findings: Vec<Finding>,
}

impl<'a> Sink<'a> {
    fn new(crd: &'a str) -> Self {
        Sink {
            crd,
            version: None,
            findings: Vec::new(),
        }
    }

    /// Records a finding (`path` None: the CRD or version itself).
    fn push(
        &mut self,
        path: Option<&str>,
        rule: Rule,
        severity: Severity,
        level: Strictness,
        message: impl Into<String>,
    ) -> &mut Finding {
        self.findings.push(Finding {
            crd: self.crd.to_owned(),
            version: self.version.clone(),
            path: path.map(str::to_owned),
            rule,
            keyword: None,
            severity,
            level,
            message: message.into(),
        });
        self.findings.last_mut().expect("just pushed")
    }
}

/// Compares every CRD of `old` with the CRD of the same name in `new`. With `only_shared`,
/// CRDs on one side only are left out (a cluster holds other projects' CRDs too).
pub fn compare<'a>(old: &'a [Value], new: &'a [Value], only_shared: bool) -> Report {
    let by_name = |crds: &'a [Value]| -> BTreeMap<&'a str, &'a Value> {
        crds.iter()
            .map(|c| (c["metadata"]["name"].as_str().unwrap_or_default(), c))
            .collect()
    };
    let (old, new) = (by_name(old), by_name(new));
    let mut findings = Vec::new();
    for (name, old_crd) in &old {
        let mut sink = Sink::new(name);
        match new.get(name) {
            Some(new_crd) => compare_crd(old_crd, new_crd, &mut sink),
            None if only_shared => {}
            None => {
                sink.push(
                    None,
                    Rule::CrdRemoved,
                    Severity::Breaking,
                    Strictness::Wire,
                    "the CRD is gone: its API and every stored object with it",
                );
            }
        }
        findings.extend(sink.findings);
    }
    for name in new.keys().filter(|n| !old.contains_key(*n) && !only_shared) {
        let mut sink = Sink::new(name);
        sink.push(
            None,
            Rule::CrdAdded,
            Severity::Compatible,
            Strictness::Wire,
            "new CRD",
        );
        findings.extend(sink.findings);
    }
    findings.sort_by(|a, b| {
        (&a.crd, &a.version, &a.path, a.rule).cmp(&(&b.crd, &b.version, &b.path, b.rule))
    });
    Report { findings }
}

fn compare_crd(old: &Value, new: &Value, sink: &mut Sink) {
    let (old_spec, new_spec) = (&old["spec"], &new["spec"]);
    if old_spec["scope"] != new_spec["scope"] {
        sink.push(
            None,
            Rule::ScopeChanged,
            Severity::Breaking,
            Strictness::Wire,
            format!(
                "scope {} -> {}: the API server refuses the update (spec.scope is immutable), and every object's URL would change",
                old_spec["scope"], new_spec["scope"]
            ),
        );
    }
    compare_names(&old_spec["names"], &new_spec["names"], sink);
    compare_conversion(old_spec, new_spec, sink);
    compare_versions(old, new, sink);
}

fn compare_names(old: &Value, new: &Value, sink: &mut Sink) {
    for (key, severity, level, why) in [
        (
            "kind",
            Severity::Breaking,
            Strictness::Wire,
            "the API server refuses the update (names.kind is immutable)",
        ),
        (
            "listKind",
            Severity::Breaking,
            Strictness::Client,
            "clients decoding lists by kind fail",
        ),
        (
            "singular",
            Severity::PossiblyBreaking,
            Strictness::Client,
            "`kubectl get <old singular>` stops working",
        ),
    ] {
        if old[key] != new[key] && !old[key].is_null() {
            sink.push(
                None,
                Rule::NamesChanged,
                severity,
                level,
                format!("names.{key} {} -> {}: {why}", old[key], new[key]),
            );
        }
    }
    for key in ["shortNames", "categories"] {
        let gone: Vec<&str> = strings(&old[key])
            .filter(|s| !strings(&new[key]).any(|n| n == *s))
            .collect();
        if !gone.is_empty() {
            sink.push(
                None,
                Rule::NamesChanged,
                Severity::PossiblyBreaking,
                Strictness::Client,
                format!(
                    "names.{key} lost {}: kubectl commands naming them stop working",
                    gone.join(", ")
                ),
            );
        }
    }
}

fn compare_conversion(old: &Value, new: &Value, sink: &mut Sink) {
    let strategy = |spec: &Value| {
        spec["conversion"]["strategy"]
            .as_str()
            .unwrap_or("None")
            .to_owned()
    };
    let (old_strategy, new_strategy) = (strategy(old), strategy(new));
    if old_strategy != new_strategy {
        sink.push(
            None,
            Rule::ConversionChanged,
            Severity::PossiblyBreaking,
            Strictness::Wire,
            format!(
                "conversion strategy {old_strategy} -> {new_strategy}: objects read in another version than stored now convert differently"
            ),
        );
    } else if new_strategy == "Webhook" {
        let review = |spec: &Value| -> Vec<String> {
            strings(&spec["conversion"]["webhook"]["conversionReviewVersions"])
                .map(str::to_owned)
                .collect()
        };
        let (old_reviews, new_reviews) = (review(old), review(new));
        if !old_reviews.is_empty() && !new_reviews.iter().any(|v| old_reviews.contains(v)) {
            sink.push(
                None,
                Rule::ConversionChanged,
                Severity::PossiblyBreaking,
                Strictness::Wire,
                format!(
                    "conversionReviewVersions {old_reviews:?} -> {new_reviews:?}: no version in common, a webhook deployed for the old CRD cannot answer"
                ),
            );
        }
    }
}

fn compare_versions(old: &Value, new: &Value, sink: &mut Sink) {
    let versions = |crd: &Value| -> Vec<Value> {
        crd["spec"]["versions"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    };
    let (old_versions, new_versions) = (versions(old), versions(new));
    let find = |list: &[Value], name: &str| list.iter().find(|v| v["name"] == name).cloned();
    let storage = |list: &[Value]| {
        list.iter()
            .find(|v| v["storage"] == true)
            .and_then(|v| v["name"].as_str().map(str::to_owned))
    };
    let stored: Vec<&str> = strings(&old["status"]["storedVersions"]).collect();
    let (old_storage, new_storage) = (storage(&old_versions), storage(&new_versions));
    for old_version in &old_versions {
        let name = old_version["name"].as_str().unwrap_or_default();
        let Some(new_version) = find(&new_versions, name) else {
            let is_stored = old_storage.as_deref() == Some(name) || stored.contains(&name);
            let (rule, severity, why) = if is_stored {
                (
                    Rule::StoredVersionRemoved,
                    Severity::Breaking,
                    "objects are stored in it: the API server refuses the update until status.storedVersions no longer lists it",
                )
            } else if old_version["served"] == true {
                (
                    Rule::VersionRemoved,
                    Severity::Breaking,
                    "requests to it are refused (404)",
                )
            } else {
                (
                    Rule::VersionRemoved,
                    Severity::PossiblyBreaking,
                    "not served, but objects may still be stored in it (see status.storedVersions)",
                )
            };
            sink.version = Some(name.to_owned());
            sink.push(
                None,
                rule,
                severity,
                Strictness::Wire,
                format!("version {name} removed: {why}"),
            );
            continue;
        };
        sink.version = Some(name.to_owned());
        compare_version(old_version, &new_version, sink);
    }
    for new_version in &new_versions {
        let name = new_version["name"].as_str().unwrap_or_default();
        if find(&old_versions, name).is_none() {
            sink.version = Some(name.to_owned());
            sink.push(
                None,
                Rule::VersionAdded,
                Severity::Compatible,
                Strictness::Wire,
                format!("version {name} added"),
            );
        }
    }
    sink.version = None;
    if let (Some(o), Some(n)) = (&old_storage, &new_storage)
        && o != n
    {
        let schemas_differ = || {
            let schema = |list: &[Value], v: &str| {
                find(list, v)
                    .map(|v| v["schema"].clone())
                    .unwrap_or_default()
            };
            schema(&new_versions, o) != schema(&new_versions, n)
        };
        let none = new["spec"]["conversion"]["strategy"]
            .as_str()
            .is_none_or(|s| s == "None");
        let (severity, why) = if none && schemas_differ() {
            (
                Severity::PossiblyBreaking,
                "with conversion None, fields of the old version the new storage version does not know are pruned when an object is written",
            )
        } else {
            (
                Severity::Compatible,
                "existing objects stay stored in the old version until rewritten",
            )
        };
        sink.push(
            None,
            Rule::StorageVersionChanged,
            severity,
            Strictness::Wire,
            format!("storage version {o} -> {n}: {why}"),
        );
    }
    served_versions_diverged(old, new, sink);
}

/// Two served versions whose fields now differ, with conversion None: an object written in one
/// and read in the other loses the fields the other lacks (crdify's served-version check, for
/// the pairs this change made differ).
fn served_versions_diverged(old: &Value, new: &Value, sink: &mut Sink) {
    if new["spec"]["conversion"]["strategy"]
        .as_str()
        .is_some_and(|s| s != "None")
    {
        return;
    }
    let fields = |crd: &Value, version: &str| -> Option<Vec<String>> {
        let v = crd["spec"]["versions"]
            .as_array()?
            .iter()
            .find(|v| v["name"] == version && v["served"] == true)?;
        let mut paths = Vec::new();
        schema::field_paths(&v["schema"]["openAPIV3Schema"], ".", &mut paths);
        Some(paths)
    };
    let served: Vec<&str> = new["spec"]["versions"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|v| v["served"] == true)
        .filter_map(|v| v["name"].as_str())
        .collect();
    for (i, a) in served.iter().enumerate() {
        for b in &served[i + 1..] {
            let differ = |crd: &Value| match (fields(crd, a), fields(crd, b)) {
                (Some(x), Some(y)) => Some(x != y),
                _ => None,
            };
            // Differing before already: not this change's doing.
            if differ(new) != Some(true) || differ(old) == Some(true) {
                continue;
            }
            sink.push(
                None,
                Rule::ServedVersionsDiverged,
                Severity::PossiblyBreaking,
                Strictness::Wire,
                format!(
                    "served versions {a} and {b} now have different fields and conversion None: an object written in one and read in the other loses the fields the other lacks"
                ),
            );
        }
    }
}

fn compare_version(old: &Value, new: &Value, sink: &mut Sink) {
    if old["served"] == true && new["served"] != true {
        sink.push(
            None,
            Rule::VersionServedChanged,
            Severity::Breaking,
            Strictness::Wire,
            "no longer served: requests to this version are refused (404)",
        );
    }
    compare_subresources(&old["subresources"], &new["subresources"], sink);
    compare_columns(old, new, sink);
    let selectable = |v: &Value| -> Vec<String> {
        v["selectableFields"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|f| f["jsonPath"].as_str().map(str::to_owned))
            .collect()
    };
    let new_selectable = selectable(new);
    for path in selectable(old)
        .into_iter()
        .filter(|p| !new_selectable.contains(p))
    {
        sink.push(
            None,
            Rule::SelectableFieldChanged,
            Severity::Breaking,
            Strictness::Wire,
            format!("selectable field {path} removed: list requests selecting on it are refused"),
        );
    }
    schema::compare(
        &old["schema"]["openAPIV3Schema"],
        &new["schema"]["openAPIV3Schema"],
        sink,
    );
}

fn compare_subresources(old: &Value, new: &Value, sink: &mut Sink) {
    let has = |v: &Value, key: &str| v.get(key).is_some_and(|s| !s.is_null());
    match (has(old, "status"), has(new, "status")) {
        (true, false) => {
            sink.push(
                None,
                Rule::SubresourceChanged,
                Severity::Breaking,
                Strictness::Wire,
                "status subresource removed: requests to /status are refused (404)",
            );
        }
        (false, true) => {
            sink.push(
                None,
                Rule::SubresourceChanged,
                Severity::Breaking,
                Strictness::Wire,
                "status subresource added: changes to .status through the object itself are now ignored",
            );
        }
        _ => {}
    }
    match (has(old, "scale"), has(new, "scale")) {
        (true, false) => {
            sink.push(
                None,
                Rule::SubresourceChanged,
                Severity::Breaking,
                Strictness::Wire,
                "scale subresource removed: requests to /scale (kubectl scale, autoscalers) are refused",
            );
        }
        (true, true) if old["scale"] != new["scale"] => {
            sink.push(
                None,
                Rule::SubresourceChanged,
                Severity::Breaking,
                Strictness::Wire,
                format!(
                    "scale subresource paths {} -> {}: /scale reads and writes other fields",
                    old["scale"], new["scale"]
                ),
            );
        }
        _ => {}
    }
}

fn compare_columns(old: &Value, new: &Value, sink: &mut Sink) {
    let columns = |v: &Value| -> Vec<Value> {
        v["additionalPrinterColumns"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    };
    let new_columns = columns(new);
    for column in columns(old) {
        let name = column["name"].as_str().unwrap_or_default();
        let same = |c: &&Value| c["name"] == column["name"];
        let message = match new_columns.iter().find(same) {
            None => format!("printer column {name:?} removed"),
            Some(c) if c["jsonPath"] != column["jsonPath"] || c["type"] != column["type"] => {
                format!(
                    "printer column {name:?} now shows {} ({}), was {} ({})",
                    c["jsonPath"], c["type"], column["jsonPath"], column["type"]
                )
            }
            Some(_) => continue,
        };
        sink.push(
            None,
            Rule::PrinterColumnChanged,
            Severity::PossiblyBreaking,
            Strictness::Client,
            format!("{message}: scripts reading `kubectl get` output break"),
        );
    }
}

/// The strings of a JSON array (nothing for anything else).
fn strings(value: &Value) -> impl Iterator<Item = &str> {
    value
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
}

#[cfg(test)]
mod tests;
