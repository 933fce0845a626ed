//! `CrdGenerator`: one apiextensions.k8s.io/v1 CustomResourceDefinition per kind.

pub mod cel;
pub mod k8s;
mod markers;
pub mod props;
mod resource;
pub mod samples;
pub mod schema;
pub mod structural;
pub mod values;

use crate::diag::{Diagnostic, Diagnostics};
use crate::markers::Marker;
use crate::markers::typed;
use crate::model::kube_attrs::PrintColumn;
use crate::model::{Kind, KindVersion, Model};
use crate::pluralize;
use k8s::K8sTypes;
use props::{SchemaProps, ValidationRule};
use resource::ResourceMarkers;
use schema::SchemaBuilder;
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;

/// The annotation that records which opgen wrote a CRD (controller-gen writes its own).
pub const VERSION_ANNOTATION: &str = "opgen.dev/version";

const API_VERSION_DOC: &str = "APIVersion defines the versioned schema of this representation of an object.\nServers should convert recognized schemas to the latest internal value, and\nmay reject unrecognized values.\nMore info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources";
const KIND_DOC: &str = "Kind is a string value representing the REST resource this object represents.\nServers may infer this from the endpoint the client submits requests to.\nCannot be updated.\nIn CamelCase.\nMore info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds";

#[derive(Debug, Clone, Default)]
pub struct CrdOptions {
    /// Cut every description to this many bytes (controller-gen's maxDescLen); 0 drops them.
    pub max_desc_len: Option<usize>,
}

/// One generated CRD.
pub struct Crd {
    pub group: String,
    pub kind: String,
    pub plural: String,
    pub object: Value,
}

impl Crd {
    /// `config/crd/bases/<group>_<plural>.yaml`, as controller-gen names it.
    pub fn file_name(&self) -> String {
        file_name(&self.group, &self.plural)
    }
}

/// The file name of the CRD of `group`'s `plural` ([`Crd::file_name`]).
pub fn file_name(group: &str, plural: &str) -> String {
    format!("{group}_{plural}.yaml")
}

pub struct CrdGenerator<'m, 'a> {
    model: &'m Model<'a>,
    k8s: &'m K8sTypes,
    options: CrdOptions,
}

impl<'m, 'a> CrdGenerator<'m, 'a> {
    pub fn new(model: &'m Model<'a>, k8s: &'m K8sTypes, options: CrdOptions) -> Self {
        CrdGenerator {
            model,
            k8s,
            options,
        }
    }

    pub fn generate(&self, diags: &mut Diagnostics) -> Vec<Crd> {
        self.model
            .kinds
            .iter()
            .filter_map(|k| self.kind(k, diags))
            .collect()
    }

    fn marker_diag(&self, v: &KindVersion, m: &Marker, message: String) -> Diagnostic {
        Diagnostic::error(message).at(self.model.files[v.loc.file].location(
            m.line,
            m.column,
            m.text.chars().count(),
        ))
    }

    /// One kind's CRD ([`CrdGenerator::generate`] makes them all, in order). `diags` counts:
    /// after an error, schemas are no longer checked.
    pub fn kind(&self, kind: &Kind, diags: &mut Diagnostics) -> Option<Crd> {
        let errors_before = diags.has_errors();
        let versions: Vec<&KindVersion> = kind
            .versions
            .iter()
            .filter(|v| !ResourceMarkers::of(&v.markers).skip_version)
            .collect();
        let Some(first) = versions.first() else {
            let v = &kind.versions[0];
            diags.push(self.model.diag_at(
                v.loc,
                format!(
                    "every version of {}.{} is skipped, so there is no CRD to write",
                    kind.kind, kind.group
                ),
            ));
            return None;
        };
        let names = self.names(kind, first, diags);
        for v in &versions[1..] {
            let other = self.names(kind, v, diags);
            if other != names {
                diags.push(self.model.diag_at(v.loc, format!(
                    "versions {} and {} of {} disagree on {}; every version of a kind must have the same plural, singular, short names, categories and scope",
                    first.version, v.version, kind.kind,
                    names.differences(&other, &first.version, &v.version)
                )).help(format!("give {} the names and scope {} has (or change them in both)", v.version, first.version)));
            }
        }
        let storage = self.storage_version(kind, &versions, diags)?;
        let mut version_objects = Vec::new();
        for v in &versions {
            version_objects.push(self.version(v, v.version == storage, diags));
        }
        // A schema built from errors (unresolved types are empty schemas) would add only
        // follow-on violations.
        if !diags.has_errors() {
            self.check_as_the_api_server_does(kind, &versions, &version_objects, diags);
        }
        for obj in &mut version_objects {
            strip_origins(obj);
        }
        if !version_objects.iter().any(|v| v["served"] == json!(true)) {
            diags.push(self.model.diag_at(
                first.loc,
                format!("{}.{} does not serve any version", kind.kind, kind.group),
            ));
        }
        let metadata = self.metadata(kind, &versions, &names, diags);
        let mut names_obj = Map::new();
        if !names.categories.is_empty() {
            names_obj.insert("categories".into(), json!(names.categories));
        }
        names_obj.insert("kind".into(), json!(kind.kind));
        names_obj.insert("listKind".into(), json!(format!("{}List", kind.kind)));
        names_obj.insert("plural".into(), json!(names.plural));
        if !names.short_names.is_empty() {
            names_obj.insert("shortNames".into(), json!(names.short_names));
        }
        names_obj.insert("singular".into(), json!(names.singular));

        // Built by moving the parts in: `json!` would serialize each into a copy.
        let spec = Map::from_iter([
            ("group".to_owned(), json!(kind.group)),
            ("names".to_owned(), Value::Object(names_obj)),
            ("scope".to_owned(), Value::String(names.scope)),
            ("versions".to_owned(), Value::Array(version_objects)),
        ]);
        let object = Value::Object(Map::from_iter([
            ("apiVersion".to_owned(), json!("apiextensions.k8s.io/v1")),
            ("kind".to_owned(), json!("CustomResourceDefinition")),
            ("metadata".to_owned(), Value::Object(metadata)),
            ("spec".to_owned(), Value::Object(spec)),
        ]));
        if !diags.has_errors() {
            check_size(kind, first, &object, self.model, diags);
        }
        if diags.has_errors() && !errors_before {
            // Keep going for more diagnostics, but never write a CRD built from errors.
            return None;
        }
        Some(Crd {
            group: kind.group.clone(),
            kind: kind.kind.clone(),
            plural: names.plural,
            object,
        })
    }

