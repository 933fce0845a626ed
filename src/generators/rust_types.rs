//! Rust types from a CRD (`opgen import crd`): one version of an apiextensions.k8s.io/v1
//! CustomResourceDefinition rendered as a marker-annotated `*_types.rs` file, written the way
//! the conformance fixtures port Go types by hand, so that `opgen manifests` writes the CRD back.
//!
//! Each schema node becomes the Rust type whose schema is the node's own (an `i32` for an
//! `int32` integer, a struct for an object with properties, a `Vec` for an array, a
//! `BTreeMap` for a map; `Option` of it for an optional field, so that an empty list or map is
//! kept apart from an absent one), and whatever the type does not say becomes a marker: bounds, lengths,
//! patterns, formats, enums, defaults, CEL rules, list and map types. A node a Rust type cannot
//! describe (no type, a free-form object) is a `serde_json::Value` with
//! `+kubebuilder:validation:Schemaless` and markers. What neither can express (`anyOf` other than
//! int-or-string, `oneOf`, `allOf`, `not`, ...) is left out with a warning naming its path.

use super::crd::k8s::K8sTypes;
use crate::markers::typed::names;
use heck::{ToSnakeCase, ToUpperCamelCase};
use serde_json::{Map, Value};
use std::collections::{BTreeSet, HashSet};
use std::fmt::Write as _;

/// The group, names and scope of a CRD, and the one version to render.
pub struct KindVersion<'a> {
    pub group: &'a str,
    pub kind: &'a str,
    pub plural: &'a str,
    /// The singular name kube-derive would use without `singular = ...` (the lower-cased kind).
    pub default_singular: &'a str,
    pub singular: &'a str,
    pub namespaced: bool,
    pub short_names: &'a [String],
    pub categories: &'a [String],
    /// The CRD's own annotations and labels (not the generator's version annotation).
    pub annotations: &'a [(String, String)],
    pub labels: &'a [(String, String)],
    /// The version object of `spec.versions`.
    pub version: &'a Map<String, Value>,
    /// Whether the CRD has more than one version (then each says whether it is the storage one).
    pub several_versions: bool,
}

/// The rendered file (before rustfmt) and what it could not reproduce, one line each.
pub struct Rendered {
    pub source: String,
    pub warnings: Vec<String>,
}

/// k8s-openapi types a schema node is recognised as when it is exactly their schema (the
/// object types CRDs embed most, and Quantity).
const K8S_TYPES: &[&str] = &[
    "apimachinery::pkg::apis::meta::v1::Condition",
    "apimachinery::pkg::apis::meta::v1::LabelSelector",
    "apimachinery::pkg::api::resource::Quantity",
    "api::core::v1::PodTemplateSpec",
    "api::core::v1::PodSpec",
    "api::core::v1::Container",
    "api::core::v1::ResourceRequirements",
    "api::core::v1::LocalObjectReference",
    "api::core::v1::ObjectReference",
    "api::core::v1::TypedLocalObjectReference",
    "api::core::v1::SecretKeySelector",
    "api::core::v1::ConfigMapKeySelector",
    "api::core::v1::EnvVar",
    "api::core::v1::EnvFromSource",
    "api::core::v1::Volume",
    "api::core::v1::VolumeMount",
    "api::core::v1::Toleration",
    "api::core::v1::Affinity",
    "api::core::v1::SecurityContext",
    "api::core::v1::PodSecurityContext",
    "api::core::v1::ServicePort",
    "api::batch::v1::JobTemplateSpec",
];

/// Names the prelude, the derives and the file's imports take.
const RESERVED: &[&str] = &[
    "Option",
    "Some",
    "None",
    "Result",
    "Ok",
    "Err",
    "Vec",
    "String",
    "Box",
    "Default",
    "Clone",
    "Copy",
    "Debug",
    "PartialEq",
    "Eq",
    "Send",
    "Sync",
    "Sized",
    "Drop",
    "Fn",
    "Iterator",
    "ToString",
    "Into",
    "From",
    "Self",
    "Serialize",
    "Deserialize",
    "CustomResource",
    "BTreeMap",
    "IntOrString",
];

pub(crate) const KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "dyn", "else", "enum", "extern", "false",
    "fn", "for", "gen", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub",
    "ref", "return", "static", "struct", "trait", "true", "try", "type", "unsafe", "use", "where",
    "while", "abstract", "become", "box", "do", "final", "macro", "override", "priv", "typeof",
    "unsized", "virtual", "yield",
];

/// Keywords that cannot be raw identifiers.
const NOT_RAW: &[&str] = &["self", "Self", "super", "crate", "_"];

/// Where a node's schema comes from: a struct field (its doc and markers stand on the field)
/// or a type alone (list items, map values, the spec and status: on the type itself).
#[derive(Clone, Copy, PartialEq)]
enum Place {
    Field,
    Type,
}

/// A node rendered as a Rust type expression, with what must stand on its field or type.
struct Typed {
    ty: String,
    markers: Vec<String>,
}

struct Renderer<'a> {
    kind: &'a str,
    names: HashSet<String>,
    /// Rendered type definitions, in the order they are first used.
    items: Vec<String>,
    warnings: Vec<String>,
    btree_map: bool,
    int_or_string: bool,
    /// Clippy's doc lints the descriptions trip (they are the CRD's, word for word).
    doc_lints: BTreeSet<&'static str>,
    /// Each recognised k8s-openapi type: its path, schema without description, description.
    k8s: Vec<(&'static str, Map<String, Value>, Option<Value>)>,
    /// The k8s-openapi types the file imports.
    k8s_imports: BTreeSet<&'static str>,
    /// The structs whose fields are being rendered, innermost last (names on a collision).
    parents: Vec<String>,
}

