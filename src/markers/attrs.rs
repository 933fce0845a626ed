//! Validation a kube-rs crate already states in attributes, read as the markers it means, so
//! that adopting opgen keeps it: schemars' `length`, `range`, `email`, `url`, `ipv4`, `ipv6`,
//! `regex`/`pattern`, `contains`, `required`, `inner(...)` and
//! `extend("x-kubernetes-validations" = [...])` (the same keys in
//! `#[validate(...)]` and `#[garde(...)]`, which schemars reads too), and kube-derive's
//! `#[x_kube(validation = ...)]`. What has a schema meaning that opgen cannot honour without
//! compiling the crate (a regex behind a path, `schema_with`, a schema-only rename) is a
//! warning at the attribute, never a silent loss.

use crate::markers::typed::names;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Attribute, Expr, Lit, Meta, Token, Type};

/// A marker an attribute means, as marker text, with the attribute's place.
#[derive(Debug, Clone, PartialEq)]
pub struct FromAttribute {
    pub text: String,
    pub line: usize,
    pub column: usize,
    pub width: usize,
}

/// What the attributes of one field mean: markers, and warnings for what they cannot.
#[derive(Debug, Default, PartialEq)]
pub struct Read {
    pub markers: Vec<FromAttribute>,
    pub warnings: Vec<(FromAttribute, String)>,
}

/// The kind of value a field holds, for `length`: a string's characters, a list's items or a
/// map's properties.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Measured {
    String,
    List,
    Map,
    Other,
}

fn measured(ty: &Type) -> Measured {
    let Type::Path(p) = ty else {
        return match ty {
            Type::Reference(r) => measured(&r.elem),
            Type::Slice(_) | Type::Array(_) => Measured::List,
            _ => Measured::Other,
        };
    };
    let Some(last) = p.path.segments.last() else {
        return Measured::Other;
    };
    let inner = match &last.arguments {
        syn::PathArguments::AngleBracketed(a) => a.args.iter().find_map(|a| match a {
            syn::GenericArgument::Type(t) => Some(t),
            _ => None,
        }),
        _ => None,
    };
    match last.ident.to_string().as_str() {
        "String" | "str" => Measured::String,
        "Option" | "Box" | "Cow" | "Arc" | "Rc" => inner.map_or(Measured::Other, measured),
        "Vec" | "VecDeque" | "BTreeSet" | "HashSet" | "IndexSet" => Measured::List,
        "BTreeMap" | "HashMap" | "IndexMap" => Measured::Map,
        _ => Measured::Other,
    }
}

/// The items of each `#[<namespace>(..)]` attribute of one of `namespaces`, with its namespace.
fn attribute_lists<'a>(
    attrs: &'a [Attribute],
    namespaces: &'a [&str],
) -> impl Iterator<Item = (String, Punctuated<Meta, Token![,]>)> + 'a {
    attrs.iter().filter_map(move |attr| {
        let namespace = attr.path().get_ident()?.to_string();
        if !namespaces.contains(&namespace.as_str()) {
            return None;
        }
        let Meta::List(list) = &attr.meta else {
            return None;
        };
        let items = list
            .parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated)
            .ok()?;
        Some((namespace, items))
    })
}

/// The item type of a list type (through `Option` and the like).
fn list_item(ty: &Type) -> Option<&Type> {
    let Type::Path(p) = ty else {
        return None;
    };
    let last = p.path.segments.last()?;
    let syn::PathArguments::AngleBracketed(a) = &last.arguments else {
        return None;
    };
    let inner = a.args.iter().find_map(|a| match a {
        syn::GenericArgument::Type(t) => Some(t),
        _ => None,
    })?;
    match last.ident.to_string().as_str() {
        "Option" | "Box" => list_item(inner),
        "Vec" | "VecDeque" | "BTreeSet" | "HashSet" | "IndexSet" => Some(inner),
        _ => None,
    }
}

