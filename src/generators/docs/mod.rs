//! The API reference (`opgen docs`): each group version's kinds and the types they reach, with
//! every field's JSON name, type, required flag, default, constraints and CEL rules.
//!
//! Type names come from the model (the CRD schema has inlined them away); everything the schema
//! says of a field comes from the CRD the CRD generator built, found by walking the model's types
//! and the schema side by side, so no constraint is computed twice.

pub mod convert;
pub mod render;

use crate::generators::crd::Crd;
use crate::model::{Kind, Model, Shape, Ty, TypeId, VariantContent};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};

/// The formats of the reference. Markdown is what the walk writes; the others are rendered
/// from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Markdown,
    Asciidoc,
    Html,
}

impl Format {
    /// The extension of the documents.
    pub fn extension(self) -> &'static str {
        match self {
            Format::Markdown => "md",
            Format::Asciidoc => "adoc",
            Format::Html => "html",
        }
    }

    /// The index's file name: the one a forge or a web server shows for the directory.
    pub fn index_name(self) -> &'static str {
        match self {
            Format::Markdown => "README.md",
            Format::Asciidoc => "README.adoc",
            Format::Html => "index.html",
        }
    }

    /// A Markdown document of the reference in this format.
    pub fn render(self, markdown: String) -> String {
        match self {
            Format::Markdown => markdown,
            Format::Asciidoc => convert::asciidoc(&markdown),
            Format::Html => convert::html(&markdown),
        }
    }
}

/// One group version's reference.
#[derive(Debug)]
pub struct GroupVersion {
    pub group: String,
    pub version: String,
    pub kinds: Vec<KindDoc>,
    /// Every type the kinds reach, by name (then Rust path), each with a unique anchor.
    pub types: Vec<TypeDoc>,
}

impl GroupVersion {
    /// `group/version`, as `apiVersion` spells it.
    pub fn api_version(&self) -> String {
        format!("{}/{}", self.group, self.version)
    }
}

#[derive(Debug)]
pub struct KindDoc {
    pub kind: String,
    pub plural: String,
    pub short_names: Vec<String>,
    pub scope: String,
    pub doc: String,
    pub columns: Vec<Column>,
    /// apiVersion, kind, metadata, spec and status as the root schema has them.
    pub fields: Vec<FieldDoc>,
    /// CEL rules on the whole object (`+opgen:root:XValidation`).
    pub rules: Vec<Rule>,
}

#[derive(Debug)]
pub struct Column {
    pub name: String,
    pub ty: String,
    pub json_path: String,
    pub description: String,
}

#[derive(Debug)]
pub struct TypeDoc {
    pub name: String,
    /// The section's heading: the name, and its Rust module where another type has the name.
    pub title: String,
    pub anchor: String,
    pub doc: String,
    /// For a type that is another one on the wire (an alias, a newtype): that type.
    pub underlying: Option<TypeRef>,
    pub fields: Vec<FieldDoc>,
    /// Constraints, enum values and CEL rules of the type's own schema node.
    pub constraints: Constraints,
}

#[derive(Debug)]
pub struct FieldDoc {
    /// Empty for a flattened type that is no struct of the project's (a Kubernetes type, a map):
    /// its fields stand beside the others.
    pub json_name: String,
    pub ty: TypeRef,
    pub required: bool,
    pub doc: String,
    pub constraints: Constraints,
}

/// What the schema node of a field or type says beyond its type.
#[derive(Debug, Default)]
pub struct Constraints {
    pub default: Option<Value>,
    /// `name: value` pairs (`minimum: 1`, `items.maxLength: 5`), in the schema's key order.
    pub limits: Vec<(String, Value)>,
    pub enum_values: Vec<Value>,
    pub rules: Vec<Rule>,
}

#[derive(Debug, Clone)]
pub struct Rule {
    pub rule: String,
    pub message: Option<String>,
}

