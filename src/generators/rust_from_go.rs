//! Rust from Go API packages (`opgen import go`): the types of every package with a
//! `+groupName` as marker-annotated Rust, one file per Go file, written the way the conformance
//! fixtures port Go by hand, so that `opgen manifests` writes the CRDs controller-gen writes
//! from the Go. Types of other packages the API names (another package of the module, another
//! module, k8s.io named types k8s-openapi has no type for) go to `src/api/upstream/`, one file
//! per package, only those reachable. Markers are carried verbatim; a marker opgen does not
//! know (controller-gen ignores those) is left out with a warning at its Go line.
//!
//! A Go kind (a `+kubebuilder:object:root` type embedding TypeMeta and ObjectMeta) becomes
//! kube-derive's `#[derive(CustomResource)]` on its spec struct: the kind's doc is
//! `#[kube(doc)]`, its markers stand on the spec struct, whose doc is the `Spec` field's; the
//! status type carries the `Status` field's doc (kube's root `status` takes the type's).

use super::crd::k8s::K8sTypes;
use super::rust_types::{KEYWORDS, field_ident, rust_str, serde_camel, unraw};
use crate::diag::{Diagnostic, Error, Result};
use crate::load_go::{ExprKind, GoComment, GoExpr, GoField, GoMarker, GoPackage, GoType, Pos};
use crate::markers::catalog::{MarkerCatalog, Target};
use crate::markers::grammar;
use crate::markers::typed::{
    self, PackageMarker, ResourceMarker, SchemaMarker, Scope, Typed, names,
};
use crate::pluralize;
use heck::ToSnakeCase;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::fmt::Write as _;

/// Where the project keeps API modules.
pub struct Layout {
    /// `src/api/<group>/<version>/` rather than `src/api/<version>/`.
    pub multigroup: bool,
    /// The project's domain: groups sharing a first label are named by what precedes it
    /// (`foo.policy.example.org` → `foo_policy`).
    pub domain: String,
}

/// A kind the import declares, for PROJECT.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportedKind {
    pub group: String,
    pub version: String,
    pub kind: String,
    pub plural: String,
    pub namespaced: bool,
    /// The Rust module holding its types, below the crate (`api::v1`).
    pub module: String,
    /// The Go package that declares it (its import path).
    pub package: String,
}

#[derive(Debug, Default)]
pub struct Rendered {
    /// Path below the project → Rust source (not yet formatted).
    pub files: BTreeMap<String, String>,
    pub kinds: Vec<ImportedKind>,
    pub warnings: Vec<Diagnostic>,
}

/// One API package: its group and version.
struct Api {
    group: String,
    version: String,
}

/// How a Rust type behaves for serde's `default`/`skip_serializing_if`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Shape {
    Option,
    String,
    Vec,
    Map,
    /// Numbers and bools: serde's default, never skipped.
    Scalar,
    /// Structs and other types with a `Default`.
    Other,
}

struct Ty {
    text: String,
    shape: Shape,
}

/// A Go type by package path and name.
type TypeKey = (String, String);

struct Generator<'a> {
    packages: HashMap<&'a str, &'a GoPackage>,
    apis: BTreeMap<&'a str, Api>,
    /// Where each emitted package's Rust lives: (directory, module path below the crate).
    modules: BTreeMap<String, (String, String)>,
    catalog: &'static MarkerCatalog,
    /// Go types to write, found from the API packages.
    emit: BTreeSet<TypeKey>,
    /// Kind types (written as kube's root, not as structs) and their spec/status roles.
    kinds: BTreeMap<TypeKey, KindPlan>,
    /// Types a Schemaless field holds, and all they hold: no schema checks their fields.
    unvalidated: HashSet<TypeKey>,
    /// Types with their own MarshalJSON written as the JSON it writes ([`Generator::own_json`]).
    held_as_json: HashSet<TypeKey>,
    warnings: Vec<Diagnostic>,
    errors: Vec<Diagnostic>,
}

/// How a Go kind becomes kube-derive's root.
struct KindPlan {
    kind: String,
    /// The Rust struct that derives CustomResource, and whether the generator writes it
    /// (a wrapper) or it is the Go spec type itself.
    spec_struct: String,
    wrapper: Option<Wrapper>,
    /// The Go status type, as a Rust path from the kind's file.
    status: Option<(TypeKey, Vec<GoComment>)>,
    /// A status struct of the kind's own flattening another kind's: name, that type, doc.
    status_wrapper: Option<(String, GoExpr, Vec<GoComment>)>,
    markers: Vec<String>,
    kube: Vec<String>,
}

/// The kind's own Go status type (kube's `status`), with the Status field's doc.
type StatusPlan = Option<(TypeKey, Vec<GoComment>)>;
/// A status struct of the kind's own flattening another kind's: name, that type, doc.
type StatusWrapper = Option<(String, GoExpr, Vec<GoComment>)>;

#[derive(Clone)]
enum Wrapper {
    /// `#[serde(flatten)]` of the Go spec type (in another package, or shared by kinds).
    Flatten(GoExpr, Vec<GoComment>),
    /// The Go kind has no Spec: its own fields, kube's `no_spec`.
    Fields(Vec<GoField>),
    /// Nothing at all besides metadata (and status).
    Empty,
}

const METAV1: &str = "k8s.io/apimachinery/pkg/apis/meta/v1";

pub fn render(packages: &[GoPackage], layout: &Layout, header: &str) -> Result<Rendered> {
    let mut g = Generator {
        packages: packages.iter().map(|p| (p.path.as_str(), p)).collect(),
        apis: BTreeMap::new(),
        modules: BTreeMap::new(),
        catalog: MarkerCatalog::get(),
        emit: BTreeSet::new(),
        kinds: BTreeMap::new(),
        unvalidated: HashSet::new(),
        held_as_json: HashSet::new(),
        warnings: Vec::new(),
        errors: Vec::new(),
    };
    for p in packages.iter().filter(|p| p.root) {
        if let Some(api) = g.api(p) {
            g.apis.insert(&p.path, api);
        }
    }
    if g.apis.is_empty() {
        return Err(Error::with_help(
            "none of the Go packages has a `+groupName` marker, so none is an API package controller-gen writes CRDs for",
            "pass --paths with the packages that hold the API types (their doc.go or groupversion_info.go says `// +groupName=<group>`)",
        ));
    }
    g.place(layout);
    g.find_kinds();
    g.find_types();
    if g.errors.is_empty() {
        g.find_unvalidated();
        g.find_held_as_json();
    }
    if !g.errors.is_empty() {
        return Err(Error {
            diagnostics: std::mem::take(&mut g.errors),
        });
    }
    let mut out = Rendered::default();
    g.write(&mut out, header);
    if !g.errors.is_empty() {
        return Err(Error {
            diagnostics: std::mem::take(&mut g.errors),
        });
    }
    out.warnings = g.warnings;
    Ok(out)
}

/// The value of a package marker `+name=value`, unquoted.
/// A Go marker as the generators read it; `None` for one the grammar refuses (reported where
/// the marker is carried over).
fn typed(m: &GoMarker) -> Option<Typed> {
    typed::parse(MarkerCatalog::get(), &m.text).map(|(_, t)| t)
}

/// How Go spells an embedded type: `*time.Duration`.
fn go_type_name(e: &GoExpr) -> String {
    match e.kind() {
        ExprKind::Pointer(inner) => format!("*{}", go_type_name(inner)),
        ExprKind::Ident(name) => name.to_owned(),
        ExprKind::Qual(q) => format!(
            "{}.{}",
            q.path.rsplit('/').next().unwrap_or(&q.path),
            q.name
        ),
        _ => "a type".to_owned(),
    }
}

/// Whether a Go field has `+kubebuilder:validation:Schemaless`.
fn schemaless(f: &GoField) -> bool {
    f.markers
        .iter()
        .filter_map(typed)
        .any(|m| matches!(m, Typed::Schema(SchemaMarker::Schemaless)))
}

/// Whether a Go field's markers make it optional, and whether they make it required, in
/// controller-gen's schema (each marker parsed once).
fn marked_optional_required(markers: &[GoMarker]) -> (bool, bool) {
    let (mut optional, mut required) = (false, false);
    for m in markers.iter().filter_map(typed) {
        match m {
            Typed::Schema(SchemaMarker::Optional) => optional = true,
            Typed::Schema(SchemaMarker::Required | SchemaMarker::K8sRequired) => required = true,
            _ => {}
        }
    }
    (optional, required)
}

impl<'a> Generator<'a> {
    fn api(&self, p: &GoPackage) -> Option<Api> {
        let (mut group, mut version) = (None, None);
        for m in self.package_markers(p).iter().filter_map(typed) {
            match m {
                Typed::Package(PackageMarker::Skip) => return None,
                Typed::Package(PackageMarker::GroupName(g)) => group = group.or(Some(g)),
                Typed::Package(PackageMarker::VersionName(v)) => version = version.or(Some(v)),
                _ => {}
            }
        }
        Some(Api {
            group: group?,
            version: version.unwrap_or_else(|| p.name.clone()),
        })
    }

    /// The package's markers, with the non-doc markers above its types that only a package
    /// marker is named like (controller-gen moves those to the package).
    fn package_markers(&self, p: &GoPackage) -> Vec<GoMarker> {
        let mut out = p.markers.clone();
        for t in &p.types {
            out.extend(
                t.markers
                    .iter()
                    .filter(|m| self.is_package_marker(m))
                    .cloned(),
            );
        }
        out
    }

    fn is_package_marker(&self, m: &GoMarker) -> bool {
        if m.godoc {
            return false;
        }
        let name = marker_name(&m.text);
        match self.catalog.lookup(name) {
            Some(def) => {
                def.targets.contains(&Target::Package) && !def.targets.contains(&Target::Type)
            }
            None => false,
        }
    }

    /// The directory and module of every API package, and of the packages their types name.
    fn place(&mut self, layout: &Layout) {
        let groups: BTreeSet<&str> = self.apis.values().map(|a| a.group.as_str()).collect();
        for (path, api) in &self.apis {
            let version = module_ident(&api.version);
            let (dir, module) = if layout.multigroup {
                // Two groups with one short name (`foo.example.org`, `foo.policy.k8s.io`)
                // are both named in full.
                let clash = groups
                    .iter()
                    .any(|g| *g != api.group && group_module(g) == group_module(&api.group));
                let group = if clash {
                    long_group_module(&api.group, &layout.domain)
                } else {
                    group_module(&api.group)
                };
                (
                    format!("src/api/{group}/{version}"),
                    format!("api::{group}::{version}"),
                )
            } else {
                (format!("src/api/{version}"), format!("api::{version}"))
            };
            self.modules.insert((*path).to_owned(), (dir, module));
        }
    }

