//! Building the model: finding kinds, resolving type paths through modules and `use`
//! declarations, and reading serde's view of each reachable type.

use super::kube_attrs;
use super::serde_attrs::{self, EnumTag, FieldAttrs};
use super::{
    EnumRepr, Field, ItemMarker, Kind, KindVersion, Model, Shape, SrcLoc, Ty, TypeDef, TypeId,
    UnresolvedKind, Variant, VariantContent, WellKnown, doc_text,
};
use crate::diag::{Diagnostic, Diagnostics};
use crate::load::{SourceFile, UseKind, derives, use_leaves};
use crate::markers::typed::{PackageMarker, SchemaMarker, Typed};
use crate::markers::{
    FileMarkers, Marker,
    attach::{NodeStart, node_id},
};
use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};
use std::collections::BTreeMap;

/// Where a field's `#[serde(default)]` says `default`.
fn serde_default_key(f: &syn::Field) -> Option<serde_attrs::DefaultFn> {
    use syn::spanned::Spanned;
    let mut found = None;
    for attr in f.attrs.iter().filter(|a| a.path().is_ident("serde")) {
        // serde has read these attributes already; one it refuses never gets here.
        let _ = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("default") && found.is_none() {
                let start = meta.path.span().start();
                found = Some(serde_attrs::DefaultFn {
                    path: String::new(),
                    line: start.line,
                    column: start.column + 1,
                    width: "default".len(),
                });
            }
            if meta.input.peek(syn::Token![=]) {
                meta.value()?.parse::<syn::Expr>()?;
            } else if meta.input.peek(syn::token::Paren) {
                meta.parse_nested_meta(|inner| {
                    if inner.input.peek(syn::Token![=]) {
                        inner.value()?.parse::<syn::Expr>()?;
                    }
                    Ok(())
                })?;
            }
            Ok(())
        });
    }
    found
}

/// `+kubebuilder:default` or `+default` among a field's markers.
fn has_default_marker(markers: &[Marker]) -> bool {
    markers.iter().any(|m| {
        matches!(
            m.on_node(),
            Some(SchemaMarker::Default(_) | SchemaMarker::KubebuilderDefault(_))
        )
    })
}

/// What [`serde_attrs::read`] made of an item.
type SerdeView = Result<serde_attrs::Container, Vec<syn::Error>>;

enum Serialization {
    Derived,
    Display,
    HandWritten,
}

enum UseEntry {
    Named { name: String, path: Vec<String> },
    Glob { path: Vec<String> },
}

struct Scope<'a> {
    file: usize,
    items: HashMap<String, &'a syn::Item>,
    uses: Vec<UseEntry>,
}

enum Resolved<'a> {
    Local {
        item: &'a syn::Item,
        module: Vec<String>,
        file: usize,
    },
    External(Vec<String>),
}

pub(super) struct Builder<'a> {
    files: &'a [SourceFile],
    markers: Vec<FileMarkers>,
    scopes: HashMap<Vec<String>, Scope<'a>>,
    types: Vec<TypeDef>,
    memo: HashMap<(usize, (usize, usize)), TypeId>,
    /// `impl Serialize for <path>` blocks: the module they stand in and the type path.
    serialize_impls: Vec<(Vec<String>, Vec<String>)>,
    /// `impl Default for <path>` blocks, likewise.
    default_impls: Vec<(Vec<String>, Vec<String>)>,
    /// How many types deep [`Builder::ty`] is: nested generics and alias chains.
    depth: usize,
    /// Whose type expression [`Builder::ty`] is reading.
    site: Site,
    /// The kinds to resolve (every kind when `None`); the others are only named.
    only: Option<&'a std::collections::HashSet<(String, String)>>,
}

/// What a type expression being resolved belongs to: named in messages, and whether markers
/// there replace its schema, so that a type opgen cannot read is let through unresolved.
#[derive(Debug, Clone)]
struct Site {
    what: String,
    lenient: bool,
    /// `+kubebuilder:validation:Schemaless`: this crate's types are not read either, as
    /// controller-gen does not traverse such a field.
    schemaless: bool,
    /// A field's type, where `Schemaless` can stand (it cannot on a type).
    field: bool,
    /// The syn spans point into the file (not into a string such as `#[kube(status = "..")]`).
    spans: bool,
}

impl Site {
    fn new(what: String, lenient: bool) -> Self {
        Site {
            what,
            lenient,
            schemaless: false,
            field: false,
            spans: true,
        }
    }
}

fn is_skip(m: &Marker) -> bool {
    m.typed == Typed::Package(PackageMarker::Skip)
}

/// Markers that replace the schema a type would give, on a field or a type: with one of them
/// the type need not be resolved (controller-gen does not look into such a field's type).
fn replaces_schema(markers: &[Marker]) -> bool {
    markers.iter().any(|m| m.typed.replaces_schema())
}

/// Deeper type nesting (generics inside generics, aliases of aliases) is refused: no real
/// API nests this far, and the resolver and schema generator recurse once per level.
pub const MAX_TYPE_DEPTH: usize = 100;

fn ident_name(ident: &syn::Ident) -> String {
    let s = ident.to_string();
    s.strip_prefix("r#").map(str::to_owned).unwrap_or(s)
}

fn flatten_use(tree: &syn::UseTree, out: &mut Vec<UseEntry>) {
    for leaf in use_leaves(tree) {
        let path: Vec<String> = leaf.path.iter().map(|(i, _)| i.to_string()).collect();
        out.push(match leaf.kind {
            UseKind::Glob(_) => UseEntry::Glob { path },
            UseKind::Rename(rename) => UseEntry::Named {
                name: rename.to_string(),
                path,
            },
            // `self` alone (`use {self};`) names nothing.
            UseKind::Name | UseKind::SelfName(_) => match path.last() {
                Some(last) => UseEntry::Named {
                    name: last.clone(),
                    path,
                },
                None => continue,
            },
        });
    }
}

impl<'a> Builder<'a> {
    pub(super) fn new(files: &'a [SourceFile], markers: Vec<FileMarkers>) -> Self {
        let mut b = Builder {
            files,
            markers,
            scopes: HashMap::new(),
            types: Vec::new(),
            memo: HashMap::new(),
            serialize_impls: Vec::new(),
            default_impls: Vec::new(),
            depth: 0,
            site: Site::new("the type".to_owned(), false),
            only: None,
        };
        for (i, f) in files.iter().enumerate() {
            b.add_scope(i, f.module.clone(), &f.ast.items);
        }
        b
    }

    fn add_scope(&mut self, file: usize, module: Vec<String>, items: &'a [syn::Item]) {
        let mut scope = Scope {
            file,
            items: HashMap::new(),
            uses: Vec::new(),
        };
        for item in items {
            match item {
                syn::Item::Struct(s) => {
                    scope.items.insert(ident_name(&s.ident), item);
                }
                syn::Item::Enum(e) => {
                    scope.items.insert(ident_name(&e.ident), item);
                }
                syn::Item::Type(t) => {
                    scope.items.insert(ident_name(&t.ident), item);
                }
                syn::Item::Use(u) => flatten_use(&u.tree, &mut scope.uses),
                syn::Item::Impl(i) => {
                    let trait_name = i.trait_.as_ref().and_then(|(path, _)| path.segments.last());
                    let impls = match trait_name {
                        Some(t) if t.ident == "Serialize" => &mut self.serialize_impls,
                        Some(t) if t.ident == "Default" => &mut self.default_impls,
                        _ => continue,
                    };
                    if let syn::Type::Path(p) = &*i.self_ty
                        && p.qself.is_none()
                    {
                        let segs = p.path.segments.iter().map(|s| ident_name(&s.ident));
                        impls.push((module.clone(), segs.collect()));
                    }
                }
                // Test modules are not the API: their kinds and types are fixtures.
                syn::Item::Mod(m) if is_cfg_test(&m.attrs) => {}
                syn::Item::Mod(m) => {
                    if let Some((_, inner)) = &m.content {
                        let mut child = module.clone();
                        child.push(ident_name(&m.ident));
                        self.add_scope(file, child, inner);
                    }
                }
                _ => {}
            }
        }
        // A file module and an inline module of the same path cannot both exist; keep the first.
        self.scopes.entry(module).or_insert(scope);
    }