    /// Each version's schema checked as the API server checks a CRD: structural rules first,
    /// then (on a sound schema only, as the server does) its CEL rules, each error at the
    /// marker the rule came from where the schema recorded it.
    fn check_as_the_api_server_does(
        &self,
        kind: &Kind,
        versions: &[&KindVersion],
        version_objects: &[Value],
        diags: &mut Diagnostics,
    ) {
        for (v, obj) in versions.iter().zip(version_objects) {
            let schema = &obj["schema"]["openAPIV3Schema"];
            let violations = structural::check(schema, "");
            let rejected = |at: &str| {
                let at = at.trim_start_matches('.');
                let at = if at.is_empty() { "the root" } else { at };
                format!(
                    "the {} schema of {}.{} would be rejected by the API server at {at}",
                    v.version, kind.kind, kind.group
                )
            };
            // Like the API server, CEL rules are checked only on a sound schema.
            let rule_problems = if violations.is_empty() {
                cel::check_schema(schema)
            } else {
                Vec::new()
            };
            for violation in violations {
                diags.push(self.model.diag_at(v.loc, format!("{}: {}", rejected(&violation.path), violation.message))
                    .help("opgen refuses to write a CRD that a cluster would reject; fix the type or its markers"));
            }
            for p in rule_problems {
                let message = format!("{}: {}", rejected(&p.path), p.message);
                let diag = match p.origin.as_ref().and_then(origin) {
                    Some((file, line, column, width)) => {
                        let source = &self.model.files[file];
                        let at = p.token.as_ref().and_then(|(expr, offset)| {
                            token_column(source.text, line, column, width, expr, *offset)
                        });
                        Diagnostic::error(message).at(match at {
                            Some(token) => source.location(line, token, 1),
                            None => source.location(line, column, width),
                        })
                    }
                    None => self.model.diag_at(v.loc, message),
                };
                diags.push(match p.help {
                    Some(h) => diag.help(h),
                    None => diag,
                });
            }
        }
    }

    /// The CRD's metadata: its name, and the annotations and labels of `#[kube]` and
    /// `+kubebuilder:metadata` on every version, with opgen's version annotation.
    fn metadata(
        &self,
        kind: &Kind,
        versions: &[&KindVersion],
        names: &Names,
        diags: &mut Diagnostics,
    ) -> Map<String, Value> {
        let mut annotations = Map::new();
        let mut labels = Map::new();
        for v in versions {
            for (k, val) in &v.attrs.annotations {
                annotations.insert(k.clone(), json!(val));
            }
            for (k, val) in &v.attrs.labels {
                labels.insert(k.clone(), json!(val));
            }
            for (m, metadata) in ResourceMarkers::of(&v.markers).metadata {
                for (list, items, target) in [
                    ("annotations", &metadata.annotations, &mut annotations),
                    ("labels", &metadata.labels, &mut labels),
                ] {
                    for item in items.iter().flatten() {
                        match item.split_once('=') {
                            Some((k, val)) => {
                                target.insert(k.to_owned(), json!(val));
                            }
                            None => diags.push(self.marker_diag(
                                v,
                                m,
                                format!("{list} item {item:?} is not in 'key=value' format"),
                            )),
                        }
                    }
                }
            }
        }
        annotations.insert(VERSION_ANNOTATION.into(), json!(env!("CARGO_PKG_VERSION")));
        let mut metadata = Map::new();
        metadata.insert("annotations".into(), Value::Object(annotations));
        if !labels.is_empty() {
            metadata.insert("labels".into(), Value::Object(labels));
        }
        metadata.insert(
            "name".into(),
            json!(format!("{}.{}", names.plural, kind.group)),
        );
        metadata
    }