/// Renders one version of a CRD as Rust source (unformatted; rustfmt runs on it).
/// With `k8s`, a node that is exactly the schema of a common k8s-openapi type (for the
/// project's Kubernetes version) becomes that type.
pub fn render(kv: &KindVersion, header: &str, k8s: Option<&K8sTypes>) -> Rendered {
    let kind = kv.kind;
    let mut r = Renderer::new(kind, k8s);
    let version = kv.version;
    let empty = Map::new();
    let root = version
        .get("schema")
        .and_then(|s| s.get("openAPIV3Schema"))
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let props = root
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    // Without a spec, the kind's fields are top-level (kube-derive's `no_spec`); so are they
    // when the root has properties beside spec and status (Cilium's `specs`, Argo CD's
    // `operation`): the top-level struct then holds `spec` as one of its fields.
    let beside_spec = props.keys().any(|k| {
        !matches!(
            k.as_str(),
            "apiVersion" | "kind" | "metadata" | "spec" | "status"
        )
    });
    let no_spec = !props.contains_key("spec") || beside_spec;
    let spec_name = if no_spec {
        format!("{kind}Fields")
    } else {
        format!("{kind}Spec")
    };
    let status_name = format!("{kind}Status");
    for n in [kind.to_owned(), format!("{kind}List"), spec_name.clone()] {
        r.names.insert(n);
    }
    let version_name = version.get("name").and_then(Value::as_str).unwrap_or("");
    let has_status = props.contains_key("status");
    // Taken until the status type claims it.
    r.names.insert(status_name.clone());
    let required: Vec<&str> = strings(root.get("required"));
    r.warn_unimported_root(root, &required, no_spec);

    // The kind: markers and #[kube] on the spec struct.
    let mut kind_markers = Vec::new();
    if required.contains(&"metadata") {
        kind_markers.push(format!("+{}", names::OPGEN_METADATA_REQUIRED));
    }
    kind_markers.extend(subresource_and_column_markers(version, has_status));

    let mut kube = kube_attributes(
        kv,
        version_name,
        no_spec,
        has_status.then_some(&status_name),
    );
    // Root CEL rules: kube-derive's `validation = "..."` when each is a bare rule (what a
    // kube-derive CRD holds), `+opgen:root:XValidation` markers when any has more (a message,
    // a reason, ...), as `import go` writes a Go kind type's.
    let root_rules = root
        .get("x-kubernetes-validations")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    let bare = |rule: &Value| {
        rule.as_object()
            .is_some_and(|o| o.len() == 1 && o.contains_key("rule"))
    };
    if root_rules.iter().all(bare) {
        for rule in root_rules {
            kube.push(format!(
                "validation = {}",
                rust_str(rule["rule"].as_str().unwrap_or_default())
            ));
        }
    } else {
        let markers = r.cel_rules(root_rules, "", names::OPGEN_ROOT_X_VALIDATION);
        kind_markers.extend(markers);
    }
    kube.push("schema = \"disabled\"".to_owned());
    if let Some(doc) = root.get("description").and_then(Value::as_str) {
        kube.push(format!("doc = {}", rust_str(doc)));
    }

    // The spec struct, then the status and every nested type.
    let fields_node;
    let spec_node = if no_spec {
        let node = fields_node_of(props, &required);
        fields_node = node;
        &fields_node
    } else {
        props
            .get("spec")
            .and_then(Value::as_object)
            .unwrap_or(&empty)
    };
    // The status's default is the root type's (kube-derive writes the `status` field), spelled
    // `+opgen:status:default` on the kind as `import go` spells a Go Status field's; on the
    // status struct it would be a type's default, which `manifests` refuses.
    let status_node = props.get("status").and_then(Value::as_object).map(|s| {
        let mut s = s.clone();
        if let Some(d) = s.remove("default") {
            kind_markers.push(format!("+{}={d}", names::OPGEN_STATUS_DEFAULT));
        }
        s
    });
    let spec_item = r.spec_struct(&spec_name, spec_node, kind_markers, &kube);
    r.items.insert(0, spec_item);
    if let Some(status) = &status_node {
        r.names.remove(&status_name);
        let insert_at = r.items.len();
        let typed = r.node(status, &status_name, Place::Type, ".status");
        if typed.ty != status_name {
            // A status that is not an object with fields: a newtype-free alias would not
            // satisfy kube's `status = ...`; keep it as a struct-less alias and warn.
            r.warn(
                ".status",
                "the status is not an object with properties; it is imported as an alias".into(),
            );
            let mut item = String::new();
            push_doc(
                &mut item,
                "",
                status.get("description").and_then(Value::as_str),
            );
            push_markers(&mut item, "", &typed.markers);
            let _ = writeln!(item, "pub type {status_name} = {};", typed.ty);
            r.items.insert(insert_at, item);
        }
    }

    Rendered {
        source: r.source(header, version_name),
        warnings: r.warnings,
    }
}

/// The kind's markers for its subresources and printer columns.
fn subresource_and_column_markers(version: &Map<String, Value>, has_status: bool) -> Vec<String> {
    let empty = Map::new();
    let mut kind_markers = Vec::new();
    let subresources = version
        .get("subresources")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let status_subresource = subresources.contains_key("status");
    if status_subresource && !has_status {
        kind_markers.push(format!("+{}", names::KUBEBUILDER_SUBRESOURCE_STATUS));
    }
    if has_status && !status_subresource {
        kind_markers.push(format!("+{}", names::OPGEN_STATUS_NOSUBRESOURCE));
    }
    if let Some(scale) = subresources.get("scale") {
        let mut m = format!(
            "+{}:specpath={},statuspath={}",
            names::KUBEBUILDER_SUBRESOURCE_SCALE,
            marker_string(scale["specReplicasPath"].as_str().unwrap_or_default()),
            marker_string(scale["statusReplicasPath"].as_str().unwrap_or_default()),
        );
        if let Some(sel) = scale.get("labelSelectorPath").and_then(Value::as_str) {
            let _ = write!(m, ",selectorpath={}", marker_string(sel));
        }
        kind_markers.push(m);
    }
    for c in version
        .get("additionalPrinterColumns")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let s = |k: &str| c.get(k).and_then(Value::as_str).unwrap_or_default();
        let mut m = format!(
            "+{}:name={},type={},JSONPath={}",
            names::KUBEBUILDER_PRINTCOLUMN,
            marker_string(s("name")),
            marker_string(s("type")),
            marker_string(s("jsonPath"))
        );
        if !s("description").is_empty() {
            let _ = write!(m, ",description={}", marker_string(s("description")));
        }
        if !s("format").is_empty() {
            let _ = write!(m, ",format={}", marker_string(s("format")));
        }
        if let Some(p) = c
            .get("priority")
            .and_then(Value::as_i64)
            .filter(|p| *p != 0)
        {
            let _ = write!(m, ",priority={p}");
        }
        kind_markers.push(m);
    }
    kind_markers
}

/// The spec struct's `#[kube(...)]` keys: names, scope, status, metadata, selectable fields,
/// served/storage/deprecated.
fn kube_attributes(
    kv: &KindVersion,
    version_name: &str,
    no_spec: bool,
    status_name: Option<&String>,
) -> Vec<String> {
    let (kind, version) = (kv.kind, kv.version);
    let mut kube = vec![
        format!("group = {}", rust_str(kv.group)),
        format!("version = {}", rust_str(version_name)),
        format!("kind = {}", rust_str(kind)),
        format!("plural = {}", rust_str(kv.plural)),
    ];
    if kv.singular != kv.default_singular {
        kube.push(format!("singular = {}", rust_str(kv.singular)));
    }
    if kv.namespaced {
        kube.push("namespaced".to_owned());
    }
    if no_spec {
        kube.push("no_spec".to_owned());
    }
    if let Some(status_name) = status_name {
        kube.push(format!("status = {}", rust_str(status_name)));
    }
    for s in kv.short_names {
        kube.push(format!("shortname = {}", rust_str(s)));
    }
    for c in kv.categories {
        kube.push(format!("category = {}", rust_str(c)));
    }
    for (k, v) in kv.annotations {
        kube.push(format!("annotation({}, {})", rust_str(k), rust_str(v)));
    }
    for (k, v) in kv.labels {
        kube.push(format!("label({}, {})", rust_str(k), rust_str(v)));
    }
    for f in version
        .get("selectableFields")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if let Some(p) = f.get("jsonPath").and_then(Value::as_str) {
            kube.push(format!("selectable = {}", rust_str(p)));
        }
    }
    if version.get("served") == Some(&Value::Bool(false)) {
        kube.push("served = false".to_owned());
    }
    if kv.several_versions {
        if version.get("storage") == Some(&Value::Bool(true)) {
            kube.push("storage".to_owned());
        } else {
            kube.push("storage = false".to_owned());
        }
    }
    if version.get("deprecated") == Some(&Value::Bool(true)) {
        match version.get("deprecationWarning").and_then(Value::as_str) {
            Some(w) => kube.push(format!("deprecated = {}", rust_str(w))),
            None => kube.push("deprecated".to_owned()),
        }
    }
    kube
}

