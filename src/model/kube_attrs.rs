//! The `#[kube(...)]` attribute of a `#[derive(CustomResource)]` struct (kube-derive 5.0).

use darling::ast::NestedMeta;
use darling::util::{Ignored, Override, SpannedValue};
use darling::{FromAttributes, FromMeta};
use serde::Deserialize;
use syn::{Attribute, Lit};

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PrintColumn {
    pub name: String,
    #[serde(rename = "type")]
    pub type_: String,
    pub json_path: String,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub format: Option<String>,
    #[serde(default)]
    pub priority: Option<i64>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Scale {
    pub spec_replicas_path: String,
    pub status_replicas_path: String,
    #[serde(default)]
    pub label_selector_path: Option<String>,
}

#[derive(Debug, Clone, Default)]
pub struct KubeAttrs {
    pub group: Option<String>,
    pub version: Option<String>,
    pub kind: Option<String>,
    pub namespaced: bool,
    pub status: Option<String>,
    pub plural: Option<String>,
    pub singular: Option<String>,
    pub short_names: Vec<String>,
    pub categories: Vec<String>,
    pub printcolumns: Vec<PrintColumn>,
    pub scale: Option<Scale>,
    pub selectable: Vec<String>,
    pub served: Option<bool>,
    pub storage: Option<bool>,
    pub deprecated: Option<Option<String>>,
    pub doc: Option<String>,
    pub annotations: Vec<(String, String)>,
    pub labels: Vec<(String, String)>,
    pub no_spec: bool,
    pub schema: Option<String>,
}

/// A problem in `#[kube]`, with the line and column of the offending tokens.
#[derive(Debug)]
pub struct AttrError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

fn err(span: proc_macro2::Span, message: impl Into<String>) -> AttrError {
    let start = span.start();
    AttrError {
        line: start.line,
        column: start.column + 1,
        message: message.into(),
    }
}

/// `#[kube(...)]` as kube-derive 5 declares it (`kube-derive/src/custom_resource/attrs`), read
/// with darling as kube-derive reads it: a key the derive does not know is an error here too
/// (with darling's did-you-mean), instead of a silent no-op. Keys that only affect the generated
/// Rust code (`derive`, `attr`, `crates`, `cel`, `root`) are accepted and unused.
#[derive(FromAttributes)]
#[darling(attributes(kube))]
struct Raw {
    group: Option<String>,
    version: Option<String>,
    kind: Option<String>,
    doc: Option<String>,
    #[darling(rename = "root")]
    _root: Option<String>,
    plural: Option<SpannedValue<String>>,
    singular: Option<SpannedValue<String>>,
    #[darling(default)]
    namespaced: bool,
    #[darling(default)]
    no_spec: bool,
    #[darling(multiple, rename = "derive")]
    _derives: Vec<String>,
    #[darling(multiple, rename = "attr")]
    _attributes: Vec<Ignored>,
    schema: Option<SchemaMode>,
    status: Option<syn::Path>,
    #[darling(multiple)]
    category: Vec<String>,
    #[darling(multiple)]
    shortname: Vec<SpannedValue<String>>,
    #[darling(multiple)]
    printcolumn: Vec<PrintColumn>,
    #[darling(multiple)]
    selectable: Vec<String>,
    scale: Option<Scale>,
    #[darling(rename = "crates")]
    _crates: Option<Ignored>,
    #[darling(multiple)]
    annotation: Vec<KeyValue>,
    #[darling(multiple)]
    label: Vec<KeyValue>,
    // Read with the other CEL rules, as `+opgen:root:XValidation` markers (markers::attrs).
    #[darling(multiple, rename = "validation")]
    _validation: Vec<Ignored>,
    #[darling(rename = "cel", default)]
    _cel: bool,
    storage: Option<bool>,
    served: Option<bool>,
    deprecated: Option<Override<String>>,
}

#[derive(Debug, Clone, Copy, FromMeta)]
enum SchemaMode {
    Disabled,
    Manual,
    Derived,
}

/// `annotation("key", "value")` / `label(...)`.
struct KeyValue(String, String);

impl FromMeta for KeyValue {
    fn from_list(items: &[NestedMeta]) -> darling::Result<Self> {
        match items {
            [
                NestedMeta::Lit(Lit::Str(key)),
                NestedMeta::Lit(Lit::Str(value)),
            ] => Ok(KeyValue(key.value(), value.value())),
            _ => Err(darling::Error::unsupported_format(
                "expected `(\"key\", \"value\")`",
            )),
        }
    }
}

/// A column as JSON (`printcolumn = r#"{...}"#`) or as a list (`printcolumn(name = ...)`).
impl FromMeta for PrintColumn {
    fn from_string(value: &str) -> darling::Result<Self> {
        serde_json::from_str(value).map_err(|e| {
            darling::Error::custom(format!(
                "#[kube(printcolumn = ...)] is not a valid column: {e}"
            ))
        })
    }

    fn from_list(items: &[NestedMeta]) -> darling::Result<Self> {
        let list = ColumnList::from_list(items)?;
        Ok(PrintColumn {
            name: list.name,
            type_: list.type_,
            json_path: list.json_path,
            description: list.description,
            format: list.format,
            priority: list.priority,
        })
    }
}

#[derive(FromMeta)]
struct ColumnList {
    name: String,
    type_: String,
    json_path: String,
    description: Option<String>,
    format: Option<String>,
    priority: Option<i64>,
}

/// The scale subresource as JSON or as a list.
impl FromMeta for Scale {
    fn from_string(value: &str) -> darling::Result<Self> {
        serde_json::from_str(value).map_err(|e| {
            darling::Error::custom(format!(
                "#[kube(scale = ...)] is not a valid scale subresource: {e}"
            ))
        })
    }

    fn from_list(items: &[NestedMeta]) -> darling::Result<Self> {
        let list = ScaleList::from_list(items)?;
        Ok(Scale {
            spec_replicas_path: list.spec_replicas_path,
            status_replicas_path: list.status_replicas_path,
            label_selector_path: list.label_selector_path,
        })
    }
}

#[derive(FromMeta)]
struct ScaleList {
    spec_replicas_path: String,
    status_replicas_path: String,
    label_selector_path: Option<String>,
}

/// A kind's group, name and plural (`None`: kube-derive's), as [`parse`] reads them, for
/// attributes [`parse`] accepted before: the `key = "value"` entries of `#[kube(...)]` only,
/// without darling. `None` when it finds no group or kind (then [`parse`] tells).
pub fn names(attrs: &[Attribute]) -> Option<(String, String, Option<String>)> {
    use proc_macro2::TokenTree;
    let (mut group, mut kind, mut plural) = (None, None, None);
    for attr in attrs {
        let syn::Meta::List(list) = &attr.meta else {
            continue;
        };
        if !list.path.is_ident("kube") {
            continue;
        }
        let mut tokens = list.tokens.clone().into_iter().peekable();
        while let Some(token) = tokens.next() {
            let TokenTree::Ident(key) = token else {
                continue;
            };
            let eq = tokens.next_if(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == '='));
            let Some(TokenTree::Literal(value)) = eq.and_then(|_| tokens.next()) else {
                continue;
            };
            let Lit::Str(value) = Lit::new(value) else {
                continue;
            };
            let slot = if key == "group" {
                &mut group
            } else if key == "kind" {
                &mut kind
            } else if key == "plural" {
                &mut plural
            } else {
                continue;
            };
            *slot = Some(value.value());
        }
    }
    Some((group?, kind?, plural))
}

