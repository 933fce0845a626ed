//! Model: the project's API as opgen understands it — kinds with their versions, and the
//! Rust types reachable from them, with serde's JSON names and shapes resolved.
//!
//! The model knows Rust and serde; it knows nothing of OpenAPI. Generators turn it into
//! YAML. Types are resolved lazily from the kinds, so an unresolvable type in code that no
//! CRD uses is not an error.

pub mod kube_attrs;
mod resolve;
pub mod serde_attrs;

use crate::diag::{Diagnostic, Diagnostics, Location};
use crate::load::{SourceFile, SourceText};
use crate::markers::typed::{SchemaMarker, Typed};
use crate::markers::{FileMarkers, Marker};
use kube_attrs::KubeAttrs;
use std::collections::{HashMap, HashSet};

pub type TypeId = usize;

/// Where a node stands: file index into [`Model::files`] plus 1-based line and column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SrcLoc {
    pub file: usize,
    pub line: usize,
    pub column: usize,
}

/// A resolved Rust type expression.
#[derive(Debug, Clone, PartialEq)]
pub enum Ty {
    Bool,
    String,
    /// bits 0 means pointer-sized (isize/usize).
    Integer {
        bits: u8,
        signed: bool,
    },
    Float {
        bits: u8,
    },
    /// `Vec<u8>`, or k8s-openapi's `ByteString` (`byte_string`): base64 on the wire.
    Bytes {
        byte_string: bool,
    },
    Option(Box<Ty>),
    List {
        item: Box<Ty>,
        set: bool,
    },
    /// A map with string keys.
    Map(Box<Ty>),
    /// `serde_json::Value`: any JSON.
    Json,
    /// `serde_json::Map<String, Value>`: any JSON object.
    JsonObject,
    Named(TypeId),
    /// A k8s-openapi type, by its path below `k8s_openapi::` (e.g. `api::core::v1::PodSpec`).
    K8s(String),
    /// `()` or a unit struct.
    Unit,
    /// A type of another crate (or std) that opgen does not read field by field: `known` is the
    /// form serde writes it in, or None when markers on the field or type alias replace its
    /// schema (`Schemaless`, `Type=`, `EmbeddedResource`) and the type is left unresolved.
    Foreign {
        /// As written, for messages.
        path: String,
        known: Option<WellKnown>,
    },
}

/// What serde_json writes for a well-known foreign type (README: "Types of other crates").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WellKnown {
    /// RFC 3339 with an offset: chrono `DateTime<Tz>`, jiff `Timestamp`, time's
    /// `OffsetDateTime` through `time::serde::rfc3339`.
    Timestamp,
    /// `2024-01-02`: chrono `NaiveDate`, jiff `civil::Date`.
    Date,
    /// `2024-01-02T03:04:05`, no offset: chrono `NaiveDateTime`, jiff `civil::DateTime`.
    LocalDateTime,
    /// `03:04:05`: chrono `NaiveTime`, jiff `civil::Time`.
    TimeOfDay,
    /// A timestamp string in a format other than RFC 3339 (time's `rfc2822` and `iso8601`,
    /// which writes a six-digit year).
    TimestampText,
    /// An integer count since the Unix epoch (chrono `ts_seconds`..., time's `timestamp`).
    UnixTime,
    /// A duration string: humantime (`1day 1h 30m`) or ISO 8601 (`PT1H30M`, jiff).
    DurationText,
    /// Hyphenated lower-case UUID.
    Uuid,
    /// An absolute URL (`url::Url`).
    Url,
    /// `std::net::IpAddr`: either address family.
    IpAddr,
    Ipv4Addr,
    Ipv6Addr,
    /// `host:port`, `[v6]:port`.
    SocketAddr,
    /// `bytes::Bytes`, `serde_bytes`: serde's bytes, which serde_json writes as an array of
    /// numbers 0-255 (not base64).
    ByteArray,
    /// `std::num::NonZero*`: the integer, never 0.
    NonZero {
        bits: u8,
        signed: bool,
    },
}

impl WellKnown {
    /// serde writes it as a JSON string (so it can be a map key).
    pub fn is_string(self) -> bool {
        !matches!(
            self,
            WellKnown::UnixTime | WellKnown::ByteArray | WellKnown::NonZero { .. }
        )
    }
}