/// The struct node of a kind without a spec: the root's fields but the object's own.
fn fields_node_of(props: &Map<String, Value>, required: &[&str]) -> Map<String, Value> {
    let top = |k: &String| matches!(k.as_str(), "apiVersion" | "kind" | "metadata" | "status");
    let fields: Map<String, Value> = props
        .iter()
        .filter(|(k, _)| !top(k))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let required: Vec<Value> = required
        .iter()
        .filter(|r| **r != "metadata")
        .map(|r| Value::String((*r).to_owned()))
        .collect();
    let mut node = Map::new();
    node.insert("type".into(), Value::String("object".into()));
    if !fields.is_empty() {
        node.insert("properties".into(), Value::Object(fields));
    }
    if !required.is_empty() {
        node.insert("required".into(), Value::Array(required));
    }
    node
}

impl Renderer<'_> {
    /// The file: the header, the module doc, the imports the items need, then the items.
    fn source(&self, header: &str, version_name: &str) -> String {
        let kind = self.kind;
        let mut out = String::new();
        out.push_str(header);
        let _ = writeln!(
            out,
            "//! The `{kind}` kind, version `{version_name}`, imported from its CRD by `opgen import crd`."
        );
        out.push_str("//!\n//! The doc comments are the CRD's descriptions and the `+` markers its validations:\n//! edit them with the types, then run `make manifests` to regenerate the CRD.\n");
        if !self.doc_lints.is_empty() {
            let lints: Vec<String> = self
                .doc_lints
                .iter()
                .map(|l| format!("clippy::{l}"))
                .collect();
            let _ = writeln!(
                out,
                "\n// The doc comments are the CRD's descriptions, word for word.\n#![allow({})]",
                lints.join(", ")
            );
        }
        out.push('\n');
        let mut k8s_uses: Vec<String> = self
            .k8s_imports
            .iter()
            .map(|p| format!("use k8s_openapi::{p};\n"))
            .collect();
        if self.int_or_string {
            k8s_uses
                .push("use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;\n".into());
        }
        k8s_uses.sort();
        for u in k8s_uses {
            out.push_str(&u);
        }
        out.push_str("use kube::CustomResource;\nuse serde::{Deserialize, Serialize};\n");
        if self.btree_map {
            out.push_str("use std::collections::BTreeMap;\n");
        }
        for item in &self.items {
            out.push('\n');
            out.push_str(item);
        }
        out
    }
}

impl<'a> Renderer<'a> {
    fn new(kind: &'a str, k8s: Option<&K8sTypes>) -> Self {
        let known = k8s.map_or_else(Vec::new, |k8s| {
            K8S_TYPES
                .iter()
                .filter_map(|path| {
                    let mut schema = k8s.schema(path)?;
                    let description = schema.remove("description");
                    Some((*path, schema, description))
                })
                .collect()
        });
        Renderer {
            kind,
            names: RESERVED.iter().map(|s| (*s).to_owned()).collect(),
            items: Vec::new(),
            warnings: Vec::new(),
            btree_map: false,
            int_or_string: false,
            doc_lints: BTreeSet::new(),
            k8s: known,
            k8s_imports: BTreeSet::new(),
            parents: Vec::new(),
        }
    }

    /// Warnings for what the root of the schema says that the kind's Rust types cannot.
    fn warn_unimported_root(
        &mut self,
        root: &Map<String, Value>,
        required: &[&str],
        no_spec: bool,
    ) {
        for (key, _) in root {
            if !matches!(
                key.as_str(),
                "type" | "properties" | "required" | "description" | "x-kubernetes-validations"
            ) {
                self.warn(
                    "",
                    format!("`{key}` at the root of the schema is not imported"),
                );
            }
        }
        if let Some(m) = root.get("properties").and_then(|p| p.get("metadata"))
            && m != &serde_json::json!({"type": "object"})
        {
            self.warn(
                ".metadata",
                "its schema is not imported: opgen writes `metadata: {type: object}`".into(),
            );
        }
        if !no_spec && !required.contains(&"spec") {
            self.warn(
                ".spec",
                "the CRD makes spec optional; kube-derive's root type always requires it".into(),
            );
        }
    }

    fn warn(&mut self, path: &str, message: String) {
        let at = if path.is_empty() { "." } else { path };
        self.warnings.push(format!("{at}: {message}"));
    }

    /// A fresh type name from `hint`, prefixed with the kind (`CertificateIssuerRef`): the
    /// kinds of one API version share a module (`pub use <kind>_types::*`), where two kinds'
    /// `IssuerRef`s would be ambiguous. Numbered when taken.
    fn type_name(&mut self, hint: &str, owner: &str) -> String {
        // `TDSetStatus` stays as it is (heck would make it `TdSetStatus`).
        let named = hint.starts_with(owner) && hint.chars().all(|c| c.is_ascii_alphanumeric());
        let base = if named {
            hint.to_owned()
        } else {
            hint.to_upper_camel_case()
        };
        let base = if base.starts_with(owner) {
            base
        } else {
            format!("{owner}{base}")
        };
        let mut name = base.clone();
        // Taken: the parent's name in front (`TDSetConditionStatus`), then a number.
        if self.names.contains(&name)
            && let Some(parent) = self.parents.last()
        {
            let own = base.strip_prefix(owner).unwrap_or(&base);
            let candidate = format!("{parent}{own}");
            if !self.names.contains(&candidate) {
                name = candidate;
            }
        }
        let mut n = 2;
        while self.names.contains(&name) {
            name = format!("{base}{n}");
            n += 1;
        }
        self.names.insert(name.clone());
        name
    }

    fn spec_struct(
        &mut self,
        name: &str,
        node: &Map<String, Value>,
        mut markers: Vec<String>,
        kube: &[String],
    ) -> String {
        let mut rest = node.clone();
        rest.remove("description");
        self.parents.push(name.to_owned());
        let (fields, default) = self.fields(&mut rest, ".spec");
        self.parents.pop();
        rest.remove("type");
        markers.extend(
            self.constraints(&mut rest, ".spec")
                .into_iter()
                .map(|m| struct_type_for_map_type(&m)),
        );
        self.leftovers(&rest, ".spec");
        let mut item = String::new();
        self.doc(&mut item, "", node.get("description"));
        push_markers(&mut item, "", &markers);
        let derive = if default {
            "CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq"
        } else {
            "CustomResource, Serialize, Deserialize, Clone, Debug, PartialEq"
        };
        let _ = writeln!(item, "#[derive({derive})]");
        item.push_str("#[kube(\n");
        for k in kube {
            let _ = writeln!(item, "    {k},");
        }
        item.push_str(")]\n");
        item.push_str(&fields.attrs);
        let _ = writeln!(item, "pub struct {name} {{\n{}}}", fields.body);
        item
    }