    /// The module of a non-API package: k8s.io's by Kubernetes' own aliases (`corev1`,
    /// `metav1`), others by their module and the package's path in it, without the usual
    /// `pkg`/`apis`/`api` steps (`gateway_api_v1`, `cert_manager_meta_v1`); the whole import path
    /// when that name is taken.
    fn upstream_module(&mut self, path: &str) -> (String, String) {
        if let Some(m) = self.modules.get(path) {
            return m.clone();
        }
        let module = self.packages.get(path).map_or("", |p| p.module.as_str());
        let short = if let Some(rest) = path.strip_prefix("k8s.io/api/") {
            rest.replace('/', "")
        } else if path == METAV1 {
            "metav1".to_owned()
        } else {
            let base = module
                .rsplit('/')
                .find(|s| {
                    !(s.starts_with('v')
                        && s[1..].chars().all(|c| c.is_ascii_digit())
                        && s.len() > 1)
                })
                .unwrap_or(module);
            let rel = path
                .strip_prefix(module)
                .unwrap_or(path)
                .trim_start_matches('/');
            std::iter::once(base)
                .chain(
                    rel.split('/')
                        .filter(|s| !s.is_empty() && !matches!(*s, "pkg" | "apis" | "api")),
                )
                .collect::<Vec<_>>()
                .join("_")
        };
        let taken: HashSet<String> = self.modules.values().map(|(_, m)| m.clone()).collect();
        let mut name = module_ident(&short.replace(['.', '-', '/'], "_"));
        if name.is_empty() || taken.contains(&format!("api::upstream::{name}")) {
            name = module_ident(&path.replace(['.', '-', '/'], "_"));
        }
        let entry = (
            format!("src/api/upstream/{name}.rs"),
            format!("api::upstream::{name}"),
        );
        self.modules.insert(path.to_owned(), entry.clone());
        entry
    }

    fn find_kinds(&mut self) {
        let apis: Vec<&'a GoPackage> = self.apis.keys().map(|p| self.packages[p]).collect();
        // Spec and status types several kinds name: one kind owns each, the others wrap it.
        let mut users: HashMap<TypeKey, Vec<String>> = HashMap::new();
        for p in &apis {
            for t in p.types.iter().filter(|t| is_kind(t)) {
                for f in struct_fields(t)
                    .iter()
                    .filter(|f| f.name == "Spec" || f.name == "Status")
                {
                    if let Some(key) = self.local_key(p, &f.ty) {
                        users.entry(key).or_default().push(t.name.clone());
                    }
                }
            }
        }
        // A spec type that other types' fields name too keeps its own doc there, while the
        // kind's `spec` takes the Spec field's: every kind then wraps it.
        let mut named_elsewhere: HashSet<TypeKey> = HashSet::new();
        let mut spec_with_doc: HashSet<TypeKey> = HashSet::new();
        for p in &apis {
            for t in &p.types {
                if is_kind(t) {
                    for f in struct_fields(t).iter().filter(|f| f.name == "Spec") {
                        if let Some(key) = self.local_key(p, &f.ty)
                            && !describes_nothing(&f.doc)
                        {
                            spec_with_doc.insert(key);
                        }
                    }
                } else {
                    local_names(p, &t.ty, &mut named_elsewhere);
                }
            }
        }
        users.retain(|key, _| !(spec_with_doc.contains(key) && named_elsewhere.contains(key)));
        let owners: HashMap<TypeKey, String> = users
            .into_iter()
            .map(|(key, kinds)| {
                // The kind the type is named after (`IssuerSpec`: Issuer), else the first.
                let owner = kinds
                    .iter()
                    .find(|k| key.1 == format!("{k}Spec") || key.1 == format!("{k}Status"))
                    .unwrap_or(&kinds[0])
                    .clone();
                (key, owner)
            })
            .collect();
        for p in apis {
            let api = &self.apis[p.path.as_str()];
            let (group, version) = (api.group.clone(), api.version.clone());
            for t in p.types.iter().filter(|t| is_kind(t)) {
                if t.generic {
                    self.errors.push(
                        Diagnostic::error(format!(
                            "the kind {} is generic; a CRD kind cannot be",
                            t.name
                        ))
                        .at(t.pos.location()),
                    );
                    continue;
                }
                let plan = self.kind_plan(p, t, &group, &version, &owners);
                self.kinds.insert((p.path.clone(), t.name.clone()), plan);
            }
        }
    }
}

/// A Go kind, as controller-gen finds them: a type of an API package embedding metav1's
/// TypeMeta and ObjectMeta (a list embeds ListMeta); `+kubebuilder:object:root` is deepcopy's.
fn is_kind(t: &GoType) -> bool {
    {
        let embedded = |name: &str| {
            struct_fields(t).iter().any(|f| {
                f.name.is_empty() && matches!(f.ty.kind(), ExprKind::Qual(q) if q.path == METAV1 && q.name == name)
            })
        };
        embedded("TypeMeta") && embedded("ObjectMeta")
    }
}

/// A kind's fields as kube-derive sees them: Spec, Status, and the others.
struct RootFields<'t> {
    spec: Option<&'t GoField>,
    status: Option<&'t GoField>,
    /// Whether the kind has fields besides Spec and Status.
    others: bool,
    /// Spec and the other fields in Go's order, for a kind with fields beside Spec.
    top_level: Vec<GoField>,
}

/// The kind's fields, and the marker that makes metadata required (controller-gen: unless
/// the embedded ObjectMeta is omitempty or marked optional).
fn root_fields<'t>(t: &'t GoType, markers: &mut Vec<String>) -> RootFields<'t> {
    let mut root = RootFields {
        spec: None,
        status: None,
        others: false,
        top_level: Vec::new(),
    };
    for f in struct_fields(t) {
        if f.name.is_empty()
            && let ExprKind::Qual(q) = f.ty.kind()
            && q.path == METAV1
        {
            // controller-gen: required unless omitempty or marked optional.
            let (optional, _) = marked_optional_required(&f.markers);
            if q.name == "ObjectMeta" && !json_options(f).1.omitempty() && !optional {
                markers.push(format!("+{}", names::OPGEN_METADATA_REQUIRED));
            }
            continue;
        }
        match f.name.as_str() {
            "Spec" => {
                root.spec = Some(f);
                root.top_level.push(f.clone());
            }
            "Status" => root.status = Some(f),
            _ if json_options(f).0 == "-" || !f.exported => {}
            _ => {
                root.others = true;
                root.top_level.push(f.clone());
            }
        }
    }
    root
}

/// The kind's #[kube] keys of its API version and `+kubebuilder:resource` marker: group,
/// version, kind, plural, singular, namespaced.
fn resource_kube_keys(t: &GoType, group: &str, version: &str) -> Vec<String> {
    let resource = t.markers.iter().find_map(|m| match typed(m) {
        Some(Typed::Resource(ResourceMarker::Resource(r))) => Some(r),
        _ => None,
    });
    let namespaced = resource
        .as_ref()
        .and_then(|r| r.scope)
        .is_none_or(|s| s != Scope::Cluster);
    let singular = resource.as_ref().and_then(|r| r.singular.clone());
    let plural = resource
        .as_ref()
        .and_then(|r| r.path.clone())
        .unwrap_or_else(|| pluralize::flect_plural(&t.name.to_lowercase()));
    // kube-derive's singular is the lower-cased kind unless #[kube(singular)] says otherwise.
    let kube_singular = t.name.to_lowercase();
    let mut kube = vec![
        format!("group = {}", rust_str(group)),
        format!("version = {}", rust_str(version)),
        format!("kind = {}", rust_str(&t.name)),
        format!("plural = {}", rust_str(&plural)),
    ];
    if let Some(s) = &singular
        && *s != kube_singular
    {
        kube.push(format!("singular = {}", rust_str(s)));
    }
    if namespaced {
        kube.push("namespaced".to_owned());
    }
    kube
}

impl<'a> Generator<'a> {
    /// The key of a type expression naming a struct of the same package (through a pointer).
    fn local_key(&self, p: &GoPackage, e: &GoExpr) -> Option<TypeKey> {
        match e.kind() {
            ExprKind::Pointer(inner) => self.local_key(p, inner),
            ExprKind::Ident(name) if p.find(name).is_some() => {
                Some((p.path.clone(), name.to_owned()))
            }
            _ => None,
        }
    }

    fn kind_plan(
        &mut self,
        p: &GoPackage,
        t: &GoType,
        group: &str,
        version: &str,
        owners: &HashMap<TypeKey, String>,
    ) -> KindPlan {
        let mut markers: Vec<String> = Vec::new();
        let fields = root_fields(t, &mut markers);
        self.kind_type_markers(t, &mut markers);
        let mut kube = resource_kube_keys(t, group, version);
        let (status_plan, status_wrapper) = match fields.status {
            Some(f) => self.status_plan(p, t, f, owners, &mut markers, &mut kube),
            None => (None, None),
        };
        let doc = doc_lines(&t.doc);
        let (spec_struct, wrapper) = self.spec_plan(p, t, fields, owners, &mut markers, &mut kube);
        kube.push("schema = \"disabled\"".to_owned());
        let description = crate::model::doc_text_of_lines(doc.iter().map(|l| l.text.clone()));
        if !description.is_empty() {
            kube.push(format!("doc = {}", rust_str(&description)));
        }
        KindPlan {
            kind: t.name.clone(),
            spec_struct,
            wrapper,
            status: status_plan,
            status_wrapper,
            markers,
            kube,
        }
    }

    /// The kind type's own markers (resource, columns, subresources...), for the spec struct.
    fn kind_type_markers(&mut self, t: &GoType, markers: &mut Vec<String>) {
        for m in &t.markers {
            if self.is_package_marker(m) {
                continue;
            }
            if let Some(text) = self.accept(m, Target::Type) {
                // A rule on the kind type is on the whole object, not on spec.
                let rule = text
                    .strip_prefix('+')
                    .and_then(|t| t.strip_prefix(names::KUBEBUILDER_VALIDATION_X_VALIDATION));
                match rule {
                    Some(rest) => {
                        markers.push(format!("+{}{rest}", names::OPGEN_ROOT_X_VALIDATION));
                    }
                    None => markers.push(text),
                }
            }
        }
    }