#[derive(Debug, Clone)]
pub struct TypeDef {
    pub name: String,
    /// The Rust path, for messages: `crate::api::v1::CronJobSpec`.
    pub path: String,
    pub doc: String,
    pub markers: Vec<Marker>,
    /// The directory module the type lives in (its "package").
    pub package: Vec<String>,
    pub shape: Shape,
    /// serde handles it exactly as the type it wraps, in both directions: a type alias or a
    /// `#[serde(transparent)]` struct (not a newtype struct, which serde sees as itself).
    pub transparent: bool,
    /// `#[serde(deny_unknown_fields)]` on a struct.
    pub deny_unknown_fields: bool,
    pub loc: SrcLoc,
}

#[derive(Debug, Clone)]
pub enum Shape {
    Struct(Vec<Field>),
    /// A newtype or `#[serde(transparent)]` struct, a type alias, or `#[serde(into/from)]`:
    /// serialized as the inner type.
    Wrapper(Ty),
    /// An enum whose variants are all unit variants: a string.
    UnitEnum(Vec<Variant>),
    DataEnum {
        repr: EnumRepr,
        variants: Vec<Variant>,
    },
    /// A hand-written `impl Serialize` with a `+kubebuilder:validation:Type` marker: the Rust
    /// type says nothing about the wire format, so the type's markers alone describe it, without
    /// its doc (controller-gen's rule for Go types with a custom `MarshalJSON`, spec §4.4). A
    /// hand-written `Serialize` without a Type marker is read like any other type, as
    /// controller-gen does.
    Opaque,
    /// `#[derive(SerializeDisplay)]` (serde_with): written as its `Display` string, like a Go type
    /// with only a `MarshalText` (spec §4.4): `type: string` plus the type's markers.
    DisplayString,
    /// Resolution failed (already reported).
    Invalid,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EnumRepr {
    External,
    Internal { tag: String },
    Adjacent { tag: String, content: String },
    Untagged,
}

#[derive(Debug, Clone)]
pub struct Field {
    pub rust_name: String,
    pub json_name: String,
    pub ty: Ty,
    pub doc: String,
    pub markers: Vec<Marker>,
    pub flatten: bool,
    /// serde fills the field when it is missing (`#[serde(default)]` on it or its container).
    pub has_default: bool,
    /// `skip_serializing_if`: None is left out rather than written as null.
    pub skip_serializing_if: bool,
    /// A hand-written (de)serializer: the type says nothing about the wire format.
    pub custom_with: bool,
    /// `with`/`deserialize_with`: a missing field is an error even for an `Option` (serde's
    /// implicit None is only for fields it deserializes itself), unless `default`.
    pub deserialize_with: bool,
    pub loc: SrcLoc,
}

#[derive(Debug, Clone)]
pub struct Variant {
    pub rust_name: String,
    pub json_name: String,
    pub doc: String,
    pub markers: Vec<Marker>,
    pub content: VariantContent,
    pub untagged: bool,
    pub loc: SrcLoc,
}

#[derive(Debug, Clone)]
pub enum VariantContent {
    Unit,
    Newtype(Ty),
    Struct(Vec<Field>),
    Tuple(usize),
}

/// One version of a kind, contributed by one `#[derive(CustomResource)]` struct.
#[derive(Debug, Clone)]
pub struct KindVersion {
    pub version: String,
    pub attrs: KubeAttrs,
    /// The spec struct (the one carrying the derive).
    pub spec: TypeId,
    pub status: Option<Ty>,
    /// Marker-derived and attribute-derived CRD settings, merged.
    pub markers: Vec<Marker>,
    pub loc: SrcLoc,
}

/// A kind across its versions.
#[derive(Debug, Clone)]
pub struct Kind {
    pub group: String,
    pub kind: String,
    pub versions: Vec<KindVersion>,
}

/// A kind the model names but did not resolve (see [`build_kinds`]): its types are not read.
#[derive(Debug, Clone)]
pub struct UnresolvedKind {
    pub group: String,
    pub kind: String,
    /// Each version's plural, in source order.
    pub plurals: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct ItemMarker {
    pub marker: Marker,
    pub file: usize,
}

pub struct Model<'a> {
    /// The loaded files' paths and texts, for locations (not their syn trees, so that
    /// generators can share the model between threads).
    pub files: Vec<SourceText<'a>>,
    pub kinds: Vec<Kind>,
    /// The kinds [`build_kinds`] was not asked for, in the same order.
    pub unresolved_kinds: Vec<UnresolvedKind>,
    pub types: Vec<TypeDef>,
    /// Item-level markers (RBAC, webhooks) from every file, in file and line order.
    pub item_markers: Vec<ItemMarker>,
    /// Package markers by directory module.
    pub packages: HashMap<Vec<String>, Vec<Marker>>,
    /// Every file's markers as attached, by file: the generators find their own family's
    /// there, and report the ones nothing used.
    pub markers: Vec<FileMarkers>,
}

impl Model<'_> {
    pub fn location(&self, loc: SrcLoc, width: usize) -> Location {
        self.files[loc.file].location(loc.line, loc.column, width)
    }