    /// The fields of an object node (its `properties` and `required` taken out of `rest`),
    /// and whether every field is optional (the struct can derive Default).
    fn fields(&mut self, rest: &mut Map<String, Value>, path: &str) -> (Fields, bool) {
        let props = rest
            .remove("properties")
            .and_then(|p| p.as_object().cloned())
            .unwrap_or_default();
        let required_value = rest.remove("required");
        let required: Vec<&str> = strings(required_value.as_ref());
        for r in &required {
            if !props.contains_key(*r) {
                self.warn(path, format!("`{r}` is required but not a property"));
            }
        }
        let mut used: HashSet<String> = HashSet::new();
        let mut rows: Vec<(String, String, Typed, bool, Option<&Value>)> = Vec::new();
        for (json_name, schema) in &props {
            let sub_path = format!("{path}.{json_name}");
            let Some(node) = schema.as_object() else {
                self.warn(&sub_path, "not a schema object".into());
                continue;
            };
            let mut rust = field_ident(json_name);
            let mut n = 2;
            while used.contains(&rust) {
                rust = format!("{}_{n}", field_ident(json_name).trim_start_matches("r#"));
                n += 1;
            }
            used.insert(rust.clone());
            let typed = self.node(node, json_name, Place::Field, &sub_path);
            let is_required = required.contains(&json_name.as_str());
            rows.push((
                json_name.clone(),
                rust,
                typed,
                is_required,
                node.get("description"),
            ));
        }
        // camelCase for the struct when it names some field; `rename` for the rest.
        let rename_all = rows.iter().any(|(json, rust, ..)| {
            unraw(rust) != json.as_str() && serde_camel(unraw(rust)) == *json
        });
        let mut body = String::new();
        let mut all_optional = true;
        for (json, rust, typed, is_required, desc) in rows {
            self.doc(&mut body, "    ", desc);
            push_markers(&mut body, "    ", &typed.markers);
            let mut serde_args: Vec<String> = Vec::new();
            let name_ok = if rename_all {
                serde_camel(unraw(&rust)) == json
            } else {
                unraw(&rust) == json
            };
            if !name_ok {
                serde_args.push(format!("rename = {}", rust_str(&json)));
            }
            // An optional list or map is an `Option` too (k8s-openapi's and kopium's
            // convention): the server keeps an empty one apart from an absent one (Cilium's
            // `matchLabels: {}`, a NetworkPolicy's `ingress: []`), and so does serde then.
            let ty = if is_required {
                all_optional = false;
                typed.ty
            } else {
                serde_args.push("default, skip_serializing_if = \"Option::is_none\"".to_owned());
                // A map of maps of maps in an Option is past clippy's type_complexity: the
                // collection gets a name of its own.
                let inner = if generic_depth(&typed.ty) >= 3 {
                    let owner = self.kind.to_owned();
                    let name = self.type_name(&json, &owner);
                    self.items
                        .push(format!("pub type {name} = {};\n", typed.ty));
                    name
                } else {
                    typed.ty
                };
                format!("Option<{inner}>")
            };
            if !serde_args.is_empty() {
                let _ = writeln!(body, "    #[serde({})]", serde_args.join(", "));
            }
            let _ = writeln!(body, "    pub {rust}: {ty},");
        }
        let attrs = if rename_all {
            "#[serde(rename_all = \"camelCase\")]\n".to_owned()
        } else {
            String::new()
        };
        (Fields { attrs, body }, all_optional)
    }