    /// The Status field: kube's `status` key, naming the kind's own status struct or a
    /// wrapper of the kind's flattening another's, and what its markers say of the root.
    fn status_plan(
        &mut self,
        p: &GoPackage,
        t: &GoType,
        f: &GoField,
        owners: &HashMap<TypeKey, String>,
        markers: &mut Vec<String>,
        kube: &mut Vec<String>,
    ) -> (StatusPlan, StatusWrapper) {
        let mut status_plan = None;
        let mut status_wrapper = None;
        // controller-gen serves the status subresource only when the kind asks for it.
        if !markers
            .iter()
            .any(|m| m.strip_prefix('+') == Some(names::KUBEBUILDER_SUBRESOURCE_STATUS))
        {
            markers.push(format!("+{}", names::OPGEN_STATUS_NOSUBRESOURCE));
        }
        let target = deref(&f.ty);
        match self.local_key(p, target) {
            Some(key) if owners.get(&key) == Some(&t.name) => {
                kube.push(format!("status = {}", rust_str(&key.1)));
                status_plan = Some((key, f.doc.clone()));
            }
            // Another kind's status type, or one of another package: a struct of this
            // kind's own flattens it, so that it can carry this kind's Status doc.
            _ if self.named_key(p, target).is_some() => {
                let name = self.free_name(p, &format!("{}Status", t.name));
                kube.push(format!("status = {}", rust_str(&name)));
                status_wrapper = Some((name, target.clone(), self.field_or_type_doc(p, f)));
            }
            _ => self.errors.push(
                Diagnostic::error(format!(
                    "the status of {} is not a struct type of its package; kube-derive's `status` needs one",
                    t.name
                ))
                .at(f.pos.location()),
            ),
        }
        self.status_field_markers(f, markers);
        (status_plan, status_wrapper)
    }

    /// The Status field's markers: a default becomes the root's status default; the rest
    /// has no Rust field to go on.
    fn status_field_markers(&mut self, f: &GoField, markers: &mut Vec<String>) {
        for m in &f.markers {
            match typed(m) {
                Some(Typed::Schema(
                    SchemaMarker::Default(_) | SchemaMarker::KubebuilderDefault(_),
                )) => {
                    let value = m.text.split_once('=').map_or("", |(_, v)| v);
                    markers.push(format!("+{}={value}", names::OPGEN_STATUS_DEFAULT));
                }
                Some(Typed::Schema(SchemaMarker::Optional)) => {}
                _ => self.warn(
                    &m.pos,
                    format!(
                        "`{}` on the Status field is left out: kube-derive writes the root type, so no Rust field carries it",
                        m.text
                    ),
                ),
            }
        }
    }

    /// The struct that derives CustomResource: the Go spec type itself, or a wrapper that
    /// flattens it, holds the kind's fields (kube's `no_spec`), or is empty.
    fn spec_plan(
        &mut self,
        p: &GoPackage,
        t: &GoType,
        fields: RootFields<'_>,
        owners: &HashMap<TypeKey, String>,
        markers: &mut Vec<String>,
        kube: &mut Vec<String>,
    ) -> (String, Option<Wrapper>) {
        match fields.spec {
            Some(f) if !fields.others => {
                self.spec_field_markers(f, markers);
                match self.local_key(p, &f.ty) {
                    Some(key) if owners.get(&key) == Some(&t.name) => (key.1, None),
                    _ => (
                        self.free_name(p, &format!("{}Spec", t.name)),
                        Some(Wrapper::Flatten(
                            deref(&f.ty).clone(),
                            self.field_or_type_doc(p, f),
                        )),
                    ),
                }
            }
            None if !fields.others => {
                kube.push("no_spec".to_owned());
                (
                    self.free_name(p, &format!("{}Fields", t.name)),
                    Some(Wrapper::Empty),
                )
            }
            // No Spec, or fields beside it (KEDA's WithTriggers): kube-derive's `no_spec` puts
            // the struct's fields, Spec among them, at the root.
            _ => {
                kube.push("no_spec".to_owned());
                (
                    self.free_name(p, &format!("{}Fields", t.name)),
                    Some(Wrapper::Fields(fields.top_level)),
                )
            }
        }
    }

    /// The Spec field's markers describe `spec`: on the spec struct, where a type marker
    /// does the same (required-ness is kube-derive's: spec is required).
    fn spec_field_markers(&mut self, f: &GoField, markers: &mut Vec<String>) {
        for m in &f.markers {
            if matches!(
                typed(m),
                Some(Typed::Schema(
                    SchemaMarker::Optional | SchemaMarker::Required | SchemaMarker::K8sRequired
                ))
            ) {
                continue;
            }
            let on_type = grammar::parse(self.catalog, &m.text)
                .is_ok_and(|(d, _)| d.targets.contains(&Target::Type) || d.ignored);
            if on_type {
                if let Some(text) = self.accept(m, Target::Type) {
                    markers.push(text);
                }
            } else {
                self.warn(
                    &m.pos,
                    format!("`{}` on the Spec field is left out: kube-derive writes the root type, and opgen takes this marker on fields only", m.text),
                );
            }
        }
    }

    /// A field's doc, or its type's when the field's describes nothing (controller-gen's rule).
    fn field_or_type_doc(&self, p: &GoPackage, f: &GoField) -> Vec<GoComment> {
        if !describes_nothing(&f.doc) {
            return f.doc.clone();
        }
        self.named_key(p, deref(&f.ty))
            .and_then(|(path, name)| self.packages.get(path.as_str())?.find(&name))
            .map_or_else(|| f.doc.clone(), |t| t.doc.clone())
    }

    /// `name`, or `name` with a number when the package has a type so named.
    fn free_name(&self, p: &GoPackage, name: &str) -> String {
        if p.find(name).is_none() {
            return name.to_owned();
        }
        (2..)
            .map(|i| format!("{name}{i}"))
            .find(|n| p.find(n).is_none())
            .expect("a free name")
    }

    /// Every type to write: the API packages' own (but kinds and lists) and what they name.
    fn find_types(&mut self) {
        let mut queue: Vec<TypeKey> = Vec::new();
        for path in self.apis.keys() {
            let p = self.packages[path];
            for t in &p.types {
                let key = (p.path.clone(), t.name.clone());
                if self.kinds.contains_key(&key) || self.is_list(t) {
                    continue;
                }
                if t.generic || matches!(t.ty.kind(), ExprKind::Other(_)) {
                    continue;
                }
                queue.push(key);
            }
        }
        let kinds: Vec<TypeKey> = self.kinds.keys().cloned().collect();
        for key in kinds {
            let p = self.packages[key.0.as_str()];
            let t = p.find(&key.1).expect("a kind type");
            for f in struct_fields(t) {
                if f.name.is_empty() {
                    continue;
                }
                self.collect(p, &f.ty, &mut queue, &f.pos);
            }
        }
        while let Some(key) = queue.pop() {
            if !self.emit.insert(key.clone()) {
                continue;
            }
            let p = self.packages[key.0.as_str()];
            let t = p.find(&key.1).expect("queued types exist");
            if t.generic {
                self.errors.push(
                    Diagnostic::error(format!(
                        "{} is generic: no Rust type is written for a generic Go type",
                        t.name
                    ))
                    .at(t.pos.location()),
                );
                continue;
            }
            if !self.apis.contains_key(key.0.as_str()) {
                self.upstream_module(&key.0);
            }
            self.collect(p, &t.ty, &mut queue, &t.pos);
        }
    }

    /// The types below Schemaless fields ([`Generator::unvalidated`]). The API server keeps
    /// what it is sent there, and Go's decoder reads a missing field as its zero value, so
    /// the Rust types must too (`fields`).
    fn find_unvalidated(&mut self) {
        let mut queue = Vec::new();
        let written: Vec<TypeKey> = self.emit.iter().chain(self.kinds.keys()).cloned().collect();
        for key in written {
            let p = self.packages[key.0.as_str()];
            let t = p.find(&key.1).expect("written types exist");
            for f in struct_fields(t).iter().filter(|f| schemaless(f)) {
                self.collect(p, &f.ty, &mut queue, &f.pos);
            }
        }
        while let Some(key) = queue.pop() {
            if !self.unvalidated.insert(key.clone()) {
                continue;
            }
            let p = self.packages[key.0.as_str()];
            let t = p.find(&key.1).expect("collected types exist");
            self.collect(p, &t.ty, &mut queue, &t.pos);
        }
    }

    /// The types with their own MarshalJSON that are held as that JSON: those controller-gen
    /// describes by their markers alone (a Type marker), and those no schema describes (not
    /// reached from a kind other than through a Schemaless field).
    fn find_held_as_json(&mut self) {
        let mut described: HashSet<TypeKey> = HashSet::new();
        let mut queue: Vec<TypeKey> = self.kinds.keys().cloned().collect();
        while let Some(key) = queue.pop() {
            if !described.insert(key.clone()) {
                continue;
            }
            let p = self.packages[key.0.as_str()];
            let t = p.find(&key.1).expect("collected types exist");
            match t.ty.kind() {
                ExprKind::Struct(fields) => {
                    for f in fields.iter().filter(|f| !schemaless(f)) {
                        self.collect(p, &f.ty, &mut queue, &f.pos);
                    }
                }
                _ => self.collect(p, &t.ty, &mut queue, &t.pos),
            }
        }
        for p in self.packages.values() {
            for t in p.types.iter().filter(|t| t.marshal_json) {
                let key = (p.path.clone(), t.name.clone());
                let type_marker = t
                    .markers
                    .iter()
                    .filter_map(typed)
                    .any(|m| matches!(m, Typed::Schema(SchemaMarker::Type(_))));
                if type_marker || !described.contains(&key) {
                    self.held_as_json.insert(key);
                }
            }
        }
    }

    /// Whether `t` is written as the JSON its own `MarshalJSON` writes, held as a
    /// `serde_json::Value`: when controller-gen describes it by its markers alone (it has a
    /// Type marker) or no schema describes it. A type a schema describes by its fields keeps
    /// them, with a warning: the schema and the JSON may differ.
    fn own_json(&self, p: &GoPackage, t: &GoType) -> bool {
        t.marshal_json
            && self
                .held_as_json
                .contains(&(p.path.clone(), t.name.clone()))
    }

    /// Whether Go's encoder inlines `e` when a struct embeds it: a struct, not held as its own
    /// JSON. It writes any other embedded type as a field named by the type.
    fn embeds_struct(&self, p: &GoPackage, e: &GoExpr, depth: usize) -> bool {
        let declared = match deref(e).kind() {
            ExprKind::Ident(name) => p.find(name).map(|t| (p, t)),
            ExprKind::Qual(q) => {
                if let Some(known) = self.known(&q.path, &q.name) {
                    return known.shape == Shape::Other;
                }
                self.packages
                    .get(q.path.as_str())
                    .and_then(|qp| qp.find(&q.name).map(|t| (*qp, t)))
            }
            ExprKind::Struct(_) => return true,
            _ => None,
        };
        declared.is_some_and(|(p, t)| match t.ty.kind() {
            ExprKind::Struct(_) => !self.own_json(p, t),
            _ => depth < 8 && self.embeds_struct(p, &t.ty, depth + 1),
        })
    }