    pub fn marker_location(&self, file: usize, m: &Marker) -> Location {
        self.files[file].location(m.line, m.column, m.text.chars().count())
    }

    /// Whether `+kubebuilder:validation:Optional` stands in the package's `//!` docs.
    pub fn package_optional(&self, package: &[String]) -> bool {
        self.packages.get(package).is_some_and(|ms| {
            ms.iter()
                .any(|m| m.typed == Typed::Schema(SchemaMarker::Optional))
        })
    }

    /// Every kind's group and name, resolved or not, in the model's order (by both).
    pub fn kind_keys(&self) -> Vec<(String, String)> {
        let resolved = self.kinds.iter().map(|k| (&k.group, &k.kind));
        let unresolved = self.unresolved_kinds.iter().map(|k| (&k.group, &k.kind));
        let mut keys: Vec<(String, String)> = resolved
            .chain(unresolved)
            .map(|(g, k)| (g.clone(), k.clone()))
            .collect();
        keys.sort();
        keys
    }

    pub fn type_def(&self, id: TypeId) -> &TypeDef {
        &self.types[id]
    }

    /// Whether serde sees `ty` as an `Option`: written or through type aliases and transparent
    /// structs. serde then accepts the field missing (as None) and writes None as null.
    pub fn is_option(&self, ty: &Ty) -> bool {
        let mut ty = ty;
        for _ in 0..self.types.len() + 1 {
            match ty {
                Ty::Option(_) => return true,
                Ty::Named(id) => match &self.types[*id] {
                    TypeDef {
                        transparent: true,
                        shape: Shape::Wrapper(inner),
                        ..
                    } => ty = inner,
                    _ => return false,
                },
                _ => return false,
            }
        }
        false
    }

    /// The files a kind's CRD is made from: those its versions stand in and those of every
    /// type they reach (indices into [`Model::files`]).
    pub fn kind_files(&self, kind: &Kind) -> std::collections::BTreeSet<usize> {
        let mut files = std::collections::BTreeSet::new();
        let mut seen = vec![false; self.types.len()];
        let mut todo: Vec<&Ty> = Vec::new();
        for v in &kind.versions {
            files.insert(v.loc.file);
            self.reach(v.spec, &mut seen, &mut files, &mut todo);
            todo.extend(&v.status);
        }
        while let Some(ty) = todo.pop() {
            match ty {
                Ty::Option(inner) | Ty::List { item: inner, .. } | Ty::Map(inner) => {
                    todo.push(inner);
                }
                Ty::Named(id) => self.reach(*id, &mut seen, &mut files, &mut todo),
                _ => {}
            }
        }
        files
    }

    fn reach<'m>(
        &'m self,
        id: TypeId,
        seen: &mut [bool],
        files: &mut std::collections::BTreeSet<usize>,
        todo: &mut Vec<&'m Ty>,
    ) {
        if std::mem::replace(&mut seen[id], true) {
            return;
        }
        let def = &self.types[id];
        files.insert(def.loc.file);
        let fields = |fields: &'m [Field], todo: &mut Vec<&'m Ty>| {
            todo.extend(fields.iter().map(|f| &f.ty));
        };
        match &def.shape {
            Shape::Struct(fs) => fields(fs, todo),
            Shape::Wrapper(ty) => todo.push(ty),
            Shape::DataEnum { variants, .. } => {
                for v in variants {
                    match &v.content {
                        VariantContent::Newtype(ty) => todo.push(ty),
                        VariantContent::Struct(fs) => fields(fs, todo),
                        VariantContent::Unit | VariantContent::Tuple(_) => {}
                    }
                }
            }
            Shape::UnitEnum(_) | Shape::Opaque | Shape::DisplayString | Shape::Invalid => {}
        }
    }

    /// Errors for kinds whose versions disagree or miss a storage version.
    pub fn diag_at(&self, loc: SrcLoc, message: impl Into<String>) -> Diagnostic {
        Diagnostic::error(message).at(self.location(loc, 1))
    }
}

