//! serde's view of a struct or enum: the JSON names, skipped members, defaults, flattening and
//! enum representation its `#[serde(...)]` attributes give it. Read with serde_derive_internals,
//! the crate serde_derive itself reads them with, so rename rules, `rename(serialize = ..)`,
//! `skip`, `tag`/`content`/`untagged` and serde's own consistency checks are serde's, not a
//! copy of them; what serde_derive would refuse to compile is refused here, at its span.

use proc_macro2::Span;
use serde_derive_internals::{Ctxt, Derive, ast, attr};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;

/// serde's view of one struct or enum.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Container {
    pub default: bool,
    /// `default = "path"`: the function whose value gives each missing field.
    pub default_fn: Option<DefaultFn>,
    pub transparent: bool,
    /// `deny_unknown_fields`: an object with a field serde does not know is refused.
    pub deny_unknown_fields: bool,
    pub repr: EnumTag,
    /// `into`, `from` or `try_from`: the type serde goes through instead.
    pub proxy: Option<String>,
    /// The named or tuple fields of a struct, in declaration order.
    pub fields: Vec<FieldAttrs>,
    /// The variants of an enum, in declaration order.
    pub variants: Vec<VariantAttrs>,
}

/// How serde writes an enum's variants.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum EnumTag {
    #[default]
    External,
    Internal {
        tag: String,
    },
    Adjacent {
        tag: String,
        content: String,
    },
    Untagged,
}

/// serde's view of a field.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FieldAttrs {
    /// The JSON name: `rename`, else the container's `rename_all` applied (serialize side).
    pub name: String,
    pub skip_serializing: bool,
    pub skip_deserializing: bool,
    pub default: bool,
    /// `default = "path"`: the function serde calls when the field is missing.
    pub default_fn: Option<DefaultFn>,
    pub flatten: bool,
    pub skip_serializing_if: bool,
    /// `with`, `serialize_with` or `deserialize_with`: a hand-written (de)serializer.
    pub custom_with: Option<String>,
    /// `with` or `deserialize_with`: serde then needs the field even when it is an `Option`.
    pub deserialize_with: bool,
}

/// The function a `default = "path"` attribute names, and where: its string literal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DefaultFn {
    pub path: String,
    pub line: usize,
    pub column: usize,
    pub width: usize,
}

/// serde's view of an enum variant.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct VariantAttrs {
    pub name: String,
    pub skip_serializing: bool,
    pub skip_deserializing: bool,
    pub untagged: bool,
    /// Its fields, their names after the variant's `rename_all` or the enum's
    /// `rename_all_fields`.
    pub fields: Vec<FieldAttrs>,
}

/// serde's view of `item` (a struct or an enum; anything else has the default view), or the
/// errors serde_derive would report, each at its span.
///
/// serde_derive_internals reads a copy of the item that keeps only its `#[serde]` attributes,
/// and of a struct with named fields only the fields that carry one: a field without one is
/// named by the container's `rename_all` and has nothing else to say. That copy is a fraction
/// of the item (doc comments are most of it) and serde's ~16 k instructions per field go to
/// the few fields that need them, once per distinct attribute and type ([`FieldKey`]): most
/// carry the same `default, skip_serializing_if = "Option::is_none"`. Where serde objects, or
/// the field count matters (`transparent`), the whole item is read again so that errors and
/// their spans are serde's on the item itself.
pub fn read(item: &syn::Item) -> Result<Container, Vec<syn::Error>> {
    let reduced = match item {
        syn::Item::Struct(s) => reduced_struct(s),
        syn::Item::Enum(e) => reduced_enum(e),
        _ => return Ok(Container::default()),
    };
    let rule = |c: &ast::Container| Some(c.attrs.rename_all_rules().serialize);
    match view_of(&reduced, rule) {
        Ok((view, rule)) if !view.transparent => Ok(match item {
            syn::Item::Struct(syn::ItemStruct {
                fields: syn::Fields::Named(named),
                ..
            }) => with_plain_fields(view, &named.named, rule.unwrap_or(attr::RenameRule::None)),
            _ => view,
        }),
        _ => read_whole(item),
    }
}