    fn is_list(&self, t: &GoType) -> bool {
        struct_fields(t).iter().any(|f| {
            f.name.is_empty() && matches!(f.ty.kind(), ExprKind::Qual(q) if q.path == METAV1 && q.name == "ListMeta")
        })
    }

    /// Queues the Go types `e` names that the generator writes (not k8s-openapi's).
    fn collect(&mut self, p: &GoPackage, e: &GoExpr, queue: &mut Vec<TypeKey>, at: &Pos) {
        match e.kind() {
            ExprKind::Ident(name) => {
                if p.find(name).is_some() {
                    queue.push((p.path.clone(), name.to_owned()));
                }
            }
            ExprKind::Qual(q) => {
                if self.known(&q.path, &q.name).is_some() {
                    return;
                }
                match self
                    .packages
                    .get(q.path.as_str())
                    .and_then(|qp| qp.find(&q.name).map(|_| qp))
                {
                    Some(qp) => queue.push((qp.path.clone(), q.name.clone())),
                    None => self.errors.push(
                        Diagnostic::error(format!(
                            "cannot resolve the Go type {}.{}",
                            q.path, q.name
                        ))
                        .at(at.location()),
                    ),
                }
            }
            ExprKind::Pointer(i) | ExprKind::Slice(i) | ExprKind::Array(i) => {
                self.collect(p, i, queue, at)
            }
            ExprKind::Map(k, v) => {
                self.collect(p, k, queue, at);
                self.collect(p, v, queue, at);
            }
            ExprKind::Struct(fields) => {
                for f in fields {
                    if f.exported && json_options(f).0 != "-" {
                        self.collect(p, &f.ty, queue, &f.pos);
                    }
                }
            }
            ExprKind::Other(_) => {}
        }
    }

    /// A Go type of another module with a Rust type of its own: k8s-openapi's, or one
    /// controller-gen knows the schema of.
    fn known(&self, path: &str, name: &str) -> Option<Ty> {
        let other = |text: &str| {
            Some(Ty {
                text: text.to_owned(),
                shape: Shape::Other,
            })
        };
        match (path, name) {
            (METAV1, "Duration") => {
                return Some(Ty {
                    text: "String".into(),
                    shape: Shape::String,
                });
            }
            ("time", "Duration") => {
                return Some(Ty {
                    text: "i64".into(),
                    shape: Shape::Scalar,
                });
            }
            ("encoding/json", "RawMessage") => return other("serde_json::Value"),
            ("net/http", "Header") => {
                return Some(Ty {
                    text: "BTreeMap<String, Vec<String>>".into(),
                    shape: Shape::Map,
                });
            }
            _ => {}
        }
        let rest = path.strip_prefix("k8s.io/")?;
        // k8s-openapi's module path, which its index is keyed by.
        let module = rest.replace(['.', '-'], "_").replace('/', "::");
        if K8sTypes::versions_of(&format!("{module}::{name}")).is_empty() {
            return None;
        }
        let rust = format!("k8s_openapi::{module}::{name}");
        other(&rust)
    }

    fn warn(&mut self, at: &Pos, message: String) {
        self.warnings
            .push(Diagnostic::warning(message).at(at.location()));
    }

    /// The marker's text when opgen takes it on `target` (a Go build constraint is no marker);
    /// else a warning and nothing.
    fn accept(&mut self, m: &GoMarker, target: Target) -> Option<String> {
        let name = marker_name(&m.text);
        if name == "build" {
            return None;
        }
        match grammar::parse(self.catalog, &m.text) {
            Ok((def, _)) if def.targets.contains(&target) || def.ignored => {
                Some(m.text.trim_end().to_owned())
            }
            Ok((def, _)) => {
                self.warn(
                    &m.pos,
                    format!(
                        "`{}` is left out: opgen takes `{}` on {}, not on {}",
                        m.text,
                        def.name,
                        def.targets
                            .iter()
                            .map(|t| t.describe())
                            .collect::<Vec<_>>()
                            .join(", "),
                        target.describe()
                    ),
                );
                None
            }
            Err(e) => {
                let mut msg = format!(
                    "`{}` is left out (controller-gen ignores markers it does not know): {}",
                    m.text, e.message
                );
                if let Some(h) = e.help {
                    msg.push_str("; ");
                    msg.push_str(&h);
                }
                self.warn(&m.pos, msg);
                None
            }
        }
    }
}

/// The types of `p` that `e` names, at any depth (fields, pointers, slices, maps).
fn local_names(p: &GoPackage, e: &GoExpr, out: &mut HashSet<TypeKey>) {
    match e.kind() {
        ExprKind::Ident(name) if p.find(name).is_some() => {
            out.insert((p.path.clone(), name.to_owned()));
        }
        ExprKind::Pointer(inner) | ExprKind::Slice(inner) | ExprKind::Array(inner) => {
            local_names(p, inner, out);
        }
        ExprKind::Map(k, v) => {
            local_names(p, k, out);
            local_names(p, v, out);
        }
        ExprKind::Struct(fields) => {
            for f in fields {
                local_names(p, &f.ty, out);
            }
        }
        _ => {}
    }
}

/// The marker's name: up to the `=`, without the `+`.
fn marker_name(text: &str) -> &str {
    let t = text.strip_prefix('+').unwrap_or(text).trim_end();
    // `+name:=value` is `+name=value` to controller-tools (the empty argument name after the
    // last colon is its anonymous argument).
    let name = t.split(['=', ' ']).next().unwrap_or(t);
    if t[name.len()..].starts_with('=') {
        name.strip_suffix(':').unwrap_or(name)
    } else {
        name
    }
}

fn struct_fields(t: &GoType) -> &[GoField] {
    match t.ty.kind() {
        ExprKind::Struct(f) => f,
        _ => &[],
    }
}

fn deref(e: &GoExpr) -> &GoExpr {
    match e.kind() {
        ExprKind::Pointer(inner) => inner,
        _ => e,
    }
}

/// A field's JSON name and options.
struct JsonOptions(Vec<String>);

impl JsonOptions {
    fn omitempty(&self) -> bool {
        self.0.iter().any(|o| o == "omitempty" || o == "omitzero")
    }
    fn inline(&self) -> bool {
        self.0.iter().any(|o| o == "inline")
    }
}

fn json_options(f: &GoField) -> (String, JsonOptions) {
    match f.tag_value("json") {
        Some(v) => {
            let mut parts = v.split(',');
            let name = parts.next().unwrap_or_default().to_owned();
            (name, JsonOptions(parts.map(str::to_owned).collect()))
        }
        None => (String::new(), JsonOptions(Vec::new())),
    }
}

/// A doc comment's lines as Go's text (`// text` → ` text`), each with whether it is a marker.
struct DocLine {
    text: String,
    line: usize,
    /// The comment as written, for a directive Go's doc leaves out.
    directive: Option<String>,
}

fn doc_lines(doc: &[GoComment]) -> Vec<DocLine> {
    let mut out = Vec::new();
    for c in doc {
        if let Some(rest) = c.text.strip_prefix("//") {
            // `//go:generate`, `//nolint:x`: directives, not doc (go/ast's CommentGroup.Text).
            let directive = rest.split_once(':').is_some_and(|(word, _)| {
                !word.is_empty()
                    && word
                        .chars()
                        .all(|ch| ch.is_ascii_lowercase() || ch.is_ascii_digit())
            });
            if directive {
                out.push(DocLine {
                    text: String::new(),
                    line: c.line,
                    directive: Some(c.text.clone()),
                });
                continue;
            }
            out.push(DocLine {
                text: rest.strip_prefix(' ').unwrap_or(rest).to_owned(),
                line: c.line,
                directive: None,
            });
        } else if let Some(body) = c.text.strip_prefix("/*").and_then(|b| b.strip_suffix("*/")) {
            for (i, line) in body.split('\n').enumerate() {
                out.push(DocLine {
                    text: line.trim_end().to_owned(),
                    line: c.line + i,
                    directive: None,
                });
            }
        }
    }
    // controller-gen trims every line of a doc that holds a `/*` comment (go/ast keeps the
    // block's whitespace).
    if doc.iter().any(|c| c.text.starts_with("/*")) {
        for l in &mut out {
            l.text = l.text.trim().to_owned();
        }
    }
    out
}

/// A Rust module name for a version or package name.
fn module_ident(s: &str) -> String {
    let s = s.replace(['-', '.'], "_").to_lowercase();
    if s.starts_with(|c: char| c.is_ascii_digit()) {
        format!("v_{s}")
    } else if KEYWORDS.contains(&s.as_str())
        || matches!(
            s.as_str(),
            "self" | "super" | "crate" | "test" | "core" | "std"
        )
    {
        format!("{s}_")
    } else {
        s
    }
}

/// The module of an API group: its first label (`gateway.networking.k8s.io` → `gateway`), as
/// PROJECT records it (`create webhook` finds the types there).
fn group_module(group: &str) -> String {
    if group.is_empty() {
        return "core".to_owned();
    }
    module_ident(group.split('.').next().unwrap_or(group))
}

/// The module of an API group whose first label another group of the import shares: what
/// precedes the project's domain (`foo_policy` of `foo.policy.example.org`), else the whole group.
fn long_group_module(group: &str, domain: &str) -> String {
    let short = group
        .strip_suffix(domain)
        .and_then(|g| g.strip_suffix('.'))
        .filter(|g| !domain.is_empty() && !g.is_empty())
        .unwrap_or(group);
    module_ident(short)
}

/// Per Go package, its Rust files being written, by module name.
type Files = BTreeMap<String, BTreeMap<String, FileOut>>;

/// Which file declares each type, for `use super::...`.
fn declared_in(files: &Files) -> HashMap<(String, String), String> {
    let mut declared_in: HashMap<(String, String), String> = HashMap::new();
    for (pkg, fs) in files {
        for (stem, f) in fs {
            for name in &f.declared {
                declared_in.insert((pkg.clone(), name.clone()), stem.clone());
            }
        }
    }
    declared_in
}

/// A Rust source file being written: its items and the names it uses.
#[derive(Default)]
struct FileOut {
    items: Vec<String>,
    uses: BTreeSet<String>,
    /// Names declared in the file.
    declared: HashSet<String>,
    btree_map: bool,
    /// Whether a field uses the file's `is_zero` (Go's omitempty on a number or bool).
    is_zero: bool,
    custom_resource: bool,
    doc_lints: BTreeSet<&'static str>,
    /// Names imported from other modules, and from where.
    imported: HashMap<String, String>,
}