    pub(super) fn build(self, diags: &mut Diagnostics) -> Model<'a> {
        self.build_with(false, diags)
    }

    /// Resolves only the kinds in `only`; the model names the others in
    /// [`Model::unresolved_kinds`].
    pub(super) fn only(mut self, only: &'a std::collections::HashSet<(String, String)>) -> Self {
        self.only = Some(only);
        self
    }

    /// [`Builder::build`], and with `every_type` every struct, enum and alias of the API
    /// modules besides those the kinds reach (the linter reads each, as kube-api-linter reads
    /// every type of a package).
    pub(super) fn build_with(mut self, every_type: bool, diags: &mut Diagnostics) -> Model<'a> {
        let mut packages: std::collections::HashMap<Vec<String>, Vec<Marker>> =
            std::collections::HashMap::new();
        let mut item_markers = Vec::new();
        for (i, fm) in self.markers.iter_mut().enumerate() {
            packages
                .entry(self.files[i].package().to_vec())
                .or_default()
                .append(&mut fm.package);
            item_markers.extend(
                fm.items
                    .drain(..)
                    .map(|marker| ItemMarker { marker, file: i }),
            );
        }
        let (kinds, unresolved_kinds) = self.find_kinds(&packages, diags);
        if every_type {
            self.resolve_api_types(diags);
        }
        let model = Model {
            files: self.files.iter().map(SourceFile::source).collect(),
            kinds,
            unresolved_kinds,
            types: self.types,
            item_markers,
            packages,
            markers: self.markers,
        };
        if !diags.has_errors() {
            kind_markers_elsewhere(&model, diags);
        }
        model
    }

    /// Every non-generic struct, enum and alias under `src/api/`, in module and name order.
    fn resolve_api_types(&mut self, diags: &mut Diagnostics) {
        let mut items: Vec<(Vec<String>, String, &'a syn::Item, usize)> = Vec::new();
        for (module, scope) in &self.scopes {
            if !self.files[scope.file].path.starts_with("src/api") {
                continue;
            }
            for (name, item) in &scope.items {
                let generic = match item {
                    syn::Item::Struct(s) => !s.generics.params.is_empty(),
                    syn::Item::Enum(e) => !e.generics.params.is_empty(),
                    syn::Item::Type(t) => !t.generics.params.is_empty(),
                    _ => true,
                };
                if !generic {
                    items.push((module.clone(), name.clone(), *item, scope.file));
                }
            }
        }
        items.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
        for (module, _, item, file) in items {
            self.type_def_of(&module, file, item, diags);
        }
    }

    fn loc_of<T: syn::spanned::Spanned>(&self, file: usize, node: &T) -> SrcLoc {
        let (line, column) = node_id(node);
        SrcLoc { file, line, column }
    }

    /// Where a type expression starts. A plain path's first token says so at once;
    /// `Spanned::span` would print the whole type to join the spans of its tokens.
    fn ty_loc(&self, file: usize, ty: &syn::Type) -> SrcLoc {
        if let syn::Type::Path(p) = ty
            && p.qself.is_none()
        {
            let first = match (&p.path.leading_colon, p.path.segments.first()) {
                (Some(colon), _) => Some(colon.spans[0]),
                (None, Some(seg)) => Some(seg.ident.span()),
                (None, None) => None,
            };
            if let Some(span) = first {
                let start = span.start();
                return SrcLoc {
                    file,
                    line: start.line,
                    column: start.column + 1,
                };
            }
        }
        self.loc_of(file, ty)
    }

    fn error(&self, loc: SrcLoc, width: usize, message: impl Into<String>) -> Diagnostic {
        Diagnostic::error(message).at(self.files[loc.file].location(loc.line, loc.column, width))
    }

    fn find_kinds(
        &mut self,
        packages: &std::collections::HashMap<Vec<String>, Vec<Marker>>,
        diags: &mut Diagnostics,
    ) -> (Vec<Kind>, Vec<UnresolvedKind>) {
        // Deterministic order: by module path, then item name.
        let mut candidates: Vec<(Vec<String>, String, &'a syn::Item, usize)> = Vec::new();
        for (module, scope) in &self.scopes {
            for (name, item) in &scope.items {
                if let syn::Item::Struct(s) = item
                    && derives(&s.attrs, "CustomResource")
                {
                    candidates.push((module.clone(), name.clone(), *item, scope.file));
                }
            }
        }
        candidates.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));

        let mut kinds: BTreeMap<(String, String), Kind> = BTreeMap::new();
        let mut unresolved: BTreeMap<(String, String), UnresolvedKind> = BTreeMap::new();
        for (module, _, item, file) in candidates {
            let syn::Item::Struct(s) = item else { continue };
            let package = self.files[file].package().to_vec();
            let pkg_markers = packages.get(&package).map_or(&[][..], Vec::as_slice);
            if pkg_markers.iter().any(is_skip) {
                continue;
            }
            // A kind not asked for is only named (its attributes were read by an earlier run).
            if let Some(only) = self.only
                && let Some((group, kind, plural)) = kube_attrs::names(&s.attrs)
                && !only.contains(&(group.clone(), kind.clone()))
            {
                let plural = plural.unwrap_or_else(|| crate::pluralize::kube_derive_plural(&kind));
                unresolved
                    .entry((group.clone(), kind.clone()))
                    .or_insert_with(|| UnresolvedKind {
                        group,
                        kind,
                        plurals: Vec::new(),
                    })
                    .plurals
                    .push(plural);
                continue;
            }
            // Where the struct starts after its attributes (cloning it to drop them and
            // joining every token's span cost more than the rest of finding the kind).
            let (line, column) = s.start();
            let loc = SrcLoc { file, line, column };
            let attrs = match kube_attrs::parse(&s.attrs) {
                Ok(Some(a)) => a,
                Ok(None) => {
                    diags.push(self.error(loc, 1, format!(
                        "`{}` derives CustomResource but has no #[kube(group = ..., version = ..., kind = ...)] attribute",
                        s.ident
                    )));
                    continue;
                }
                Err(e) => {
                    let at = SrcLoc {
                        file,
                        line: e.line,
                        column: e.column,
                    };
                    diags.push(self.error(at, 1, e.message));
                    continue;
                }
            };
            let (Some(group), Some(version), Some(kind)) = (
                attrs.group.clone(),
                attrs.version.clone(),
                attrs.kind.clone(),
            ) else {
                diags.push(self.error(
                    loc,
                    1,
                    format!("#[kube] on `{}` needs group, version and kind", s.ident),
                ));
                continue;
            };
            check_package_names(self, pkg_markers, file, &group, &version, diags);
            let Some(spec) = self.type_def_of(&module, file, item, diags) else {
                continue;
            };
            let status = attrs
                .status
                .as_ref()
                .and_then(|st| self.status_type(&module, file, loc, st, diags));
            let markers = self.types[spec].markers.clone();
            kinds
                .entry((group.clone(), kind.clone()))
                .or_insert_with(|| Kind {
                    group,
                    kind,
                    versions: Vec::new(),
                })
                .versions
                .push(KindVersion {
                    version,
                    attrs,
                    spec,
                    status,
                    markers,
                    loc,
                });
        }
        let mut out: Vec<Kind> = kinds.into_values().collect();
        for k in &mut out {
            k.versions.sort_by(|a, b| a.version.cmp(&b.version));
        }
        (out, unresolved.into_values().collect())
    }

    fn status_type(
        &mut self,
        module: &[String],
        file: usize,
        loc: SrcLoc,
        text: &str,
        diags: &mut Diagnostics,
    ) -> Option<Ty> {
        match syn::parse_str::<syn::Type>(text) {
            Ok(t) => {
                let site = Site {
                    spans: false,
                    ..Site::new(format!("the type `{text}`"), false)
                };
                self.with_site(site, |b| b.ty(module, file, &t, loc, diags))
            }
            Err(e) => {
                diags.push(self.error(
                    loc,
                    1,
                    format!("#[kube(status = {text:?})] is not a Rust type: {e}"),
                ));
                None
            }
        }
    }

    /// The TypeDef of a struct, enum or alias item, built once.
    fn type_def_of(
        &mut self,
        module: &[String],
        file: usize,
        item: &'a syn::Item,
        diags: &mut Diagnostics,
    ) -> Option<TypeId> {
        let ident = item_ident(item)?;
        let id_node = stripped_id(item);
        let key = (file, id_node);
        if let Some(&id) = self.memo.get(&key) {
            return Some(id);
        }
        let loc = SrcLoc {
            file,
            line: id_node.0,
            column: id_node.1,
        };
        let attrs = item_attrs(item);
        let id = self.types.len();
        self.memo.insert(key, id);
        // serde's view of a struct, read once for `transparent` and again for its shape:
        // serde_derive_internals on a clone of the item is the model's largest cost.
        let mut view = None;
        let mut path = vec!["crate".to_owned()];
        path.extend(module.iter().cloned());
        path.push(ident_name(ident));
        self.types.push(TypeDef {
            name: ident_name(ident),
            path: path.join("::"),
            doc: doc_text(attrs),
            markers: self.markers[file].for_node(id_node).to_vec(),
            package: self.files[file].package().to_vec(),
            shape: Shape::Invalid,
            transparent: match item {
                syn::Item::Type(_) => true,
                syn::Item::Struct(_) => view
                    .insert(serde_attrs::read(item))
                    .as_ref()
                    .is_ok_and(|c| c.transparent),
                _ => false,
            },
            deny_unknown_fields: view
                .as_ref()
                .and_then(|v| v.as_ref().ok())
                .is_some_and(|c| c.deny_unknown_fields),
            loc,
        });
        let shape = match self.serialization(item) {
            Serialization::Display => Shape::DisplayString,
            Serialization::HandWritten
                if self.types[id]
                    .markers
                    .iter()
                    .any(|m| matches!(m.on_node(), Some(SchemaMarker::Type(_)))) =>
            {
                Shape::Opaque
            }
            Serialization::HandWritten => {
                // As controller-gen does, read the type itself; if that fails, say why the
                // Type marker would help.
                let mut inner = Diagnostics::default();
                let shape = self.shape(module, file, item, loc, view, &mut inner);
                if inner.has_errors() {
                    diags.push(self.error(loc, 1, format!(
                        "`{}` has a hand-written `impl Serialize`, and its fields cannot be described",
                        ident_name(ident)
                    )).help("describe its JSON with +kubebuilder:validation:Type=<type> (and other markers) on the type; opgen then uses only those markers"));
                }
                match inner.finish() {
                    Ok(warnings) => warnings.into_iter().for_each(|w| diags.push(w)),
                    Err(e) => diags.extend(e),
                }
                shape
            }
            Serialization::Derived => self.shape(module, file, item, loc, view, diags),
        };
        self.types[id].shape = shape;
        Some(id)
    }

    /// How serde writes a type: derived, through `Display` (serde_with), or by hand.
    fn serialization(&self, item: &'a syn::Item) -> Serialization {
        let attrs = item_attrs(item);
        if derives(attrs, "SerializeDisplay") {
            return Serialization::Display;
        }
        if derives(attrs, "Serialize") {
            return Serialization::Derived;
        }
        if self.implemented(&self.serialize_impls, item) {
            Serialization::HandWritten
        } else {
            Serialization::Derived
        }
    }

    /// Whether one of `impls` is for `item`.
    fn implemented(&self, impls: &[(Vec<String>, Vec<String>)], item: &syn::Item) -> bool {
        impls.iter().any(|(module, segs)| {
            matches!(
                self.resolve(module, segs, &mut HashSet::new()),
                Some(Resolved::Local { item: found, .. }) if std::ptr::eq(found, item)
            )
        })
    }

    /// The type of a field read in `module` when its `Default` is not what the schema calls
    /// zero: a type of this crate with a hand-written `impl Default`, or an enum whose
    /// `#[default]` variant serde writes as a value.
    fn non_zero_default(&self, module: &[String], ty: &syn::Type) -> Option<String> {
        let syn::Type::Path(p) = ty else {
            return None;
        };
        let segs: Vec<String> = p
            .path
            .segments
            .iter()
            .map(|s| ident_name(&s.ident))
            .collect();
        let Some(Resolved::Local { item, .. }) = self.resolve(module, &segs, &mut HashSet::new())
        else {
            return None;
        };
        let derived_variant = match item {
            syn::Item::Enum(e) => {
                derives(&e.attrs, "Default")
                    && e.variants
                        .iter()
                        .any(|v| v.attrs.iter().any(|a| a.path().is_ident("default")))
            }
            _ => false,
        };
        (derived_variant || self.implemented(&self.default_impls, item)).then(|| segs.join("::"))
    }

    fn shape(
        &mut self,
        module: &[String],
        file: usize,
        item: &'a syn::Item,
        loc: SrcLoc,
        view: Option<SerdeView>,
        diags: &mut Diagnostics,
    ) -> Shape {
        let id = self.memo[&(file, stripped_id(item))];
        let lenient = replaces_schema(&self.types[id].markers);
        match item {
            syn::Item::Type(t) => {
                let site = Site::new(
                    format!("the type alias `{}`", ident_name(&t.ident)),
                    lenient,
                );
                let ty_loc = self.ty_loc(file, &t.ty);
                self.with_site(site, |b| b.ty(module, file, &t.ty, ty_loc, diags))
                    .map_or(Shape::Invalid, Shape::Wrapper)
            }
            syn::Item::Struct(s) => {
                let Some(c) = self.serde_view(file, item, view, diags) else {
                    return Shape::Invalid;
                };
                if let Some(proxy) = &c.proxy {
                    return self
                        .status_type(module, file, loc, proxy, diags)
                        .map_or(Shape::Invalid, Shape::Wrapper);
                }
                match &s.fields {
                    syn::Fields::Unit => Shape::Wrapper(Ty::Unit),
                    syn::Fields::Unnamed(u) if u.unnamed.len() == 1 => {
                        let f = &u.unnamed[0];
                        let site = Site::new(format!("`{}`", ident_name(&s.ident)), lenient);
                        let ty_loc = self.ty_loc(file, &f.ty);
                        self.with_site(site, |b| b.ty(module, file, &f.ty, ty_loc, diags))
                            .map_or(Shape::Invalid, Shape::Wrapper)
                    }
                    syn::Fields::Unnamed(_) => {
                        diags.push(self.error(loc, 1, format!(
                            "`{}` is a tuple struct with several fields, which serde writes as a JSON array of mixed types; a CRD schema cannot describe it",
                            s.ident
                        )).help("use a struct with named fields"));
                        Shape::Invalid
                    }
                    syn::Fields::Named(named) => {
                        let fields = self.fields(
                            module,
                            file,
                            named.named.iter().zip(&c.fields),
                            c.default,
                            diags,
                        );
                        if let Some(default_fn) = &c.default_fn {
                            self.warn_unstated_defaults(file, &fields, default_fn, diags);
                        }
                        if c.transparent {
                            match fields.into_iter().next() {
                                Some(f) => Shape::Wrapper(f.ty),
                                None => Shape::Invalid,
                            }
                        } else {
                            Shape::Struct(fields)
                        }
                    }
                }
            }
            syn::Item::Enum(e) => match self.serde_view(file, item, view, diags) {
                Some(c) => self.enum_shape(module, file, e, &c, diags),
                None => Shape::Invalid,
            },
            _ => Shape::Invalid,
        }
    }

    /// serde's view of a struct or enum, or None after reporting what serde_derive would
    /// refuse to compile.
    fn serde_view(
        &self,
        file: usize,
        item: &syn::Item,
        read: Option<SerdeView>,
        diags: &mut Diagnostics,
    ) -> Option<serde_attrs::Container> {
        match read.unwrap_or_else(|| serde_attrs::read(item)) {
            Ok(c) => Some(c),
            Err(errors) => {
                for e in errors {
                    let (start, end) = (e.span().start(), e.span().end());
                    let loc = SrcLoc {
                        file,
                        line: start.line,
                        column: start.column + 1,
                    };
                    let width = if end.line == start.line {
                        (end.column - start.column).max(1)
                    } else {
                        1
                    };
                    diags.push(
                        self.error(loc, width, format!("serde: {e}"))
                            .help("serde_derive refuses this attribute too; see https://serde.rs/attributes.html"),
                    );
                }
                None
            }
        }
    }

    fn fields<'f>(
        &mut self,
        module: &[String],
        file: usize,
        fields: impl Iterator<Item = (&'a syn::Field, &'f FieldAttrs)>,
        container_default: bool,
        diags: &mut Diagnostics,
    ) -> Vec<Field> {
        let mut out = Vec::new();
        for (f, a) in fields {
            if a.skip_serializing && a.skip_deserializing {
                continue;
            }
            let id = stripped_id_field(f);
            let loc = SrcLoc {
                file,
                line: id.0,
                column: id.1,
            };
            let rust_name = f.ident.as_ref().map(ident_name).unwrap_or_default();
            let json_name = a.name.clone();
            let markers = self.markers[file].for_node(id).to_vec();
            let field = format!("`{json_name}`");
            if let Some(default_fn) = &a.default_fn {
                self.warn_unstated_default(file, &field, default_fn, &markers, diags);
            } else if a.default
                && let Some(ty) = self.non_zero_default(module, &f.ty)
                && let Some(at) = serde_default_key(f)
            {
                let default_fn = serde_attrs::DefaultFn {
                    path: format!("{ty}::default"),
                    ..at
                };
                self.warn_unstated_default(file, &field, &default_fn, &markers, diags);
            }
            let known_with = a
                .custom_with
                .as_deref()
                .and_then(|with| self.with_module(module, with));
            let ty = match known_with {
                Some(known) => {
                    let foreign = Ty::Foreign {
                        path: type_text(option_inner(&f.ty).unwrap_or(&f.ty)),
                        known: Some(known),
                    };
                    if option_inner(&f.ty).is_some() {
                        Ty::Option(Box::new(foreign))
                    } else {
                        foreign
                    }
                }
                None => {
                    // A hand-written (de)serializer says nothing the type could tell, either.
                    let lenient = replaces_schema(&markers) || a.custom_with.is_some();
                    let site = Site {
                        schemaless: markers
                            .iter()
                            .any(|m| m.on_node() == Some(&SchemaMarker::Schemaless)),
                        field: true,
                        ..Site::new(format!("field `{rust_name}`"), lenient)
                    };
                    let ty_loc = self.ty_loc(file, &f.ty);
                    match self.with_site(site, |b| b.ty(module, file, &f.ty, ty_loc, diags)) {
                        Some(ty) => ty,
                        None => continue,
                    }
                }
            };
            out.push(Field {
                rust_name,
                json_name,
                ty,
                doc: doc_text(&f.attrs),
                markers,
                flatten: a.flatten,
                has_default: a.default || container_default,
                skip_serializing_if: a.skip_serializing_if,
                custom_with: a.custom_with.is_some() && known_with.is_none(),
                deserialize_with: a.deserialize_with,
                loc,
            });
        }
        out
    }

    /// Fields serde fills from a function when they are missing, with no default in the CRD:
    /// opgen cannot run the function, and other clients' objects are stored without the value.
    /// `fields` are those of a struct whose `#[serde(default = "path")]` gives them all.
    fn warn_unstated_defaults(
        &self,
        file: usize,
        fields: &[Field],
        default_fn: &serde_attrs::DefaultFn,
        diags: &mut Diagnostics,
    ) {
        let unstated: Vec<String> = fields
            .iter()
            .filter(|f| !has_default_marker(&f.markers))
            .map(|f| format!("`{}`", f.json_name))
            .collect();
        if !unstated.is_empty() {
            self.warn_unstated_default(file, &unstated.join(", "), default_fn, &[], diags);
        }
    }

    /// A field serde fills from a function when it is missing, with no default in the CRD.
    fn warn_unstated_default(
        &self,
        file: usize,
        json_name: &str,
        default_fn: &serde_attrs::DefaultFn,
        markers: &[Marker],
        diags: &mut Diagnostics,
    ) {
        if has_default_marker(markers) {
            return;
        }
        let place = self.files[file].location(default_fn.line, default_fn.column, default_fn.width);
        diags.push(
            Diagnostic::warning(format!(
                "serde fills {json_name} with `{}()` when missing, but the CRD declares no \
                 default: objects written by other clients are stored without it",
                default_fn.path
            ))
            .at(place)
            .help(format!(
                "add `// +kubebuilder:default=...` on the field with the value `{}()` returns \
                 (opgen never runs the crate's code)",
                default_fn.path
            )),
        );
    }

    fn enum_shape(
        &mut self,
        module: &[String],
        file: usize,
        e: &'a syn::ItemEnum,
        c: &serde_attrs::Container,
        diags: &mut Diagnostics,
    ) -> Shape {
        let repr = match &c.repr {
            EnumTag::Untagged => EnumRepr::Untagged,
            EnumTag::Adjacent { tag, content } => EnumRepr::Adjacent {
                tag: tag.clone(),
                content: content.clone(),
            },
            EnumTag::Internal { tag } => EnumRepr::Internal { tag: tag.clone() },
            EnumTag::External => EnumRepr::External,
        };
        let mut variants = Vec::new();
        for (v, a) in e.variants.iter().zip(&c.variants) {
            if a.skip_serializing {
                continue;
            }
            let id = stripped_id_variant(v);
            let loc = SrcLoc {
                file,
                line: id.0,
                column: id.1,
            };
            let rust_name = ident_name(&v.ident);
            let json_name = a.name.clone();
            let content = match &v.fields {
                syn::Fields::Unit => VariantContent::Unit,
                syn::Fields::Unnamed(u) if u.unnamed.len() == 1 => {
                    let ty = &u.unnamed[0].ty;
                    let site = Site::new(
                        format!("variant `{rust_name}` of `{}`", ident_name(&e.ident)),
                        false,
                    );
                    let ty_loc = self.ty_loc(file, ty);
                    match self.with_site(site, |b| b.ty(module, file, ty, ty_loc, diags)) {
                        Some(t) => VariantContent::Newtype(t),
                        None => continue,
                    }
                }
                syn::Fields::Unnamed(u) => VariantContent::Tuple(u.unnamed.len()),
                syn::Fields::Named(n) => VariantContent::Struct(self.fields(
                    module,
                    file,
                    n.named.iter().zip(&a.fields),
                    false,
                    diags,
                )),
            };
            variants.push(Variant {
                rust_name,
                json_name,
                doc: doc_text(&v.attrs),
                markers: self.markers[file].for_node(id).to_vec(),
                content,
                untagged: a.untagged,
                loc,
            });
        }
        let all_unit = variants
            .iter()
            .all(|v| matches!(v.content, VariantContent::Unit));
        if all_unit && repr == EnumRepr::External {
            Shape::UnitEnum(variants)
        } else {
            Shape::DataEnum { repr, variants }
        }
    }

    /// Resolves a type expression written in `module`.
    fn ty(
        &mut self,
        module: &[String],
        file: usize,
        t: &syn::Type,
        loc: SrcLoc,
        diags: &mut Diagnostics,
    ) -> Option<Ty> {
        if self.depth >= MAX_TYPE_DEPTH {
            // Reported once, where the outermost type started (the unwinding callers see None).
            diags.push(
                self.error(loc, 1, format!("this type nests more than {MAX_TYPE_DEPTH} types deep (generics inside generics, or aliases of aliases)"))
                    .help("name an inner type with a struct, or shorten the chain of type aliases (a cycle of aliases never ends)"),
            );
            return None;
        }
        self.depth += 1;
        let ty = self.ty_at_depth(module, file, t, loc, diags);
        self.depth -= 1;
        ty
    }

    fn ty_at_depth(
        &mut self,
        module: &[String],
        file: usize,
        t: &syn::Type,
        loc: SrcLoc,
        diags: &mut Diagnostics,
    ) -> Option<Ty> {
        match t {
            syn::Type::Paren(p) => self.ty(module, file, &p.elem, loc, diags),
            syn::Type::Group(g) => self.ty(module, file, &g.elem, loc, diags),
            syn::Type::Reference(r) => self.ty(module, file, &r.elem, loc, diags),
            syn::Type::Array(a) => Some(Ty::List {
                item: Box::new(self.ty(module, file, &a.elem, loc, diags)?),
                set: false,
            }),
            syn::Type::Slice(s) => Some(Ty::List {
                item: Box::new(self.ty(module, file, &s.elem, loc, diags)?),
                set: false,
            }),
            syn::Type::Tuple(tu) if tu.elems.is_empty() => Some(Ty::Unit),
            syn::Type::Path(p) if p.qself.is_none() => {
                self.path_ty(module, file, &p.path, loc, diags)
            }
            other if self.site.lenient => Some(Ty::Foreign {
                path: type_text(other),
                known: None,
            }),
            other => {
                let text = type_text(other);
                let help = match other {
                    // controller-gen: "inline struct types are not supported, use a named type instead"
                    syn::Type::Tuple(_) => {
                        "serde writes a tuple as a JSON array of mixed types; use a named struct instead"
                    }
                    // controller-gen: "cannot generate schema for any" (interfaces)
                    syn::Type::TraitObject(_) | syn::Type::ImplTrait(_) => {
                        "a trait object has no fixed JSON shape; use a concrete type, or serde_json::Value for any JSON"
                    }
                    _ => {
                        "use a named struct or enum, a std or k8s-openapi type, or serde_json::Value"
                    }
                };
                let (at, width) = if self.site.spans {
                    (self.loc_of(file, other), text.chars().count())
                } else {
                    (loc, 1)
                };
                diags.push(
                    self.error(
                        at,
                        width,
                        format!(
                            "{}: the type `{text}` cannot be described by a CRD schema",
                            self.site.what
                        ),
                    )
                    .help(help),
                );
                None
            }
        }
    }

    fn generic_args(
        &mut self,
        module: &[String],
        file: usize,
        seg: &syn::PathSegment,
        loc: SrcLoc,
        diags: &mut Diagnostics,
    ) -> Option<Vec<Ty>> {
        let syn::PathArguments::AngleBracketed(args) = &seg.arguments else {
            return Some(Vec::new());
        };
        let mut out = Vec::new();
        for a in &args.args {
            if let syn::GenericArgument::Type(t) = a {
                out.push(self.ty(module, file, t, loc, diags)?);
            }
        }
        Some(out)
    }

    fn path_ty(
        &mut self,
        module: &[String],
        file: usize,
        path: &syn::Path,
        loc: SrcLoc,
        diags: &mut Diagnostics,
    ) -> Option<Ty> {
        let segs: Vec<String> = path.segments.iter().map(|s| ident_name(&s.ident)).collect();
        let last = path.segments.last()?;
        // The path as written, and where it stands (inside the field's type,
        // `Vec<other::Thing>`, where spans allow): both print the path, so only for a message
        // or a foreign type.
        let display = || {
            quote::ToTokens::to_token_stream(path)
                .to_string()
                .replace(' ', "")
        };
        let located = |b: &Self| {
            let display = display();
            let (at, width) = if b.site.spans {
                (b.loc_of(file, path), display.chars().count())
            } else {
                (loc, 1)
            };
            (display, at, width)
        };
        match self.resolve(module, &segs, &mut HashSet::new()) {
            Some(Resolved::Local {
                item,
                module: m,
                file: f,
            }) => {
                if self.site.schemaless {
                    return Some(Ty::Foreign {
                        path: display(),
                        known: None,
                    });
                }
                if !matches!(last.arguments, syn::PathArguments::None) {
                    if self.site.lenient {
                        return Some(Ty::Foreign {
                            path: display(),
                            known: None,
                        });
                    }
                    let (display, at, width) = located(self);
                    diags.push(
                        self.error(
                            at,
                            width,
                            format!(
                                "{}: generic type `{display}` is not supported in a CRD schema",
                                self.site.what
                            ),
                        )
                        .help("use a concrete type"),
                    );
                    return None;
                }
                // The type's own markers and fields decide; the field's leniency does not reach
                // into it.
                let site = Site::new("the type".to_owned(), false);
                let id = self.with_site(site, |b| b.type_def_of(&m, f, item, diags))?;
                Some(Ty::Named(id))
            }
            resolved => {
                let full = match resolved {
                    Some(Resolved::External(p)) => p,
                    _ => segs.clone(),
                };
                match well_known(&full) {
                    Some(Ok(known)) => {
                        return Some(Ty::Foreign {
                            path: display(),
                            known: Some(known),
                        });
                    }
                    Some(Err(unstated)) => {
                        let (display, at, width) = located(self);
                        return self.unresolved(at, width, &display, Some(unstated), diags);
                    }
                    None => {}
                }
                if !external_known(&full) {
                    let (display, at, width) = located(self);
                    return self.unresolved(at, width, &display, None, diags);
                }
                let args = self.generic_args(module, file, last, loc, diags)?;
                match external_ty(&full, args) {
                    Ok(t) => Some(t),
                    Err(External::Misused(why)) => {
                        let (display, at, width) = located(self);
                        diags.push(self.error(
                            at,
                            width,
                            format!("{}: `{display}`: {why}", self.site.what),
                        ));
                        None
                    }
                    // `external_known` let the path through: it is known whatever its arguments.
                    Err(External::Unknown) => {
                        let (display, at, width) = located(self);
                        self.unresolved(at, width, &display, None, diags)
                    }
                }
            }
        }
    }

    /// A type opgen cannot read (`unstated`: one whose serde form it cannot see): let through
    /// where markers replace its schema, else one error naming the markers that would.
    fn unresolved(
        &self,
        at: SrcLoc,
        width: usize,
        display: &str,
        unstated: Option<Unstated>,
        diags: &mut Diagnostics,
    ) -> Option<Ty> {
        if self.site.lenient {
            return Some(Ty::Foreign {
                path: display.to_owned(),
                known: None,
            });
        }
        let what = &self.site.what;
        let markers = if self.site.field {
            "describe its JSON with `+kubebuilder:validation:Type=<type>` (and markers such as `Format`), or accept any JSON with `+kubebuilder:validation:Schemaless` and `+kubebuilder:pruning:PreserveUnknownFields`"
        } else {
            "describe its JSON with `+kubebuilder:validation:Type=<type>` (and markers such as `Format`) on this type, or accept any JSON with `+kubebuilder:validation:Schemaless` and `+kubebuilder:pruning:PreserveUnknownFields` on the fields that use it"
        };
        let d = match unstated {
            Some(u) => self
                .error(
                    at,
                    width,
                    format!("{what} has the type `{display}`, {}: {markers}", u.why),
                )
                .help(u.help),
            None => self
                .error(
                    at,
                    width,
                    format!("{what} has the type `{display}`, which opgen cannot resolve: {markers}"),
                )
                .help("opgen follows `use` declarations and module paths to this crate's structs, enums and type aliases, and knows std, serde_json, k8s-openapi and the well-known types of chrono, jiff, uuid, url, bytes and serde_bytes (README: \"Types of other crates\")"),
        };
        diags.push(d);
        None
    }

    /// The form a recognised `#[serde(with = "...")]` module writes (its path resolved through
    /// `use`); None for any other, which the field's markers must then describe.
    fn with_module(&self, module: &[String], with: &str) -> Option<WellKnown> {
        let mut segs: Vec<String> = with.split("::").map(str::to_owned).collect();
        // `serialize_with = "m::serialize"`: the module is what counts.
        if segs.len() > 1 && matches!(segs.last()?.as_str(), "serialize" | "deserialize") {
            segs.pop();
        }
        let full = match self.resolve(module, &segs, &mut HashSet::new()) {
            Some(Resolved::External(p)) => p,
            _ => segs,
        };
        let full: Vec<&str> = full.iter().map(String::as_str).collect();
        let full = match full.as_slice() {
            [rest @ .., "option"] => rest,
            all => all,
        };
        Some(match full {
            ["chrono", "serde", m] if m.starts_with("ts_") => WellKnown::UnixTime,
            ["time", "serde", "rfc3339"] => WellKnown::Timestamp,
            ["time", "serde", "rfc2822" | "iso8601"] => WellKnown::TimestampText,
            ["time", "serde", "timestamp"] => WellKnown::UnixTime,
            ["humantime_serde"] => WellKnown::DurationText,
            ["serde_bytes"] => WellKnown::ByteArray,
            _ => return None,
        })
    }

    fn with_site<T>(&mut self, site: Site, f: impl FnOnce(&mut Self) -> T) -> T {
        let saved = std::mem::replace(&mut self.site, site);
        let out = f(self);
        self.site = saved;
        out
    }

    fn resolve(
        &self,
        module: &[String],
        segs: &[String],
        seen: &mut HashSet<(Vec<String>, Vec<String>)>,
    ) -> Option<Resolved<'a>> {
        if !seen.insert((module.to_vec(), segs.to_vec())) || segs.is_empty() {
            return None;
        }
        let (first, rest) = (segs[0].as_str(), &segs[1..]);
        match first {
            "crate" => return self.resolve_in(&[], rest, seen),
            "self" => return self.resolve_in(module, rest, seen),
            "super" => {
                let parent = &module[..module.len().saturating_sub(1)];
                return self.resolve_in(parent, rest, seen);
            }
            _ => {}
        }
        if rest.is_empty() {
            return self.lookup(module, first, seen);
        }
        let mut child = module.to_vec();
        child.push(first.to_owned());
        if self.scopes.contains_key(&child) {
            return self.resolve_in(&child, rest, seen);
        }
        if let Some(scope) = self.scopes.get(module) {
            for u in &scope.uses {
                if let UseEntry::Named { name, path } = u
                    && name == first
                {
                    let mut full = path.clone();
                    full.extend(rest.iter().cloned());
                    return self.resolve(module, &full, seen);
                }
            }
        }
        Some(Resolved::External(segs.to_vec()))
    }

    fn resolve_in(
        &self,
        module: &[String],
        rest: &[String],
        seen: &mut HashSet<(Vec<String>, Vec<String>)>,
    ) -> Option<Resolved<'a>> {
        match rest {
            [] => None,
            [name] => self.lookup(module, name, seen),
            _ => self.resolve(module, rest, seen),
        }
    }

    fn lookup(
        &self,
        module: &[String],
        name: &str,
        seen: &mut HashSet<(Vec<String>, Vec<String>)>,
    ) -> Option<Resolved<'a>> {
        let scope = self.scopes.get(module)?;
        if let Some(item) = scope.items.get(name) {
            return Some(Resolved::Local {
                item,
                module: module.to_vec(),
                file: scope.file,
            });
        }
        for u in &scope.uses {
            if let UseEntry::Named { name: n, path } = u
                && n == name
            {
                return self.resolve(module, path, seen);
            }
        }
        let mut external = None;
        for u in &scope.uses {
            if let UseEntry::Glob { path } = u {
                match self.resolve_module(module, path) {
                    Some(m) => {
                        if let Some(r) = self.lookup(&m, name, seen) {
                            return Some(r);
                        }
                    }
                    None if external.is_none() => {
                        let mut full = path.clone();
                        full.push(name.to_owned());
                        // Any name of k8s-openapi's modules; well-known types of other crates
                        // (`use chrono::prelude::*`).
                        if path.first().is_some_and(|p| p == "k8s_openapi")
                            || matches!(well_known(&full), Some(Ok(_)))
                        {
                            external = Some(Resolved::External(full));
                        }
                    }
                    None => {}
                }
            }
        }
        external
    }

    /// A `use` path that names a module of this crate, as an absolute module path.
    fn resolve_module(&self, module: &[String], path: &[String]) -> Option<Vec<String>> {
        let (mut cur, rest) = match path.first()?.as_str() {
            "crate" => (Vec::new(), &path[1..]),
            "self" => (module.to_vec(), &path[1..]),
            _ => (module.to_vec(), path),
        };
        for seg in rest {
            match seg.as_str() {
                "super" => {
                    cur.pop();
                }
                "self" => {}
                s => cur.push(s.to_owned()),
            }
        }
        self.scopes.contains_key(&cur).then_some(cur)
    }
}