/// serde's view of `item` read from the whole of it.
fn read_whole(item: &syn::Item) -> Result<Container, Vec<syn::Error>> {
    let input: syn::DeriveInput = match item {
        syn::Item::Struct(s) => s.clone().into(),
        syn::Item::Enum(e) => e.clone().into(),
        _ => return Ok(Container::default()),
    };
    view_of(&input, |_| ()).map(|(view, ())| view)
}

/// serde_derive_internals on `input`: its view, with what `extra` takes from serde's AST.
fn view_of<T: Default>(
    input: &syn::DeriveInput,
    extra: impl FnOnce(&ast::Container) -> T,
) -> Result<(Container, T), Vec<syn::Error>> {
    let cx = Ctxt::new();
    let private = syn::Ident::new("__private", Span::call_site());
    let parsed = ast::Container::from_ast(&cx, input, Derive::Deserialize, &private)
        .map(|c| (container(&c), extra(&c)));
    match (cx.check(), parsed) {
        (Ok(()), Some(c)) => Ok(c),
        (Ok(()), None) => Ok(Default::default()),
        // serde reports a conflict at each attribute in it; once is enough here.
        (Err(e), _) => {
            let mut errors: Vec<syn::Error> = Vec::new();
            for e in e {
                if !errors.iter().any(|seen| seen.to_string() == e.to_string()) {
                    errors.push(e);
                }
            }
            Err(errors)
        }
    }
}

fn is_serde(attr: &syn::Attribute) -> bool {
    attr.path().is_ident("serde")
}

fn serde_only(attrs: &[syn::Attribute]) -> Vec<syn::Attribute> {
    attrs.iter().filter(|a| is_serde(a)).cloned().collect()
}

fn reduced_field(f: &syn::Field) -> syn::Field {
    syn::Field {
        attrs: serde_only(&f.attrs),
        vis: syn::Visibility::Inherited,
        modifiers: syn::FieldModifiers::default(),
        ident: f.ident.clone(),
        colon_token: f.colon_token,
        ty: f.ty.clone(),
        default: None,
    }
}

fn reduced_fields(fields: &syn::Fields) -> syn::Fields {
    match fields {
        syn::Fields::Named(named) => syn::Fields::Named(syn::FieldsNamed {
            brace_token: named.brace_token,
            named: named.named.iter().map(reduced_field).collect(),
        }),
        syn::Fields::Unnamed(unnamed) => syn::Fields::Unnamed(syn::FieldsUnnamed {
            paren_token: unnamed.paren_token,
            unnamed: unnamed.unnamed.iter().map(reduced_field).collect(),
        }),
        syn::Fields::Unit => syn::Fields::Unit,
    }
}

/// What serde's view of a named field with `#[serde]` attributes depends on besides its name:
/// those attributes and its type (compared as syn compares them, spans aside), and whether
/// they rename it. `None` for a field without one, and for one whose view holds a span of its
/// own (`default = "path"`), which is read on its own.
///
/// Few per struct: compared one by one (syn's hashes walk every token, and cost more).
#[derive(PartialEq, Eq)]
struct FieldKey<'a> {
    // The cheapest comparisons first.
    renames: bool,
    ty: &'a syn::Type,
    attrs: Vec<&'a syn::Attribute>,
}

impl<'a> FieldKey<'a> {
    fn of(f: &'a syn::Field) -> Option<Self> {
        let attrs: Vec<_> = f.attrs.iter().filter(|a| is_serde(a)).collect();
        let mut renames = false;
        for attr in &attrs {
            let syn::Meta::List(list) = &attr.meta else {
                continue;
            };
            let mut keys = list.tokens.clone().into_iter().peekable();
            while let Some(token) = keys.next() {
                let proc_macro2::TokenTree::Ident(key) = token else {
                    continue;
                };
                let assigned = matches!(
                    keys.peek(),
                    Some(proc_macro2::TokenTree::Punct(p)) if p.as_char() == '='
                );
                if key == "default" && assigned {
                    return None;
                }
                renames |= key == "rename";
            }
        }
        (!attrs.is_empty()).then_some(Self {
            renames,
            ty: &f.ty,
            attrs,
        })
    }
}