/// A field's type as the reference names it.
#[derive(Debug, Clone, PartialEq)]
pub enum TypeRef {
    /// string, integer, boolean, float, object...
    Basic(String),
    /// A type of this group version: its section's anchor.
    Local {
        name: String,
        anchor: String,
    },
    /// A Kubernetes type: its entry in the Kubernetes API reference.
    Kubernetes {
        name: String,
        url: String,
    },
    Array(Box<TypeRef>),
    Map(Box<TypeRef>),
}

/// The reference of every group version the CRDs define, sorted by group then version.
/// `k8s_minor` picks the Kubernetes API reference that Kubernetes types link to.
pub fn generate(model: &Model, crds: &[Crd], k8s_minor: u32) -> Vec<GroupVersion> {
    let mut by_gv: BTreeMap<(String, String), Vec<(&Kind, &Crd)>> = BTreeMap::new();
    for kind in &model.kinds {
        let Some(crd) = crds
            .iter()
            .find(|c| c.group == kind.group && c.kind == kind.kind)
        else {
            continue;
        };
        for v in &kind.versions {
            by_gv
                .entry((kind.group.clone(), v.version.clone()))
                .or_default()
                .push((kind, crd));
        }
    }
    by_gv
        .into_iter()
        .map(|((group, version), mut kinds)| {
            kinds.sort_by(|a, b| a.0.kind.cmp(&b.0.kind));
            let mut walk = Walk {
                model,
                k8s_minor,
                nodes: Vec::new(),
                seen: HashMap::new(),
                anchors: HashMap::new(),
            };
            // First every type the kinds reach, then their anchors, then the sections that
            // link to them.
            for (kind, crd) in &kinds {
                walk.kind(kind, crd, &version);
            }
            let order = walk.assign_anchors();
            let kinds: Vec<KindDoc> = kinds
                .into_iter()
                .filter_map(|(kind, crd)| walk.kind(kind, crd, &version))
                .collect();
            let types = order
                .into_iter()
                .map(|i| {
                    let (id, node, flattened) = walk.nodes[i].clone();
                    walk.type_doc(id, &node, flattened)
                })
                .collect();
            GroupVersion {
                group,
                version,
                kinds,
                types,
            }
        })
        .collect()
}

/// The types of one group version, each with the first schema node it was met at.
struct Walk<'m, 'a> {
    model: &'m Model<'a>,
    k8s_minor: u32,
    /// Each type with its schema node; a type met only flattened into another has the other's
    /// node, whose constraints are not its own (None).
    nodes: Vec<(TypeId, Value, bool)>,
    seen: HashMap<TypeId, usize>,
    /// Each type's section heading and anchor.
    anchors: HashMap<TypeId, (String, String)>,
}

impl Walk<'_, '_> {
    fn kind(&mut self, kind: &Kind, crd: &Crd, version: &str) -> Option<KindDoc> {
        let model_version = kind.versions.iter().find(|v| v.version == version)?;
        let spec = &crd.object["spec"];
        let crd_version = spec["versions"]
            .as_array()?
            .iter()
            .find(|v| v["name"] == version)?;
        let root = &crd_version["schema"]["openAPIV3Schema"];
        let strings = |v: &Value| -> Vec<String> {
            v.as_array()
                .into_iter()
                .flatten()
                .filter_map(|s| s.as_str().map(str::to_owned))
                .collect()
        };
        let columns = crd_version["additionalPrinterColumns"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|c| Column {
                name: text(&c["name"]),
                ty: text(&c["type"]),
                json_path: text(&c["jsonPath"]),
                description: text(&c["description"]),
            })
            .collect();
        let mut fields = Vec::new();
        for name in ["apiVersion", "kind", "metadata"] {
            if let Some(node) = root["properties"].get(name) {
                let ty = match name {
                    "metadata" => self.k8s_ref("apimachinery::pkg::apis::meta::v1::ObjectMeta"),
                    _ => TypeRef::Basic("string".into()),
                };
                fields.push(self.field(name, ty, root, node));
            }
        }
        let spec_ty = Ty::Named(model_version.spec);
        let status_ty = model_version.status.clone();
        let spec_ty = if model_version.attrs.no_spec {
            // kube-derive's `no_spec`: the struct's fields are the root's.
            if let Shape::Struct(fs) = &self.model.type_def(model_version.spec).shape {
                self.struct_fields(fs, root, &mut fields);
            }
            None
        } else {
            Some(spec_ty)
        };
        for (name, ty) in [("spec", spec_ty), ("status", status_ty)] {
            if let (Some(ty), Some(node)) = (ty, root["properties"].get(name)) {
                let ty = self.visit(&ty, node);
                fields.push(self.field(name, ty, root, node));
            }
        }
        Some(KindDoc {
            kind: kind.kind.clone(),
            plural: text(&spec["names"]["plural"]),
            short_names: strings(&spec["names"]["shortNames"]),
            scope: text(&spec["scope"]),
            doc: text(&root["description"]),
            columns,
            fields,
            rules: constraints(root).rules,
        })
    }