/// A well-known type whose serde form opgen cannot see, and what would state it.
struct Unstated {
    why: &'static str,
    help: &'static str,
}

/// Types of other crates (and std) that serde writes in one known form, by path: `Some(Err)`
/// for those whose form depends on what opgen cannot see (Cargo features, or a form no API
/// would choose by accident).
fn well_known(path: &[String]) -> Option<Result<WellKnown, Unstated>> {
    let krate = path.first()?.as_str();
    let name = path.last()?.as_str();
    let std = matches!(krate, "std" | "core" | "alloc") && path.len() > 1;
    Some(Ok(match (krate, name) {
        ("chrono", "DateTime") | ("jiff", "Timestamp") => WellKnown::Timestamp,
        ("chrono", "NaiveDate") | ("jiff", "Date") => WellKnown::Date,
        ("chrono", "NaiveDateTime") | ("jiff", "DateTime") => WellKnown::LocalDateTime,
        ("chrono", "NaiveTime") | ("jiff", "Time") => WellKnown::TimeOfDay,
        ("jiff", "Span" | "SignedDuration") => WellKnown::DurationText,
        ("uuid", "Uuid") => WellKnown::Uuid,
        ("url", "Url") => WellKnown::Url,
        ("bytes", "Bytes" | "BytesMut") | ("serde_bytes", "ByteBuf" | "Bytes") => {
            WellKnown::ByteArray
        }
        (_, "IpAddr") if std => WellKnown::IpAddr,
        (_, "Ipv4Addr") if std => WellKnown::Ipv4Addr,
        (_, "Ipv6Addr") if std => WellKnown::Ipv6Addr,
        (_, "SocketAddr" | "SocketAddrV4" | "SocketAddrV6") if std => WellKnown::SocketAddr,
        (_, n) if std && n.starts_with("NonZero") && n.len() > "NonZero".len() => {
            let (signed, bits) = match &n["NonZero".len()..] {
                "I8" => (true, 8),
                "I16" => (true, 16),
                "I32" => (true, 32),
                "I64" => (true, 64),
                "I128" => (true, 128),
                "Isize" => (true, 0),
                "U8" => (false, 8),
                "U16" => (false, 16),
                "U32" => (false, 32),
                "U64" => (false, 64),
                "U128" => (false, 128),
                "Usize" => (false, 0),
                _ => return None,
            };
            WellKnown::NonZero { bits, signed }
        }
        (_, "Duration") if std => {
            return Some(Err(Unstated {
                why: "which serde writes as `{\"secs\": <u64>, \"nanos\": <u32>}`, so opgen asks for the wire form to be stated",
                help: "for a string such as \"1h 30m\", use #[serde(with = \"humantime_serde\")] (opgen knows it); for the secs/nanos object, a struct of your own",
            }));
        }
        (
            "time",
            "OffsetDateTime" | "UtcDateTime" | "PrimitiveDateTime" | "Date" | "Time" | "Duration"
            | "UtcOffset",
        ) => {
            return Some(Err(Unstated {
                why: "whose serde form depends on time's `serde-human-readable` feature (an array of numbers without it, a string that is not RFC 3339 with it), which opgen cannot see",
                help: "for an OffsetDateTime, #[serde(with = \"time::serde::rfc3339\")] writes RFC 3339 (opgen knows it, and `rfc2822`, `iso8601`, `timestamp` and their `::option`)",
            }));
        }
        _ => return None,
    }))
}

