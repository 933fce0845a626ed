//! Writes the typed markers of `markers/catalog.yaml`: one enum per family (the generator that
//! applies it), one variant per marker, a struct per marker with named arguments and an enum per
//! `enum(...)` argument, and `Typed::from_parsed`, which builds them from the grammar's output.
//! Aliases (several names, one variant) must agree on family, arguments and priority: a catalog
//! that breaks this, or a family without a generator, fails the build.

use crate::arg_type::ArgType;
use crate::catalog::{ITEMS_PREFIX, parse_arg_type};
use heck::{ToShoutySnakeCase, ToSnakeCase, ToUpperCamelCase};
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt::Write;

/// The families and the doc of their enum, in the order of `Typed`'s variants.
const FAMILIES: [(&str, &str, &str); 6] = [
    (
        "package",
        "PackageMarker",
        "Markers of a version module's `//!` docs, read by the model.",
    ),
    (
        "schema",
        "SchemaMarker",
        "Markers the CRD generator applies to one schema node (a type or a field).",
    ),
    (
        "resource",
        "ResourceMarker",
        "Markers the CRD generator applies to a whole kind: names, versions, columns, subresources.",
    ),
    (
        "rbac",
        "RbacMarker",
        "Markers the RBAC generator turns into rules.",
    ),
    (
        "webhook",
        "WebhookMarker",
        "Markers the webhook generator turns into webhook configurations.",
    ),
    (
        "csv",
        "CsvMarker",
        "Markers `opgen bundle` turns into the ClusterServiceVersion's descriptors.",
    ),
];

#[derive(Clone, PartialEq)]
enum Ty {
    String,
    Int,
    Number,
    Bool,
    Any,
    Json,
    Map,
    List(Box<Ty>),
    /// A generated enum: its name and its (string) values.
    Enum(String, Vec<String>),
}

impl Ty {
    /// The catalog's spelling of a type (the parser opgen uses at run time), with the name of
    /// the Rust enum an `enum(...)` becomes.
    fn parse(text: &str, enum_name: impl FnOnce() -> String) -> Ty {
        let ty = parse_arg_type(text).unwrap_or_else(|e| panic!("markers/catalog.yaml: {e}"));
        Ty::of(ty, &mut Some(enum_name))
    }

    fn of(ty: ArgType, enum_name: &mut Option<impl FnOnce() -> String>) -> Ty {
        match ty {
            ArgType::String => Ty::String,
            ArgType::Int => Ty::Int,
            ArgType::Number => Ty::Number,
            ArgType::Bool => Ty::Bool,
            ArgType::Any => Ty::Any,
            ArgType::Json => Ty::Json,
            ArgType::Map => Ty::Map,
            ArgType::List(inner) => Ty::List(Box::new(Ty::of(*inner, enum_name))),
            ArgType::OneOf(values) => {
                let name = enum_name.take().expect("one enum per argument");
                Ty::Enum(name(), values.iter().map(|v| (*v).to_owned()).collect())
            }
        }
    }

    fn rust(&self) -> String {
        match self {
            Ty::String => "String".into(),
            Ty::Int => "i64".into(),
            Ty::Number => "f64".into(),
            Ty::Bool => "bool".into(),
            Ty::Any => "Value".into(),
            // A JSON value, or `ref(Name)`, which the generator warns about.
            Ty::Json => "Value".into(),
            Ty::Map => "Vec<(String, Value)>".into(),
            Ty::List(t) => format!("Vec<{}>", t.rust()),
            Ty::Enum(name, _) => name.clone(),
        }
    }

    /// A function or closure converting a `&Value` into this type (a `Result<_, String>`).
    fn converter(&self) -> String {
        match self {
            Ty::String => "arg::string".into(),
            Ty::Int => "arg::int".into(),
            Ty::Number => "arg::number".into(),
            Ty::Bool => "arg::boolean".into(),
            Ty::Any | Ty::Json => "arg::any".into(),
            Ty::Map => "|v| match v { Value::Map(entries) => Ok(entries), other => Err(format!(\"expected a map, got {other:?}\")) }".into(),
            Ty::List(t) => format!("|v| arg::list(v, {})", t.converter()),
            Ty::Enum(name, _) => format!("|v| arg::string(v).and_then(|s| {name}::parse(&s))"),
        }
    }