/// Reads the attributes of a field of type `ty`.
pub fn read(attrs: &[Attribute], ty: &Type) -> Read {
    let mut out = Read::default();
    for (namespace, items) in attribute_lists(attrs, &["schemars", "validate", "garde", "x_kube"]) {
        for item in &items {
            let place = place(item);
            let mut ctx = Ctx {
                out: &mut out,
                place,
                namespace: &namespace,
                ty,
            };
            ctx.item(item);
        }
    }
    out
}

/// Reads the attributes of a struct or enum: its CEL rules, `x_kube(validation = ...)` and
/// `schemars(extend("x-kubernetes-validations" = ...))` on its own schema, and, on a kind's
/// spec struct, `kube(validation = ...)` on the whole object.
pub fn read_type(attrs: &[Attribute]) -> Read {
    let mut out = Read::default();
    let no_type = Type::Verbatim(proc_macro2::TokenStream::new());
    for (namespace, items) in attribute_lists(attrs, &["schemars", "x_kube", "kube"]) {
        for item in &items {
            let key = item.path().get_ident().map(ToString::to_string);
            let mut ctx = Ctx {
                out: &mut out,
                place: place(item),
                namespace: &namespace,
                ty: &no_type,
            };
            match (namespace.as_str(), key.as_deref(), item) {
                ("x_kube", Some("validation"), Meta::NameValue(nv)) => {
                    ctx.rule(&nv.value, SCHEMA_RULE);
                }
                ("kube", Some("validation"), Meta::NameValue(nv)) => {
                    ctx.rule(&nv.value, ROOT_RULE);
                }
                ("kube", Some("schema"), Meta::NameValue(nv)) => match string(&nv.value) {
                    Some(mode) if mode == "manual" => ctx.warn(
                        "`kube(schema = \"manual\")`: kube-derive takes the kind's schema from its hand-written `JsonSchema` impl, code opgen never runs; opgen builds it from the spec and status types: say what the impl adds with markers (`+opgen:root:XValidation` for rules on the whole object, `opgen markers` lists the others)".into(),
                    ),
                    _ => {}
                },
                ("schemars", Some("extend"), Meta::List(l)) => ctx.extend(l),
                _ => {}
            }
        }
    }
    out
}

/// The marker of a CEL rule on a field's or type's own schema, and of one on the whole object.
const SCHEMA_RULE: &str = names::KUBEBUILDER_VALIDATION_X_VALIDATION;
const ROOT_RULE: &str = names::OPGEN_ROOT_X_VALIDATION;

fn place(item: &Meta) -> FromAttribute {
    let span = item.span();
    let (start, end) = (span.start(), span.end());
    FromAttribute {
        text: String::new(),
        line: start.line,
        column: start.column + 1,
        width: if end.line == start.line {
            end.column.saturating_sub(start.column).max(1)
        } else {
            1
        },
    }
}

struct Ctx<'a> {
    out: &'a mut Read,
    place: FromAttribute,
    namespace: &'a str,
    ty: &'a Type,
}

