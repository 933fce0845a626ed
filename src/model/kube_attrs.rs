//! The `#[kube(...)]` attribute of a `#[derive(CustomResource)]` struct (kube-derive 5.0).

use serde::Deserialize;
use syn::spanned::Spanned;
use syn::{Attribute, Expr, ExprLit, Lit, LitStr, Meta};

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
    pub validations: Vec<String>,
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

fn lit_str(expr: &Expr) -> Option<String> {
    match expr {
        Expr::Lit(ExprLit {
            lit: Lit::Str(s), ..
        }) => Some(s.value()),
        _ => None,
    }
}

fn lit_bool(expr: &Expr) -> Option<bool> {
    match expr {
        Expr::Lit(ExprLit {
            lit: Lit::Bool(b), ..
        }) => Some(b.value),
        _ => None,
    }
}

pub fn has_derive(attrs: &[Attribute], name: &str) -> bool {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("derive"))
        .any(|a| {
            a.parse_args_with(
                syn::punctuated::Punctuated::<syn::Path, syn::Token![,]>::parse_terminated,
            )
            .is_ok_and(|paths| {
                paths
                    .iter()
                    .any(|p| p.segments.last().is_some_and(|s| s.ident == name))
            })
        })
}

/// Reads every `#[kube(...)]` attribute; `None` when there is none.
pub fn parse(attrs: &[Attribute]) -> Result<Option<KubeAttrs>, AttrError> {
    let kube: Vec<&Attribute> = attrs.iter().filter(|a| a.path().is_ident("kube")).collect();
    if kube.is_empty() {
        return Ok(None);
    }
    let mut k = KubeAttrs::default();
    for attr in kube {
        let metas = attr
            .parse_args_with(syn::punctuated::Punctuated::<Meta, syn::Token![,]>::parse_terminated)
            .map_err(|e| err(e.span(), format!("cannot read #[kube(...)]: {e}")))?;
        for meta in metas {
            apply(&mut k, &meta)?;
        }
    }
    Ok(Some(k))
}

/// A CRD's plural, singular and short names are lowercase DNS-1035 labels: the API server
/// refuses anything else, and an empty plural would name the CRD file `<group>_.yaml`.
fn resource_name(nv: &syn::MetaNameValue, key: &str, name: String) -> Result<String, AttrError> {
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
            nv.value.span(),
            format!(
                "#[kube({key} = {name:?})]: a {key} must be a lowercase DNS label (a-z, 0-9 and '-', starting with a letter, at most 63 characters), as the API server requires"
            ),
        ))
    }
}