    fn field(&self, name: &str, ty: TypeRef, parent: &Value, node: &Value) -> FieldDoc {
        FieldDoc {
            json_name: name.to_owned(),
            ty,
            required: is_required(parent, name),
            doc: text(&node["description"]),
            constraints: constraints(node),
        }
    }

    /// The reference to `ty`, whose schema is `node`; records the named types it reaches.
    fn visit(&mut self, ty: &Ty, node: &Value) -> TypeRef {
        match ty {
            Ty::Bool => TypeRef::Basic("boolean".into()),
            Ty::String => TypeRef::Basic("string".into()),
            Ty::Integer { .. } => TypeRef::Basic("integer".into()),
            Ty::Float { .. } => TypeRef::Basic("float".into()),
            Ty::Bytes { .. } => TypeRef::Basic("string".into()),
            Ty::Json | Ty::Unit => TypeRef::Basic("JSON".into()),
            Ty::JsonObject => TypeRef::Basic("object".into()),
            Ty::Option(inner) => self.visit(inner, node),
            Ty::List { item, .. } => TypeRef::Array(Box::new(self.visit(item, &node["items"]))),
            Ty::Map(value) => {
                TypeRef::Map(Box::new(self.visit(value, &node["additionalProperties"])))
            }
            Ty::K8s(path) => self.k8s_ref(path),
            Ty::Foreign { path, known } => TypeRef::Basic(match known {
                Some(k) if k.is_string() => "string".into(),
                _ => node["type"]
                    .as_str()
                    .map_or_else(|| last_segment(path).to_owned(), str::to_owned),
            }),
            Ty::Named(id) => {
                self.record(*id, node, false);
                let def = self.model.type_def(*id);
                TypeRef::Local {
                    name: def.name.clone(),
                    anchor: self
                        .anchors
                        .get(id)
                        .map(|(a, _)| a.clone())
                        .unwrap_or_default(),
                }
            }
        }
    }

    fn record(&mut self, id: TypeId, node: &Value, flattened: bool) {
        if !self.seen.contains_key(&id) {
            self.seen.insert(id, self.nodes.len());
            self.nodes.push((id, node.clone(), flattened));
            self.reach(id, node);
        }
    }

    /// Visits the types `id`'s fields and variants name.
    fn reach(&mut self, id: TypeId, node: &Value) {
        let model = self.model;
        match &model.type_def(id).shape {
            Shape::Struct(fields) => {
                for f in fields {
                    match (f.flatten, named_id(&f.ty)) {
                        (true, Some(flat)) => self.record(flat, node, true),
                        _ => {
                            self.visit(&f.ty, &node["properties"][&f.json_name]);
                        }
                    }
                }
            }
            Shape::Wrapper(inner) => {
                self.visit(inner, node);
            }
            Shape::DataEnum { variants, .. } => {
                for v in variants {
                    let child = &node["properties"][&v.json_name];
                    match &v.content {
                        VariantContent::Newtype(ty) => {
                            self.visit(ty, child);
                        }
                        VariantContent::Struct(fields) => {
                            for f in fields {
                                self.visit(&f.ty, &child["properties"][&f.json_name]);
                            }
                        }
                        VariantContent::Unit | VariantContent::Tuple(_) => {}
                    }
                }
            }
            Shape::UnitEnum(_) | Shape::Opaque | Shape::DisplayString | Shape::Invalid => {}
        }
    }