/// The struct with its `#[serde]` attributes, and of named fields only those with one, and of
/// those with the same [`FieldKey`] the first.
fn reduced_struct(s: &syn::ItemStruct) -> syn::DeriveInput {
    let fields = match &s.fields {
        syn::Fields::Named(named) => syn::Fields::Named(syn::FieldsNamed {
            brace_token: named.brace_token,
            named: {
                let mut seen = Vec::new();
                named
                    .named
                    .iter()
                    .filter(|f| {
                        f.attrs.iter().any(is_serde)
                            && FieldKey::of(f).is_none_or(|key| {
                                let new = !seen.contains(&key);
                                if new {
                                    seen.push(key);
                                }
                                new
                            })
                    })
                    .map(reduced_field)
                    .collect()
            },
        }),
        fields => reduced_fields(fields),
    };
    syn::DeriveInput {
        attrs: serde_only(&s.attrs),
        vis: syn::Visibility::Inherited,
        ident: s.ident.clone(),
        generics: s.generics.clone(),
        data: syn::Data::Struct(syn::DataStruct {
            struct_token: s.struct_token,
            fields,
            semi_token: s.semi_token,
        }),
    }
}

/// The enum with its variants and their fields, keeping only `#[serde]` attributes.
fn reduced_enum(e: &syn::ItemEnum) -> syn::DeriveInput {
    let variants = e
        .variants
        .iter()
        .map(|v| syn::Variant {
            attrs: serde_only(&v.attrs),
            ident: v.ident.clone(),
            fields: reduced_fields(&v.fields),
            discriminant: None,
        })
        .collect();
    syn::DeriveInput {
        attrs: serde_only(&e.attrs),
        vis: syn::Visibility::Inherited,
        ident: e.ident.clone(),
        generics: e.generics.clone(),
        data: syn::Data::Enum(syn::DataEnum {
            enum_token: e.enum_token,
            brace_token: e.brace_token,
            variants,
        }),
    }
}

/// The view of a struct read as [`reduced_struct`] left it, with every field put back in
/// declaration order: one without a `#[serde]` attribute named by `rule`, nothing skipped, no
/// default; one of the same [`FieldKey`] as one read before it as that one, its own name given
/// by `rule` unless the attributes rename it.
fn with_plain_fields(
    mut view: Container,
    fields: &Punctuated<syn::Field, syn::Token![,]>,
    rule: attr::RenameRule,
) -> Container {
    let mut read = std::mem::take(&mut view.fields).into_iter();
    let mut read_before: Vec<(FieldKey, FieldAttrs)> = Vec::new();
    view.fields = fields
        .iter()
        .map(|f| {
            let named = |ident: &syn::Ident| {
                rule.apply_to_field(ident.to_string().trim_start_matches("r#"))
            };
            let next = |read: &mut std::vec::IntoIter<FieldAttrs>| {
                read.next()
                    .expect("serde read every field with a #[serde] attribute")
            };
            match (&f.ident, FieldKey::of(f)) {
                (Some(ident), _) if !f.attrs.iter().any(is_serde) => FieldAttrs {
                    name: named(ident),
                    ..FieldAttrs::default()
                },
                (Some(ident), Some(key)) => {
                    let renames = key.renames;
                    let mut attrs = match read_before.iter().find(|(k, _)| *k == key) {
                        Some((_, attrs)) => attrs.clone(),
                        None => {
                            let attrs = next(&mut read);
                            read_before.push((key, attrs.clone()));
                            attrs
                        }
                    };
                    if !renames {
                        attrs.name = named(ident);
                    }
                    attrs
                }
                _ => next(&mut read),
            }
        })
        .collect();
    view
}

