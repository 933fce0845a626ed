//! A file's namespace as the manifests cache keeps it: what the model's resolver reads of a
//! file to find names, and nothing else. A file whose stub is unchanged resolves every path the
//! same, here and in every other file; the cache stands in a stub for a file whose types no
//! kind being regenerated reaches (one that reaches a stubbed type is rebuilt from the whole
//! file), and builds its syntax tree directly: no text to split into tokens and parse.

use crate::load::{UseKind, use_leaves};
use crate::model::kube_attrs;
use proc_macro2::{Span, TokenStream};
use quote::quote;
use serde::{Deserialize, Serialize};
use syn::punctuated::Punctuated;

/// The items of a file (or an inline module) that name something.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct NamespaceStub(Vec<StubItem>);

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
enum StubItem {
    /// A struct, and what names it as a kind when it derives `CustomResource`.
    Struct {
        name: String,
        kind: Option<KindName>,
    },
    Enum(String),
    Alias(String),
    /// One name a `use` binds (by another name when renamed), or a glob.
    Use {
        path: Vec<String>,
        bind: UseBind,
    },
    /// `impl <trait> for <path>`, for the traits the resolver looks for.
    Impl {
        trait_name: String,
        self_path: Vec<String>,
    },
    /// A module: its `cfg` and `path` attributes (as written) and, when inline, its items.
    Mod {
        name: String,
        attrs: Vec<String>,
        items: Option<NamespaceStub>,
    },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
enum UseBind {
    Name,
    Rename(String),
    Glob,
}

/// A kind's `#[kube(group, kind, plural)]` (`kube_attrs::names`); `None` when unreadable there,
/// which the model then reports (so no cached run has one).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct KindName(Option<(String, String, Option<String>)>);

impl NamespaceStub {
    pub(crate) fn of(file: &syn::File) -> Self {
        Self::of_items(&file.items)
    }