/// Builds the model from parsed files and their markers.
pub fn build<'a>(
    files: &'a [SourceFile],
    markers: Vec<FileMarkers>,
    diags: &mut Diagnostics,
) -> Model<'a> {
    resolve::Builder::new(files, markers).build(diags)
}

/// [`build`], resolving only the kinds in `only` (by group and kind): the manifests cache
/// rebuilds those and takes every other kind's CRD as it was.
pub fn build_kinds<'a>(
    files: &'a [SourceFile],
    markers: Vec<FileMarkers>,
    only: &'a HashSet<(String, String)>,
    diags: &mut Diagnostics,
) -> Model<'a> {
    resolve::Builder::new(files, markers)
        .only(only)
        .build(diags)
}

/// `text` as the API file `src/api/v1/types.rs`, for the tests of what reads the model.
#[cfg(test)]
pub(crate) fn api_file_for_tests(text: &str) -> Vec<SourceFile> {
    vec![SourceFile {
        path: "src/api/v1/types.rs".into(),
        module: vec!["api".into(), "v1".into(), "types".into()],
        ast: syn::parse_file(text).expect("the test's Rust parses"),
        text: text.to_owned(),
        skipped: Vec::new(),
    }]
}

/// [`build`], with every type of the API modules (`src/api/**`) resolved, reachable from a kind
/// or not: the linter's view.
pub fn build_with_every_type<'a>(
    files: &'a [SourceFile],
    markers: Vec<FileMarkers>,
    diags: &mut Diagnostics,
) -> Model<'a> {
    resolve::Builder::new(files, markers).build_with(true, diags)
}

/// The description of a node from its doc comments, as controller-gen makes it (spec §5):
/// marker lines removed, one leading space stripped, blank runs collapsed, `TODO` lines
/// dropped, and everything from a `---` line on cut.
pub fn doc_text(attrs: &[syn::Attribute]) -> String {
    let mut lines: Vec<String> = Vec::new();
    for s in attrs
        .iter()
        .filter_map(|a| crate::load::str_attr(&a.meta, "doc"))
    {
        let text = s.value();
        if text.contains('\n') {
            if let Some(doc_lines) = crate::load::merged_doc_lines(s, &text) {
                lines.extend(
                    doc_lines.map(|l| l.strip_prefix(' ').unwrap_or(l).trim_end().to_owned()),
                );
                continue;
            }
            // A `/** ... */` block: every line trimmed (as controller-gen trims `/* */`
            // comments), and the conventional leading `*` of Rust block docs dropped.
            for line in text.split('\n') {
                let t = line.trim();
                let t = t.strip_prefix('*').map_or(t, str::trim_start);
                lines.push(t.to_owned());
            }
            continue;
        }
        lines.push(
            text.strip_prefix(' ')
                .unwrap_or(&text)
                .trim_end()
                .to_owned(),
        );
    }
    doc_text_of_lines(lines)
}

/// [`doc_text`] of doc lines already stripped of their comment syntax and one leading space.
pub fn doc_text_of_lines(lines: impl IntoIterator<Item = String>) -> String {
    let is_marker = |l: &str| {
        l.trim_start()
            .strip_prefix('+')
            .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_alphabetic()))
    };
    let mut out: Vec<String> = Vec::new();
    let mut in_code = false;
    for line in lines
        .into_iter()
        .map(|l| l.trim_end().to_owned())
        .filter(|l| !is_marker(l))
    {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            in_code = !in_code;
        } else if !in_code {
            if line.starts_with("TODO") {
                continue;
            }
            if line.starts_with("---") {
                break;
            }
        }
        if line.is_empty() && out.last().is_none_or(|l| l.is_empty()) {
            continue;
        }
        out.push(line);
    }
    while out.last().is_some_and(|l| l.is_empty()) {
        out.pop();
    }
    out.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_doc_comments_are_trimmed() {
        let item: syn::ItemStruct = syn::parse_quote! {
            /**
             * First line
             *   indented
             */
            struct A;
        };
        assert_eq!(doc_text(&item.attrs), "First line\nindented");
    }

    #[test]
    fn doc_text_follows_controller_gen() {
        let item: syn::ItemStruct = syn::parse_quote! {
            /// First line
            /// continues here.
            ///
            ///
            /// +kubebuilder:validation:MaxLength=3
            /// Second paragraph.
            /// TODO: drop me
            /// ---
            /// hidden
            struct A;
        };
        assert_eq!(
            doc_text(&item.attrs),
            "First line\ncontinues here.\n\nSecond paragraph."
        );
    }
}