    fn names(&self, kind: &Kind, v: &KindVersion, diags: &mut Diagnostics) -> Names {
        let res = ResourceMarkers::of(&v.markers).resource;
        let pick = |attr: Option<String>,
                    marker_value: Option<String>,
                    what: &str,
                    diags: &mut Diagnostics|
         -> Option<String> {
            match (attr, marker_value) {
                (Some(a), Some(m)) if a != m => {
                    let (m_, _) = res.expect("marker value implies the marker");
                    diags.push(self.marker_diag(v, m_, format!(
                        "+kubebuilder:resource says {what} {m:?} but #[kube] says {a:?}; #[kube] is what the compiled code uses"
                    )));
                    Some(a)
                }
                (a, m) => a.or(m),
            }
        };
        let singular = pick(
            v.attrs.singular.clone(),
            res.and_then(|(_, r)| r.singular.clone()),
            "singular",
            diags,
        )
        .unwrap_or_else(|| pluralize::singular(&kind.kind));
        // The compiled code requests `/<plural>`: #[kube(plural)], or else kube-derive's
        // pluralisation of *its* singular (#[kube(singular)] or the lower-cased kind, never a
        // marker's). The CRD must use the same name or the operator's requests miss.
        let kube_singular = v
            .attrs
            .singular
            .clone()
            .unwrap_or_else(|| pluralize::singular(&kind.kind));
        let kube_plural = v
            .attrs
            .plural
            .clone()
            .unwrap_or_else(|| pluralize::kube_to_plural(&kube_singular));
        let path = res.and_then(|(_, r)| r.path.clone());
        let plural = match (&v.attrs.plural, path) {
            (Some(_), path) => {
                pick(v.attrs.plural.clone(), path, "plural (path)", diags).unwrap_or(kube_plural)
            }
            (None, Some(p)) if p != kube_plural => {
                let (m, _) = res.expect("a path implies the marker");
                diags.push(self.marker_diag(v, m, format!(
                    "+kubebuilder:resource says plural (path) {p:?} but kube-derive will use {kube_plural:?} (the plural of {kube_singular:?}); #[kube] is what the compiled code uses"
                )).help(format!("add plural = {p:?} to #[kube(...)]")));
                kube_plural
            }
            (None, _) => kube_plural,
        };
        let scope = if v.attrs.namespaced {
            "Namespaced"
        } else {
            "Cluster"
        };
        if let Some((m, r)) = res
            && let Some(s) = r.scope.map(|s| s.as_str())
            && s != scope
        {
            diags.push(self.marker_diag(v, m, format!(
                "+kubebuilder:resource says scope {s} but #[kube] says {scope} ({}); #[kube] is what the compiled code uses",
                if v.attrs.namespaced { "namespaced" } else { "no `namespaced`" }
            )));
        }
        let declared = declared_names(v);
        Names {
            plural,
            singular,
            short_names: declared.short_names,
            categories: declared.categories,
            scope: scope.to_owned(),
        }
    }

    fn storage_version(
        &self,
        kind: &Kind,
        versions: &[&KindVersion],
        diags: &mut Diagnostics,
    ) -> Option<String> {
        if versions.len() == 1 {
            return Some(versions[0].version.clone());
        }
        // Explicitly marked versions first; otherwise kube's default (storage unless
        // `storage = false`) decides, which is how `create api` scaffolds a second version.
        let explicit: Vec<&&KindVersion> = versions
            .iter()
            .filter(|v| {
                v.attrs.storage == Some(true) || ResourceMarkers::of(&v.markers).storage_version
            })
            .collect();
        let implicit: Vec<&&KindVersion> = versions
            .iter()
            .filter(|v| v.attrs.storage != Some(false))
            .collect();
        let marked = match (explicit.len(), implicit.len()) {
            (0, 1) => implicit,
            (0, _) => Vec::new(),
            _ => explicit,
        };
        match marked.as_slice() {
            [one] => Some(one.version.clone()),
            [] => {
                diags.push(self.model.diag_at(versions[0].loc, format!(
                    "{}.{} has {} versions and none is the storage version",
                    kind.kind,
                    kind.group,
                    versions.len()
                )).help("mark exactly one version with +kubebuilder:storageversion or #[kube(storage)]"));
                None
            }
            many => {
                let list: Vec<&str> = many.iter().map(|v| v.version.as_str()).collect();
                diags.push(self.model.diag_at(
                    many[1].loc,
                    format!(
                        "{}.{} has several storage versions ({}); exactly one is allowed",
                        kind.kind,
                        kind.group,
                        list.join(", ")
                    ),
                ));
                None
            }
        }
    }