impl Ctx<'_> {
    fn marker(&mut self, text: String) {
        self.out.markers.push(FromAttribute {
            text,
            ..self.place.clone()
        });
    }

    fn warn(&mut self, message: String) {
        self.out.warnings.push((self.place.clone(), message));
    }

    fn item(&mut self, item: &Meta) {
        let key = item
            .path()
            .get_ident()
            .map(ToString::to_string)
            .unwrap_or_default();
        match (self.namespace, key.as_str(), item) {
            ("x_kube", "validation", Meta::NameValue(nv)) => self.rule(&nv.value, SCHEMA_RULE),
            (_, "length", Meta::List(l)) => self.length(l),
            (_, "range", Meta::List(l)) => self.range(l),
            // validator's `email(message = "...")` is a format too; schemars takes only the bare
            // word in its own and garde's attributes.
            (_, "email" | "url" | "ipv4" | "ipv6", Meta::Path(_))
            | ("validate", "email" | "url" | "ipv4" | "ipv6", Meta::List(_)) => {
                let format = if key == "url" { "uri" } else { key.as_str() };
                self.marker(format!("kubebuilder:validation:Format={format}"));
            }
            // schemars makes an `Option` field required for it.
            (_, "required", Meta::Path(_)) => {
                self.marker(names::KUBEBUILDER_VALIDATION_REQUIRED.to_owned());
            }
            (_, "contains", Meta::List(l)) => self.contains(l),
            ("schemars" | "garde", "inner", Meta::List(l)) => self.inner(l),
            (_, "pattern", Meta::List(l)) => match l.parse_args::<syn::LitStr>() {
                Ok(s) => self.pattern(&s.value()),
                Err(_) => self.unread("pattern", "a pattern that is not a string literal"),
            },
            (_, "regex", Meta::List(l)) => match named(l, "pattern") {
                Some(Expr::Lit(syn::ExprLit {
                    lit: Lit::Str(s), ..
                })) => self.pattern(&s.value()),
                _ => self.unread("regex", "a regex named by a path"),
            },
            ("schemars", "regex", Meta::NameValue(_)) => {
                self.unread("regex", "a regex named by a path");
            }
            ("schemars", "extend", Meta::List(l)) => self.extend(l),
            (
                "schemars",
                key @ ("rename" | "skip" | "with" | "schema_with" | "description" | "title"
                | "example"),
                _,
            ) => {
                self.unread(key, "schema-only");
            }
            // Everything else mirrors serde (which opgen reads) or has no schema meaning.
            _ => {}
        }
    }

    fn unread(&mut self, key: &str, what: &str) {
        let why = match what {
            "schema-only" => format!(
                "`{}({key})` changes only the schema, and opgen builds the schema from what serde and the markers say (it never compiles the crate)",
                self.namespace
            ),
            _ => format!(
                "`{}({key})` with {what} cannot be read without compiling the crate",
                self.namespace
            ),
        };
        self.warn(format!(
            "{why}: the CRD does not have it; say it with a marker (`opgen markers` lists them)"
        ));
    }

    fn length(&mut self, l: &syn::MetaList) {
        let (min, max) = match measured(self.ty) {
            Measured::String => ("MinLength", "MaxLength"),
            Measured::List => ("MinItems", "MaxItems"),
            Measured::Map => ("MinProperties", "MaxProperties"),
            Measured::Other => {
                return self.warn(format!(
                    "`{}(length)` on a field that is neither a string, a list nor a map: the CRD does not have it",
                    self.namespace
                ));
            }
        };
        let mut bound = |key: &str| {
            let value = named(l, key)?;
            let n = number(value);
            if n.is_none() {
                self.unread("length", "a bound that is not a number literal");
            }
            n
        };
        let equal = bound("equal");
        let bounds = [("min", min), ("max", max)].map(|(key, marker)| (bound(key), marker));
        for (n, marker) in bounds {
            if let Some(n) = n.or_else(|| equal.clone()) {
                self.marker(format!("kubebuilder:validation:{marker}={n}"));
            }
        }
    }

    fn range(&mut self, l: &syn::MetaList) {
        // `equal` is both bounds, as schemars writes it.
        if let Some(value) = named(l, "equal") {
            match number(value) {
                Some(n) => {
                    for marker in ["Minimum", "Maximum"] {
                        self.marker(format!("kubebuilder:validation:{marker}={n}"));
                    }
                }
                None => self.unread("range", "a bound that is not a number literal"),
            }
        }
        for (key, marker, exclusive) in [
            ("min", "Minimum", None),
            ("max", "Maximum", None),
            ("exclusive_min", "Minimum", Some("ExclusiveMinimum")),
            ("exclusive_max", "Maximum", Some("ExclusiveMaximum")),
        ] {
            let Some(value) = named(l, key) else { continue };
            match number(value) {
                Some(n) => {
                    self.marker(format!("kubebuilder:validation:{marker}={n}"));
                    if let Some(flag) = exclusive {
                        self.marker(format!("kubebuilder:validation:{flag}=true"));
                    }
                }
                None => self.unread("range", "a bound that is not a number literal"),
            }
        }
    }

    /// A string that must hold a substring: schemars writes the substring, escaped, as the
    /// pattern (garde's `contains("x")`, validator's `contains(pattern = "x")`).
    fn contains(&mut self, l: &syn::MetaList) {
        let substring = match named(l, "pattern") {
            Some(value) => string(&value),
            None => l.parse_args::<syn::LitStr>().ok().map(|s| s.value()),
        };
        let Some(substring) = substring else {
            return self.unread("contains", "a value that is not a string literal");
        };
        if !matches!(measured(self.ty), Measured::String) {
            return self.warn(format!(
                "`{}(contains)` on a field that is not a string: the CRD does not have it (schemars writes nothing either)",
                self.namespace
            ));
        }
        self.pattern(&regex::escape(&substring));
    }

    /// garde's and schemars' `inner(...)`: the same attributes on each item of a list, as
    /// the markers' `items:` forms.
    fn inner(&mut self, l: &syn::MetaList) {
        let Some(item_ty) = list_item(self.ty) else {
            return self.warn(format!(
                "`{}(inner)` on a field that is not a list: the CRD does not have it",
                self.namespace
            ));
        };
        let Ok(items) = l.parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated) else {
            return self.unread("inner", "arguments that are not attributes");
        };
        let mut inner = Read::default();
        for item in &items {
            Ctx {
                out: &mut inner,
                place: self.place.clone(),
                namespace: self.namespace,
                ty: item_ty,
            }
            .item(item);
        }
        self.out.warnings.extend(inner.warnings);
        for marker in inner.markers {
            // Every marker read here has an `items:` form but Required (an item is there).
            match marker.text.strip_prefix("kubebuilder:validation:") {
                Some(rest) if marker.text != names::KUBEBUILDER_VALIDATION_REQUIRED => {
                    self.marker(format!("kubebuilder:validation:items:{rest}"));
                }
                _ => self.warn(format!(
                    "`{}(inner)` holds `{}`, which has no form for a list's items: the CRD does not have it",
                    self.namespace, marker.text
                )),
            }
        }
    }

    fn pattern(&mut self, pattern: &str) {
        self.marker(format!(
            "kubebuilder:validation:Pattern={}",
            quoted(pattern)
        ));
    }

    /// kube-derive's `validation = "rule"`, `("rule", "message")` or
    /// `Rule::new("rule").message(...).reason(...)...`, as the marker `marker`.
    fn rule(&mut self, value: &Expr, marker: &str) {
        match rule_args(value) {
            Some(args) => self.marker(format!("{marker}:{}", args.join(","))),
            None => self.unread("validation", "a rule that is not built from literals"),
        }
    }

    /// `extend("x-kubernetes-validations" = [{"rule": ..., "message": ...}])`.
    fn extend(&mut self, l: &syn::MetaList) {
        let text = l.tokens.to_string();
        let Some((key, value)) = text.split_once('=') else {
            return self.unread("extend", "a value that is not JSON");
        };
        if key.trim() != "\"x-kubernetes-validations\"" {
            return self.unread("extend", &format!("the key {}", key.trim()));
        }
        let Ok(serde_json::Value::Array(rules)) = serde_json::from_str(value.trim()) else {
            return self.unread("extend", "a value that is not a JSON array");
        };
        for rule in rules {
            let Some(obj) = rule.as_object() else {
                continue;
            };
            let args: Vec<String> = [
                "rule",
                "message",
                "messageExpression",
                "fieldPath",
                "reason",
            ]
            .iter()
            .filter_map(|k| Some(format!("{k}={}", quoted(obj.get(*k)?.as_str()?))))
            .collect();
            self.marker(format!("{SCHEMA_RULE}:{}", args.join(",")));
        }
    }
}