impl FileOut {
    /// How the file names `module::name`: imported by a `use`, or by its path where the
    /// name is taken (a type of the file's own package, or another import).
    fn import(&mut self, p: &GoPackage, module: &str, name: &str) -> String {
        let full = format!("{module}::{name}");
        let taken = p.find(name).is_some() || self.imported.get(name).is_some_and(|m| m != module);
        if taken {
            return full;
        }
        self.imported.insert(name.to_owned(), module.to_owned());
        self.uses.insert(full);
        name.to_owned()
    }
}

impl<'a> Generator<'a> {
    fn write(&mut self, out: &mut Rendered, header: &str) {
        let mut files = self.write_types();
        self.write_constants(&mut files);
        let declared_in = declared_in(&files);
        for (pkg, fs) in files {
            if self.apis.contains_key(pkg.as_str()) {
                self.write_api_package(out, header, pkg, fs, &declared_in);
            } else {
                let (dir, _) = self.modules[&pkg].clone();
                let p = self.packages[pkg.as_str()];
                let f = fs
                    .into_values()
                    .next()
                    .expect("one file per upstream package");
                let source = self.finish_file(
                    header,
                    &format!(
                        "Types of the Go package `{}` the imported API uses.",
                        p.path
                    ),
                    f,
                    &pkg,
                    None,
                    &declared_in,
                );
                out.files.insert(dir, source);
            }
        }
        self.write_upstream_index(out, header);
    }

    /// Every type and kind to write, in Go's order, into its file: per package, the Go file's
    /// module (one file for an upstream package).
    fn write_types(&mut self) -> Files {
        let mut files = Files::new();
        let emit: Vec<TypeKey> = self.emit.iter().cloned().collect();
        let kinds: Vec<TypeKey> = self.kinds.keys().cloned().collect();
        let mut order: Vec<(TypeKey, bool)> = emit
            .into_iter()
            .map(|k| (k, false))
            .chain(kinds.into_iter().map(|k| (k, true)))
            .collect();
        // Go order within each file: by position.
        order.sort_by_key(|(k, _)| {
            let t = self.packages[k.0.as_str()].find(&k.1).expect("a type");
            (k.0.clone(), t.pos.file.clone(), t.pos.line)
        });
        for (key, is_kind) in order {
            let p = self.packages[key.0.as_str()];
            let t = p.find(&key.1).expect("a type");
            let file_key = if self.apis.contains_key(key.0.as_str()) {
                let stem = t
                    .pos
                    .file
                    .file_stem()
                    .and_then(|s| s.to_str())
                    .unwrap_or("types");
                module_ident(stem)
            } else {
                String::new()
            };
            let file = files
                .entry(key.0.clone())
                .or_default()
                .entry(file_key)
                .or_default();
            if is_kind {
                self.write_kind(p, t, file);
            } else {
                self.write_type(p, t, file);
            }
        }
        files
    }

    /// The API packages' constants (condition types, reasons, enum values), in their files.
    /// (Only where the package has types: a package of constants alone is no API.)
    fn write_constants(&self, files: &mut Files) {
        let apis: Vec<String> = self
            .apis
            .keys()
            .filter(|p| files.contains_key(**p))
            .map(|p| (*p).to_owned())
            .collect();
        for path in apis {
            let p = self.packages[path.as_str()];
            let mut names = HashSet::new();
            for c in &p.consts {
                // Two Go names one Rust name (`FooBar`, `FOOBar`): the first only.
                if !names.insert(const_ident(&c.name)) {
                    continue;
                }
                let Some(item) = self.constant(p, c) else {
                    continue;
                };
                let lints: Vec<&str> = doc_lines(&c.doc)
                    .iter()
                    .flat_map(|l| doc_lints(&l.text))
                    .collect();
                let stem = c
                    .pos
                    .file
                    .file_stem()
                    .and_then(|s| s.to_str())
                    .unwrap_or("types");
                let file = files
                    .entry(path.clone())
                    .or_default()
                    .entry(module_ident(stem))
                    .or_default();
                // A number's type is the package's named type (a string's is `&str`).
                if !c.value.starts_with('"')
                    && let Some(ty) = c.ty.as_ref().and_then(|t| match t.kind() {
                        ExprKind::Ident(name) => Some(name.to_owned()),
                        _ => None,
                    })
                {
                    file.uses.insert(format!("self::{ty}"));
                }
                file.doc_lints.extend(lints);
                file.items.push(item);
            }
        }
    }

    /// An API package: its `mod.rs` (the package's markers, a module per Go file), the
    /// files, and its kinds for the project.
    fn write_api_package(
        &mut self,
        out: &mut Rendered,
        header: &str,
        pkg: String,
        fs: BTreeMap<String, FileOut>,
        declared_in: &HashMap<(String, String), String>,
    ) {
        let (dir, module) = self.modules[&pkg].clone();
        let p = self.packages[pkg.as_str()];
        let api = &self.apis[pkg.as_str()];
        let api = Api {
            group: api.group.clone(),
            version: api.version.clone(),
        };
        let mut mod_rs = String::from(header);
        let _ = writeln!(
            mod_rs,
            "//! API version `{}` of the `{}` group, imported from the Go package `{}` by `opgen import go`.",
            api.version, api.group, p.path
        );
        mod_rs.push_str("//!\n");
        for m in &self.package_markers(p) {
            if let Some(text) = self.accept(m, Target::Package) {
                let _ = writeln!(mod_rs, "//! {text}");
            }
        }
        mod_rs.push('\n');
        for stem in fs.keys() {
            let _ = writeln!(mod_rs, "mod {stem};");
        }
        mod_rs.push('\n');
        for stem in fs.keys() {
            let _ = writeln!(mod_rs, "pub use {stem}::*;");
        }
        out.files.insert(format!("{dir}/mod.rs"), mod_rs);
        for (stem, f) in fs {
            let source = self.finish_file(
                header,
                &format!("Types of `{}/{stem}.go`.", p.path),
                f,
                &pkg,
                Some(&stem),
                declared_in,
            );
            out.files.insert(format!("{dir}/{stem}.rs"), source);
        }
        let kinds = self.kinds.iter().filter(|(k, _)| k.0 == pkg);
        for (_, k) in kinds {
            let plural = k
                .kube
                .iter()
                .find_map(|a| a.strip_prefix("plural = "))
                .map(|s| s.trim_matches('"').to_owned())
                .unwrap_or_else(|| crate::pluralize::flect_plural(&k.kind.to_lowercase()));
            out.kinds.push(ImportedKind {
                group: api.group.clone(),
                version: api.version.clone(),
                kind: k.kind.clone(),
                plural,
                namespaced: k.kube.iter().any(|a| a == "namespaced"),
                module: module.clone(),
                package: pkg.clone(),
            });
        }
    }

    /// The upstream modules' index.
    fn write_upstream_index(&self, out: &mut Rendered, header: &str) {
        let upstream: BTreeSet<String> = self
            .modules
            .values()
            .filter_map(|(_, m)| m.strip_prefix("api::upstream::").map(str::to_owned))
            .collect();
        if !upstream.is_empty() {
            let mut m = String::from(header);
            m.push_str("//! Types of Go packages outside the imported API packages (other modules, k8s.io named types\n//! without a k8s-openapi type), written by `opgen import go` for the types that name them.\n\n");
            for u in upstream {
                let _ = writeln!(m, "pub mod {u};");
            }
            out.files.insert("src/api/upstream/mod.rs".to_owned(), m);
        }
    }

    fn finish_file(
        &self,
        header: &str,
        title: &str,
        f: FileOut,
        pkg: &str,
        stem: Option<&str>,
        declared_in: &HashMap<(String, String), String>,
    ) -> String {
        let mut out = String::from(header);
        let _ = writeln!(out, "//! {title}");
        if !f.doc_lints.is_empty() {
            let lints: Vec<String> = f.doc_lints.iter().map(|l| format!("clippy::{l}")).collect();
            let _ = writeln!(
                out,
                "\n// The doc comments are Go's, word for word (they are the CRDs' descriptions).\n#![allow({})]",
                lints.join(", ")
            );
        }
        out.push('\n');
        let mut uses: BTreeSet<String> = BTreeSet::new();
        for u in &f.uses {
            // `self::Name` marks a type of the same package: imported from its file.
            if let Some(name) = u.strip_prefix("self::") {
                if f.declared.contains(name) {
                    continue;
                }
                if stem.is_some() && declared_in.contains_key(&(pkg.to_owned(), name.to_owned())) {
                    uses.insert(format!("super::{name}"));
                }
                continue;
            }
            uses.insert(u.clone());
        }
        if f.custom_resource {
            uses.insert("kube::CustomResource".to_owned());
        }
        if f.btree_map {
            uses.insert("std::collections::BTreeMap".to_owned());
        }
        if f.items.iter().any(|i| i.contains("#[derive(")) {
            uses.insert("serde::{Deserialize, Serialize}".to_owned());
        }
        for u in &uses {
            let _ = writeln!(out, "use {u};");
        }
        for item in &f.items {
            out.push('\n');
            out.push_str(item);
        }
        if f.is_zero {
            out.push_str(IS_ZERO);
        }
        out
    }