    fn k8s_ref(&self, path: &str) -> TypeRef {
        let segments: Vec<&str> = path.split("::").collect();
        let name = segments.last().copied().unwrap_or(path).to_owned();
        if name == "ByteString" {
            return TypeRef::Basic("string".into());
        }
        // The Go package's last two elements, as the Kubernetes reference's anchors have them:
        // `api::core::v1::PodSpec` is `#podspec-v1-core`, meta's types `-v1-meta`.
        let (group, version) = match segments.as_slice() {
            [.., group, version, _] => (group.replace('_', "-"), *version),
            _ => (String::new(), ""),
        };
        let group = if group == "apiextensions" {
            "apiextensions-k8s-io".to_owned()
        } else {
            group
        };
        TypeRef::Kubernetes {
            url: format!(
                "https://kubernetes.io/docs/reference/generated/kubernetes-api/v1.{}/#{}-{version}-{group}",
                self.k8s_minor,
                name.to_lowercase()
            ),
            name,
        }
    }

    /// Gives every recorded type a unique anchor; returns their order in the reference (by
    /// name, then Rust path).
    fn assign_anchors(&mut self) -> Vec<usize> {
        let model = self.model;
        let mut order: Vec<usize> = (0..self.nodes.len()).collect();
        order.sort_by(|&a, &b| {
            let (da, db) = (
                model.type_def(self.nodes[a].0),
                model.type_def(self.nodes[b].0),
            );
            (&da.name, &da.path).cmp(&(&db.name, &db.path))
        });
        let mut used: HashMap<String, usize> = HashMap::new();
        for &i in &order {
            let def = model.type_def(self.nodes[i].0);
            let n = used.entry(def.name.clone()).or_default();
            *n += 1;
            // A second type of one name is told apart by its module (headings must differ).
            let title = if *n == 1 {
                def.name.clone()
            } else {
                let module = def.path.rsplit_once("::").map_or("", |(m, _)| m);
                format!("{} ({module})", def.name)
            };
            self.anchors
                .insert(self.nodes[i].0, (anchor_of(&title), title));
        }
        order
    }

    fn type_doc(&mut self, id: TypeId, node: &Value, flattened: bool) -> TypeDoc {
        let model = self.model;
        let def = model.type_def(id);
        let mut fields = Vec::new();
        let mut underlying = None;
        match &def.shape {
            Shape::Struct(fs) => self.struct_fields(fs, node, &mut fields),
            Shape::Wrapper(inner) => underlying = Some(self.visit(inner, node)),
            Shape::DataEnum { variants, .. } => {
                for v in variants {
                    let child = &node["properties"][&v.json_name];
                    let ty = match &v.content {
                        VariantContent::Newtype(ty) => self.visit(ty, child),
                        _ => TypeRef::Basic(child["type"].as_str().unwrap_or("object").to_owned()),
                    };
                    fields.push(FieldDoc {
                        json_name: v.json_name.clone(),
                        ty,
                        required: is_required(node, &v.json_name),
                        doc: nonempty(text(&child["description"]), &v.doc),
                        constraints: constraints(child),
                    });
                }
            }
            Shape::UnitEnum(_) | Shape::DisplayString | Shape::Opaque | Shape::Invalid => {
                underlying = node["type"].as_str().map(|t| TypeRef::Basic(t.to_owned()));
            }
        }
        TypeDoc {
            name: def.name.clone(),
            title: self.anchors[&id].1.clone(),
            anchor: self.anchors[&id].0.clone(),
            doc: nonempty(def.doc.clone(), node["description"].as_str().unwrap_or("")),
            underlying,
            fields,
            constraints: if flattened {
                Constraints::default()
            } else {
                constraints(node)
            },
        }
    }