    fn of_items(items: &[syn::Item]) -> Self {
        let mut out = Vec::new();
        for item in items {
            match item {
                syn::Item::Struct(s) => out.push(StubItem::Struct {
                    name: s.ident.to_string(),
                    kind: crate::load::derives(&s.attrs, "CustomResource")
                        .then(|| KindName(kube_attrs::names(&s.attrs))),
                }),
                syn::Item::Enum(e) => out.push(StubItem::Enum(e.ident.to_string())),
                syn::Item::Type(t) => out.push(StubItem::Alias(t.ident.to_string())),
                syn::Item::Use(u) => {
                    for leaf in use_leaves(&u.tree) {
                        let mut path: Vec<String> =
                            leaf.path.iter().map(|(i, _)| i.to_string()).collect();
                        let bind = match leaf.kind {
                            UseKind::Name | UseKind::SelfName(_) => UseBind::Name,
                            UseKind::Rename(to) => UseBind::Rename(to.to_string()),
                            UseKind::Glob(_) => UseBind::Glob,
                        };
                        // `use {self};` names nothing.
                        if path.is_empty() && bind != UseBind::Glob {
                            continue;
                        }
                        path.shrink_to_fit();
                        out.push(StubItem::Use { path, bind });
                    }
                }
                syn::Item::Impl(i) => {
                    let Some((trait_path, _)) = &i.trait_ else {
                        continue;
                    };
                    let Some(trait_name) = trait_path.segments.last().map(|s| s.ident.to_string())
                    else {
                        continue;
                    };
                    if trait_name != "Serialize" && trait_name != "Default" {
                        continue;
                    }
                    let syn::Type::Path(p) = &*i.self_ty else {
                        continue;
                    };
                    if p.qself.is_some() {
                        continue;
                    }
                    let self_path = p.path.segments.iter().map(|s| s.ident.to_string());
                    out.push(StubItem::Impl {
                        trait_name,
                        self_path: self_path.collect(),
                    });
                }
                syn::Item::Mod(m) => out.push(StubItem::Mod {
                    name: m.ident.to_string(),
                    attrs: m
                        .attrs
                        .iter()
                        .filter(|a| a.path().is_ident("cfg") || a.path().is_ident("path"))
                        .map(|a| quote!(#a).to_string())
                        .collect(),
                    items: m.content.as_ref().map(|(_, items)| Self::of_items(items)),
                }),
                _ => {}
            }
        }
        NamespaceStub(out)
    }

    /// The group and name of every kind the file declares (inline modules included).
    pub(crate) fn kinds(&self, out: &mut std::collections::HashSet<(String, String)>) {
        for item in &self.0 {
            match item {
                StubItem::Struct {
                    kind: Some(KindName(Some((group, kind, _)))),
                    ..
                } => {
                    out.insert((group.clone(), kind.clone()));
                }
                StubItem::Mod {
                    items: Some(items), ..
                } => items.kinds(out),
                _ => {}
            }
        }
    }

    /// The stub as a syntax tree the model's resolver reads as it reads the whole file.
    pub(crate) fn to_file(&self) -> syn::File {
        syn::File {
            shebang: None,
            frontmatter: None,
            attrs: Vec::new(),
            items: self.to_items(),
        }
    }

    fn to_items(&self) -> Vec<syn::Item> {
        self.0.iter().map(StubItem::to_item).collect()
    }
}

impl StubItem {
    fn to_item(&self) -> syn::Item {
        let none = syn::Visibility::Inherited;
        match self {
            StubItem::Struct { name, kind } => {
                let mut attrs = Vec::new();
                if let Some(KindName(names)) = kind {
                    attrs.push(list_attr("derive", quote!(CustomResource)));
                    if let Some((group, kind, plural)) = names {
                        let plural = plural.iter();
                        attrs.push(list_attr(
                            "kube",
                            quote!(group = #group, kind = #kind #(, plural = #plural)*),
                        ));
                    }
                }
                syn::Item::Struct(syn::ItemStruct {
                    attrs,
                    vis: none,
                    struct_token: Default::default(),
                    ident: ident(name),
                    generics: Default::default(),
                    fields: syn::Fields::Named(syn::FieldsNamed {
                        brace_token: Default::default(),
                        named: Punctuated::new(),
                    }),
                    semi_token: None,
                })
            }
            StubItem::Enum(name) => syn::Item::Enum(syn::ItemEnum {
                attrs: Vec::new(),
                vis: none,
                enum_token: Default::default(),
                ident: ident(name),
                generics: Default::default(),
                brace_token: Default::default(),
                variants: Punctuated::new(),
            }),
            StubItem::Alias(name) => syn::Item::Type(syn::ItemType {
                attrs: Vec::new(),
                vis: none,
                modifiers: Default::default(),
                type_token: Default::default(),
                ident: ident(name),
                generics: Default::default(),
                eq_token: Default::default(),
                ty: Box::new(syn::Type::Tuple(syn::TypeTuple {
                    attrs: Vec::new(),
                    paren_token: Default::default(),
                    elems: Punctuated::new(),
                })),
                semi_token: Default::default(),
                where_clause_placement: syn::WhereClausePlacement::Late,
            }),
            StubItem::Use { path, bind } => {
                let (last, mut tree) = match bind {
                    UseBind::Glob => (
                        path.len(),
                        syn::UseTree::Glob(syn::UseGlob {
                            star_token: Default::default(),
                        }),
                    ),
                    UseBind::Name => (
                        path.len() - 1,
                        syn::UseTree::Name(syn::UseName {
                            ident: ident(&path[path.len() - 1]),
                        }),
                    ),
                    UseBind::Rename(to) => (
                        path.len() - 1,
                        syn::UseTree::Rename(syn::UseRename {
                            ident: ident(&path[path.len() - 1]),
                            as_token: Default::default(),
                            rename: ident(to),
                        }),
                    ),
                };
                for segment in path[..last].iter().rev() {
                    tree = syn::UseTree::Path(syn::UsePath {
                        ident: ident(segment),
                        colon2_token: Default::default(),
                        tree: Box::new(tree),
                    });
                }
                syn::Item::Use(syn::ItemUse {
                    attrs: Vec::new(),
                    vis: none,
                    use_token: Default::default(),
                    leading_colon: None,
                    tree,
                    semi_token: Default::default(),
                })
            }
            StubItem::Impl {
                trait_name,
                self_path,
            } => syn::Item::Impl(syn::ItemImpl {
                attrs: Vec::new(),
                modifiers: Default::default(),
                unsafety: None,
                impl_token: Default::default(),
                generics: Default::default(),
                trait_: Some((ident(trait_name).into(), Default::default())),
                self_ty: Box::new(syn::Type::Path(syn::TypePath {
                    attrs: Vec::new(),
                    qself: None,
                    path: syn::Path {
                        leading_colon: None,
                        segments: self_path
                            .iter()
                            .map(|s| syn::PathSegment::from(ident(s)))
                            .collect(),
                    },
                })),
                brace_token: Default::default(),
                items: Vec::new(),
            }),
            StubItem::Mod { name, attrs, items } => syn::Item::Mod(syn::ItemMod {
                // Only `cfg` and `path` attributes, which a stub keeps as written: they parse.
                attrs: attrs
                    .iter()
                    .flat_map(|a| {
                        syn::parse::Parser::parse_str(syn::Attribute::parse_outer, a)
                            .unwrap_or_default()
                    })
                    .collect(),
                vis: none,
                unsafety: None,
                mod_token: Default::default(),
                ident: ident(name),
                semi: items.is_none().then(Default::default),
                content: items
                    .as_ref()
                    .map(|items| (Default::default(), items.to_items())),
            }),
        }
    }
}

/// `#[name(tokens)]`.
fn list_attr(name: &str, tokens: TokenStream) -> syn::Attribute {
    syn::Attribute {
        pound_token: Default::default(),
        style: syn::AttrStyle::Outer,
        bracket_token: Default::default(),
        meta: syn::Meta::List(syn::MetaList {
            path: ident(name).into(),
            delimiter: syn::MacroDelimiter::Paren(Default::default()),
            tokens,
        }),
    }
}

/// An identifier as `Ident::to_string` wrote it (`r#type` for a raw one).
fn ident(name: &str) -> syn::Ident {
    match name.strip_prefix("r#") {
        Some(raw) => syn::Ident::new_raw(raw, Span::call_site()),
        None => syn::Ident::new(name, Span::call_site()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The stub of `text`, as Rust source.
    fn stub(text: &str) -> String {
        let file = syn::parse_file(text).unwrap();
        let stub = NamespaceStub::of(&file);
        // What the stub's tree reads as is its stub again.
        assert_eq!(NamespaceStub::of(&stub.to_file()), stub);
        let tree = stub.to_file();
        quote!(#tree).to_string()
    }

    #[test]
    fn a_stub_keeps_names_kinds_uses_impls_and_modules() {
        let text = r#"
            use kube::{CustomResource, core::{self as kcore, Resource}};
            pub use super::other::*;
            use {self};
            /// A kind.
            #[derive(CustomResource, Serialize, Clone)]
            #[kube(group = "a.io", version = "v1", kind = "A", plural = "as", namespaced)]
            #[serde(rename_all = "camelCase")]
            pub struct ASpec { pub x: i32 }
            #[derive(Serialize)]
            pub enum Mode { On, Off }
            pub type Port = u16;
            struct r#Type;
            impl Serialize for Mode { fn serialize(&self) {} }
            impl Default for crate::api::Port { fn default() -> Self { 1 } }
            impl Clone for Mode { fn clone(&self) -> Self { *self } }
            impl<T> Serialize for (T,) {}
            #[cfg(test)]
            mod tests { struct Fixture; }
            #[path = "x.rs"]
            pub mod x;
            fn helper() {}
            const N: usize = 1;
        "#;
        assert_eq!(
            stub(text),
            "use kube :: CustomResource ; use kube :: core :: self as kcore ; \
             use kube :: core :: Resource ; use super :: other :: * ; \
             # [derive (CustomResource)] \
             # [kube (group = \"a.io\" , kind = \"A\" , plural = \"as\")] struct ASpec { } \
             enum Mode { } type Port = () ; struct r#Type { } \
             impl Serialize for Mode { } impl Default for crate :: api :: Port { } \
             # [cfg (test)] mod tests { struct Fixture { } } # [path = \"x.rs\"] mod x ;"
        );
    }
}