    fn version(&self, v: &KindVersion, storage: bool, diags: &mut Diagnostics) -> Value {
        let markers = ResourceMarkers::of(&v.markers);
        let mut out = Map::new();
        let mut columns: Vec<Value> = Vec::new();
        // #[kube(printcolumn)]'s first, then the markers', each error where it was written.
        let from_markers: Vec<(Option<&Marker>, PrintColumn)> = markers
            .print_columns
            .iter()
            .map(|&(m, c)| (Some(m), column_of_marker(c)))
            .collect();
        let from_attrs = v.attrs.printcolumns.iter().map(|c| (None, c));
        for (m, c) in from_attrs.chain(from_markers.iter().map(|(m, c)| (*m, c))) {
            if let Some(problem) = column_problem(c) {
                diags.push(match m {
                    Some(m) => self.marker_diag(v, m, problem),
                    None => self.model.diag_at(v.loc, problem),
                });
            }
            columns.push(column(c));
        }
        if !columns.is_empty() {
            out.insert("additionalPrinterColumns".into(), Value::Array(columns));
        }
        let deprecated = v
            .attrs
            .deprecated
            .clone()
            .or_else(|| markers.deprecated.map(|d| d.warning.clone()));
        if let Some(warning) = deprecated {
            out.insert("deprecated".into(), json!(true));
            if let Some(w) = warning {
                out.insert("deprecationWarning".into(), json!(w));
            }
        }
        out.insert("name".into(), json!(v.version));
        let mut schema = self.root_schema(v, diags);
        if let Some(max) = self.options.max_desc_len {
            truncate_descriptions(&mut schema, max);
        }
        // Moved in: `json!` would serialize the schema into a copy.
        let schema = Map::from_iter([("openAPIV3Schema".to_owned(), schema)]);
        out.insert("schema".into(), Value::Object(schema));
        let mut selectable: Vec<Value> = v
            .attrs
            .selectable
            .iter()
            .map(|p| json!({"jsonPath": p}))
            .collect();
        for f in &markers.selectable_fields {
            selectable.push(json!({"jsonPath": f.json_path}));
        }
        if !selectable.is_empty() {
            out.insert("selectableFields".into(), Value::Array(selectable));
        }
        let unserved = v.attrs.served == Some(false) || markers.unserved_version;
        out.insert("served".into(), json!(!unserved));
        out.insert("storage".into(), json!(storage));

        let mut sub = Map::new();
        let scale = match (&v.attrs.scale, markers.scale) {
            (Some(s), Some((m, scale))) => {
                if (&scale.specpath, &scale.statuspath)
                    != (&s.spec_replicas_path, &s.status_replicas_path)
                {
                    diags.push(self.marker_diag(
                        v,
                        m,
                        "+kubebuilder:subresource:scale disagrees with #[kube(scale)]".into(),
                    ));
                }
                Some((
                    s.spec_replicas_path.clone(),
                    s.status_replicas_path.clone(),
                    s.label_selector_path.clone(),
                ))
            }
            (Some(s), None) => Some((
                s.spec_replicas_path.clone(),
                s.status_replicas_path.clone(),
                s.label_selector_path.clone(),
            )),
            (None, Some((_, scale))) => Some((
                scale.specpath.clone(),
                scale.statuspath.clone(),
                scale.selectorpath.clone(),
            )),
            (None, None) => None,
        };
        if let Some((spec, status, selector)) = scale {
            let mut s = Map::new();
            if let Some(sel) = selector {
                s.insert("labelSelectorPath".into(), json!(sel));
            }
            s.insert("specReplicasPath".into(), json!(spec));
            s.insert("statusReplicasPath".into(), json!(status));
            sub.insert("scale".into(), Value::Object(s));
        }
        let status_marker = markers.status_subresource;
        let plain_status = markers.no_status_subresource;
        if let Some(m) = plain_status {
            let contradiction = if status_marker {
                Some(
                    "+opgen:status:nosubresource contradicts +kubebuilder:subresource:status: keep one",
                )
            } else if v.status.is_none() {
                Some(
                    "+opgen:status:nosubresource on a kind without a status: add #[kube(status = \"...\")] or remove the marker",
                )
            } else {
                None
            };
            if let Some(message) = contradiction {
                diags.push(self.marker_diag(v, m, message.into()));
            }
        }
        let plain_status = plain_status.is_some();
        if (v.status.is_some() && !plain_status) || status_marker {
            sub.insert("status".into(), json!({}));
        }
        // controller-gen writes `subresources: {}` once a version has printer columns.
        if !sub.is_empty() || out.contains_key("additionalPrinterColumns") {
            out.insert("subresources".into(), Value::Object(sub));
        }
        Value::Object(out)
    }

    /// The version's `openAPIV3Schema`: typed while it is built, JSON from here on.
    fn root_schema(&self, v: &KindVersion, diags: &mut Diagnostics) -> Value {
        let markers = ResourceMarkers::of(&v.markers);
        let mut builder = SchemaBuilder::new(self.model, self.k8s);
        let spec_def = self.model.type_def(v.spec);
        let described = |doc: &str| SchemaProps {
            description: Some(doc.to_owned()),
            ..SchemaProps::of_type("string")
        };
        let mut props = BTreeMap::from([
            ("apiVersion".to_owned(), described(API_VERSION_DOC)),
            ("kind".to_owned(), described(KIND_DOC)),
            ("metadata".to_owned(), SchemaProps::of_type("object")),
        ]);
        let mut required = Vec::new();
        // controller-gen requires `metadata` when Go's `ObjectMeta` field lacks `omitempty`;
        // kube-derive's root type is not written by hand, so a marker says so.
        if markers.metadata_required {
            required.push("metadata".to_owned());
        }
        let spec_schema = builder.named(v.spec, diags);
        if v.attrs.no_spec {
            props.extend(spec_schema.properties.unwrap_or_default());
            required.extend(spec_schema.required.unwrap_or_default());
        } else {
            props.insert("spec".into(), spec_schema);
            required.push("spec".to_owned());
        }
        if let Some(status) = &v.status {
            let mut s = builder.ty(status, spec_def.loc, diags);
            // Go's `Status` field can carry a default; kube-derive writes that field.
            if let Some(value) = markers.status_default {
                s.default = Some(value.to_json());
            }
            props.insert("status".into(), s);
        }
        // The kind's own rules, `#[kube(validation)]`'s included (read as these markers), in
        // source order.
        let rules: Vec<ValidationRule> = markers
            .root_validations
            .iter()
            .map(|&(m, validation)| ValidationRule {
                origin: Some([v.loc.file, m.line, m.column, m.text.chars().count()]),
                ..markers::cel_rule(validation)
            })
            .collect();
        SchemaProps {
            description: v.attrs.doc.clone(),
            properties: Some(props),
            required: (!required.is_empty()).then_some(required),
            validations: (!rules.is_empty()).then_some(rules),
            ..SchemaProps::of_type("object")
        }
        .into_value()
    }
}