    /// The Rust type of a Go type expression in package `p`, recording what the file uses.
    fn ty(&mut self, p: &GoPackage, e: &GoExpr, file: &mut FileOut) -> Ty {
        match e.kind() {
            ExprKind::Ident(name) => {
                if let Some(t) = p.find(name) {
                    // A local alias of a named type (`type A = B`, `type A = pkg.B`) is that
                    // type: controller-gen unaliases an identifier and refers to B (its doc,
                    // its markers). An alias of a basic type keeps its own name and doc.
                    let named_rhs = match t.ty.kind() {
                        ExprKind::Ident(rhs) => p.find(rhs).is_some(),
                        ExprKind::Qual(_) => true,
                        _ => false,
                    };
                    if t.alias && named_rhs {
                        let rhs = t.ty.clone();
                        return self.ty(p, &rhs, file);
                    }
                    let shape = self.shape_of(p, t, 0);
                    let key = (p.path.clone(), name.to_owned());
                    if self.kinds.contains_key(&key) {
                        return Ty {
                            text: "serde_json::Value".into(),
                            shape: Shape::Other,
                        };
                    }
                    file.uses.insert(format!("self::{name}"));
                    return Ty {
                        text: name.to_owned(),
                        shape,
                    };
                }
                let (text, shape) = match name {
                    "string" => ("String", Shape::String),
                    "bool" => ("bool", Shape::Scalar),
                    "int" => ("isize", Shape::Scalar),
                    "int8" => ("i8", Shape::Scalar),
                    "int16" => ("i16", Shape::Scalar),
                    "int32" | "rune" => ("i32", Shape::Scalar),
                    "int64" => ("i64", Shape::Scalar),
                    // Go's unsigned types as signed Rust ones wide enough for them (a
                    // `format_marker` corrects the format): controller-gen writes no
                    // `minimum: 0` for them, which a Rust unsigned type implies.
                    "uint" | "uint64" | "uint32" => ("i64", Shape::Scalar),
                    "uint8" | "byte" => ("i16", Shape::Scalar),
                    "uint16" => ("i32", Shape::Scalar),
                    "float32" => ("f32", Shape::Scalar),
                    "float64" => ("f64", Shape::Scalar),
                    _ => ("serde_json::Value", Shape::Other),
                };
                Ty {
                    text: text.to_owned(),
                    shape,
                }
            }
            ExprKind::Qual(q) => {
                if let Some(t) = self.known(&q.path, &q.name) {
                    if let Some((path, name)) = t.text.rsplit_once("::")
                        && t.text.starts_with("k8s_openapi::")
                    {
                        return Ty {
                            text: file.import(p, path, name),
                            shape: t.shape,
                        };
                    }
                    if t.shape == Shape::Map {
                        file.btree_map = true;
                    }
                    return t;
                }
                let Some(qp) = self.packages.get(q.path.as_str()).copied() else {
                    return Ty {
                        text: "serde_json::Value".into(),
                        shape: Shape::Other,
                    };
                };
                let Some(t) = qp.find(&q.name) else {
                    return Ty {
                        text: "serde_json::Value".into(),
                        shape: Shape::Other,
                    };
                };
                let shape = self.shape_of(qp, t, 0);
                let (_, module) = self
                    .modules
                    .get(&q.path)
                    .cloned()
                    .unwrap_or_else(|| self.upstream_module(&q.path));
                Ty {
                    text: file.import(p, &format!("crate::{module}"), &q.name),
                    shape,
                }
            }
            ExprKind::Pointer(inner) => {
                let t = self.ty(p, inner, file);
                Ty {
                    text: format!("Option<{}>", t.text),
                    shape: Shape::Option,
                }
            }
            ExprKind::Slice(inner) | ExprKind::Array(inner) => {
                if matches!(inner.kind(), ExprKind::Ident("byte" | "uint8")) {
                    file.uses.insert("k8s_openapi::ByteString".to_owned());
                    return Ty {
                        text: "ByteString".into(),
                        shape: Shape::Other,
                    };
                }
                let t = self.ty(p, inner, file);
                Ty {
                    text: format!("Vec<{}>", t.text),
                    shape: Shape::Vec,
                }
            }
            ExprKind::Map(k, v) => {
                let k = self.ty(p, k, file);
                let v = self.ty(p, v, file);
                file.btree_map = true;
                Ty {
                    text: format!("BTreeMap<{}, {}>", k.text, v.text),
                    shape: Shape::Map,
                }
            }
            ExprKind::Struct(_) | ExprKind::Other(_) => Ty {
                text: "serde_json::Value".into(),
                shape: Shape::Other,
            },
        }
    }

    /// The shape of a named Go type (through aliases and named basic types).
    fn shape_of(&self, p: &GoPackage, t: &GoType, depth: usize) -> Shape {
        if depth > 16 {
            return Shape::Other;
        }
        match t.ty.kind() {
            ExprKind::Ident(name) => match p.find(name) {
                Some(inner) => self.shape_of(p, inner, depth + 1),
                None => match name {
                    "string" => Shape::String,
                    "bool" | "int" | "int8" | "int16" | "int32" | "int64" | "uint" | "uint8"
                    | "uint16" | "uint32" | "uint64" | "float32" | "float64" | "byte" | "rune" => {
                        Shape::Scalar
                    }
                    _ => Shape::Other,
                },
            },
            ExprKind::Qual(q) => {
                if let Some(t) = self.known(&q.path, &q.name) {
                    return t.shape;
                }
                match self
                    .packages
                    .get(q.path.as_str())
                    .and_then(|qp| qp.find(&q.name).map(|t| (*qp, t)))
                {
                    Some((qp, inner)) => self.shape_of(qp, inner, depth + 1),
                    None => Shape::Other,
                }
            }
            ExprKind::Slice(inner) if matches!(inner.kind(), ExprKind::Ident("byte" | "uint8")) => {
                Shape::Other
            }
            ExprKind::Slice(_) | ExprKind::Array(_) => Shape::Vec,
            ExprKind::Map(..) => Shape::Map,
            ExprKind::Pointer(_) => Shape::Option,
            _ => Shape::Other,
        }
    }

    /// Whether the Rust type of every field has a `Default` (an optional field always has:
    /// an `Option`, or a type serde's `default` needs one of, checked by its own rule).
    fn fields_default(&self, p: &GoPackage, fields: &[GoField], depth: usize) -> bool {
        fields.iter().all(|f| {
            !f.exported
                || json_options(f).0 == "-"
                || (field_optional(f) && !f.name.is_empty())
                || marked_required_pointer(f)
                // A required Go pointer without a required marker is the plain type in Rust.
                || self.type_default(p, deref(&f.ty), depth)
        })
    }

    /// Whether the Rust type of a Go type expression has a `Default`: all do but k8s-openapi's
    /// `Time` and `MicroTime` and the structs holding one outside an `Option` or collection.
    fn type_default(&self, p: &GoPackage, e: &GoExpr, depth: usize) -> bool {
        if depth > 24 {
            return true;
        }
        match e.kind() {
            ExprKind::Pointer(_) | ExprKind::Slice(_) | ExprKind::Array(_) | ExprKind::Map(..) => {
                true
            }
            ExprKind::Ident(name) => match p.find(name) {
                Some(t) => self.named_default(p, t, depth),
                None => true,
            },
            ExprKind::Qual(q) => {
                if let Some(t) = self.known(&q.path, &q.name) {
                    return !t.text.ends_with("::Time") && !t.text.ends_with("::MicroTime");
                }
                match self
                    .packages
                    .get(q.path.as_str())
                    .and_then(|qp| qp.find(&q.name).map(|t| (*qp, t)))
                {
                    Some((qp, t)) => self.named_default(qp, t, depth),
                    None => true,
                }
            }
            ExprKind::Struct(fields) => self.fields_default(p, fields, depth + 1),
            ExprKind::Other(_) => true,
        }
    }

    fn named_default(&self, p: &GoPackage, t: &GoType, depth: usize) -> bool {
        if self.own_json(p, t) {
            return true;
        }
        match t.ty.kind() {
            ExprKind::Struct(fields) => self.fields_default(p, fields, depth + 1),
            _ => self.type_default(p, &t.ty, depth + 1),
        }
    }

    /// The Go type a (non-pointer) type expression names, when the generator writes it.
    fn named_key(&self, p: &GoPackage, e: &GoExpr) -> Option<TypeKey> {
        match e.kind() {
            ExprKind::Ident(name) => p.find(name).map(|_| (p.path.clone(), name.to_owned())),
            ExprKind::Qual(q) if self.known(&q.path, &q.name).is_none() => self
                .packages
                .get(q.path.as_str())
                .and_then(|qp| qp.find(&q.name))
                .map(|_| (q.path.clone(), q.name.clone())),
            _ => None,
        }
    }

    /// Whether `from` is or holds `target` inline (through fields and pointers, not through
    /// the heap of a slice or map): then `target` holding `from` is infinitely large in Rust.
    fn reaches(&self, from: &TypeKey, target: &TypeKey, seen: &mut HashSet<TypeKey>) -> bool {
        if from == target {
            return true;
        }
        if !seen.insert(from.clone()) {
            return false;
        }
        let Some(p) = self.packages.get(from.0.as_str()) else {
            return false;
        };
        let Some(t) = p.find(&from.1) else {
            return false;
        };
        let exprs: Vec<&GoExpr> = match t.ty.kind() {
            ExprKind::Struct(fields) => fields
                .iter()
                .filter(|f| f.exported && json_options(f).0 != "-")
                .map(|f| deref(&f.ty))
                .collect(),
            _ => vec![deref(&t.ty)],
        };
        exprs.into_iter().any(|e| {
            self.named_key(p, e)
                .is_some_and(|k| self.reaches(&k, target, seen))
        })
    }

    /// A Go constant as a Rust one: a string (`&str`, whatever its Go type) or a number of a
    /// named numeric type of the package; other constants (iota, expressions) are left out.
    fn constant(&self, p: &GoPackage, c: &crate::load_go::GoConst) -> Option<String> {
        let named = c.ty.as_ref().and_then(|t| match t.kind() {
            ExprKind::Ident(name) => p.find(name).map(|t| (name, t)),
            _ => None,
        });
        let (ty, value) = if c.value.starts_with('"') {
            let text: String = serde_json::from_str(&c.value).ok()?;
            ("&str".to_owned(), rust_str(&text))
        } else {
            let (name, t) = named?;
            if self.shape_of(p, t, 0) != Shape::Scalar || c.value.parse::<i64>().is_err() {
                return None;
            }
            (name.to_owned(), c.value.clone())
        };
        let mut item = String::new();
        for line in doc_lines(&c.doc).iter().filter(|l| l.directive.is_none()) {
            if line.text.trim_start().starts_with('+') {
                continue;
            }
            if line.text.is_empty() {
                item.push_str("///\n");
            } else {
                let _ = writeln!(item, "/// {}", line.text);
            }
        }
        let _ = writeln!(item, "pub const {}: {ty} = {value};", const_ident(&c.name));
        Some(item)
    }

    /// Doc comments and markers above an item: doc lines as `///`, markers as `//`.
    fn doc_and_markers(
        &mut self,
        out: &mut String,
        indent: &str,
        doc: &[GoComment],
        markers: &[GoMarker],
        target: Target,
        file: &mut FileOut,
    ) {
        // Markers of the closest comment group that is not the doc come first, as in Go.
        for m in markers.iter().filter(|m| !m.godoc) {
            if target == Target::Type && self.is_package_marker(m) {
                continue;
            }
            if let Some(text) = self.accept(m, target) {
                let _ = writeln!(out, "{indent}// {text}");
            }
        }
        let lines = doc_lines(doc);
        for line in &lines {
            if let Some(d) = &line.directive {
                let _ = writeln!(out, "{indent}{d}");
                continue;
            }
            let t = line.text.trim_start();
            if t.starts_with('+') {
                // A marker line: this item's (the marker list has it on this line), or the
                // marker of the field whose doc this is (left out).
                if let Some(m) = markers.iter().find(|m| m.godoc && m.pos.line == line.line) {
                    let m = m.clone();
                    if let Some(text) = self.accept(&m, target) {
                        let _ = writeln!(out, "{indent}// {text}");
                    }
                }
                continue;
            }
            file.doc_lints.extend(doc_lints(&line.text));
            if line.text.is_empty() {
                let _ = writeln!(out, "{indent}///");
            } else {
                let _ = writeln!(out, "{indent}/// {}", line.text);
            }
        }
    }

