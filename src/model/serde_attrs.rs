//! The `#[serde(...)]` attributes that decide JSON names and shapes, read the way
//! serde_derive reads them.

use syn::{Attribute, Expr, ExprLit, Lit, Meta};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RenameRule {
    Lower,
    Upper,
    Pascal,
    Camel,
    Snake,
    ScreamingSnake,
    Kebab,
    ScreamingKebab,
}

impl RenameRule {
    pub fn parse(s: &str) -> Option<RenameRule> {
        Some(match s {
            "lowercase" => RenameRule::Lower,
            "UPPERCASE" => RenameRule::Upper,
            "PascalCase" => RenameRule::Pascal,
            "camelCase" => RenameRule::Camel,
            "snake_case" => RenameRule::Snake,
            "SCREAMING_SNAKE_CASE" => RenameRule::ScreamingSnake,
            "kebab-case" => RenameRule::Kebab,
            "SCREAMING-KEBAB-CASE" => RenameRule::ScreamingKebab,
            _ => return None,
        })
    }

    /// serde_derive's `apply_to_field`: the input is a snake_case field name.
    pub fn apply_to_field(self, field: &str) -> String {
        match self {
            RenameRule::Lower | RenameRule::Snake => field.to_owned(),
            RenameRule::Upper | RenameRule::ScreamingSnake => field.to_ascii_uppercase(),
            RenameRule::Pascal => {
                let mut out = String::new();
                let mut capitalize = true;
                for c in field.chars() {
                    if c == '_' {
                        capitalize = true;
                    } else if capitalize {
                        out.push(c.to_ascii_uppercase());
                        capitalize = false;
                    } else {
                        out.push(c);
                    }
                }
                out
            }
            RenameRule::Camel => {
                let pascal = RenameRule::Pascal.apply_to_field(field);
                let mut chars = pascal.chars();
                match chars.next() {
                    Some(first) => first.to_ascii_lowercase().to_string() + chars.as_str(),
                    None => pascal,
                }
            }
            RenameRule::Kebab => field.replace('_', "-"),
            RenameRule::ScreamingKebab => field.to_ascii_uppercase().replace('_', "-"),
        }
    }

    /// serde_derive's `apply_to_variant`: the input is a PascalCase variant name.
    pub fn apply_to_variant(self, variant: &str) -> String {
        match self {
            RenameRule::Pascal => variant.to_owned(),
            RenameRule::Lower => variant.to_ascii_lowercase(),
            RenameRule::Upper => variant.to_ascii_uppercase(),
            RenameRule::Camel => {
                let mut chars = variant.chars();
                match chars.next() {
                    Some(first) => first.to_ascii_lowercase().to_string() + chars.as_str(),
                    None => String::new(),
                }
            }
            RenameRule::Snake => {
                let mut out = String::new();
                for (i, c) in variant.char_indices() {
                    if i > 0 && c.is_uppercase() {
                        out.push('_');
                    }
                    out.push(c.to_ascii_lowercase());
                }
                out
            }
            RenameRule::ScreamingSnake => RenameRule::Snake
                .apply_to_variant(variant)
                .to_ascii_uppercase(),
            RenameRule::Kebab => RenameRule::Snake
                .apply_to_variant(variant)
                .replace('_', "-"),
            RenameRule::ScreamingKebab => RenameRule::ScreamingSnake
                .apply_to_variant(variant)
                .replace('_', "-"),
        }
    }
}

/// serde attributes of a struct or enum.
#[derive(Debug, Clone, Default)]
pub struct ContainerAttrs {
    pub rename_all: Option<RenameRule>,
    pub rename_all_fields: Option<RenameRule>,
    pub default: bool,
    pub transparent: bool,
    pub tag: Option<String>,
    pub content: Option<String>,
    pub untagged: bool,
    /// `into`, `from` or `try_from`: the type serde goes through instead.
    pub proxy: Option<String>,
    pub custom: bool,
}

/// serde attributes of a field or variant.
#[derive(Debug, Clone, Default)]
pub struct FieldAttrs {
    pub rename: Option<String>,
    pub skip: bool,
    pub skip_serializing: bool,
    pub skip_deserializing: bool,
    pub default: bool,
    pub flatten: bool,
    pub skip_serializing_if: bool,
    pub untagged: bool,
    pub rename_all: Option<RenameRule>,
    /// `with`, `serialize_with` or `deserialize_with`: a hand-written (de)serializer.
    pub custom_with: Option<String>,
    /// `with` or `deserialize_with`: serde then needs the field even when it is an `Option`.
    pub deserialize_with: bool,
    pub alias: Vec<String>,
}