    /// Renders `node` as a type; `hint` names the types it needs.
    fn node(&mut self, node: &Map<String, Value>, hint: &str, place: Place, path: &str) -> Typed {
        if let Some(ty) = self.k8s_type(node, place) {
            return Typed {
                ty,
                markers: Vec::new(),
            };
        }
        let mut rest = node.clone();
        let mut description = rest.remove("description");
        if place == Place::Field
            && let Some(typed) = self.all_of(&mut rest, hint, path)
        {
            return typed;
        }
        let ty_name = rest.get("type").and_then(Value::as_str).map(str::to_owned);

        // Int-or-string, as k8s-openapi's IntOrString writes it.
        let int_or_string_any = serde_json::json!([{"type": "integer"}, {"type": "string"}]);
        if rest.get("x-kubernetes-int-or-string") == Some(&Value::Bool(true))
            && rest.get("anyOf") == Some(&int_or_string_any)
            && ty_name.is_none()
        {
            rest.remove("x-kubernetes-int-or-string");
            rest.remove("anyOf");
            self.int_or_string = true;
            let markers = self.constraints(&mut rest, path);
            self.leftovers(&rest, path);
            return self.wrap(
                place,
                "IntOrString".into(),
                markers,
                description,
                hint,
                path,
            );
        }

        let ty = match ty_name.as_deref() {
            Some("string") => {
                rest.remove("type");
                self.string_enum(&mut rest, hint, place, &mut description)
                    .unwrap_or_else(|| "String".to_owned())
            }
            Some("boolean") => {
                rest.remove("type");
                "bool".to_owned()
            }
            Some("integer") => {
                rest.remove("type");
                integer_type(&mut rest).to_owned()
            }
            Some("number") => {
                rest.remove("type");
                self.number_type(&mut rest, path).to_owned()
            }
            Some("array") => {
                rest.remove("type");
                self.list_type(&mut rest, hint, path)
            }
            Some("object") => {
                let has_props = rest
                    .get("properties")
                    .and_then(Value::as_object)
                    .is_some_and(|p| !p.is_empty());
                let additional = rest.get("additionalProperties").cloned();
                let preserve =
                    rest.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(true));
                // An object without properties is an empty struct: the API server prunes
                // every field of it, and so does serde.
                if has_props || (additional.is_none() && !preserve) {
                    return self.struct_type(rest, description.as_ref(), hint, place, path);
                }
                match additional {
                    Some(Value::Object(values)) if !values.is_empty() => {
                        rest.remove("type");
                        rest.remove("additionalProperties");
                        rest.remove("properties");
                        let value_hint = format!("{}Value", hint.to_upper_camel_case());
                        let value_ty = self
                            .node(&values, &value_hint, Place::Type, &format!("{path}.*"))
                            .ty;
                        self.btree_map = true;
                        format!("BTreeMap<String, {value_ty}>")
                    }
                    _ if preserve && rest.get("additionalProperties").is_none() => {
                        rest.remove("type");
                        rest.remove("properties");
                        rest.remove("x-kubernetes-preserve-unknown-fields");
                        "serde_json::Map<String, serde_json::Value>".to_owned()
                    }
                    _ => {
                        rest.remove("properties");
                        return self.schemaless(rest, description, hint, place, path);
                    }
                }
            }
            None if rest.get("x-kubernetes-preserve-unknown-fields")
                == Some(&Value::Bool(true))
                && !rest.contains_key("x-kubernetes-embedded-resource")
                && !rest.contains_key("x-kubernetes-int-or-string") =>
            {
                rest.remove("x-kubernetes-preserve-unknown-fields");
                "serde_json::Value".to_owned()
            }
            _ => return self.schemaless(rest, description, hint, place, path),
        };
        let markers = self.constraints(&mut rest, path);
        self.leftovers(&rest, path);
        self.wrap(place, ty, markers, description, hint, path)
    }

    /// A number's Rust type from its format (taken out of `rest`): a double or a number
    /// without a format (Go's float64, which keeps `Format=""`) is an `f64`.
    fn number_type(&mut self, rest: &mut Map<String, Value>, path: &str) -> &'static str {
        let format = rest
            .get("format")
            .and_then(Value::as_str)
            .map(str::to_owned);
        match format.as_deref() {
            Some("double") => {
                rest.remove("format");
                "f64"
            }
            Some("float") => {
                rest.remove("format");
                "f32"
            }
            None => {
                // Go's float64: a number without a format.
                rest.insert("format".into(), Value::String(String::new()));
                "f64"
            }
            Some(other) => {
                self.warn(
                    path,
                    format!("the number format `{other}` is not imported (f64 is a double)"),
                );
                rest.remove("format");
                "f64"
            }
        }
    }

    /// A list's Rust type: a `Vec` of its items' type.
    fn list_type(&mut self, rest: &mut Map<String, Value>, hint: &str, path: &str) -> String {
        // Post-processed CRDs (karpenter's) put string checks on a list, where the API
        // server ignores them; no marker can write them there.
        for key in ["maxLength", "minLength", "pattern"] {
            if rest.remove(key).is_some() {
                self.warn(
                    path,
                    format!("`{key}` on an array is not imported: the API server applies it to strings only, and opgen, like controller-gen, refuses it on a list"),
                );
            }
        }
        let items = rest.remove("items");
        let item_ty = match items.as_ref().and_then(Value::as_object) {
            Some(items) => {
                let item_hint = singular(hint);
                self.node(items, &item_hint, Place::Type, &format!("{path}[*]"))
                    .ty
            }
            None => {
                self.warn(
                    path,
                    "an array without items is imported as a list of any JSON".into(),
                );
                "serde_json::Value".to_owned()
            }
        };
        format!("Vec<{item_ty}>")
    }

    /// An object with properties (or none at all) as a struct, written before the types of
    /// its fields; its markers go on the struct, or on the field when it is one.
    fn struct_type(
        &mut self,
        mut rest: Map<String, Value>,
        description: Option<&Value>,
        hint: &str,
        place: Place,
        path: &str,
    ) -> Typed {
        rest.remove("type");
        if rest.remove("additionalProperties").is_some() {
            self.warn(
                path,
                "additionalProperties beside properties is not imported".into(),
            );
        }
        let owner = self.kind.to_owned();
        let name = self.type_name(hint, &owner);
        // The struct comes before the types of its fields.
        let slot = self.items.len();
        self.items.push(String::new());
        self.parents.push(name.clone());
        let (fields, default) = self.fields(&mut rest, path);
        self.parents.pop();
        let markers: Vec<String> = self
            .constraints(&mut rest, path)
            .into_iter()
            .map(|m| struct_type_for_map_type(&m))
            .collect();
        self.leftovers(&rest, path);
        let mut item = String::new();
        if place == Place::Type {
            self.doc(&mut item, "", description);
            push_markers(&mut item, "", &markers);
        }
        let derive = if default {
            "Serialize, Deserialize, Clone, Debug, Default, PartialEq"
        } else {
            "Serialize, Deserialize, Clone, Debug, PartialEq"
        };
        let _ = writeln!(item, "#[derive({derive})]");
        item.push_str(&fields.attrs);
        let _ = writeln!(item, "pub struct {name} {{\n{}}}", fields.body);
        self.items[slot] = item;
        Typed {
            ty: name,
            markers: if place == Place::Field {
                markers
            } else {
                Vec::new()
            },
        }
    }

    /// A string enum as a Rust enum of unit variants (renamed where the value is not the
    /// variant's name), when every value makes a distinct variant name; in a type's place it
    /// carries the description.
    fn string_enum(
        &mut self,
        rest: &mut Map<String, Value>,
        hint: &str,
        place: Place,
        description: &mut Option<Value>,
    ) -> Option<String> {
        let Some(Value::Array(values)) = rest.get("enum") else {
            return None;
        };
        let values: Vec<String> = values
            .iter()
            .map(|v| v.as_str().map(str::to_owned))
            .collect::<Option<_>>()?;
        let variants: Vec<String> = values.iter().map(|v| v.to_upper_camel_case()).collect();
        let distinct: HashSet<&String> = variants.iter().collect();
        let valid = variants
            .iter()
            .all(|v| v.starts_with(|c: char| c.is_ascii_alphabetic()) && v != "Self");
        if values.is_empty() || distinct.len() != variants.len() || !valid {
            return None;
        }
        // clippy's enum_variant_names: three or more variants sharing a first or last word.
        let words =
            |v: &str| -> Vec<String> { v.to_snake_case().split('_').map(str::to_owned).collect() };
        let shared = |pick: fn(&Vec<String>) -> Option<&String>| {
            let all: Vec<Vec<String>> = variants.iter().map(|v| words(v)).collect();
            all.iter().all(|w| w.len() > 1) && all.windows(2).all(|p| pick(&p[0]) == pick(&p[1]))
        };
        if variants.len() >= 3 && (shared(|w| w.first()) || shared(|w| w.last())) {
            return None;
        }
        rest.remove("enum");
        let owner = self.kind.to_owned();
        let name = self.type_name(hint, &owner);
        let mut item = String::new();
        if place == Place::Type {
            self.doc(&mut item, "", description.take().as_ref());
        }
        item.push_str("#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]\n");
        let _ = writeln!(item, "pub enum {name} {{");
        for (value, variant) in values.iter().zip(&variants) {
            if variant != value {
                let _ = writeln!(item, "    #[serde(rename = {})]", rust_str(value));
            }
            let _ = writeln!(item, "    {variant},");
        }
        item.push_str("}\n");
        self.items.push(item);
        Some(name)
    }

    /// `allOf: [A, B]` on a field, as opgen writes it when a field's markers and its type's
    /// constrain the same keyword: a type alias carrying A, the field carrying B.
    fn all_of(&mut self, rest: &mut Map<String, Value>, hint: &str, path: &str) -> Option<Typed> {
        let Some(Value::Array(parts)) = rest.get("allOf") else {
            return None;
        };
        let [Value::Object(a), Value::Object(b)] = parts.as_slice() else {
            return None;
        };
        let (a, b) = (a.clone(), b.clone());
        rest.remove("allOf");
        let mut base = Map::new();
        for key in [
            "type",
            "format",
            "items",
            "additionalProperties",
            "anyOf",
            "x-kubernetes-int-or-string",
        ] {
            if let Some(v) = rest.remove(key) {
                base.insert(key.to_owned(), v);
            }
        }
        base.extend(a);
        let typed = self.node(&base, hint, Place::Type, path);
        rest.extend(b);
        let markers = self.constraints(rest, path);
        self.leftovers(rest, path);
        Some(Typed {
            ty: typed.ty,
            markers,
        })
    }

    /// The k8s-openapi type whose schema `node` is, if any (the description aside: on a field,
    /// the field's doc gives it).
    fn k8s_type(&mut self, node: &Map<String, Value>, place: Place) -> Option<String> {
        if self.k8s.is_empty() {
            return None;
        }
        let mut bare = node.clone();
        let description = bare.remove("description");
        let path = self
            .k8s
            .iter()
            .find(|(_, schema, own)| {
                *schema == bare
                    && match place {
                        Place::Field => description.is_some() || own.is_none(),
                        Place::Type => description == *own,
                    }
            })
            .map(|(path, ..)| *path)?;
        let name = path.rsplit("::").next().unwrap_or(path);
        if self.k8s_imports.contains(path) {
            return Some(name.to_owned());
        }
        if self.names.insert(name.to_owned()) {
            self.k8s_imports.insert(path);
            Some(name.to_owned())
        } else {
            Some(format!("k8s_openapi::{path}"))
        }
    }

    /// A node no Rust type describes: `serde_json::Value` with Schemaless and markers (on a
    /// field only: Schemaless is a field marker).
    fn schemaless(
        &mut self,
        mut rest: Map<String, Value>,
        description: Option<Value>,
        hint: &str,
        place: Place,
        path: &str,
    ) -> Typed {
        let node_type = rest
            .remove("type")
            .and_then(|t| t.as_str().map(str::to_owned));
        let mut markers = Vec::new();
        if place == Place::Type {
            self.warn(
                path,
                "a list item or map value without a Rust type is imported as any JSON (preserving unknown fields)".into(),
            );
        } else {
            markers.push(format!("+{}", names::KUBEBUILDER_VALIDATION_SCHEMALESS));
            if let Some(t) = &node_type {
                markers.push(format!("+{}={t}", names::KUBEBUILDER_VALIDATION_TYPE));
            }
        }
        markers.extend(self.constraints(&mut rest, path));
        self.leftovers(&rest, path);
        self.wrap(
            place,
            "serde_json::Value".into(),
            markers,
            description,
            hint,
            path,
        )
    }

    /// On a field, the type and its markers as they are; in a type's place, an alias carrying
    /// the doc and markers when there are any.
    #[allow(clippy::too_many_arguments)]
    fn wrap(
        &mut self,
        place: Place,
        ty: String,
        markers: Vec<String>,
        description: Option<Value>,
        hint: &str,
        path: &str,
    ) -> Typed {
        if place == Place::Field {
            return Typed { ty, markers };
        }
        let has_doc = description
            .as_ref()
            .and_then(Value::as_str)
            .is_some_and(|d| !d.is_empty());
        if markers.is_empty() && !has_doc {
            return Typed { ty, markers };
        }
        let type_markers: Vec<String> = markers
            .into_iter()
            .filter(|m| {
                let field_only = [
                    names::NULLABLE,
                    names::KUBEBUILDER_EXAMPLE,
                    names::KUBEBUILDER_VALIDATION_SCHEMALESS,
                ]
                .iter()
                .any(|name| m.strip_prefix('+').is_some_and(|t| t.starts_with(name)))
                    || m.contains("default=");
                if field_only {
                    self.warn(
                        path,
                        format!("`{m}` applies to fields only and is not imported here"),
                    );
                }
                !field_only
            })
            .collect();
        let owner = self.kind.to_owned();
        let name = self.type_name(hint, &owner);
        let mut item = String::new();
        self.doc(&mut item, "", description.as_ref());
        push_markers(&mut item, "", &type_markers);
        let _ = writeln!(item, "pub type {name} = {ty};");
        self.items.push(item);
        Typed {
            ty: name,
            markers: Vec::new(),
        }
    }

    /// One `<marker>:rule=...,message=...` per CEL rule of an `x-kubernetes-validations` list.
    fn cel_rules(&mut self, rules: &[Value], path: &str, marker: &str) -> Vec<String> {
        const KEYS: [&str; 5] = [
            "rule",
            "message",
            "messageExpression",
            "reason",
            "fieldPath",
        ];
        let mut out = Vec::new();
        for rule in rules {
            let Some(o) = rule.as_object() else { continue };
            let mut args: Vec<String> = KEYS
                .iter()
                .filter_map(|key| {
                    let s = o.get(*key)?.as_str()?;
                    Some(format!("{key}={}", quoted_string(s)))
                })
                .collect();
            if let Some(b) = o.get("optionalOldSelf").and_then(Value::as_bool) {
                args.push(format!("optionalOldSelf={b}"));
            }
            for key in o.keys() {
                if !KEYS.contains(&key.as_str()) && key != "optionalOldSelf" {
                    self.warn(path, format!("the CEL rule key `{key}` is not imported"));
                }
            }
            out.push(format!("+{marker}:{}", args.join(",")));
        }
        out
    }

    /// The markers of the validation keys of `rest` (taken out of it).
    fn constraints(&mut self, rest: &mut Map<String, Value>, path: &str) -> Vec<String> {
        let mut m = Vec::new();
        for (key, name) in [
            ("maximum", names::KUBEBUILDER_VALIDATION_MAXIMUM),
            ("minimum", names::KUBEBUILDER_VALIDATION_MINIMUM),
            ("multipleOf", names::KUBEBUILDER_VALIDATION_MULTIPLE_OF),
            ("maxLength", names::KUBEBUILDER_VALIDATION_MAX_LENGTH),
            ("minLength", names::KUBEBUILDER_VALIDATION_MIN_LENGTH),
            ("maxItems", names::KUBEBUILDER_VALIDATION_MAX_ITEMS),
            ("minItems", names::KUBEBUILDER_VALIDATION_MIN_ITEMS),
            (
                "maxProperties",
                names::KUBEBUILDER_VALIDATION_MAX_PROPERTIES,
            ),
            (
                "minProperties",
                names::KUBEBUILDER_VALIDATION_MIN_PROPERTIES,
            ),
        ] {
            if let Some(n) = rest.remove(key) {
                m.push(format!("+{name}={n}"));
            }
        }
        for (key, name) in [
            (
                "exclusiveMaximum",
                names::KUBEBUILDER_VALIDATION_EXCLUSIVE_MAXIMUM,
            ),
            (
                "exclusiveMinimum",
                names::KUBEBUILDER_VALIDATION_EXCLUSIVE_MINIMUM,
            ),
            ("uniqueItems", names::KUBEBUILDER_VALIDATION_UNIQUE_ITEMS),
        ] {
            if rest.remove(key) == Some(Value::Bool(true)) {
                m.push(format!("+{name}=true"));
            }
        }
        if let Some(p) = rest.remove("pattern") {
            m.push(format!(
                "+{}={}",
                names::KUBEBUILDER_VALIDATION_PATTERN,
                marker_string(p.as_str().unwrap_or_default())
            ));
        }
        if let Some(f) = rest.remove("format") {
            let f = f.as_str().unwrap_or_default();
            m.push(format!(
                "+{}={}",
                names::KUBEBUILDER_VALIDATION_FORMAT,
                marker_string_or_empty(f)
            ));
        }
        if let Some(Value::Array(values)) = rest.remove("enum") {
            let items: Vec<String> = values.iter().map(marker_any).collect();
            m.push(format!(
                "+{}={}",
                names::KUBEBUILDER_VALIDATION_ENUM,
                items.join(";")
            ));
        }
        for (key, name) in [
            (
                "x-kubernetes-int-or-string",
                names::KUBEBUILDER_VALIDATION_X_INT_OR_STRING,
            ),
            (
                "x-kubernetes-embedded-resource",
                names::KUBEBUILDER_VALIDATION_X_EMBEDDED_RESOURCE,
            ),
            (
                "x-kubernetes-preserve-unknown-fields",
                names::KUBEBUILDER_PRUNING_PRESERVE_UNKNOWN_FIELDS,
            ),
        ] {
            if rest.remove(key) == Some(Value::Bool(true)) {
                m.push(format!("+{name}"));
            }
        }
        if let Some(t) = rest.remove("x-kubernetes-list-type") {
            m.push(format!(
                "+{}={}",
                names::LIST_TYPE,
                t.as_str().unwrap_or_default()
            ));
        }
        if let Some(Value::Array(keys)) = rest.remove("x-kubernetes-list-map-keys") {
            for k in keys {
                m.push(format!(
                    "+{}={}",
                    names::LIST_MAP_KEY,
                    k.as_str().unwrap_or_default()
                ));
            }
        }
        if let Some(t) = rest.remove("x-kubernetes-map-type") {
            m.push(format!(
                "+{}={}",
                names::MAP_TYPE,
                t.as_str().unwrap_or_default()
            ));
        }
        if let Some(Value::Array(rules)) = rest.remove("x-kubernetes-validations") {
            m.extend(self.cel_rules(&rules, path, names::KUBEBUILDER_VALIDATION_X_VALIDATION));
        }
        if rest.remove("nullable") == Some(Value::Bool(true)) {
            m.push(format!("+{}", names::NULLABLE));
        }
        if let Some(d) = rest.remove("default") {
            m.push(match &d {
                Value::Array(_) | Value::Object(_) | Value::Null => {
                    format!("+{}={d}", names::DEFAULT)
                }
                other => format!("+{}={}", names::KUBEBUILDER_DEFAULT, marker_any(other)),
            });
        }
        if let Some(t) = rest.remove("title") {
            m.push(format!(
                "+{}={}",
                names::KUBEBUILDER_TITLE,
                serde_json::to_string(t.as_str().unwrap_or_default()).expect("a string serializes")
            ));
        }
        if let Some(e) = rest.remove("example") {
            m.push(format!(
                "+{}={}",
                names::KUBEBUILDER_EXAMPLE,
                marker_any(&e)
            ));
        }
        if let Some(Value::Object(docs)) = rest.remove("externalDocs") {
            let mut s = format!(
                "+{}:url={}",
                names::KUBEBUILDER_EXTERNAL_DOCS,
                marker_string(docs.get("url").and_then(Value::as_str).unwrap_or_default())
            );
            if let Some(d) = docs.get("description").and_then(Value::as_str) {
                let _ = write!(s, ",description={}", marker_string(d));
            }
            m.push(s);
        }
        m
    }

    fn leftovers(&mut self, rest: &Map<String, Value>, path: &str) {
        for key in rest.keys() {
            self.warn(path, format!("`{key}` is not imported"));
        }
    }

    fn doc(&mut self, out: &mut String, indent: &str, description: Option<&Value>) {
        let Some(text) = description.and_then(Value::as_str) else {
            return;
        };
        if let Some(problem) = doc_problem(text) {
            self.warnings.push(format!(
                "a description cannot be written as a doc comment word for word ({problem}): {:?}",
                text.chars().take(60).collect::<String>()
            ));
        }
        if text.lines().any(|l| {
            let t = l.trim_start();
            t.starts_with(['-', '*', '+']) || t.starts_with(|c: char| c.is_ascii_digit())
        }) {
            self.doc_lints.insert("doc_lazy_continuation");
            self.doc_lints.insert("doc_overindented_list_items");
        }
        if text.contains('\t') {
            self.doc_lints.insert("tabs_in_doc_comments");
        }
        push_doc(out, indent, Some(text));
    }
}