    fn write_type(&mut self, p: &GoPackage, t: &GoType, file: &mut FileOut) {
        let mut item = String::new();
        file.declared.insert(t.name.clone());
        let own_json = self.own_json(p, t);
        if t.marshal_json && !own_json {
            self.warn(&t.pos, format!(
                "{} has its own MarshalJSON, and a CRD describes it by its fields, as controller-gen does; its Rust type follows those fields, which may not be the JSON the method writes: a +kubebuilder:validation:Type marker on the Go type makes controller-gen describe it by its markers alone, and opgen hold it as that JSON",
                t.name
            ));
        }
        if own_json {
            self.doc_and_markers(&mut item, "", &t.doc, &t.markers, Target::Type, file);
            item.push_str(&own_json_type(&t.name));
            file.items.push(item);
            return;
        }
        // The status of a kind carries the Status field's doc (kube's root `status` takes it).
        let key = (p.path.clone(), t.name.clone());
        let status_doc: Option<Vec<GoComment>> = self
            .kinds
            .values()
            .find_map(|k| {
                k.status
                    .as_ref()
                    .filter(|(s, _)| *s == key)
                    .map(|(_, doc)| doc.clone())
            })
            .filter(|d| !describes_nothing(d));
        // A spec type that derives CustomResource itself.
        let kind_of_spec: Option<TypeKey> = self
            .kinds
            .iter()
            .find(|(k, plan)| k.0 == p.path && plan.wrapper.is_none() && plan.spec_struct == t.name)
            .map(|(k, _)| k.clone());
        match t.ty.kind() {
            ExprKind::Struct(fields) => {
                let (doc, markers): (Vec<GoComment>, Vec<GoMarker>) =
                    match (&kind_of_spec, &status_doc) {
                        (Some(k), _) => {
                            let spec_field = struct_fields(
                                self.packages[k.0.as_str()].find(&k.1).expect("kind"),
                            )
                            .iter()
                            .find(|f| f.name == "Spec")
                            .cloned();
                            let doc = spec_field
                                .as_ref()
                                .map(|f| f.doc.clone())
                                .filter(|d| !describes_nothing(d))
                                .unwrap_or_else(|| t.doc.clone());
                            (doc, t.markers.clone())
                        }
                        (None, Some(d)) => (d.clone(), t.markers.clone()),
                        _ => (t.doc.clone(), t.markers.clone()),
                    };
                // The type's own doc markers stay when another doc stands in for its doc.
                let markers: Vec<GoMarker> = markers
                    .into_iter()
                    .map(|mut m| {
                        if !doc_has(&doc, &m) {
                            m.godoc = false;
                        }
                        m
                    })
                    .collect();
                self.doc_and_markers(&mut item, "", &doc, &markers, Target::Type, file);
                if let Some(k) = &kind_of_spec {
                    let plan = &self.kinds[k];
                    for m in &plan.markers {
                        let _ = writeln!(item, "// {m}");
                    }
                    item.push_str(&derives(true, self.fields_default(p, fields, 0)));
                    let _ = writeln!(item, "#[kube(\n    {}\n)]", plan.kube.join(",\n    "));
                    file.custom_resource = true;
                    if let Some((s, _)) = &plan.status {
                        file.uses.insert(format!("self::{}", s.1));
                    }
                    // A status wrapper is written in the kind's file, which may be another.
                    if let Some((s, _, _)) = &plan.status_wrapper {
                        file.uses.insert(format!("self::{s}"));
                    }
                } else {
                    item.push_str(&derives(false, self.fields_default(p, fields, 0)));
                }
                let body = self.fields(p, fields, file, &t.name);
                item.push_str(&body);
            }
            _ => {
                let doc = status_doc.unwrap_or_else(|| t.doc.clone());
                self.doc_and_markers(&mut item, "", &doc, &t.markers, Target::Type, file);
                let target = self.ty(p, &t.ty, file);
                let mut text = target.text;
                if let Some(m) = format_marker(&t.ty, &t.markers) {
                    let _ = writeln!(item, "// {m}");
                }
                if text == t.name {
                    text = "serde_json::Value".into();
                }
                let _ = writeln!(item, "pub type {} = {text};", t.name);
            }
        }
        file.items.push(item);
    }

    /// Whether `f` has no Rust field: unexported, `json:"-"`, or without a json tag, which
    /// controller-gen refuses (a warning says so) unless Go's encoder inlines it (an embedded
    /// struct).
    fn left_out(&mut self, p: &GoPackage, f: &GoField, owner: &str) -> bool {
        if !f.exported || json_options(f).0 == "-" {
            return true;
        }
        if f.tag_value("json").is_some() {
            return false;
        }
        if !f.name.is_empty() {
            self.warn(&f.pos, format!("{owner}.{} has no json tag: controller-gen refuses such a field, so it is left out", f.name));
            return true;
        }
        if !self.embeds_struct(p, &f.ty, 0) {
            self.warn(&f.pos, format!("{owner} embeds {} without a json tag: Go's encoder writes it as a field named by its type, which controller-gen refuses (a field without a json tag), so it is left out", go_type_name(&f.ty)));
            return true;
        }
        false
    }

    /// A struct's `#[serde(rename_all)]`, braces and fields.
    fn fields(
        &mut self,
        p: &GoPackage,
        fields: &[GoField],
        file: &mut FileOut,
        owner: &str,
    ) -> String {
        struct Out {
            ident: String,
            json: String,
            flatten: bool,
            text: String,
        }
        let mut outs: Vec<Out> = Vec::new();
        let mut used: HashSet<String> = HashSet::new();
        for f in fields {
            if self.left_out(p, f, owner) {
                continue;
            }
            let (json, opts) = json_options(f);
            let flatten = f.name.is_empty() && (json.is_empty() || opts.inline()) || opts.inline();
            let json_name = if json.is_empty() {
                f.name.clone()
            } else {
                json.clone()
            };
            let mut ident = if flatten {
                let type_name = match deref(&f.ty).kind() {
                    ExprKind::Ident(n) => n.to_owned(),
                    ExprKind::Qual(q) => q.name.clone(),
                    _ => "inline".to_owned(),
                };
                field_ident(&type_name.to_snake_case())
            } else {
                field_ident(&json_name)
            };
            while !used.insert(ident.clone()) {
                ident.push('_');
            }
            let mut text = String::new();
            let doc = std_type_doc_if_none(f);
            self.doc_and_markers(&mut text, "    ", &doc, &f.markers, Target::Field, file);
            let optional = field_optional(f);
            let required_pointer = !optional && !flatten && marked_required_pointer(f);
            let go_ty = if optional || flatten || required_pointer {
                &f.ty
            } else {
                deref(&f.ty)
            };
            let mut ty = self.ty(p, go_ty, file);
            // A type holding itself (behind a Go pointer) needs a Box in Rust.
            if let Some(inner) = self.named_key(p, deref(&f.ty))
                && self.reaches(
                    &inner,
                    &(p.path.clone(), owner.to_owned()),
                    &mut HashSet::new(),
                )
            {
                ty.text = match ty.text.strip_prefix("Option<") {
                    Some(rest) => format!("Option<Box<{rest}>"),
                    None => format!("Box<{}>", ty.text),
                };
            }
            if let Some(m) = format_marker(&f.ty, &f.markers) {
                let _ = writeln!(text, "    // {m}");
            }
            if flatten {
                if ty.shape == Shape::Option {
                    ty = self.ty(p, deref(&f.ty), file);
                }
                text.push_str("    #[serde(flatten)]\n");
            } else if optional {
                // A struct field omitted when empty: an Option, as Go's pointer would be. So are
                // bytes, as in k8s-openapi (caBundle): serde cannot test a ByteString for
                // emptiness, and the API server refuses the `""` it would otherwise send.
                let struct_like =
                    matches!(deref(&f.ty).kind(), ExprKind::Ident(_) | ExprKind::Qual(_))
                        && !is_scalar_like(&ty.text);
                if ty.shape == Shape::Other && (struct_like || ty.text == "ByteString") {
                    ty = Ty {
                        text: format!("Option<{}>", ty.text),
                        shape: Shape::Option,
                    };
                }
                let attr = if ty.shape == Shape::Scalar && opts.omitempty() {
                    file.is_zero = true;
                    "#[serde(default, skip_serializing_if = \"is_zero\")]"
                } else {
                    omitted_when_empty(&ty)
                };
                if ty.shape == Shape::Map {
                    file.btree_map = true;
                }
                let _ = writeln!(text, "    {attr}");
            } else if required_pointer {
                // `None` left out, as Go's nil with omitempty (without, Go sends `null`, which
                // the API server drops as it drops a missing field): an `Option` serde writes
                // as `null` would be nullable in the schema.
                text.push_str("    #[serde(skip_serializing_if = \"Option::is_none\")]\n");
            } else if self
                .unvalidated
                .contains(&(p.path.clone(), owner.to_owned()))
                && self.type_default(p, deref(&f.ty), 0)
            {
                // Required by the schema where one applies, but read as Go reads it where
                // none does (below a Schemaless field): missing is the zero value.
                if !marked_optional_required(&f.markers).1 {
                    text.push_str("    // +kubebuilder:validation:Required\n");
                }
                text.push_str("    #[serde(default)]\n");
            }
            outs.push(Out {
                ident,
                json: json_name,
                flatten,
                text: format!("{text}    pub {{IDENT}}: {},\n", ty.text),
            });
        }
        let camel = outs
            .iter()
            .filter(|o| !o.flatten)
            .any(|o| serde_camel(unraw(&o.ident)) == o.json && unraw(&o.ident) != o.json);
        let mut body = String::new();
        if camel {
            body.push_str("#[serde(rename_all = \"camelCase\")]\n");
        }
        let _ = writeln!(body, "pub struct {owner} {{");
        for (i, o) in outs.iter().enumerate() {
            if i > 0 {
                body.push('\n');
            }
            let spelled = if camel {
                serde_camel(unraw(&o.ident))
            } else {
                unraw(&o.ident).to_owned()
            };
            let mut text = o.text.replace("{IDENT}", &o.ident);
            if !o.flatten && spelled != o.json {
                let at = text.rfind("    pub ").expect("a field line");
                text.insert_str(
                    at,
                    &format!("    #[serde(rename = {})]\n", rust_str(&o.json)),
                );
            }
            body.push_str(&text);
        }
        body.push_str("}\n");
        body
    }

