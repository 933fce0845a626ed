//! Writes `markers/catalog.yaml` as Rust statics (catalog_defs.rs): every marker definition,
//! its `kubebuilder:validation:items:` spelling beside it, sorted by name, so that opgen looks a
//! marker up by binary search without parsing or allocating anything at run time (a one-kind
//! `opgen manifests` spent a tenth of its instructions parsing the catalog as JSON). A catalog
//! that breaks the format fails the build.

use crate::arg_type::ArgType;
use serde_json::Value;
use std::fmt::Write;

/// The spelling of a validation marker that applies to a list's items (build/typed_markers.rs
/// too).
pub const ITEMS_PREFIX: &str = "kubebuilder:validation:items:";
const VALIDATION_PREFIX: &str = "kubebuilder:validation:";
const KEYS: [&str; 14] = [
    "name",
    "targets",
    "value",
    "fields",
    "items",
    "repeatable",
    "ignored",
    "prefix",
    "help",
    // The typed form of the marker (build/typed_markers.rs).
    "family",
    "variant",
    "struct",
    "enum",
    "priority",
];
const FIELD_KEYS: [&str; 4] = ["name", "type", "optional", "enum"];
const TARGETS: [(&str, &str); 4] = [
    ("package", "Package"),
    ("type", "Type"),
    ("field", "Field"),
    ("item", "Item"),
];

/// An argument type as the catalog spells it: `string`, `int`, `number`, `bool`, `any`, `json`,
/// `map`, `list<T>` or `enum(a|b)`. What a list or enum holds is leaked: the build script parses
/// a few hundred and ends.
pub fn parse_arg_type(text: &str) -> Result<ArgType, String> {
    let text = text.trim();
    if let Some(inner) = text.strip_prefix("list<").and_then(|t| t.strip_suffix('>')) {
        return Ok(ArgType::List(Box::leak(Box::new(parse_arg_type(inner)?))));
    }
    if let Some(inner) = text.strip_prefix("enum(").and_then(|t| t.strip_suffix(')')) {
        let values: Vec<&'static str> = inner
            .split('|')
            .map(|v| &*Box::leak(v.to_owned().into_boxed_str()))
            .collect();
        return Ok(ArgType::OneOf(values.leak()));
    }
    Ok(match text {
        "string" => ArgType::String,
        "int" => ArgType::Int,
        "number" => ArgType::Number,
        "bool" => ArgType::Bool,
        "any" => ArgType::Any,
        "json" => ArgType::Json,
        "map" => ArgType::Map,
        other => return Err(format!("unknown argument type `{other}`")),
    })
}

/// `ty` as a Rust constant expression.
fn rust(ty: &ArgType) -> String {
    match ty {
        ArgType::List(item) => format!("ArgType::List(&{})", rust(item)),
        ArgType::OneOf(values) => format!("ArgType::OneOf(&{values:?})"),
        other => format!("ArgType::{other:?}"),
    }
}

/// One `MarkerDef`, as Rust source.
struct Def {
    name: String,
    source: String,
}

fn fail(name: &str, what: impl std::fmt::Display) -> ! {
    panic!("markers/catalog.yaml: {name}: {what}")
}

fn flag(entry: &Value, key: &str) -> bool {
    entry.get(key).and_then(Value::as_bool) == Some(true)
}

fn arg_type(name: &str, text: Option<&Value>) -> String {
    let text = text
        .and_then(Value::as_str)
        .unwrap_or_else(|| fail(name, "an argument type is not a string"));
    rust(&parse_arg_type(text).unwrap_or_else(|e| fail(name, e)))
}

pub fn generate(catalog: &Value) -> String {
    let mut defs = Vec::new();
    for entry in catalog.as_array().expect("the catalog is a list") {
        let object = entry.as_object().expect("a catalog entry is a map");
        let name = object
            .get("name")
            .and_then(Value::as_str)
            .expect("a marker has a name");
        if let Some(key) = object.keys().find(|k| !KEYS.contains(&k.as_str())) {
            fail(name, format!("unknown key `{key}`"));
        }
        let targets: Vec<&str> = object
            .get("targets")
            .and_then(Value::as_array)
            .unwrap_or_else(|| fail(name, "no targets"))
            .iter()
            .map(|t| {
                let t = t.as_str().unwrap_or_default();
                TARGETS
                    .iter()
                    .find(|(spelling, _)| *spelling == t)
                    .map(|(_, variant)| *variant)
                    .unwrap_or_else(|| fail(name, format!("unknown target `{t}`")))
            })
            .collect();
        let args = match (object.get("value"), object.get("fields")) {
            (Some(_), Some(_)) => fail(name, "both value and fields"),
            (Some(value), None) => format!("Args::Value({})", arg_type(name, Some(value))),
            (None, Some(fields)) => {
                let mut source = String::from("Args::Fields(&[");
                for field in fields
                    .as_array()
                    .unwrap_or_else(|| fail(name, "fields is not a list"))
                {
                    let keys = field.as_object().expect("a field is a map").keys();
                    if let Some(key) = keys.into_iter().find(|k| !FIELD_KEYS.contains(&k.as_str()))
                    {
                        fail(name, format!("unknown field key `{key}`"));
                    }
                    let field_name = field
                        .get("name")
                        .and_then(Value::as_str)
                        .unwrap_or_else(|| fail(name, "a field has no name"));
                    write!(
                        source,
                        "FieldDef {{ name: {field_name:?}, ty: {}, optional: {} }}, ",
                        arg_type(name, field.get("type")),
                        flag(field, "optional"),
                    )
                    .unwrap();
                }
                source.push_str("])");
                source
            }
            (None, None) => "Args::None".into(),
        };
        let help = object.get("help").and_then(Value::as_str).unwrap_or("");
        let def = |name: &str, items: bool, help: &str| Def {
            name: name.to_owned(),
            source: format!(
                "MarkerDef {{ name: {name:?}, targets: &[{}], args: {args}, repeatable: {}, \
                 ignored: {}, prefix: {}, items: {items}, help: {help:?} }}",
                targets
                    .iter()
                    .map(|t| format!("Target::{t}"))
                    .collect::<Vec<_>>()
                    .join(", "),
                flag(entry, "repeatable"),
                flag(entry, "ignored"),
                flag(entry, "prefix"),
            ),
        };
        if flag(entry, "items") {
            let suffix = name
                .strip_prefix(VALIDATION_PREFIX)
                .unwrap_or_else(|| fail(name, "items on a non-validation marker"));
            defs.push(def(
                &format!("{ITEMS_PREFIX}{suffix}"),
                true,
                &format!("Like {name} (the same arguments), applied to the items of a list."),
            ));
        }
        defs.push(def(name, false, help));
    }
    defs.sort_by(|a, b| a.name.cmp(&b.name));
    if let Some(pair) = defs.windows(2).find(|p| p[0].name == p[1].name) {
        fail(&pair[0].name, "defined twice");
    }
    let mut out = format!(
        "/// Every marker of markers/catalog.yaml, sorted by name (build/catalog.rs).\n\
         static DEFS: [MarkerDef; {}] = [\n",
        defs.len()
    );
    for d in defs {
        writeln!(out, "    {},", d.source).unwrap();
    }
    out.push_str("];\n");
    out
}