/// Why opgen would read `text` back differently from a doc comment (`model::doc_text`).
fn doc_problem(text: &str) -> Option<&'static str> {
    let mut in_code = false;
    let mut blank_run = false;
    for line in text.split('\n') {
        let t = line.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            in_code = !in_code;
        }
        if t.strip_prefix('+')
            .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_alphabetic()))
        {
            return Some("a line reads as a marker");
        }
        if !in_code && (line.starts_with("TODO") || line.starts_with("---")) {
            return Some("a line starts with TODO or ---");
        }
        if line.trim_end() != line {
            return Some("trailing whitespace");
        }
        if line.is_empty() && blank_run {
            return Some("blank lines in a row");
        }
        blank_run = line.is_empty();
    }
    if text.starts_with('\n') || text.ends_with('\n') {
        return Some("leading or trailing blank lines");
    }
    None
}

struct Fields {
    attrs: String,
    body: String,
}

fn push_doc(out: &mut String, indent: &str, text: Option<&str>) {
    let Some(text) = text.filter(|t| !t.is_empty()) else {
        return;
    };
    for line in text.split('\n') {
        if line.is_empty() {
            let _ = writeln!(out, "{indent}///");
        } else {
            let _ = writeln!(out, "{indent}/// {line}");
        }
    }
}