/// Reads every `#[kube(...)]` attribute; `None` when there is none.
pub fn parse(attrs: &[Attribute]) -> Result<Option<KubeAttrs>, AttrError> {
    if !attrs.iter().any(|a| a.path().is_ident("kube")) {
        return Ok(None);
    }
    let raw = Raw::from_attributes(attrs).map_err(|e| {
        // darling gathers every problem; the first one, where it is, as opgen reports
        // one error per item.
        let first = e
            .into_iter()
            .next()
            .expect("darling errors are never empty");
        let span = first.span();
        err(span, format!("#[kube(...)]: {first}"))
    })?;
    let name = |v: SpannedValue<String>, key: &str| resource_name(v.span(), key, (*v).clone());
    Ok(Some(KubeAttrs {
        group: raw.group,
        version: raw.version,
        kind: raw.kind,
        namespaced: raw.namespaced,
        status: raw.status.map(|p| {
            p.segments
                .iter()
                .map(|s| s.ident.to_string())
                .collect::<Vec<_>>()
                .join("::")
        }),
        plural: raw.plural.map(|v| name(v, "plural")).transpose()?,
        singular: raw.singular.map(|v| name(v, "singular")).transpose()?,
        short_names: raw
            .shortname
            .into_iter()
            .map(|v| name(v, "shortname"))
            .collect::<Result<_, _>>()?,
        categories: raw.category,
        printcolumns: raw.printcolumn,
        scale: raw.scale,
        selectable: raw.selectable,
        served: raw.served,
        storage: raw.storage,
        deprecated: raw.deprecated.map(|d| match d {
            Override::Inherit => None,
            Override::Explicit(message) => Some(message),
        }),
        doc: raw.doc,
        annotations: raw
            .annotation
            .into_iter()
            .map(|KeyValue(k, v)| (k, v))
            .collect(),
        labels: raw.label.into_iter().map(|KeyValue(k, v)| (k, v)).collect(),
        no_spec: raw.no_spec,
        schema: raw.schema.map(|m| {
            match m {
                SchemaMode::Disabled => "disabled",
                SchemaMode::Manual => "manual",
                SchemaMode::Derived => "derived",
            }
            .to_owned()
        }),
    }))
}