    fn write_kind(&mut self, p: &GoPackage, t: &GoType, file: &mut FileOut) {
        let key = (p.path.clone(), t.name.clone());
        if let Some((name, inner, doc)) = self.kinds[&key].status_wrapper.clone() {
            let mut item = String::new();
            self.doc_and_markers(&mut item, "", &doc, &[], Target::Type, file);
            // The wrapper may be named as the type it flattens (another package's
            // `PolicyStatus`): that type is then named by its path.
            file.imported.insert(name.clone(), String::new());
            let ty = self.ty(p, &inner, file);
            let default = self.type_default(p, &inner, 0);
            let inner_name = ty.text.rsplit("::").next().unwrap_or("status").to_owned();
            item.push_str(&derives(false, default));
            let _ = writeln!(
                item,
                "pub struct {name} {{\n    #[serde(flatten)]\n    pub {}: {},\n}}",
                field_ident(&inner_name.to_snake_case()),
                ty.text
            );
            file.declared.insert(name);
            file.items.push(item);
        }
        let plan = &self.kinds[&key];
        let Some(wrapper) = &plan.wrapper else {
            return;
        };
        let (name, markers, kube, status) = (
            plan.spec_struct.clone(),
            plan.markers.clone(),
            plan.kube.clone(),
            plan.status.clone(),
        );
        let wrapper = wrapper.clone();
        file.declared.insert(name.clone());
        file.custom_resource = true;
        if let Some((s, _)) = &status {
            file.uses.insert(format!("self::{}", s.1));
        }
        let mut item = String::new();
        if let Wrapper::Flatten(_, doc) = &wrapper {
            self.doc_and_markers(&mut item, "", doc, &[], Target::Type, file);
        }
        for m in &markers {
            let _ = writeln!(item, "// {m}");
        }
        // The flattened type's own schema markers (`MinProperties`...) hold for the spec, which
        // a flatten does not carry (its properties, required and CEL rules it does).
        if let Wrapper::Flatten(e, _) = &wrapper
            && let Some((path, type_name)) = self.named_key(p, e)
            && let Some(inner) = self
                .packages
                .get(path.as_str())
                .and_then(|q| q.find(&type_name))
        {
            for m in &inner.markers {
                let schema_marker = grammar::parse(self.catalog, &m.text).is_ok_and(|(d, _)| {
                    d.targets.contains(&Target::Type)
                        && !d.ignored
                        && !d.name.ends_with("XValidation")
                });
                if schema_marker && !self.is_package_marker(m) {
                    let _ = writeln!(item, "// {}", m.text.trim_end());
                }
            }
        }
        let default = match &wrapper {
            Wrapper::Flatten(e, _) => self.type_default(p, e, 0),
            Wrapper::Fields(fields) => self.fields_default(p, fields, 0),
            Wrapper::Empty => true,
        };
        item.push_str(&derives(true, default));
        let _ = writeln!(item, "#[kube(\n    {}\n)]", kube.join(",\n    "));
        match wrapper {
            Wrapper::Flatten(e, _) => {
                file.imported.insert(name.clone(), String::new());
                let ty = self.ty(p, &e, file);
                let field = field_ident(
                    &ty.text
                        .rsplit("::")
                        .next()
                        .unwrap_or("spec")
                        .to_snake_case(),
                );
                let _ = writeln!(
                    item,
                    "pub struct {name} {{\n    #[serde(flatten)]\n    pub {field}: {},\n}}",
                    ty.text
                );
            }
            Wrapper::Fields(fields) => {
                let body = self.fields(p, &fields, file, &name);
                item.push_str(&body);
            }
            Wrapper::Empty => {
                let _ = writeln!(item, "pub struct {name} {{}}");
            }
        }
        file.items.push(item);
    }
}

/// The Format marker that makes opgen write a Go basic type's format as controller-gen does
/// (none for floats, `uint` and `uint16`), unless the Go markers set one.
fn format_marker(e: &GoExpr, markers: &[GoMarker]) -> Option<String> {
    let (e, items) = match deref(e).kind() {
        ExprKind::Slice(inner) => (deref(inner), true),
        _ => (deref(e), false),
    };
    let ExprKind::Ident(name) = e.kind() else {
        return None;
    };
    let format = match name {
        "float32" | "float64" | "uint" | "uint16" => "\"\"",
        "uint32" => "int32",
        _ => return None,
    };
    let formatted = markers.iter().any(|m| {
        matches!(
            typed::parse(MarkerCatalog::get(), &m.text),
            Some((def, Typed::Schema(SchemaMarker::Format(_)))) if def.items == items
        )
    });
    if formatted {
        return None;
    }
    let marker = if items {
        names::KUBEBUILDER_VALIDATION_ITEMS_FORMAT
    } else {
        names::KUBEBUILDER_VALIDATION_FORMAT
    };
    Some(format!("+{marker}={format}"))
}

/// The derives of a struct: `Default` only when every field has one.
/// A Go type whose JSON its own `MarshalJSON` writes: the JSON itself, with serde written by
/// hand (opgen, as controller-gen, then describes it by its Type marker alone).
fn own_json_type(name: &str) -> String {
    format!(
        "// Go writes it with its own MarshalJSON: it is held as the JSON it is.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct {name}(pub serde_json::Value);

impl Serialize for {name} {{
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {{
        self.0.serialize(serializer)
    }}
}}

impl<'de> Deserialize<'de> for {name} {{
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {{
        serde_json::Value::deserialize(deserializer).map(Self)
    }}
}}
"
    )
}

fn derives(custom_resource: bool, default: bool) -> String {
    let mut d = vec!["Serialize", "Deserialize", "Clone", "Debug"];
    if custom_resource {
        d.insert(0, "CustomResource");
    }
    if default {
        d.push("Default");
    }
    d.push("PartialEq");
    format!("#[derive({})]\n", d.join(", "))
}

/// A Go pointer a marker makes required (`+required`, `+kubebuilder:validation:Required`): an
/// `Option` in Rust, as the pointer is, which the marker keeps required in the schema. A pointer
/// required by having no omitempty is the plain type, which needs no marker.
fn marked_required_pointer(f: &GoField) -> bool {
    matches!(f.ty.kind(), ExprKind::Pointer(_)) && marked_optional_required(&f.markers).1
}

/// Whether a Go field is optional in controller-gen's schema (its markers, then `omitempty`).
fn field_optional(f: &GoField) -> bool {
    let (optional, required) = marked_optional_required(&f.markers);
    !required && (optional || json_options(f).1.omitempty())
}

/// The clippy doc lints a Go doc line trips: Markdown lists Go writes without Rust's
/// continuation indent, tabs.
fn doc_lints(line: &str) -> Vec<&'static str> {
    let t = line.trim_start();
    let mut lints = Vec::new();
    if t.starts_with(['-', '*', '+']) || t.starts_with(|c: char| c.is_ascii_digit()) {
        lints.extend(["doc_lazy_continuation", "doc_overindented_list_items"]);
    }
    if line.contains('\t') {
        lints.push("tabs_in_doc_comments");
    }
    lints
}

/// A Go constant's name in Rust's style (`ConditionReady` → `CONDITION_READY`).
fn const_ident(name: &str) -> String {
    use heck::ToShoutySnakeCase;
    let s = name.to_shouty_snake_case();
    if s.starts_with(|c: char| c.is_ascii_digit()) {
        format!("C_{s}")
    } else {
        s
    }
}

/// A field's doc; for a field of a standard library type opgen knows (`time.Duration`,
/// `net/http.Header`) that has none, Go's doc of that type, which controller-gen writes as the
/// field's description (the type's, as for any named type): opgen reads no standard library
/// source, and the Rust is a plain `i64` or map.
fn std_type_doc_if_none(f: &GoField) -> Vec<GoComment> {
    let type_doc: &[&str] = match deref(&f.ty).kind() {
        ExprKind::Qual(q) if q.path == "time" && q.name == "Duration" => &[
            "// A Duration represents the elapsed time between two instants",
            "// as an int64 nanosecond count. The representation limits the",
            "// largest representable duration to approximately 290 years.",
        ],
        ExprKind::Qual(q) if q.path == "net/http" && q.name == "Header" => &[
            "// A Header represents the key-value pairs in an HTTP header.",
            "//",
            "// The keys should be in canonical form, as returned by",
            "// [CanonicalHeaderKey].",
        ],
        _ => &[],
    };
    if type_doc.is_empty() || !describes_nothing(&f.doc) {
        return f.doc.clone();
    }
    let line = f.doc.first().map_or(0, |c| c.line);
    type_doc
        .iter()
        .map(|t| GoComment {
            text: (*t).to_owned(),
            line,
        })
        .chain(f.doc.iter().cloned())
        .collect()
}

/// A doc comment whose description is empty (markers only): the type's doc then shows.
fn describes_nothing(doc: &[GoComment]) -> bool {
    crate::model::doc_text_of_lines(
        doc_lines(doc)
            .into_iter()
            .filter(|l| l.directive.is_none())
            .map(|l| l.text),
    )
    .is_empty()
}

fn doc_has(doc: &[GoComment], m: &GoMarker) -> bool {
    doc.iter().any(|c| c.line == m.pos.line)
}

fn is_scalar_like(text: &str) -> bool {
    matches!(text, "serde_json::Value" | "ByteString")
}

/// Go's omitempty on a number or bool, for the files whose fields need it: serde has no test
/// for a zero value, and sending one Go leaves out defeats a schema default or bound.
const IS_ZERO: &str = "
/// Go's `omitempty` on a number or bool: serde leaves out the zero value, as Go's encoder does.
fn is_zero<T: Default + PartialEq>(value: &T) -> bool {
    *value == T::default()
}
";

/// The serde attribute of an optional Go field (omitted when empty) of Rust type `ty`.
fn omitted_when_empty(ty: &Ty) -> &'static str {
    match ty.shape {
        // Go's RawMessage omitted when empty: serde's default `Value::Null` would be sent as
        // `null`, which server-side apply refuses where the schema is an object (the agreement
        // test of argo-rollouts' `jsonBody` found it).
        Shape::Other if ty.text == "serde_json::Value" => {
            "#[serde(default, skip_serializing_if = \"serde_json::Value::is_null\")]"
        }
        Shape::Option => "#[serde(default, skip_serializing_if = \"Option::is_none\")]",
        Shape::String => "#[serde(default, skip_serializing_if = \"String::is_empty\")]",
        Shape::Vec => "#[serde(default, skip_serializing_if = \"Vec::is_empty\")]",
        Shape::Map => "#[serde(default, skip_serializing_if = \"BTreeMap::is_empty\")]",
        Shape::Scalar | Shape::Other => "#[serde(default)]",
    }
}