    fn enums(&self, out: &mut Vec<(String, Vec<String>)>) {
        match self {
            Ty::List(t) => t.enums(out),
            Ty::Enum(name, values) => out.push((name.clone(), values.clone())),
            _ => {}
        }
    }
}

#[derive(Clone, PartialEq)]
enum Args {
    None,
    Value(Ty),
    Fields(String, Vec<(String, Ty, bool)>),
}

struct Variant {
    family: String,
    /// Also spelled `kubebuilder:validation:items:<Name>`.
    items: bool,
    name: String,
    names: Vec<String>,
    args: Args,
    priority: u64,
    help: String,
}

fn str_key<'a>(entry: &'a Value, key: &str) -> Option<&'a str> {
    entry.get(key).and_then(Value::as_str)
}

pub fn generate(catalog: &Value) -> String {
    let mut variants: Vec<Variant> = Vec::new();
    for entry in catalog.as_array().expect("the catalog is a list") {
        let name = str_key(entry, "name").expect("a marker has a name");
        let ignored = entry.get("ignored").and_then(Value::as_bool) == Some(true);
        let family = str_key(entry, "family");
        match (ignored, family) {
            (true, None) => continue,
            (true, Some(_)) => panic!("markers/catalog.yaml: {name} is ignored and has a family"),
            (false, None) => panic!("markers/catalog.yaml: {name} has no family"),
            (false, Some(f)) if !FAMILIES.iter().any(|(family, ..)| *family == f) => {
                panic!("markers/catalog.yaml: {name}: unknown family `{f}`")
            }
            _ => {}
        }
        let variant = str_key(entry, "variant").map_or_else(
            || {
                name.rsplit(':')
                    .next()
                    .unwrap_or(name)
                    .to_upper_camel_case()
            },
            str::to_owned,
        );
        let args = if let Some(ty) = str_key(entry, "value") {
            Args::Value(Ty::parse(ty, || {
                str_key(entry, "enum").map_or_else(|| variant.clone(), str::to_owned)
            }))
        } else if let Some(fields) = entry.get("fields").and_then(Value::as_array) {
            let fields = fields
                .iter()
                .map(|f| {
                    let field = str_key(f, "name").expect("a field has a name");
                    let ty = Ty::parse(str_key(f, "type").expect("a field has a type"), || {
                        str_key(f, "enum")
                            .map_or_else(|| field.to_upper_camel_case(), str::to_owned)
                    });
                    let optional = f.get("optional").and_then(Value::as_bool) == Some(true);
                    (field.to_owned(), ty, optional)
                })
                .collect();
            let structure = str_key(entry, "struct").unwrap_or(&variant).to_owned();
            Args::Fields(structure, fields)
        } else {
            Args::None
        };
        let priority = entry.get("priority").and_then(Value::as_u64).unwrap_or(10);
        let help = str_key(entry, "help").unwrap_or_default().to_owned();
        let family = family.unwrap_or_default().to_owned();
        if let Some(v) = variants
            .iter_mut()
            .find(|v| v.family == family && v.name == variant)
        {
            if v.args != args || v.priority != priority {
                panic!(
                    "markers/catalog.yaml: {name} and {} are both {family} variant {variant} \
                     but differ in arguments or priority; give one a `variant:`",
                    v.names[0]
                );
            }
            v.names.push(name.to_owned());
            continue;
        }
        variants.push(Variant {
            family,
            items: entry.get("items").and_then(Value::as_bool) == Some(true),
            name: variant,
            names: vec![name.to_owned()],
            args,
            priority,
            help,
        });
    }

    let mut out = String::from(
        "// @generated by build.rs from markers/catalog.yaml: edit the catalog, not this file.\n\n",
    );
    write_family_enums(&mut out, &variants);
    write_structs_and_enums(&mut out, &variants);
    write_typed(&mut out, &variants);
    write_names(&mut out, &variants);
    out
}