/// Whether [`external_ty`] knows the path (whatever its type arguments).
fn external_known(path: &[String]) -> bool {
    !matches!(external_ty(path, Vec::new()), Err(External::Unknown))
}

/// `T` of a field type written `Option<T>`.
fn option_inner(t: &syn::Type) -> Option<&syn::Type> {
    let syn::Type::Path(p) = t else { return None };
    let last = p.path.segments.last()?;
    if last.ident != "Option" {
        return None;
    }
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    match args.args.first()? {
        syn::GenericArgument::Type(inner) => Some(inner),
        _ => None,
    }
}

/// Why [`external_ty`] gives no type for a path.
enum External {
    /// The path is none of the std, serde_json or k8s-openapi types it knows.
    Unknown,
    /// A type it knows, but not as written: why (after the type in the error).
    Misused(String),
}

/// Types from std, serde_json and k8s-openapi, by path.
fn external_ty(path: &[String], mut args: Vec<Ty>) -> Result<Ty, External> {
    let name = path.last().map(String::as_str).unwrap_or("");
    let krate = path.first().map(String::as_str).unwrap_or("");
    let one = |args: &mut Vec<Ty>| -> Result<Ty, External> {
        if args.len() == 1 {
            Ok(args.remove(0))
        } else {
            Err(External::Misused(format!(
                "expected one type argument for `{name}`"
            )))
        }
    };
    if krate == "k8s_openapi" && name == "ByteString" {
        return Ok(Ty::Bytes { byte_string: true });
    }
    if krate == "k8s_openapi" {
        return Ok(Ty::K8s(path[1..].join("::")));
    }
    if krate == "serde_json" {
        return match name {
            "Value" => Ok(Ty::Json),
            "Map" => Ok(Ty::JsonObject),
            _ => Err(External::Misused(format!(
                "serde_json::{name} is not a JSON value type"
            ))),
        };
    }
    let std_path = path.len() == 1 || matches!(krate, "std" | "alloc" | "core" | "indexmap");
    if !std_path {
        return Err(External::Unknown);
    }
    Ok(match name {
        "bool" => Ty::Bool,
        // serde writes a path as its (UTF-8) string, as schemars' schema says.
        "String" | "str" | "char" | "PathBuf" | "Path" => Ty::String,
        "i8" => Ty::Integer {
            bits: 8,
            signed: true,
        },
        "i16" => Ty::Integer {
            bits: 16,
            signed: true,
        },
        "i32" => Ty::Integer {
            bits: 32,
            signed: true,
        },
        "i64" => Ty::Integer {
            bits: 64,
            signed: true,
        },
        "i128" => Ty::Integer {
            bits: 128,
            signed: true,
        },
        "isize" => Ty::Integer {
            bits: 0,
            signed: true,
        },
        "u8" => Ty::Integer {
            bits: 8,
            signed: false,
        },
        "u16" => Ty::Integer {
            bits: 16,
            signed: false,
        },
        "u32" => Ty::Integer {
            bits: 32,
            signed: false,
        },
        "u64" => Ty::Integer {
            bits: 64,
            signed: false,
        },
        "u128" => Ty::Integer {
            bits: 128,
            signed: false,
        },
        "usize" => Ty::Integer {
            bits: 0,
            signed: false,
        },
        "f32" => Ty::Float { bits: 32 },
        "f64" => Ty::Float { bits: 64 },
        "Option" => Ty::Option(Box::new(one(&mut args)?)),
        "Box" | "Arc" | "Rc" | "Cow" => one(&mut args)?,
        // `NonZero<u32>` (Rust 1.79); `NonZeroU32` and the like are in [`well_known`].
        "NonZero" => match one(&mut args)? {
            Ty::Integer { bits, signed } => Ty::Foreign {
                path: format!(
                    "NonZero<{}{}>",
                    if signed { 'i' } else { 'u' },
                    match bits {
                        0 => "size".to_owned(),
                        b => b.to_string(),
                    }
                ),
                known: Some(WellKnown::NonZero { bits, signed }),
            },
            _ => {
                return Err(External::Misused(
                    "NonZero takes a primitive integer".to_owned(),
                ));
            }
        },
        "Vec" | "VecDeque" | "LinkedList" => match one(&mut args)? {
            Ty::Integer {
                bits: 8,
                signed: false,
            } if name == "Vec" => Ty::Bytes { byte_string: false },
            item => Ty::List {
                item: Box::new(item),
                set: false,
            },
        },
        "BTreeSet" | "HashSet" | "IndexSet" => Ty::List {
            item: Box::new(one(&mut args)?),
            set: true,
        },
        "BTreeMap" | "HashMap" | "IndexMap" => {
            if args.len() != 2 {
                return Err(External::Misused(format!(
                    "expected key and value types for `{name}`"
                )));
            }
            let value = args.pop().expect("two args");
            let key = args.pop().expect("two args");
            let string_key = match &key {
                Ty::String | Ty::Named(_) => true,
                Ty::Foreign { known: Some(k), .. } => k.is_string(),
                _ => false,
            };
            if !string_key {
                return Err(External::Misused(
                    "map keys must be strings in JSON".to_owned(),
                ));
            }
            Ty::Map(Box::new(value))
        }
        _ => return Err(External::Unknown),
    })
}