fn apply(k: &mut KubeAttrs, meta: &Meta) -> Result<(), AttrError> {
    let key = meta
        .path()
        .get_ident()
        .map(ToString::to_string)
        .unwrap_or_default();
    match meta {
        Meta::Path(_) => match key.as_str() {
            "namespaced" => k.namespaced = true,
            "deprecated" => k.deprecated = Some(None),
            "no_spec" => k.no_spec = true,
            "storage" => k.storage = Some(true),
            "served" => k.served = Some(true),
            _ => {}
        },
        Meta::NameValue(nv) => {
            let string = || {
                lit_str(&nv.value).ok_or_else(|| {
                    err(
                        nv.value.span(),
                        format!("#[kube({key} = ...)] expects a string literal"),
                    )
                })
            };
            let boolean = || {
                lit_bool(&nv.value).ok_or_else(|| {
                    err(
                        nv.value.span(),
                        format!("#[kube({key} = ...)] expects true or false"),
                    )
                })
            };
            match key.as_str() {
                "group" => k.group = Some(string()?),
                "version" => k.version = Some(string()?),
                "kind" => k.kind = Some(string()?),
                "status" => k.status = Some(string()?),
                "plural" => k.plural = Some(resource_name(nv, &key, string()?)?),
                "singular" => k.singular = Some(resource_name(nv, &key, string()?)?),
                "shortname" => k.short_names.push(resource_name(nv, &key, string()?)?),
                "category" => k.categories.push(string()?),
                "selectable" => k.selectable.push(string()?),
                "doc" => k.doc = Some(string()?),
                "schema" => k.schema = Some(string()?),
                "validation" => k.validations.push(string()?),
                "served" => k.served = Some(boolean()?),
                "storage" => k.storage = Some(boolean()?),
                "deprecated" => k.deprecated = Some(Some(string()?)),
                "printcolumn" => {
                    let text = string()?;
                    let col: PrintColumn = serde_json::from_str(&text).map_err(|e| {
                        err(
                            nv.value.span(),
                            format!("#[kube(printcolumn = ...)] is not a valid column: {e}"),
                        )
                    })?;
                    k.printcolumns.push(col);
                }
                "scale" => {
                    let text = string()?;
                    let scale: Scale = serde_json::from_str(&text).map_err(|e| {
                        err(
                            nv.value.span(),
                            format!("#[kube(scale = ...)] is not a valid scale subresource: {e}"),
                        )
                    })?;
                    k.scale = Some(scale);
                }
                _ => {}
            }
        }
        Meta::List(list) => match key.as_str() {
            "printcolumn" => {
                let fields = named_strings(list)?;
                let get = |n: &str| fields.iter().find(|(k, _)| k == n).map(|(_, v)| v.clone());
                let priority = get("priority")
                    .map(|p| {
                        p.parse::<i64>().map_err(|_| {
                            err(list.span(), "printcolumn priority must be an integer")
                        })
                    })
                    .transpose()?;
                let required = |n: &str| {
                    get(n).ok_or_else(|| {
                        err(list.span(), format!("printcolumn(...) is missing `{n}`"))
                    })
                };
                k.printcolumns.push(PrintColumn {
                    name: required("name")?,
                    type_: required("type_")?,
                    json_path: required("json_path")?,
                    description: get("description"),
                    format: get("format"),
                    priority,
                });
            }
            "scale" => {
                let fields = named_strings(list)?;
                let get = |n: &str| fields.iter().find(|(k, _)| k == n).map(|(_, v)| v.clone());
                let required = |n: &str| {
                    get(n).ok_or_else(|| err(list.span(), format!("scale(...) is missing `{n}`")))
                };
                k.scale = Some(Scale {
                    spec_replicas_path: required("spec_replicas_path")?,
                    status_replicas_path: required("status_replicas_path")?,
                    label_selector_path: get("label_selector_path"),
                });
            }
            "annotation" | "label" => {
                let parts = list
                    .parse_args_with(
                        syn::punctuated::Punctuated::<LitStr, syn::Token![,]>::parse_terminated,
                    )
                    .map_err(|e| {
                        err(e.span(), format!("#[kube({key}(\"key\", \"value\"))]: {e}"))
                    })?;
                let parts: Vec<String> = parts.iter().map(LitStr::value).collect();
                let [name, value] = parts.as_slice() else {
                    return Err(err(
                        list.span(),
                        format!("#[kube({key}(...))] takes a key and a value"),
                    ));
                };
                let pair = (name.clone(), value.clone());
                if key == "annotation" {
                    k.annotations.push(pair);
                } else {
                    k.labels.push(pair);
                }
            }
            _ => {}
        },
    }
    Ok(())
}

/// `name = "x", priority = 1` inside a typed `printcolumn(...)` or `scale(...)`.
fn named_strings(list: &syn::MetaList) -> Result<Vec<(String, String)>, AttrError> {
    let metas = list
        .parse_args_with(syn::punctuated::Punctuated::<Meta, syn::Token![,]>::parse_terminated)
        .map_err(|e| err(e.span(), e.to_string()))?;
    metas
        .iter()
        .map(|m| match m {
            Meta::NameValue(nv) => {
                let key = nv
                    .path
                    .get_ident()
                    .map(ToString::to_string)
                    .unwrap_or_default();
                let value = match &nv.value {
                    Expr::Lit(ExprLit {
                        lit: Lit::Str(s), ..
                    }) => s.value(),
                    Expr::Lit(ExprLit {
                        lit: Lit::Int(i), ..
                    }) => i.base10_digits().to_owned(),
                    other => return Err(err(other.span(), format!("`{key}` expects a literal"))),
                };
                Ok((key, value))
            }
            other => Err(err(other.span(), "expected `key = value`")),
        })
        .collect()
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
        assert!(has_derive(&item.attrs, "CustomResource"));
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
}