fn write_family_enums(out: &mut String, variants: &[Variant]) {
    for (family, enum_name, doc) in FAMILIES {
        let members: Vec<&Variant> = variants.iter().filter(|v| v.family == family).collect();
        assert!(
            !members.is_empty(),
            "markers/catalog.yaml: no {family} marker"
        );
        // A project holds a few dozen markers: boxing the large variants would save nothing
        // and cost every match a dereference.
        let _ = writeln!(
            out,
            "#[doc = {doc:?}]\n#[derive(Debug, Clone, PartialEq)]\n#[allow(clippy::large_enum_variant)]\npub enum {enum_name} {{"
        );
        for v in &members {
            let spelled = v
                .names
                .iter()
                .map(|n| format!("`+{n}`"))
                .collect::<Vec<_>>()
                .join(", ");
            let _ = writeln!(out, "    #[doc = {:?}]", format!("{spelled}: {}", v.help));
            match &v.args {
                Args::None => {
                    let _ = writeln!(out, "    {},", v.name);
                }
                Args::Value(ty) => {
                    let _ = writeln!(out, "    {}({}),", v.name, ty.rust());
                }
                Args::Fields(structure, _) => {
                    let _ = writeln!(out, "    {}({structure}),", v.name);
                }
            }
        }
        out.push_str("}\n\n");
        if family == "schema" {
            let _ = writeln!(
                out,
                "impl {enum_name} {{\n    /// When this marker applies among the markers of one schema node: lower first.\n    pub fn priority(&self) -> u8 {{\n        match self {{"
            );
            let mut by_priority: BTreeMap<u64, Vec<String>> = BTreeMap::new();
            for v in &members {
                let pattern = match v.args {
                    Args::None => format!("Self::{}", v.name),
                    _ => format!("Self::{}(_)", v.name),
                };
                by_priority.entry(v.priority).or_default().push(pattern);
            }
            let default = by_priority.remove(&10);
            for (priority, patterns) in &by_priority {
                let _ = writeln!(out, "            {} => {priority},", patterns.join(" | "));
            }
            if default.is_some() {
                out.push_str("            _ => 10,\n");
            }
            out.push_str("        }\n    }\n}\n\n");
        }
    }
}

fn write_structs_and_enums(out: &mut String, variants: &[Variant]) {
    let mut structs: BTreeMap<String, &Vec<(String, Ty, bool)>> = BTreeMap::new();
    let mut enums: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for v in variants {
        let mut found = Vec::new();
        match &v.args {
            Args::None => {}
            Args::Value(ty) => ty.enums(&mut found),
            Args::Fields(structure, fields) => {
                if let Some(other) = structs.insert(structure.clone(), fields)
                    && other != fields
                {
                    panic!(
                        "markers/catalog.yaml: two different argument structs named {structure}"
                    );
                }
                for (_, ty, _) in fields {
                    ty.enums(&mut found);
                }
            }
        }
        for (name, values) in found {
            if let Some(other) = enums.insert(name.clone(), values.clone())
                && other != values
            {
                panic!(
                    "markers/catalog.yaml: two different enums named {name}; give one an `enum:`"
                );
            }
        }
    }
    for (name, fields) in &structs {
        let _ = writeln!(
            out,
            "/// The arguments of `{name}`.\n#[derive(Debug, Clone, PartialEq)]\npub struct {name} {{"
        );
        for (field, ty, optional) in fields.iter() {
            let ty = if *optional {
                format!("Option<{}>", ty.rust())
            } else {
                ty.rust()
            };
            let _ = writeln!(
                out,
                "    /// `{field}=`\n    pub {}: {ty},",
                rust_field(field)
            );
        }
        out.push_str("}\n\n");
    }
    for (name, values) in &enums {
        let _ = writeln!(
            out,
            "/// {}.\n#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]\npub enum {name} {{",
            values.join(", ")
        );
        for value in values {
            let _ = writeln!(out, "    {},", value.to_upper_camel_case());
        }
        let _ = writeln!(
            out,
            "}}\n\nimpl {name} {{\n    /// The spelling in a marker and in the manifests.\n    pub fn as_str(self) -> &'static str {{\n        match self {{"
        );
        for value in values {
            let _ = writeln!(
                out,
                "            Self::{} => {value:?},",
                value.to_upper_camel_case()
            );
        }
        let _ = writeln!(
            out,
            "        }}\n    }}\n\n    fn parse(text: &str) -> Result<Self, String> {{\n        match text {{"
        );
        for value in values {
            let _ = writeln!(
                out,
                "            {value:?} => Ok(Self::{}),",
                value.to_upper_camel_case()
            );
        }
        let _ = writeln!(
            out,
            "            other => Err(format!(\"`{{other}}` is not one of {}\")),\n        }}\n    }}\n}}\n",
            values.join(", ")
        );
    }
}