/// The `key = "value"` pairs and bare words of every `#[serde(...)]` attribute.
fn serde_items(attrs: &[Attribute]) -> Vec<(String, Option<String>)> {
    let mut out = Vec::new();
    for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        let Ok(nested) = attr
            .parse_args_with(syn::punctuated::Punctuated::<Meta, syn::Token![,]>::parse_terminated)
        else {
            continue;
        };
        for meta in nested {
            match meta {
                Meta::Path(p) => out.push((path_name(&p), None)),
                Meta::NameValue(nv) => {
                    let value = match &nv.value {
                        Expr::Lit(ExprLit {
                            lit: Lit::Str(s), ..
                        }) => Some(s.value()),
                        _ => None,
                    };
                    out.push((path_name(&nv.path), value));
                }
                Meta::List(list) => {
                    // `rename(serialize = "a", deserialize = "b")`: use the serialize name.
                    let name = path_name(&list.path);
                    let inner = list
                        .parse_args_with(
                            syn::punctuated::Punctuated::<Meta, syn::Token![,]>::parse_terminated,
                        )
                        .ok()
                        .and_then(|items| {
                            items.into_iter().find_map(|m| match m {
                                Meta::NameValue(nv) if nv.path.is_ident("serialize") => {
                                    match nv.value {
                                        Expr::Lit(ExprLit {
                                            lit: Lit::Str(s), ..
                                        }) => Some(s.value()),
                                        _ => None,
                                    }
                                }
                                _ => None,
                            })
                        });
                    out.push((name, inner));
                }
            }
        }
    }
    out
}

fn path_name(p: &syn::Path) -> String {
    p.segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect::<Vec<_>>()
        .join("::")
}

pub fn container_attrs(attrs: &[Attribute]) -> ContainerAttrs {
    let mut c = ContainerAttrs::default();
    for (key, value) in serde_items(attrs) {
        match key.as_str() {
            "rename_all" => c.rename_all = value.as_deref().and_then(RenameRule::parse),
            "rename_all_fields" => {
                c.rename_all_fields = value.as_deref().and_then(RenameRule::parse)
            }
            "default" => c.default = true,
            "transparent" => c.transparent = true,
            "tag" => c.tag = value,
            "content" => c.content = value,
            "untagged" => c.untagged = true,
            "into" | "from" | "try_from" if c.proxy.is_none() => c.proxy = value,
            "remote" => c.custom = true,
            _ => {}
        }
    }
    c
}

pub fn field_attrs(attrs: &[Attribute]) -> FieldAttrs {
    let mut f = FieldAttrs::default();
    for (key, value) in serde_items(attrs) {
        match key.as_str() {
            "rename" => f.rename = value,
            "skip" => f.skip = true,
            "skip_serializing" => f.skip_serializing = true,
            "skip_deserializing" => f.skip_deserializing = true,
            "default" => f.default = true,
            "flatten" => f.flatten = true,
            "skip_serializing_if" => f.skip_serializing_if = true,
            "untagged" => f.untagged = true,
            "rename_all" => f.rename_all = value.as_deref().and_then(RenameRule::parse),
            "with" | "serialize_with" | "deserialize_with" => {
                f.deserialize_with |= key != "serialize_with";
                f.custom_with = Some(value.unwrap_or_default());
            }
            "alias" => f.alias.extend(value),
            _ => {}
        }
    }
    f
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_renames_match_serde() {
        let cases = [
            (RenameRule::Camel, "container_port", "containerPort"),
            (RenameRule::Camel, "a_b_c", "aBC"),
            (RenameRule::Pascal, "ttl_seconds", "TtlSeconds"),
            (RenameRule::Kebab, "max_surge", "max-surge"),
            (RenameRule::ScreamingSnake, "max_surge", "MAX_SURGE"),
        ];
        for (rule, input, want) in cases {
            assert_eq!(rule.apply_to_field(input), want);
        }
    }

    #[test]
    fn variant_renames_match_serde() {
        let cases = [
            (RenameRule::Snake, "OnFailure", "on_failure"),
            (RenameRule::Camel, "OnFailure", "onFailure"),
            (RenameRule::Kebab, "OnFailure", "on-failure"),
            (RenameRule::Lower, "OnFailure", "onfailure"),
            (RenameRule::ScreamingSnake, "OnFailure", "ON_FAILURE"),
        ];
        for (rule, input, want) in cases {
            assert_eq!(rule.apply_to_variant(input), want);
        }
    }

    #[test]
    fn reads_attributes() {
        let item: syn::DeriveInput = syn::parse_quote! {
            #[serde(rename_all = "camelCase", tag = "type")]
            #[serde(default)]
            struct A {
                #[serde(rename = "x-y", default, skip_serializing_if = "Option::is_none")]
                a: Option<i32>,
                #[serde(flatten)]
                b: B,
            }
        };
        let c = container_attrs(&item.attrs);
        assert_eq!(c.rename_all, Some(RenameRule::Camel));
        assert_eq!(c.tag.as_deref(), Some("type"));
        assert!(c.default);
        let syn::Data::Struct(s) = item.data else {
            unreachable!()
        };
        let fields: Vec<_> = s.fields.iter().map(|f| field_attrs(&f.attrs)).collect();
        assert_eq!(fields[0].rename.as_deref(), Some("x-y"));
        assert!(fields[0].default && fields[0].skip_serializing_if);
        assert!(fields[1].flatten);
    }
}