/// The marker arguments of a kube-derive rule expression (see `Ctx::rule`); None where a part
/// is not a literal.
fn rule_args(value: &Expr) -> Option<Vec<String>> {
    if let Expr::Tuple(t) = value {
        let (rule, message) = (string(t.elems.first()?)?, string(t.elems.get(1)?)?);
        return Some(vec![
            format!("rule={}", quoted(&rule)),
            format!("message={}", quoted(&message)),
        ]);
    }
    let mut calls = Vec::new();
    let mut expr = value;
    loop {
        match expr {
            Expr::MethodCall(m) => {
                calls.push((m.method.to_string(), m.args.first()));
                expr = &m.receiver;
            }
            Expr::Call(c) => {
                calls.push(("new".into(), c.args.first()));
                break;
            }
            Expr::Lit(_) => {
                calls.push(("new".into(), Some(expr)));
                break;
            }
            _ => return None,
        }
    }
    let mut args = Vec::new();
    for (method, arg) in calls.into_iter().rev() {
        let arg = arg?;
        let (key, value) = match method.as_str() {
            "new" => ("rule", quoted(&string(arg)?)),
            "field_path" => ("fieldPath", quoted(&string(arg)?)),
            "message" => match message(arg)? {
                (true, text) => ("messageExpression", quoted(&text)),
                (false, text) => ("message", quoted(&text)),
            },
            // `Reason::FieldValueForbidden`
            "reason" => match arg {
                Expr::Path(p) => match p.path.segments.iter().rev().collect::<Vec<_>>()[..] {
                    [variant, ty, ..] if ty.ident == "Reason" => {
                        ("reason", variant.ident.to_string())
                    }
                    _ => return None,
                },
                _ => return None,
            },
            "optional_old_self" => match arg {
                Expr::Lit(syn::ExprLit {
                    lit: Lit::Bool(b), ..
                }) => ("optionalOldSelf", b.value.to_string()),
                _ => return None,
            },
            _ => return None,
        };
        args.push(format!("{key}={value}"));
    }
    Some(args)
}

