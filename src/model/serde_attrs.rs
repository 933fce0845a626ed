//! serde's view of a struct or enum: the JSON names, skipped members, defaults, flattening and
//! enum representation its `#[serde(...)]` attributes give it. Read with serde_derive_internals,
//! the crate serde_derive itself reads them with, so rename rules, `rename(serialize = ..)`,
//! `skip`, `tag`/`content`/`untagged` and serde's own consistency checks are serde's, not a
//! copy of them; what serde_derive would refuse to compile is refused here, at its span.

use proc_macro2::Span;
use serde_derive_internals::{Ctxt, Derive, ast, attr};

/// serde's view of one struct or enum.
#[derive(Debug, Clone, Default)]
pub struct Container {
    pub default: bool,
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
#[derive(Debug, Clone, Default)]
pub struct FieldAttrs {
    /// The JSON name: `rename`, else the container's `rename_all` applied (serialize side).
    pub name: String,
    pub skip_serializing: bool,
    pub skip_deserializing: bool,
    pub default: bool,
    pub flatten: bool,
    pub skip_serializing_if: bool,
    /// `with`, `serialize_with` or `deserialize_with`: a hand-written (de)serializer.
    pub custom_with: Option<String>,
    /// `with` or `deserialize_with`: serde then needs the field even when it is an `Option`.
    pub deserialize_with: bool,
}

/// serde's view of an enum variant.
#[derive(Debug, Clone, Default)]
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
pub fn read(item: &syn::Item) -> Result<Container, Vec<syn::Error>> {
    let input: syn::DeriveInput = match item {
        syn::Item::Struct(s) => s.clone().into(),
        syn::Item::Enum(e) => e.clone().into(),
        _ => return Ok(Container::default()),
    };
    let cx = Ctxt::new();
    let private = syn::Ident::new("__private", Span::call_site());
    let parsed =
        ast::Container::from_ast(&cx, &input, Derive::Deserialize, &private).map(|c| container(&c));
    match (cx.check(), parsed) {
        (Ok(()), Some(c)) => Ok(c),
        (Ok(()), None) => Ok(Container::default()),
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
        flatten: a.flatten(),
        skip_serializing_if: a.skip_serializing_if().is_some(),
        custom_with,
        deserialize_with: a.deserialize_with().is_some(),
    }
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
}