/// A CRD's plural, singular and short names are lowercase DNS-1035 labels: the API server
/// refuses anything else, and an empty plural would name the CRD file `<group>_.yaml`.
fn resource_name(span: proc_macro2::Span, key: &str, name: String) -> Result<String, AttrError> {
    let valid = !name.is_empty()
        && name.len() <= 63
        && name.starts_with(|c: char| c.is_ascii_lowercase())
        && !name.ends_with('-')
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    if valid {
        Ok(name)
    } else {
        Err(err(
            span,
            format!(
                "#[kube({key} = {name:?})]: a {key} must be a lowercase DNS label (a-z, 0-9 and '-', starting with a letter, at most 63 characters), as the API server requires"
            ),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_kube_attributes() {
        let item: syn::ItemStruct = syn::parse_quote! {
            #[derive(CustomResource, Clone)]
            #[kube(group = "cache.example.com", version = "v1alpha1", kind = "Memcached", namespaced)]
            #[kube(status = "MemcachedStatus", shortname = "mc", shortname = "mcd", category = "all")]
            #[kube(printcolumn = r#"{"name":"Size","type":"integer","jsonPath":".spec.size"}"#)]
            #[kube(printcolumn(name = "Age", type_ = "date", json_path = ".metadata.creationTimestamp", priority = 1))]
            #[kube(scale(spec_replicas_path = ".spec.size", status_replicas_path = ".status.replicas"))]
            #[kube(annotation("a.io/x", "y"), served = false, deprecated = "use v1")]
            struct MemcachedSpec {}
        };
        assert!(crate::load::derives(&item.attrs, "CustomResource"));
        let k = parse(&item.attrs).unwrap().unwrap();
        assert_eq!(k.group.as_deref(), Some("cache.example.com"));
        assert!(k.namespaced);
        assert_eq!(k.short_names, ["mc", "mcd"]);
        assert_eq!(k.printcolumns.len(), 2);
        assert_eq!(k.printcolumns[0].json_path, ".spec.size");
        assert_eq!(k.printcolumns[1].priority, Some(1));
        assert_eq!(k.scale.unwrap().spec_replicas_path, ".spec.size");
        assert_eq!(k.annotations, [("a.io/x".to_owned(), "y".to_owned())]);
        assert_eq!(k.served, Some(false));
        assert_eq!(k.deprecated, Some(Some("use v1".to_owned())));
    }

    #[test]
    fn bad_printcolumn_json_is_an_error() {
        let item: syn::ItemStruct = syn::parse_quote! {
            #[kube(printcolumn = r#"{"name":"Size"}"#)]
            struct S {}
        };
        let e = parse(&item.attrs).unwrap_err();
        assert!(e.message.contains("not a valid column"), "{}", e.message);
    }

    #[test]
    fn keys_kube_derive_does_not_know_are_refused_with_a_suggestion() {
        let item: syn::ItemStruct = syn::parse_str(
            "#[kube(group = \"a.io\", version = \"v1\", kind = \"A\",\n       plurl = \"as\")]\nstruct S {}",
        )
        .unwrap();
        let e = parse(&item.attrs).unwrap_err();
        assert!(
            e.message.contains("Unknown field: `plurl`"),
            "{}",
            e.message
        );
        assert!(
            e.message.contains("Did you mean `plural`?"),
            "{}",
            e.message
        );
        assert_eq!((e.line, e.column), (2, 8), "{}", e.message);
    }

    #[test]
    fn code_only_keys_are_accepted() {
        let item: syn::ItemStruct = syn::parse_quote! {
            #[kube(group = "a.io", version = "v1", kind = "A", derive = "PartialEq",
                   crates(kube_core = "::kube::core"), attr = "allow(deprecated)", cel,
                   status = "crate::api::AStatus", validation = Rule::new("self.x > 0"),
                   schema = "manual")]
            struct S {}
        };
        let k = parse(&item.attrs).unwrap().unwrap();
        assert_eq!(k.status.as_deref(), Some("crate::api::AStatus"));
        assert_eq!(k.schema.as_deref(), Some("manual"));
    }

    #[test]
    fn names_reads_what_parse_reads_of_group_kind_and_plural() {
        let items: [syn::ItemStruct; 3] = [
            syn::parse_quote! {
                #[kube(group = "a.io", version = "v1", kind = "A", namespaced,
                       printcolumn = r#"{"name":"Kind","type":"string","jsonPath":".spec.kind"}"#,
                       annotation("kind", "not.this"), shortname = "kind",
                       status = "AStatus")]
                struct S {}
            },
            syn::parse_quote! {
                #[kube(kind = r"Fish", group = "sea.io", version = "v2")]
                #[kube(plural = "fishes", scale(spec_replicas_path = ".spec.kind",
                       status_replicas_path = ".status.n"))]
                struct S {}
            },
            syn::parse_quote! {
                #[derive(Clone)]
                #[kube(group = "b.io", version = "v1", kind = "B", plural = "bees")]
                struct S {}
            },
        ];
        for item in &items {
            let full = parse(&item.attrs).unwrap().unwrap();
            let (group, kind, plural) = names(&item.attrs).unwrap();
            assert_eq!(Some(group), full.group);
            assert_eq!(Some(kind), full.kind);
            assert_eq!(plural, full.plural);
        }
        let no_kind: syn::ItemStruct = syn::parse_quote! {
            #[kube(group = "a.io", version = "v1")]
            struct S {}
        };
        assert_eq!(names(&no_kind.attrs), None);
    }

    #[test]
    fn derives_names_a_derive_by_its_last_segment() {
        let item: syn::ItemStruct = syn::parse_quote! {
            #[derive(Clone, kube::CustomResource, serde::Serialize)]
            #[derive(Default)]
            struct S {}
        };
        for name in ["Clone", "CustomResource", "Serialize", "Default"] {
            assert!(crate::load::derives(&item.attrs, name), "{name}");
        }
        for name in ["kube", "serde", "Deserialize", "S"] {
            assert!(!crate::load::derives(&item.attrs, name), "{name}");
        }
    }
}