/// A rule's message: a string (`"text"`, `"text".into()`), `Message::Message(...)` or
/// `Message::Expression(...)`; true for an expression.
fn message(arg: &Expr) -> Option<(bool, String)> {
    match arg {
        Expr::Call(c) => {
            let Expr::Path(p) = &*c.func else { return None };
            let expression = p.path.segments.last()?.ident == "Expression";
            Some((expression, string(c.args.first()?)?))
        }
        _ => Some((false, string(arg)?)),
    }
}

/// The value of `key = value` in an attribute's list.
fn named(l: &syn::MetaList, key: &str) -> Option<Expr> {
    let items = l
        .parse_args_with(syn::punctuated::Punctuated::<Meta, syn::Token![,]>::parse_terminated)
        .ok()?;
    items.into_iter().find_map(|m| match m {
        Meta::NameValue(nv) if nv.path.is_ident(key) => Some(nv.value),
        _ => None,
    })
}

fn number(e: Expr) -> Option<String> {
    match e {
        Expr::Lit(syn::ExprLit {
            lit: Lit::Int(i), ..
        }) => Some(i.base10_digits().to_owned()),
        Expr::Lit(syn::ExprLit {
            lit: Lit::Float(f), ..
        }) => Some(f.base10_digits().to_owned()),
        Expr::Unary(syn::ExprUnary {
            op: syn::UnOp::Neg(_),
            expr,
            ..
        }) => number(*expr).map(|n| format!("-{n}")),
        _ => None,
    }
}