fn rust_field(name: &str) -> String {
    match name.to_snake_case().as_str() {
        "type" => "type_".into(),
        other => other.into(),
    }
}

fn write_typed(out: &mut String, variants: &[Variant]) {
    out.push_str("/// A marker as the generator that applies it sees it.\n#[derive(Debug, Clone, PartialEq)]\n#[allow(clippy::large_enum_variant)]\npub enum Typed {\n");
    for (family, enum_name, _) in FAMILIES {
        let _ = writeln!(out, "    {}({enum_name}),", family.to_upper_camel_case());
    }
    out.push_str("    /// Accepted for other tools (`ignored: true`), no effect on opgen's output.\n    Ignored,\n}\n\n");
    out.push_str(
        "impl Typed {\n    /// The typed form of the marker `name` (an `items:` spelling included) with the\n    /// arguments the grammar parsed against its catalog entry.\n    pub fn from_parsed(name: &str, mut args: ParsedArgs) -> Result<Typed, String> {\n",
    );
    let _ = writeln!(
        out,
        "        let name = name.strip_prefix({ITEMS_PREFIX:?}).map_or_else(|| name.to_owned(), |n| format!(\"kubebuilder:validation:{{n}}\"));"
    );
    out.push_str("        Ok(match name.as_str() {\n");
    for v in variants {
        let (_, enum_name, _) = FAMILIES
            .iter()
            .find(|(f, ..)| *f == v.family)
            .expect("family");
        let wrap = v.family.to_upper_camel_case();
        let patterns = v
            .names
            .iter()
            .map(|n| format!("{n:?}"))
            .collect::<Vec<_>>()
            .join(" | ");
        let value = match &v.args {
            Args::None => format!("{enum_name}::{}", v.name),
            Args::Value(ty) => format!(
                "{enum_name}::{}(arg::value(&mut args).and_then({})?)",
                v.name,
                ty.converter()
            ),
            Args::Fields(structure, fields) => {
                let mut s = format!("{enum_name}::{}({structure} {{\n", v.name);
                for (field, ty, optional) in fields {
                    let getter = if *optional { "optional" } else { "required" };
                    let _ = writeln!(
                        s,
                        "                {}: arg::{getter}(&mut args, {field:?}, {})?,",
                        rust_field(field),
                        ty.converter()
                    );
                }
                s.push_str("            })");
                s
            }
        };
        let _ = writeln!(out, "            {patterns} => Typed::{wrap}({value}),");
    }
    out.push_str("            other => return Err(format!(\"`{other}` has no type in the catalog\")),\n        })\n    }\n}\n");
}

/// Every spelling as a constant, for code that writes markers (`opgen import`): a misspelt
/// constant does not compile, a misspelt string would.
fn write_names(out: &mut String, variants: &[Variant]) {
    out.push_str("\n/// The name of every marker (each `items:` spelling too), for code that writes markers.\npub mod names {\n");
    let mut names: Vec<(String, &str)> = Vec::new();
    for v in variants {
        for name in &v.names {
            names.push((name.clone(), &v.name));
            if let Some(base) = name.strip_prefix("kubebuilder:validation:")
                && v.items
            {
                names.push((format!("{ITEMS_PREFIX}{base}"), &v.name));
            }
        }
    }
    names.sort();
    for (name, variant) in names {
        let _ = writeln!(
            out,
            "    /// `+{name}` ({variant}).\n    pub const {}: &str = {name:?};",
            name.replace([':', '-'], "_").to_shouty_snake_case()
        );
    }
    out.push_str("}\n");
}