fn check_package_names(
    b: &Builder<'_>,
    pkg: &[Marker],
    file: usize,
    group: &str,
    version: &str,
    diags: &mut Diagnostics,
) {
    for m in pkg {
        let Typed::Package(package_marker) = &m.typed else {
            continue;
        };
        // Every package marker is read here or by `is_skip`: a new one does not build until
        // the model reads it.
        let (got, want, what) = match package_marker {
            PackageMarker::GroupName(got) => (got, group, "group"),
            PackageMarker::VersionName(got) => (got, version, "version"),
            PackageMarker::Skip => continue,
        };
        if got != want {
            let loc = b.files[file].location(m.line, m.column, m.text.chars().count());
            diags.push(
                Diagnostic::error(format!(
                    "`+{}` says {what} {got:?} but #[kube] says {want:?}",
                    m.name()
                ))
                .at(loc)
                .help(format!(
                    "make them agree; #[kube({what} = ...)] is what the compiled code uses"
                )),
            );
        }
    }
}

/// A type as written, without the spaces `quote` puts between tokens.
fn type_text(t: &syn::Type) -> String {
    let mut text = quote::ToTokens::to_token_stream(t).to_string();
    for (from, to) in [
        (" :: ", "::"),
        (":: ", "::"),
        (" ::", "::"),
        (" ,", ","),
        ("< ", "<"),
        (" <", "<"),
        (" >", ">"),
        ("( ", "("),
        (" )", ")"),
    ] {
        text = text.replace(from, to);
    }
    text
}