/// The column of the token at `offset` in `expr`, when the marker at `line`:`column` (1-based,
/// `width` chars) holds `expr` word for word (a rule with escapes in its quoting does not).
fn token_column(
    text: &str,
    line: usize,
    column: usize,
    width: usize,
    expr: &str,
    offset: usize,
) -> Option<usize> {
    let marker: String = text
        .lines()
        .nth(line.checked_sub(1)?)?
        .chars()
        .skip(column.checked_sub(1)?)
        .take(width)
        .collect();
    let start = marker.find(expr)?;
    let before = marker[..start].chars().count() + expr.get(..offset)?.chars().count();
    Some(column + before)
}

/// `[file, line, column, width]`, as the schema builder records a rule's marker.
fn origin(v: &Value) -> Option<(usize, usize, usize, usize)> {
    let n = |i: usize| v.get(i).and_then(Value::as_u64).map(|x| x as usize);
    Some((n(0)?, n(1)?, n(2)?, n(3)?))
}

/// Removes the rules' `cel::ORIGIN_KEY`s, which are not part of a CRD.
fn strip_origins(v: &mut Value) {
    match v {
        Value::Object(m) => {
            m.remove(cel::ORIGIN_KEY);
            m.values_mut().for_each(strip_origins);
        }
        Value::Array(a) => a.iter_mut().for_each(strip_origins),
        _ => {}
    }
}

#[derive(Debug, PartialEq, Eq)]
struct Names {
    plural: String,
    singular: String,
    short_names: Vec<String>,
    categories: Vec<String>,
    scope: String,
}