/// A string literal, also made a String by `.into()`, `.to_string()` or `.to_owned()`.
fn string(e: &Expr) -> Option<String> {
    match e {
        Expr::Lit(syn::ExprLit {
            lit: Lit::Str(s), ..
        }) => Some(s.value()),
        Expr::MethodCall(m)
            if m.args.is_empty()
                && ["into", "to_string", "to_owned"].contains(&m.method.to_string().as_str()) =>
        {
            string(&m.receiver)
        }
        _ => None,
    }
}

/// A marker string argument: a raw backtick string where the text has no backtick, else a
/// Go-quoted one.
fn quoted(s: &str) -> String {
    if s.contains('`') {
        serde_json::Value::String(s.to_owned()).to_string()
    } else {
        format!("`{s}`")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(src: &str) -> Read {
        let f: syn::ItemStruct = syn::parse_str(&format!("struct S {{ {src} }}")).unwrap();
        let field = f.fields.iter().next().unwrap();
        read(&field.attrs, &field.ty)
    }

    fn texts(r: &Read) -> Vec<&str> {
        r.markers.iter().map(|m| m.text.as_str()).collect()
    }

    #[test]
    fn lengths_follow_the_field_type() {
        let r = field("#[schemars(length(min = 1, max = 63))] name: Option<String>");
        assert_eq!(
            texts(&r),
            [
                "kubebuilder:validation:MinLength=1",
                "kubebuilder:validation:MaxLength=63"
            ]
        );
        let r = field("#[validate(length(max = 5))] items: Vec<Item>");
        assert_eq!(texts(&r), ["kubebuilder:validation:MaxItems=5"]);
        let r = field("#[garde(length(equal = 2))] labels: BTreeMap<String, String>");
        assert_eq!(
            texts(&r),
            [
                "kubebuilder:validation:MinProperties=2",
                "kubebuilder:validation:MaxProperties=2"
            ]
        );
        let r = field("#[schemars(length(min = 1))] n: i32");
        assert!(r.markers.is_empty());
        assert!(
            r.warnings[0]
                .1
                .contains("neither a string, a list nor a map")
        );
    }

    #[test]
    fn ranges_formats_and_patterns() {
        let r = field("#[schemars(range(min = -1, max = 5.5), email, url)] x: f64");
        assert_eq!(
            texts(&r),
            [
                "kubebuilder:validation:Minimum=-1",
                "kubebuilder:validation:Maximum=5.5",
                "kubebuilder:validation:Format=email",
                "kubebuilder:validation:Format=uri"
            ]
        );
        let r = field("#[validate(range(exclusive_min = 0))] x: i32");
        assert_eq!(
            texts(&r),
            [
                "kubebuilder:validation:Minimum=0",
                "kubebuilder:validation:ExclusiveMinimum=true"
            ]
        );
        let r = field(r#"#[schemars(regex(pattern = r"^[a-z]+$"))] s: String"#);
        assert_eq!(texts(&r), ["kubebuilder:validation:Pattern=`^[a-z]+$`"]);
        let r = field(r#"#[garde(pattern("^a`b$"))] s: String"#);
        assert_eq!(texts(&r), [r#"kubebuilder:validation:Pattern="^a`b$""#]);
    }

    #[test]
    fn formats_as_schemars_writes_them() {
        // validator's formats may carry a message, garde's and schemars' are bare words.
        let r = field(
            r#"#[validate(email(message = "an email"), url(code = "u"))] #[garde(ipv4)] s: String"#,
        );
        assert_eq!(
            texts(&r),
            [
                "kubebuilder:validation:Format=email",
                "kubebuilder:validation:Format=uri",
                "kubebuilder:validation:Format=ipv4"
            ]
        );
        let r = field("#[schemars(ipv6)] s: String");
        assert_eq!(texts(&r), ["kubebuilder:validation:Format=ipv6"]);
    }

    #[test]
    fn required_contains_equal_and_inner_as_schemars_writes_them() {
        let r = field(r#"#[garde(required, contains("a.b"))] s: Option<String>"#);
        assert_eq!(
            texts(&r),
            [
                "kubebuilder:validation:Required",
                r"kubebuilder:validation:Pattern=`a\.b`"
            ]
        );
        let r = field(r#"#[validate(contains(pattern = "x+"))] s: String"#);
        assert_eq!(texts(&r), [r"kubebuilder:validation:Pattern=`x\+`"]);
        let r = field("#[garde(range(equal = 3))] n: i32");
        assert_eq!(
            texts(&r),
            [
                "kubebuilder:validation:Minimum=3",
                "kubebuilder:validation:Maximum=3"
            ]
        );
        let r = field(
            r#"#[garde(length(max = 4), inner(length(min = 1), pattern("^[a-z]+$")))] names: Vec<String>"#,
        );
        assert_eq!(
            texts(&r),
            [
                "kubebuilder:validation:MaxItems=4",
                "kubebuilder:validation:items:MinLength=1",
                "kubebuilder:validation:items:Pattern=`^[a-z]+$`"
            ]
        );
        assert!(r.warnings.is_empty(), "{r:?}");
    }

    #[test]
    fn contains_and_inner_where_the_schema_cannot_have_them_are_warnings() {
        let r = field(r#"#[garde(contains("a"))] names: Vec<String>"#);
        assert!(texts(&r).is_empty());
        assert!(
            r.warnings[0]
                .1
                .contains("`garde(contains)` on a field that is not a string")
        );
        let r = field("#[garde(inner(length(min = 1)))] name: String");
        assert!(texts(&r).is_empty());
        assert!(
            r.warnings[0]
                .1
                .contains("`garde(inner)` on a field that is not a list")
        );
        let r = field("#[garde(inner(required))] names: Vec<Option<String>>");
        assert!(texts(&r).is_empty());
        assert!(
            r.warnings[0].1.contains("has no form for a list's items"),
            "{r:?}"
        );
    }

    #[test]
    fn a_length_bound_that_is_not_a_literal_is_a_warning() {
        let r = field("#[validate(length(min = 1, max = MAX_LEN))] s: String");
        assert_eq!(texts(&r), ["kubebuilder:validation:MinLength=1"]);
        assert_eq!(r.warnings.len(), 1, "{r:?}");
        assert!(
            r.warnings[0]
                .1
                .contains("`validate(length)` with a bound that is not a number literal"),
            "{r:?}"
        );
    }

    #[test]
    fn cel_rules_from_kube_derive_and_extend() {
        let r = field(r#"#[x_kube(validation = "self >= 1")] n: i32"#);
        assert_eq!(
            texts(&r),
            ["kubebuilder:validation:XValidation:rule=`self >= 1`"]
        );
        let r = field(
            r#"#[x_kube(validation = Rule::new("self.size() > 0").message("not empty"))] s: String"#,
        );
        assert_eq!(
            texts(&r),
            ["kubebuilder:validation:XValidation:rule=`self.size() > 0`,message=`not empty`"]
        );
        let r = field(
            r#"#[schemars(extend("x-kubernetes-validations" = [{"rule": "self == oldSelf", "message": "immutable"}]))] s: String"#,
        );
        assert_eq!(
            texts(&r),
            ["kubebuilder:validation:XValidation:rule=`self == oldSelf`,message=`immutable`"]
        );
        let r = field(r#"#[x_kube(validation = Rule::new(RULE))] s: String"#);
        assert!(r.markers.is_empty());
        assert!(r.warnings[0].1.contains("not built from literals"), "{r:?}");
    }

    #[test]
    fn kube_derive_rules_with_messages_reasons_and_tuples() {
        let r = field(
            r#"#[x_kube(
                validation = Rule::new("self != 'x'").message(Message::Expression("'no x'".into())).reason(Reason::FieldValueForbidden),
                validation = Rule::new("oldSelf.optMap(o, o == self).orValue(true)").optional_old_self(true).message("immutable"),
                validation = ("self != 'y'", "no y"),
                validation = Rule::new("self != 'z'").field_path(".z"),
            )] s: String"#,
        );
        assert_eq!(
            texts(&r),
            [
                "kubebuilder:validation:XValidation:rule=`self != 'x'`,messageExpression=`'no x'`,reason=FieldValueForbidden",
                "kubebuilder:validation:XValidation:rule=`oldSelf.optMap(o, o == self).orValue(true)`,optionalOldSelf=true,message=`immutable`",
                "kubebuilder:validation:XValidation:rule=`self != 'y'`,message=`no y`",
                "kubebuilder:validation:XValidation:rule=`self != 'z'`,fieldPath=`.z`",
            ]
        );
        let r = field(r#"#[x_kube(validation = Rule::new("a").reason(REASON))] s: String"#);
        assert!(r.markers.is_empty());
        assert!(r.warnings[0].1.contains("not built from literals"), "{r:?}");
    }

    #[test]
    fn a_types_rules_and_a_kinds_rules_on_the_whole_object() {
        let item: syn::ItemStruct = syn::parse_str(
            r#"#[kube(group = "a.io", version = "v1", kind = "A", validation = "self.metadata.name != 'x'")]
            #[kube(validation = Rule::new("has(self.spec)").message("a spec"))]
            #[x_kube(validation = "self.a > 0")]
            #[schemars(extend("x-kubernetes-validations" = [{"rule": "self.b > 0"}]))]
            #[serde(rename_all = "camelCase")]
            struct ASpec { a: i32, b: i32 }"#,
        )
        .unwrap();
        let r = read_type(&item.attrs);
        assert_eq!(
            texts(&r),
            [
                "opgen:root:XValidation:rule=`self.metadata.name != 'x'`",
                "opgen:root:XValidation:rule=`has(self.spec)`,message=`a spec`",
                "kubebuilder:validation:XValidation:rule=`self.a > 0`",
                "kubebuilder:validation:XValidation:rule=`self.b > 0`",
            ]
        );
        assert_eq!((r.markers[0].line, r.markers[0].column), (1, 52));
        assert!(r.warnings.is_empty(), "{r:?}");

        let item: syn::ItemStruct = syn::parse_str(
            r#"#[kube(group = "a.io", version = "v1", kind = "A", schema = "manual")] struct ASpec {}"#,
        )
        .unwrap();
        let r = read_type(&item.attrs);
        assert!(r.markers.is_empty());
        assert_eq!((r.warnings[0].0.line, r.warnings[0].0.column), (1, 52));
        assert!(
            r.warnings[0]
                .1
                .contains("hand-written `JsonSchema` impl, code opgen never runs"),
            "{r:?}"
        );
    }

    #[test]
    fn what_cannot_be_honoured_is_a_warning_at_the_attribute() {
        let r = field(
            "#[schemars(schema_with = \"custom\")]\n    #[validate(regex(path = *RE))] s: String",
        );
        assert!(r.markers.is_empty());
        let found: Vec<(usize, usize, &str)> = r
            .warnings
            .iter()
            .map(|(at, m)| (at.line, at.column, m.as_str()))
            .collect();
        assert_eq!(found.len(), 2, "{found:?}");
        assert_eq!((found[0].0, found[0].1), (1, 23));
        assert!(
            found[0]
                .2
                .starts_with("`schemars(schema_with)` changes only the schema")
        );
        assert_eq!((found[1].0, found[1].1), (2, 16));
        assert!(
            found[1]
                .2
                .contains("`validate(regex)` with a regex named by a path")
        );
        // serde's own keys, and runtime-only checks, say nothing.
        let r = field("#[schemars(default, flatten)] #[garde(ascii, custom(f))] s: String");
        assert_eq!(r, Read::default());
    }
}