fn push_markers(out: &mut String, indent: &str, markers: &[String]) {
    for m in markers {
        let _ = writeln!(out, "{indent}// {m}");
    }
}

fn strings(v: Option<&Value>) -> Vec<&str> {
    v.and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// A Rust string literal.
pub(crate) fn rust_str(s: &str) -> String {
    format!("{s:?}")
}

/// A marker argument of type string: bare when the grammar reads it back unchanged, else in
/// backquotes (raw) or double quotes (escaped).
fn marker_string(s: &str) -> String {
    let bare = !s.is_empty()
        && s.trim() == s
        && !s.contains([',', ';', '}', '"', '`', '\n', '\r', '\t'])
        && !s.starts_with('{');
    if bare {
        s.to_owned()
    } else if !s.contains(['`', '\n', '\r']) {
        format!("`{s}`")
    } else {
        serde_json::to_string(s).expect("a string serializes")
    }
}

/// How deep generic arguments nest in a Rust type: 3 in `A<B<C<D>>>`.
fn generic_depth(ty: &str) -> usize {
    let mut depth: usize = 0;
    let mut deepest = 0;
    for c in ty.chars() {
        match c {
            '<' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            '>' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

/// A marker argument always quoted (CEL rules and messages read better so): in backquotes
/// unless it holds one or a line break.
fn quoted_string(s: &str) -> String {
    if s.contains(['`', '\n', '\r']) {
        serde_json::to_string(s).expect("a string serializes")
    } else {
        format!("`{s}`")
    }
}

/// An integer's Rust type from its format (taken out of `rest`): Go's `int`, as wide as a
/// pointer, has no format.
fn integer_type(rest: &mut Map<String, Value>) -> &'static str {
    let format = rest
        .get("format")
        .and_then(Value::as_str)
        .map(str::to_owned);
    match format.as_deref() {
        Some("int32") => {
            rest.remove("format");
            "i32"
        }
        Some("int64") => {
            rest.remove("format");
            "i64"
        }
        _ => "isize",
    }
}

/// A struct's `+mapType=` marker as `+structType=`, which is what a struct's says.
fn struct_type_for_map_type(m: &str) -> String {
    let map_type = format!("+{}=", names::MAP_TYPE);
    let struct_type = format!("+{}=", names::STRUCT_TYPE);
    m.replacen(&map_type, &struct_type, 1)
}

fn marker_string_or_empty(s: &str) -> String {
    if s.is_empty() {
        "\"\"".to_owned()
    } else {
        marker_string(s)
    }
}

/// A value in the marker grammar's guessed (`any`) syntax.
fn marker_any(v: &Value) -> String {
    match v {
        Value::String(s) => {
            let guessed_other =
                s == "true" || s == "false" || s.parse::<i64>().is_ok() || s.parse::<f64>().is_ok();
            if guessed_other {
                serde_json::to_string(s).expect("a string serializes")
            } else {
                let m = marker_string(s);
                if m.starts_with('`') {
                    serde_json::to_string(s).expect("a string serializes")
                } else {
                    m
                }
            }
        }
        Value::Array(items) => format!(
            "{{{}}}",
            items.iter().map(marker_any).collect::<Vec<_>>().join(",")
        ),
        Value::Object(map) => format!(
            "{{{}}}",
            map.iter()
                .map(|(k, v)| format!(
                    "{}: {}",
                    serde_json::to_string(k).expect("a string serializes"),
                    marker_any(v)
                ))
                .collect::<Vec<_>>()
                .join(",")
        ),
        other => other.to_string(),
    }
}

/// The Rust field name of a JSON property.
pub(crate) fn field_ident(json: &str) -> String {
    let mut s = json.to_snake_case();
    if s.is_empty() || s.starts_with(|c: char| c.is_ascii_digit()) {
        s = format!("field_{s}");
    }
    if NOT_RAW.contains(&s.as_str()) {
        format!("{s}_")
    } else if KEYWORDS.contains(&s.as_str()) {
        format!("r#{s}")
    } else {
        s
    }
}

pub(crate) fn unraw(s: &str) -> &str {
    s.strip_prefix("r#").unwrap_or(s)
}

/// serde's `rename_all = "camelCase"` of a snake_case field name.
pub(crate) fn serde_camel(field: &str) -> String {
    let mut pascal = String::new();
    let mut capitalize = true;
    for ch in field.chars() {
        if ch == '_' {
            capitalize = true;
        } else if capitalize {
            pascal.push(ch.to_ascii_uppercase());
            capitalize = false;
        } else {
            pascal.push(ch);
        }
    }
    match pascal.chars().next() {
        Some(first) => first.to_ascii_lowercase().to_string() + &pascal[first.len_utf8()..],
        None => pascal,
    }
}

/// The name of one item of a list field (`containers` → `Container`).
fn singular(name: &str) -> String {
    let pascal = name.to_upper_camel_case();
    if let Some(stem) = pascal.strip_suffix("ies") {
        format!("{stem}y")
    } else if pascal.ends_with("sses") || pascal.ends_with("xes") || pascal.ends_with("ches") {
        pascal[..pascal.len() - 2].to_owned()
    } else if pascal.ends_with('s')
        && !["ss", "us", "is", "as"].iter().any(|e| pascal.ends_with(e))
        && pascal.len() > 1
    {
        pascal[..pascal.len() - 1].to_owned()
    } else {
        format!("{pascal}Item")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(field_ident("apiVersion"), "api_version");
        assert_eq!(field_ident("type"), "r#type");
        assert_eq!(field_ident("self"), "self_");
        assert_eq!(serde_camel("api_version"), "apiVersion");
        assert_eq!(serde_camel("type"), "type");
        assert_eq!(singular("containers"), "Container");
        assert_eq!(singular("policies"), "Policy");
        assert_eq!(singular("data"), "DataItem");
        assert_eq!(singular("hostsAlias"), "HostsAliasItem");
    }

    #[test]
    fn a_small_kind_reads_like_hand_written_rust() {
        let version = serde_json::json!({
            "name": "v1", "served": true, "storage": true,
            "subresources": {"status": {}},
            "additionalPrinterColumns": [{"jsonPath": ".spec.size", "name": "Size", "type": "integer"}],
            "schema": {"openAPIV3Schema": {
                "description": "Memcached is the Schema for the memcacheds API",
                "type": "object",
                "required": ["spec"],
                "properties": {
                    "apiVersion": {"type": "string"}, "kind": {"type": "string"},
                    "metadata": {"type": "object"},
                    "spec": {"type": "object", "required": ["imageRef"], "properties": {
                        "size": {"type": "integer", "format": "int32", "minimum": 1,
                                 "description": "size is the number of pods."},
                        "imageRef": {"type": "object", "properties": {
                            "name": {"type": "string", "maxLength": 63}}},
                        "tags": {"type": "array", "items": {"type": "string"},
                                 "x-kubernetes-list-type": "set"},
                        "type": {"type": "string", "enum": ["A", "B"]},
                        "mode": {"type": "string", "enum": ["read-only", "ReadWrite"]}
                    }},
                    "status": {"type": "object", "properties": {
                        "ready": {"type": "boolean"}}}
                }
            }}
        });
        let rendered = render(
            &KindVersion {
                group: "cache.example.com",
                kind: "Memcached",
                plural: "memcacheds",
                default_singular: "memcached",
                singular: "memcached",
                namespaced: true,
                short_names: &["mc".to_owned()],
                categories: &[],
                annotations: &[],
                labels: &[],
                version: version.as_object().unwrap(),
                several_versions: false,
            },
            "",
            None,
        );
        assert!(rendered.warnings.is_empty(), "{:?}", rendered.warnings);
        let src = rendered.source;
        for want in [
            "// +kubebuilder:printcolumn:name=Size,type=integer,JSONPath=.spec.size",
            "    shortname = \"mc\",",
            "    status = \"MemcachedStatus\",",
            "#[serde(rename_all = \"camelCase\")]\npub struct MemcachedSpec {",
            "    pub image_ref: MemcachedImageRef,",
            "    /// size is the number of pods.\n    // +kubebuilder:validation:Minimum=1\n",
            "    pub size: Option<i32>,",
            "    // +listType=set\n    #[serde(default, skip_serializing_if = \"Option::is_none\")]\n    pub tags: Option<Vec<String>>,",
            "    pub r#type: Option<MemcachedType>,",
            "pub enum MemcachedType {\n    A,\n    B,\n}",
            "pub enum MemcachedMode {\n    #[serde(rename = \"read-only\")]\n    ReadOnly,\n    ReadWrite,\n}",
            "    // +kubebuilder:validation:MaxLength=63\n",
            "#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]\npub struct MemcachedStatus {",
        ] {
            assert!(src.contains(want), "missing {want:?} in\n{src}");
        }
    }

    #[test]
    fn marker_values() {
        assert_eq!(marker_string("a,b"), "`a,b`");
        assert_eq!(marker_string(".spec.x"), ".spec.x");
        assert_eq!(marker_any(&Value::String("1".into())), "\"1\"");
        assert_eq!(marker_any(&serde_json::json!(["a", "b"])), "{a,b}");
    }
}