impl Names {
    /// What differs from `other`: `short names (v1alpha1: kv; v1beta1: none)`.
    fn differences(&self, other: &Names, mine: &str, theirs: &str) -> String {
        let list = |l: &[String]| {
            if l.is_empty() {
                "none".to_owned()
            } else {
                l.join(", ")
            }
        };
        let pairs = [
            ("plural", self.plural.clone(), other.plural.clone()),
            ("singular", self.singular.clone(), other.singular.clone()),
            (
                "short names",
                list(&self.short_names),
                list(&other.short_names),
            ),
            (
                "categories",
                list(&self.categories),
                list(&other.categories),
            ),
            ("scope", self.scope.clone(), other.scope.clone()),
        ];
        pairs
            .iter()
            .filter(|(_, a, b)| a != b)
            .map(|(what, a, b)| format!("{what} ({mine}: {a}; {theirs}: {b})"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// `+kubebuilder:printcolumn` says what `#[kube(printcolumn)]` says.
fn column_of_marker(c: &typed::PrintColumn) -> PrintColumn {
    PrintColumn {
        name: c.name.clone(),
        type_: c.type_.clone(),
        json_path: c.json_path.clone(),
        description: c.description.clone(),
        format: c.format.clone(),
        priority: c.priority,
    }
}

fn column(c: &PrintColumn) -> Value {
    let mut out = Map::new();
    if let Some(d) = c.description.as_deref().filter(|d| !d.is_empty()) {
        out.insert("description".into(), json!(d));
    }
    if let Some(f) = c.format.as_deref().filter(|f| !f.is_empty()) {
        out.insert("format".into(), json!(f));
    }
    out.insert("jsonPath".into(), json!(c.json_path));
    out.insert("name".into(), json!(c.name));
    if let Some(p) = c.priority.filter(|p| *p != 0) {
        out.insert("priority".into(), json!(p));
    }
    out.insert("type".into(), json!(c.type_));
    Value::Object(out)
}

/// What the API server refuses in a printer column (apiextensions' ValidateCustomResourceColumn):
/// a type or format it does not know, a JSONPath not starting with `.`.
fn column_problem(c: &PrintColumn) -> Option<String> {
    let (name, ty, path) = (c.name.as_str(), c.type_.as_str(), c.json_path.as_str());
    let format = c.format.as_deref();
    const TYPES: [&str; 5] = ["boolean", "date", "integer", "number", "string"];
    const FORMATS: [&str; 8] = [
        "byte",
        "date",
        "date-time",
        "double",
        "float",
        "int32",
        "int64",
        "password",
    ];
    if name.is_empty() {
        return Some("a printer column needs a name".to_owned());
    }
    if !TYPES.contains(&ty) {
        let meant = match ty.to_ascii_lowercase().as_str() {
            "int" | "int32" | "int64" | "integer" | "uint" => "integer",
            "bool" | "boolean" => "boolean",
            "float" | "double" | "float64" | "number" => "number",
            "str" | "string" | "text" => "string",
            "time" | "datetime" | "date-time" | "timestamp" | "date" => "date",
            _ => "",
        };
        let hint = if meant.is_empty() {
            String::new()
        } else {
            format!("; did you mean `type={meant}`?")
        };
        return Some(format!(
            "printer column `{name}`: the API server takes no type `{ty}`, only one of {}{hint}",
            TYPES.join(", ")
        ));
    }
    if let Some(f) = format.filter(|f| !f.is_empty() && !FORMATS.contains(f)) {
        return Some(format!(
            "printer column `{name}`: the API server takes no format `{f}`, only one of {}",
            FORMATS.join(", ")
        ));
    }
    if !path.starts_with('.') {
        return Some(format!(
            "printer column `{name}`: JSONPath `{path}` must be a simple JSON path starting with `.`, such as `.{}`",
            path.trim_start_matches(['$', '{'])
        ));
    }
    None
}

/// Annotations of an object may total 256 KiB (apimachinery's TotalAnnotationSizeLimitB);
/// client-side `kubectl apply` stores the whole object as JSON in one of them.
pub const ANNOTATIONS_LIMIT: usize = 256 * 1024;
/// etcd's default `--max-request-bytes` (1.5 MiB), which the stored CRD must fit: measured on
/// envtest, CRDs of 1,567,089 and 1,568,367 bytes of JSON are stored, 1,576,367 bytes are
/// refused with `etcdserver: request is too large`.
pub const STORED_LIMIT: usize = 1536 * 1024;
/// kube-apiserver's default `--max-request-bytes` (3 MiB): a larger body is refused with
/// `413 Request entity too large` before it is decoded.
pub const REQUEST_LIMIT: usize = 3 * 1024 * 1024;
const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// The size of `v` as Go's encoding/json writes it: compact, with `<`, `>`, `&`, U+2028 and
/// U+2029 escaped as `\u003c` and so on. Counted, not written: for a CRD of megabytes the
/// count is a walk of its strings' bytes.
pub fn go_json_len(v: &Value) -> usize {
    match v {
        Value::Null | Value::Bool(true) => 4,
        Value::Bool(false) => 5,
        Value::Number(n) => {
            let mut count = CharCount(0);
            std::fmt::Write::write_fmt(&mut count, format_args!("{n}"))
                .expect("counting cannot fail");
            count.0
        }
        Value::String(text) => go_json_string_len(text),
        // Brackets, and a comma between items.
        Value::Array(items) => {
            2 + items.len().saturating_sub(1) + items.iter().map(go_json_len).sum::<usize>()
        }
        // Braces, a colon per entry and a comma between entries.
        Value::Object(entries) => {
            2 + entries.len()
                + entries.len().saturating_sub(1)
                + entries
                    .iter()
                    .map(|(k, v)| go_json_string_len(k) + go_json_len(v))
                    .sum::<usize>()
        }
    }
}

/// Runs `f` with `path` extended by `segment`, then restores it: the schema walks keep one path
/// buffer, which only a problem found on the way reads (a `String` per node cost more).
fn with_segment<R>(
    path: &mut String,
    segment: std::fmt::Arguments,
    f: impl FnOnce(&mut String) -> R,
) -> R {
    let len = path.len();
    std::fmt::Write::write_fmt(path, segment).expect("writing to a String cannot fail");
    let out = f(path);
    path.truncate(len);
    out
}

/// A JSON string's size with its quotes: `"` and `\` escaped with a backslash, control
/// characters as `\n` and the like or `\u00XX` (serde_json's escapes, the same lengths as
/// Go's), and what Go's HTML escaping adds: `<`, `>` and `&` as `\u003c` (6 bytes for 1),
/// U+2028 and U+2029 as `\u2028` (6 for their 3 bytes of UTF-8).
fn go_json_string_len(text: &str) -> usize {
    /// The bytes each byte adds when escaped.
    const EXTRA: [u8; 256] = {
        let mut extra = [0; 256];
        let mut b = 0;
        while b < 0x20 {
            extra[b] = 5;
            b += 1;
        }
        extra[0x08] = 1;
        extra[b'\t' as usize] = 1;
        extra[b'\n' as usize] = 1;
        extra[0x0C] = 1;
        extra[b'\r' as usize] = 1;
        extra[b'"' as usize] = 1;
        extra[b'\\' as usize] = 1;
        extra[b'<' as usize] = 5;
        extra[b'>' as usize] = 5;
        extra[b'&' as usize] = 5;
        extra
    };
    let bytes = text.as_bytes();
    let escapes: usize = bytes
        .iter()
        .map(|&b| usize::from(EXTRA[usize::from(b)]))
        .sum();
    // 0xE2 leads U+2028 and U+2029 in UTF-8, and is rare: a memchr before the search.
    let separators = if bytes.contains(&0xE2) {
        text.matches(['\u{2028}', '\u{2029}']).count()
    } else {
        0
    };
    2 + bytes.len() + escapes + 3 * separators
}

/// Counts the bytes formatted into it.
struct CharCount(usize);

impl std::fmt::Write for CharCount {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.0 += s.len();
        Ok(())
    }
}

/// What kubectl and the API server can take of a CRD this size: client-side apply's
/// last-applied annotation (a warning: server-side apply works), etcd's object limit and the
/// API server's request limit (errors: no way to install it).
fn check_size(
    kind: &Kind,
    v: &KindVersion,
    object: &Value,
    model: &Model,
    diags: &mut Diagnostics,
) {
    let size = go_json_len(object);
    let kib = |n: usize| format!("{:.1} KiB", n as f64 / 1024.0);
    let name = format!("{}.{}", kind.kind, kind.group);
    let help = "shorten descriptions with `opgen manifests --max-desc-len=N` (controller-gen's crd:maxDescLen; 0 drops them), or split large types";
    if size > STORED_LIMIT {
        let why = if size > REQUEST_LIMIT {
            format!(
                "the API server refuses request bodies over {} (`--max-request-bytes`)",
                kib(REQUEST_LIMIT)
            )
        } else {
            format!(
                "etcd stores objects of at most {} (`--max-request-bytes`; the API server answers `etcdserver: request is too large`)",
                kib(STORED_LIMIT)
            )
        };
        diags.push(
            model
                .diag_at(
                    v.loc,
                    format!(
                        "the CRD of {name} is {} as JSON and cannot be installed: {why}",
                        kib(size)
                    ),
                )
                .help(help),
        );
        return;
    }
    let annotations = object["metadata"]["annotations"]
        .as_object()
        .map(|a| {
            a.iter()
                .map(|(k, v)| k.len() + v.as_str().map_or(0, str::len))
                .sum::<usize>()
        })
        .unwrap_or(0);
    let last_applied = LAST_APPLIED.len() + size + annotations;
    if last_applied > ANNOTATIONS_LIMIT {
        diags.push(
            Diagnostic::warning(format!(
                "the CRD of {name} is {} as JSON: client-side `kubectl apply` would fail, as its {LAST_APPLIED} annotation would make the annotations {} (at most {})",
                kib(size),
                kib(last_applied),
                kib(ANNOTATIONS_LIMIT)
            ))
            .at(model.location(v.loc, 1))
            .help(format!("use `kubectl apply --server-side` (the Makefile's install and deploy do), `kubectl create` or `kubectl replace`; or {help}")),
        );
    }
}

/// controller-gen's maxDescLen (spec §5): every `description` of a schema and of its nested
/// schemas (properties, items, additionalProperties, allOf/anyOf/oneOf, not) cut at a sentence
/// end or a word boundary; 0 removes them. Only schema positions are visited, so a property
/// named `description` and the values of `default`, `example` and `enum` are left alone.
pub fn truncate_descriptions(v: &mut Value, max: usize) {
    let Value::Object(m) = v else { return };
    if max == 0 {
        m.remove("description");
    } else if let Some(Value::String(d)) = m.get_mut("description")
        && d.len() > max
    {
        *d = truncate(d, max);
    }
    for (k, child) in m.iter_mut() {
        match (k.as_str(), child) {
            ("properties", Value::Object(props)) => props
                .values_mut()
                .for_each(|p| truncate_descriptions(p, max)),
            ("items" | "additionalProperties" | "not", schema @ Value::Object(_)) => {
                truncate_descriptions(schema, max)
            }
            ("allOf" | "anyOf" | "oneOf", Value::Array(list)) => {
                list.iter_mut().for_each(|s| truncate_descriptions(s, max))
            }
            _ => {}
        }
    }
}

/// Unicode's Sentence_Terminal characters of the Basic Multilingual Plane (Go's
/// `unicode.Sentence_Terminal`, which controller-gen cuts after).
fn is_sentence_terminal(c: char) -> bool {
    matches!(c,
        '!' | '.' | '?' | '\u{589}' | '\u{61d}'..='\u{61f}' | '\u{6d4}' | '\u{700}'..='\u{702}'
        | '\u{7f9}' | '\u{837}' | '\u{839}' | '\u{83d}' | '\u{83e}' | '\u{964}' | '\u{965}'
        | '\u{104a}' | '\u{104b}' | '\u{1362}' | '\u{1367}' | '\u{1368}' | '\u{166e}'
        | '\u{1735}' | '\u{1736}' | '\u{1803}' | '\u{1809}' | '\u{1944}' | '\u{1945}'
        | '\u{1aa8}'..='\u{1aab}' | '\u{1b5a}' | '\u{1b5b}' | '\u{1b5e}' | '\u{1b5f}'
        | '\u{1b7d}' | '\u{1b7e}' | '\u{1c3b}' | '\u{1c3c}' | '\u{1c7e}' | '\u{1c7f}'
        | '\u{203c}' | '\u{203d}' | '\u{2047}'..='\u{2049}' | '\u{2e2e}' | '\u{2e3c}'
        | '\u{2e53}' | '\u{2e54}' | '\u{3002}' | '\u{a4ff}' | '\u{a60e}' | '\u{a60f}'
        | '\u{a6f3}' | '\u{a6f7}' | '\u{a876}' | '\u{a877}' | '\u{a8ce}' | '\u{a8cf}'
        | '\u{a92f}' | '\u{a9c8}' | '\u{a9c9}' | '\u{aa5d}'..='\u{aa5f}' | '\u{aaf0}'
        | '\u{aaf1}' | '\u{abeb}' | '\u{fe52}' | '\u{fe56}' | '\u{fe57}' | '\u{ff01}'
        | '\u{ff0e}' | '\u{ff1f}' | '\u{ff61}')
}

/// One description cut to `max` bytes the way controller-gen cuts it; unlike controller-gen,
/// never inside a UTF-8 character.
fn truncate(d: &str, max: usize) -> String {
    let mut end = max;
    while !d.is_char_boundary(end) {
        end -= 1;
    }
    let prefix = &d[..end];
    if let Some((i, c)) = prefix
        .char_indices()
        .rev()
        .find(|&(_, c)| is_sentence_terminal(c))
        .filter(|&(i, _)| i > 0)
    {
        return prefix[..i + c.len_utf8()].to_owned();
    }
    if let Some(i) = prefix.rfind(char::is_whitespace).filter(|&i| i > 0) {
        return format!("{}...", &prefix[..i]);
    }
    format!("{prefix}...")
}

/// The names a kind version declares beyond its kind and plural, which its other versions must
/// repeat.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct DeclaredNames {
    /// `#[kube(singular)]`, else `+kubebuilder:resource:singular`; `None`: the default.
    pub singular: Option<String>,
    /// `#[kube(shortname)]` first, then `+kubebuilder:resource`'s, without repeats.
    pub short_names: Vec<String>,
    /// `#[kube(category)]` first, then `+kubebuilder:resource`'s, without repeats.
    pub categories: Vec<String>,
}

/// What [`DeclaredNames`] says of `v`.
pub fn declared_names(v: &KindVersion) -> DeclaredNames {
    let res = ResourceMarkers::of(&v.markers).resource.map(|(_, r)| r);
    let list = |attr: &[String], from_marker: Option<&Vec<String>>| -> Vec<String> {
        let mut out: Vec<String> = attr.to_vec();
        for s in from_marker.into_iter().flatten() {
            if !out.contains(s) {
                out.push(s.clone());
            }
        }
        out
    };
    DeclaredNames {
        singular: v
            .attrs
            .singular
            .clone()
            .or_else(|| res.and_then(|r| r.singular.clone())),
        short_names: list(
            &v.attrs.short_names,
            res.and_then(|r| r.short_name.as_ref()),
        ),
        categories: list(&v.attrs.categories, res.and_then(|r| r.categories.as_ref())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_json_len_is_serde_jsons_text_with_gos_html_escapes() {
        let every_ascii: String = (0u8..0x80).map(char::from).collect();
        let v = serde_json::json!({
            "a": "x < y && z > w",
            "b": "line\u{2028}para\u{2029}",
            "c": ["\u{2027}\u{e2}", every_ascii, "日本語 \u{80}\u{a8}"],
            "d": [1.5, -3, 18446744073709551615u64, 1e300, 0.1, [], {}, null, true, false],
            "quote\"key\\": {"nested": {"deeper": ["<&>"]}},
        });
        let text = serde_json::to_string(&v).unwrap();
        // Go's encoding/json writes `<`, `>`, `&` as \u003c (6 bytes for 1) and U+2028/9 as
        // \u2028 (6 for 3); otherwise the bytes serde_json writes.
        let html = text.matches(['<', '>', '&']).count();
        let separators = text.matches(['\u{2028}', '\u{2029}']).count();
        assert_eq!((html, separators), (10, 2));
        assert_eq!(go_json_len(&v), text.len() + 5 * html + 3 * separators);
    }

    #[test]
    fn truncation_follows_controller_gen() {
        assert_eq!(
            truncate(
                "APIVersion defines the versioned schema of this representation of an object.",
                50
            ),
            "APIVersion defines the versioned schema of this..."
        );
        assert_eq!(truncate("Short one. And more text here", 15), "Short one.");
        assert_eq!(truncate("これは文です。次の文", 24), "これは文です。");
        assert_eq!(truncate("Unbroken_text_without_spaces", 8), "Unbroken...");
        assert_eq!(truncate("日本語", 4), "日...");
    }

    #[test]
    fn truncation_visits_schemas_only() {
        let mut schema = json!({
            "description": "Top level description.",
            "properties": {
                "description": {"type": "string", "description": "A field named description."},
                "list": {"items": {"description": "Item description here."}, "default": [{"description": "kept"}]},
            },
            "allOf": [{"description": "Branch description text."}],
        });
        truncate_descriptions(&mut schema, 0);
        assert_eq!(
            schema,
            json!({
                "properties": {
                    "description": {"type": "string"},
                    "list": {"items": {}, "default": [{"description": "kept"}]},
                },
                "allOf": [{}],
            })
        );
    }
}