fn container(c: &ast::Container) -> Container {
    let a = &c.attrs;
    let repr = match a.tag() {
        attr::TagType::External => EnumTag::External,
        attr::TagType::Internal { tag } => EnumTag::Internal { tag: tag.clone() },
        attr::TagType::Adjacent { tag, content } => EnumTag::Adjacent {
            tag: tag.clone(),
            content: content.clone(),
        },
        attr::TagType::None => EnumTag::Untagged,
    };
    let proxy = a
        .type_into()
        .or(a.type_from())
        .or(a.type_try_from())
        .map(type_text);
    let (fields, variants) = match &c.data {
        ast::Data::Struct(_, fields) => (fields.iter().map(field).collect(), Vec::new()),
        ast::Data::Enum(variants) => (
            Vec::new(),
            variants
                .iter()
                .map(|v| VariantAttrs {
                    name: v.attrs.name().serialize_name().value.clone(),
                    skip_serializing: v.attrs.skip_serializing(),
                    skip_deserializing: v.attrs.skip_deserializing(),
                    untagged: v.attrs.untagged(),
                    fields: v.fields.iter().map(field).collect(),
                })
                .collect(),
        ),
    };
    Container {
        default: !a.default().is_none(),
        default_fn: default_fn(a.default()),
        transparent: a.transparent(),
        deny_unknown_fields: a.deny_unknown_fields(),
        repr,
        proxy,
        fields,
        variants,
    }
}

fn field(f: &ast::Field) -> FieldAttrs {
    let a = &f.attrs;
    let custom_with = a.serialize_with().or(a.deserialize_with()).map(|p| {
        let path = path_text(&p.path);
        // `with = "m"` reads as `m::serialize` and `m::deserialize`: the module names the
        // (de)serializer.
        match path.rsplit_once("::") {
            Some((module, "serialize" | "deserialize")) => module.to_string(),
            _ => path,
        }
    });
    FieldAttrs {
        name: a.name().serialize_name().value.clone(),
        skip_serializing: a.skip_serializing(),
        skip_deserializing: a.skip_deserializing(),
        default: !a.default().is_none(),
        default_fn: default_fn(a.default()),
        flatten: a.flatten(),
        skip_serializing_if: a.skip_serializing_if().is_some(),
        custom_with,
        deserialize_with: a.deserialize_with().is_some(),
    }
}

fn default_fn(default: &attr::Default) -> Option<DefaultFn> {
    let attr::Default::Path(path) = default else {
        return None;
    };
    let (start, end) = (path.span().start(), path.span().end());
    Some(DefaultFn {
        path: path_text(&path.path),
        line: start.line,
        column: start.column + 1,
        width: if end.line == start.line {
            (end.column - start.column).max(1)
        } else {
            1
        },
    })
}

fn path_text(p: &syn::Path) -> String {
    p.segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect::<Vec<_>>()
        .join("::")
}