    /// A struct's fields, a flattened field's in its place (as serde writes them).
    fn struct_fields(&mut self, fs: &[crate::model::Field], node: &Value, out: &mut Vec<FieldDoc>) {
        for f in fs {
            if f.flatten
                && let Some(id) = named_id(&f.ty)
                && let Shape::Struct(inner) = &self.model.type_def(id).shape
            {
                self.struct_fields(inner, node, out);
                continue;
            }
            if f.flatten {
                let ty = self.visit(&f.ty, node);
                out.push(FieldDoc {
                    json_name: String::new(),
                    ty,
                    required: false,
                    doc: f.doc.clone(),
                    constraints: Constraints::default(),
                });
                continue;
            }
            let child = &node["properties"][&f.json_name];
            let ty = self.visit(&f.ty, child);
            out.push(FieldDoc {
                json_name: f.json_name.clone(),
                ty,
                required: is_required(node, &f.json_name),
                doc: nonempty(text(&child["description"]), &f.doc),
                constraints: constraints(child),
            });
        }
    }
}

/// The type `ty` names (through `Option`), if it names one.
fn named_id(ty: &Ty) -> Option<TypeId> {
    match ty {
        Ty::Option(inner) => named_id(inner),
        Ty::Named(id) => Some(*id),
        _ => None,
    }
}

fn is_required(parent: &Value, name: &str) -> bool {
    parent["required"]
        .as_array()
        .is_some_and(|r| r.iter().any(|n| n == name))
}

fn text(v: &Value) -> String {
    v.as_str().unwrap_or_default().to_owned()
}

fn nonempty(first: String, fallback: &str) -> String {
    if first.is_empty() {
        fallback.to_owned()
    } else {
        first
    }
}

fn last_segment(path: &str) -> &str {
    path.rsplit("::").next().unwrap_or(path)
}

/// A heading's anchor as GitHub and markdownlint make it: lower case, punctuation but `-` and
/// `_` dropped, spaces as `-`.
pub fn anchor_of(heading: &str) -> String {
    heading
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c.to_ascii_lowercase()),
            _ => None,
        })
        .collect()
}

/// The keys of a schema node that constrain its values, in the order the reference lists them.
const LIMITS: &[&str] = &[
    "format",
    "minimum",
    "exclusiveMinimum",
    "maximum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "pattern",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minProperties",
    "maxProperties",
    "nullable",
    "x-kubernetes-list-type",
    "x-kubernetes-list-map-keys",
    "x-kubernetes-map-type",
    "x-kubernetes-preserve-unknown-fields",
    "x-kubernetes-embedded-resource",
    "x-kubernetes-int-or-string",
];

/// What `node` says beyond its type; an array's item limits as `items.<key>`.
pub fn constraints(node: &Value) -> Constraints {
    let mut limits = Vec::new();
    let mut push_limits = |prefix: &str, node: &Value| {
        for key in LIMITS {
            if let Some(v) = node.get(*key) {
                limits.push((format!("{prefix}{key}"), v.clone()));
            }
        }
    };
    push_limits("", node);
    let items = &node["items"];
    if items.is_object() && items.get("properties").is_none() {
        push_limits("items.", items);
    }
    let rules = node["x-kubernetes-validations"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|r| Rule {
            rule: text(&r["rule"]),
            message: r["message"].as_str().map(str::to_owned),
        })
        .collect();
    let enum_values = node["enum"]
        .as_array()
        .or_else(|| items["enum"].as_array())
        .cloned()
        .unwrap_or_default();
    Constraints {
        default: node.get("default").cloned(),
        limits,
        enum_values,
        rules,
    }
}