fn item_ident(item: &syn::Item) -> Option<&syn::Ident> {
    match item {
        syn::Item::Struct(s) => Some(&s.ident),
        syn::Item::Enum(e) => Some(&e.ident),
        syn::Item::Type(t) => Some(&t.ident),
        _ => None,
    }
}

fn item_attrs(item: &syn::Item) -> &[syn::Attribute] {
    match item {
        syn::Item::Struct(s) => &s.attrs,
        syn::Item::Enum(e) => &e.attrs,
        syn::Item::Type(t) => &t.attrs,
        _ => &[],
    }
}

fn stripped_id(item: &syn::Item) -> (usize, usize) {
    match item {
        syn::Item::Struct(s) => s.start(),
        syn::Item::Enum(e) => e.start(),
        syn::Item::Type(t) => t.start(),
        other => node_id(other),
    }
}

fn stripped_id_field(f: &syn::Field) -> (usize, usize) {
    f.start()
}

fn stripped_id_variant(v: &syn::Variant) -> (usize, usize) {
    v.start()
}

/// `#[cfg(test)]`: code compiled only for tests.
fn is_cfg_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg") && a.parse_args::<syn::Ident>().is_ok_and(|i| i == "test")
    })
}

/// Markers that describe a kind (its resource, versions, printer columns, subresources, root)
/// take effect on the struct that derives CustomResource only: anywhere else they would be
/// dropped without a word, so they are errors there (issue #23 item 2). Kinds of a skipped
/// package (`+kubebuilder:skip`) keep theirs.
fn kind_markers_elsewhere(model: &Model<'_>, diags: &mut Diagnostics) {
    let kinds: HashSet<TypeId> = model
        .kinds
        .iter()
        .flat_map(|k| k.versions.iter().map(|v| v.spec))
        .collect();
    for (id, t) in model.types.iter().enumerate() {
        let skipped = model
            .packages
            .get(&t.package)
            .is_some_and(|m| m.iter().any(is_skip));
        if kinds.contains(&id) || skipped {
            continue;
        }
        for m in &t.markers {
            if let Typed::Resource(_) = m.typed {
                let name = m.name();
                diags.push(
                    Diagnostic::error(format!(
                        "`+{name}` describes a kind, but `{}` is not one, so it would have no effect",
                        t.name
                    ))
                    .at(model.marker_location(t.loc.file, m))
                    .help("put it on the struct that derives CustomResource (the kind's spec struct)"),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Model, Shape, Ty, WellKnown, build};
    use crate::diag::Diagnostics;
    use crate::load::SourceFile;
    use crate::markers::{attach::attach, catalog::MarkerCatalog};

    fn file(body: &str) -> Vec<SourceFile> {
        let text = format!(
            "#[derive(CustomResource, Serialize, Deserialize)]\n#[kube(group = \"g.example.com\", version = \"v1\", kind = \"K\")]\npub struct KSpec {{\n{body}\n}}\n"
        );
        vec![SourceFile {
            path: "src/api/v1/types.rs".into(),
            module: vec!["api".into(), "v1".into(), "types".into()],
            ast: syn::parse_file(&text).unwrap(),
            text,
            skipped: Vec::new(),
        }]
    }

    /// The spec's fields (rust name → Ty) and the rendered errors.
    fn spec_fields(files: &[SourceFile]) -> (Vec<(String, Ty)>, String) {
        let mut diags = Diagnostics::default();
        let markers = files
            .iter()
            .map(|f| attach(f, MarkerCatalog::get(), &mut diags))
            .collect();
        let model: Model = build(files, markers, &mut diags);
        let fields = match model
            .kinds
            .first()
            .map(|k| &model.types[k.versions[0].spec].shape)
        {
            Some(Shape::Struct(fields)) => fields
                .iter()
                .map(|f| (f.rust_name.clone(), f.ty.clone()))
                .collect(),
            _ => Vec::new(),
        };
        let errors = match diags.finish() {
            Ok(_) => String::new(),
            Err(e) => e.to_string(),
        };
        (fields, errors)
    }

    #[test]
    fn a_serde_default_the_crd_does_not_state_is_a_warning_at_the_attribute() {
        let files = file(
            "    #[serde(default = \"five\")]
    pub replicas: i32,
    // +kubebuilder:default=5
    #[serde(default = \"five\")]
    pub stated: i32,
    #[serde(default, rename = \"plain\")]
    pub zero: i32,
    #[serde(rename = \"modeName\", default = \"KSpec::mode\")]
    pub mode_name: String,
    pub inner: Inner,
    #[serde(skip_serializing_if = \"Option::is_none\", default)]
    pub mode: Mode,
    #[serde(default)]
    pub zero_mode: ZeroMode,
    #[serde(default)]
    pub level: Level,
}
#[derive(Serialize, Deserialize, Default)]
pub enum Mode {
    #[default]
    Fast,
    Slow,
}
#[derive(Serialize, Deserialize, Default)]
pub struct ZeroMode {
    pub a: i32,
}
#[derive(Serialize, Deserialize)]
pub struct Level(i32);
impl Default for Level {
    fn default() -> Self {
        Level(3)
    }
}
#[derive(Serialize, Deserialize)]
#[serde(default = \"Inner::defaults\")]
pub struct Inner {
    // +kubebuilder:default=1
    pub a: i32,
    pub b: i32,
    pub c: i32,",
        );
        let mut diags = Diagnostics::default();
        let markers = files
            .iter()
            .map(|f| attach(f, MarkerCatalog::get(), &mut diags))
            .collect();
        build(&files, markers, &mut diags);
        let warnings: Vec<String> = diags
            .finish()
            .unwrap()
            .iter()
            .map(|w| {
                let at = w.location.as_ref().unwrap();
                format!(
                    "{}:{}:{} {}",
                    at.file.display(),
                    at.line,
                    at.column,
                    w.message
                )
            })
            .collect();
        let unstated = |at: &str, field: &str, function: &str| {
            format!(
                "src/api/v1/types.rs:{at} serde fills {field} with `{function}()` when missing, \
                 but the CRD declares no default: objects written by other clients are \
                 stored without it"
            )
        };
        assert_eq!(
            warnings,
            [
                unstated("4:23", "`replicas`", "five"),
                unstated("11:44", "`modeName`", "KSpec::mode"),
                unstated("39:19", "`b`, `c`", "Inner::defaults"),
                unstated("14:54", "`mode`", "Mode::default"),
                unstated("18:13", "`level`", "Level::default"),
            ]
        );
    }

    fn known(path: &str, known: WellKnown) -> Ty {
        Ty::Foreign {
            path: path.to_owned(),
            known: Some(known),
        }
    }

    #[test]
    fn well_known_types_and_with_modules_are_what_serde_writes() {
        let files = file(
            "    pub a: chrono::DateTime<chrono::Utc>,
    pub b: Option<uuid::Uuid>,
    pub c: std::num::NonZeroI16,
    pub d: std::num::NonZero<u64>,
    #[serde(with = \"humantime_serde\")]
    pub e: Option<std::time::Duration>,
    #[serde(serialize_with = \"chrono::serde::ts_seconds::serialize\")]
    pub f: chrono::DateTime<chrono::Utc>,
    pub g: Box<std::net::Ipv6Addr>,",
        );
        let (fields, errors) = spec_fields(&files);
        assert_eq!(errors, "");
        let want = [
            (
                "a",
                known("chrono::DateTime<chrono::Utc>", WellKnown::Timestamp),
            ),
            (
                "b",
                Ty::Option(Box::new(known("uuid::Uuid", WellKnown::Uuid))),
            ),
            (
                "c",
                known(
                    "std::num::NonZeroI16",
                    WellKnown::NonZero {
                        bits: 16,
                        signed: true,
                    },
                ),
            ),
            (
                "d",
                known(
                    "NonZero<u64>",
                    WellKnown::NonZero {
                        bits: 64,
                        signed: false,
                    },
                ),
            ),
            (
                "e",
                Ty::Option(Box::new(known(
                    "std::time::Duration",
                    WellKnown::DurationText,
                ))),
            ),
            (
                "f",
                known("chrono::DateTime<chrono::Utc>", WellKnown::UnixTime),
            ),
            ("g", known("std::net::Ipv6Addr", WellKnown::Ipv6Addr)),
        ];
        let got: Vec<(&str, &Ty)> = fields.iter().map(|(n, t)| (n.as_str(), t)).collect();
        let want: Vec<(&str, &Ty)> = want.iter().map(|(n, t)| (*n, t)).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn schema_markers_leave_the_type_unresolved() {
        let files = file(
            "    // +kubebuilder:validation:Type=string
    pub a: other::A<(u8, u8)>,
    // +kubebuilder:validation:Schemaless
    // +kubebuilder:pruning:PreserveUnknownFields
    pub b: Option<Local>,
    // +kubebuilder:validation:EmbeddedResource
    pub c: Vec<other::C>,
    // +kubebuilder:validation:Type=object
    pub d: std::time::Duration,",
        );
        let (fields, errors) = spec_fields(&files);
        assert_eq!(errors, "");
        let unresolved = |path: &str| Ty::Foreign {
            path: path.to_owned(),
            known: None,
        };
        assert_eq!(fields[0].1, unresolved("other::A<(u8,u8)>"));
        // Schemaless does not traverse this crate's types either (`Local` does not exist).
        assert_eq!(fields[1].1, Ty::Option(Box::new(unresolved("Local"))));
        assert_eq!(
            fields[2].1,
            Ty::List {
                item: Box::new(unresolved("other::C")),
                set: false
            }
        );
        assert_eq!(fields[3].1, unresolved("std::time::Duration"));
    }

    #[test]
    fn an_unresolvable_type_is_one_error_at_the_type() {
        let files = file("    pub a: Vec<other::A>,\n    pub b: String,");
        let (fields, errors) = spec_fields(&files);
        assert_eq!(errors.matches("error:").count(), 1, "{errors}");
        assert!(
            errors.starts_with(
                "error: field `a` has the type `other::A`, which opgen cannot resolve"
            ),
            "{errors}"
        );
        assert!(
            errors.contains("--> src/api/v1/types.rs:4:16\n"),
            "{errors}"
        );
        // The other fields are still read.
        assert_eq!(fields.len(), 1);
        assert_eq!(fields[0].0, "b");
    }

    #[test]
    fn a_known_type_written_wrongly_says_why_after_the_type() {
        let files = file(
            "    pub a: std::collections::BTreeMap<i32, String>,
    pub b: Vec<String, String>,
    pub c: serde_json::Number,
    pub d: std::num::NonZero<String>,
    pub e: std::collections::HashMap<String>,
    pub f: String,",
        );
        let (fields, errors) = spec_fields(&files);
        let messages: Vec<_> = errors
            .lines()
            .filter_map(|l| l.strip_prefix("error: "))
            .collect();
        assert_eq!(
            messages,
            [
                "field `a`: `std::collections::BTreeMap<i32,String>`: map keys must be strings in JSON",
                "field `b`: `Vec<String,String>`: expected one type argument for `Vec`",
                "field `c`: `serde_json::Number`: serde_json::Number is not a JSON value type",
                "field `d`: `std::num::NonZero<String>`: NonZero takes a primitive integer",
                "field `e`: `std::collections::HashMap<String>`: expected key and value types for `HashMap`",
            ],
            "{errors}"
        );
        assert_eq!(fields.len(), 1);
        assert_eq!(fields[0].0, "f");
    }
}