fn type_text(t: &syn::Type) -> String {
    use quote::ToTokens;
    t.to_token_stream().to_string().replace(' ', "")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(item: syn::Item) -> Container {
        read(&item).unwrap_or_else(|e| panic!("{e:?}"))
    }

    fn names(fields: &[FieldAttrs]) -> Vec<&str> {
        fields.iter().map(|f| f.name.as_str()).collect()
    }

    #[test]
    fn field_names_follow_serde() {
        let c = view(syn::parse_quote! {
            #[serde(rename_all = "camelCase", default)]
            struct A {
                container_port: i32,
                a_b_c: i32,
                #[serde(rename = "x-y", skip_serializing_if = "Option::is_none")]
                renamed: Option<i32>,
                #[serde(rename(serialize = "ser", deserialize = "de"))]
                both: i32,
                #[serde(flatten)]
                rest: B,
                #[serde(skip)]
                hidden: i32,
            }
        });
        assert_eq!(
            names(&c.fields),
            ["containerPort", "aBC", "x-y", "ser", "rest", "hidden"]
        );
        assert!(c.default);
        assert!(c.fields[2].skip_serializing_if && !c.fields[0].skip_serializing_if);
        assert!(c.fields[4].flatten);
        assert!(c.fields[5].skip_serializing && c.fields[5].skip_deserializing);
    }

    #[test]
    fn variant_names_and_representations_follow_serde() {
        let c = view(syn::parse_quote! {
            #[serde(rename_all = "kebab-case", tag = "type", rename_all_fields = "camelCase")]
            enum E {
                OnFailure,
                #[serde(rename_all = "SCREAMING_SNAKE_CASE")]
                Struct { max_surge: i32 },
                Other { max_surge: i32 },
            }
        });
        assert_eq!(c.repr, EnumTag::Internal { tag: "type".into() });
        let variant_names: Vec<_> = c.variants.iter().map(|v| v.name.as_str()).collect();
        assert_eq!(variant_names, ["on-failure", "struct", "other"]);
        assert_eq!(names(&c.variants[1].fields), ["MAX_SURGE"]);
        assert_eq!(names(&c.variants[2].fields), ["maxSurge"]);
        let untagged = view(syn::parse_quote! {
            #[serde(untagged)]
            enum U { A(i32), B(String) }
        });
        assert_eq!(untagged.repr, EnumTag::Untagged);
    }

    #[test]
    fn with_modules_and_proxies() {
        let c = view(syn::parse_quote! {
            #[serde(into = "Wire", from = "Wire")]
            struct A {
                #[serde(with = "humantime_serde")]
                a: Duration,
                #[serde(serialize_with = "ser::write")]
                b: i32,
            }
        });
        assert_eq!(c.proxy.as_deref(), Some("Wire"));
        assert_eq!(c.fields[0].custom_with.as_deref(), Some("humantime_serde"));
        assert!(c.fields[0].deserialize_with);
        assert_eq!(c.fields[1].custom_with.as_deref(), Some("ser::write"));
        assert!(!c.fields[1].deserialize_with);
    }

    #[test]
    fn what_serde_derive_refuses_is_refused_at_its_span() {
        let item: syn::Item = syn::parse_quote! {
            #[serde(tag = "t", untagged)]
            enum E { A { a: i32 } }
        };
        let errors = read(&item).unwrap_err();
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(errors[0].to_string().contains("untagged"), "{}", errors[0]);
        let item: syn::Item = syn::parse_quote! {
            struct A { #[serde(renam = "b")] a: i32 }
        };
        let errors = read(&item).unwrap_err();
        assert_eq!(
            errors[0].to_string(),
            "unknown serde field attribute `renam`"
        );
    }

    /// Reading a copy without the fields serde has nothing to say about gives serde's view of
    /// the whole item, errors and their spans included.
    #[test]
    fn the_reduced_read_is_the_whole_read() {
        // Parsed from text, so that errors have real spans to compare.
        let items: Vec<syn::Item> = [
            r#"struct Plain { a_b: i32, r#type: String }"#,
            r#"/// Docs.
                #[derive(Serialize)]
                #[serde(rename_all = "camelCase")]
                struct Spec {
                    /// A field.
                    container_port: i32,
                    #[serde(default, skip_serializing_if = "Option::is_none")]
                    max_surge: Option<i32>,
                    r#type: String,
                    #[serde(rename = "x")]
                    renamed: i32,
                    #[serde(skip)]
                    hidden: i32,
                    #[serde(flatten)]
                    rest: B,
                    tail_field: i32,
                }"#,
            // Fields of one attribute and type are read once (FieldKey), each named its own way.
            r#"#[serde(rename_all = "camelCase")]
                struct Same {
                    #[serde(default, skip_serializing_if = "Option::is_none")]
                    a_b: Option<i32>,
                    #[serde(default, skip_serializing_if = "Option::is_none")]
                    r#c_d: Option<i32>,
                    #[serde(default, skip_serializing_if = "Option::is_none")]
                    e_f: Option<RenamePolicy>,
                    #[serde(default, skip_serializing_if = "Option::is_none")]
                    g_h: Option<RenamePolicy>,
                    #[serde(rename = "same", default)]
                    i_j: i32,
                    #[serde(rename = "same", default)]
                    k_l: i32,
                    #[serde(default = "five")]
                    m_n: i32,
                    #[serde(default = "five")]
                    o_p: i32,
                    #[serde(default, skip_serializing_if = "Option::is_none")]
                    q_r: Option<i32>,
                }"#,
            r#"struct BadTwice { #[serde(renam = "b")] a: i32, #[serde(renam = "b")] b: i32 }"#,
            r#"#[serde(default, deny_unknown_fields, rename_all = "SCREAMING-KEBAB-CASE")]
                struct D { a_b: i32, #[serde(skip_deserializing)] c_d: i32, #[serde()] e_f: i32 }"#,
            r#"#[serde(rename_all(serialize = "PascalCase", deserialize = "snake_case"))]
                struct R<'a> { a_b: i32, #[serde(with = "m")] c: i32, #[serde(borrow)] s: Cow<'a, str> }"#,
            r#"#[serde(transparent)] struct T { inner: i32 }"#,
            r#"#[serde(transparent)] struct T2 { a: i32, b: i32 }"#,
            r#"#[serde(tag = "kind")] struct Tagged { a_b: i32 }"#,
            r#"#[serde(rename_all = "camelCase")] struct Tuple(i32, #[serde(default)] i32);"#,
            r#"#[serde(default)] struct Unit;"#,
            r#"#[serde(into = "W", from = "W")] struct P { a_b: i32 }"#,
            r#"struct Bad { a: i32, #[serde(renam = "b")] b: i32 }"#,
            r#"struct Flat(#[serde(flatten)] i32);"#,
            r#"#[serde(rename_all = "kebab-case", tag = "type", rename_all_fields = "camelCase")]
                enum E {
                    /// A variant.
                    OnFailure,
                    #[serde(rename_all = "SCREAMING_SNAKE_CASE")]
                    Struct { max_surge: i32 },
                    Other { max_surge: i32, #[serde(skip)] hidden: i32 },
                    One(String),
                    #[serde(untagged)]
                    Rest(i32),
                }"#,
            r#"/// Docs.
                #[serde(tag = "a_b")] enum Conflict { V { a_b: i32 } }"#,
            r#"#[serde(tag = "t")] enum TupleVariant { V(i32, i32) }"#,
            r#"#[serde(tag = "t", content = "c")] enum Adjacent { A { x: i32 } }"#,
            r#"type Alias = i32;"#,
        ]
        .iter()
        .map(|src| syn::parse_str(src).unwrap())
        .collect();
        for item in &items {
            let errors = |e: Vec<syn::Error>| -> Vec<String> {
                e.iter()
                    .map(|e| format!("{e} at {:?}..{:?}", e.span().start(), e.span().end()))
                    .collect()
            };
            let (reduced, whole) = (read(item), read_whole(item));
            match (reduced, whole) {
                (Ok(a), Ok(b)) => assert_eq!(a, b, "{}", quote::quote!(#item)),
                (Err(a), Err(b)) => assert_eq!(errors(a), errors(b)),
                (a, b) => panic!("{}: {a:?} against {b:?}", quote::quote!(#item)),
            }
        }
        // The set has both outcomes, and a view with names from the rule.
        assert!(items.iter().filter(|i| read(i).is_err()).count() >= 5);
        let same = view(items[2].clone());
        assert_eq!(
            names(&same.fields),
            ["aB", "cD", "eF", "gH", "same", "same", "mN", "oP", "qR"]
        );
        let spans: Vec<_> = same.fields[6..8]
            .iter()
            .map(|f| f.default_fn.as_ref().map(|d| (d.line, d.column)))
            .collect();
        assert_eq!(spans, [Some((15, 39)), Some((17, 39))]);
        assert_eq!(
            names(&view(items[1].clone()).fields),
            [
                "containerPort",
                "maxSurge",
                "type",
                "x",
                "hidden",
                "rest",
                "tailField"
            ]
        );
    }
}
