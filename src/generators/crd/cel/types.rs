//! CEL types of schema nodes, as the API server declares them for `self` and `oldSelf`
//! (k8s.io/apiserver `pkg/cel/common/schemas.go`, `SchemaDeclType`), with the size bounds its
//! cost estimate uses: a list, map or string without maxItems, maxProperties or maxLength is
//! bounded by how many of its smallest elements fit in a 3 MiB request.

use serde_json::{Map, Value};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

/// `MaxRequestSizeBytes` of k8s.io/apiserver `pkg/apis/cel/config.go`.
pub const MAX_REQUEST_SIZE_BYTES: i64 = 3 * 1024 * 1024;
const MIN_STRING_SIZE: i64 = 2;
const MIN_NUMBER_SIZE: i64 = 1;
const MIN_BOOL_SIZE: i64 = 4;
const MIN_DURATION_SIZE_JSON: i64 = 3;
const JSON_DATE_SIZE: i64 = 12;
const MIN_DATETIME_SIZE_JSON: i64 = 21;
const MAX_DURATION_SIZE_JSON: i64 = 32;
const MAX_DATETIME_SIZE_JSON: i64 = 32;

/// A CEL type as the checker sees it.
#[derive(Debug, Clone, PartialEq)]
pub enum Type {
    Bool,
    Int,
    Uint,
    Double,
    String,
    Bytes,
    Null,
    Duration,
    Timestamp,
    /// Checked at run time only (int-or-string, `dyn(...)`, what opgen does not model).
    Dyn,
    List(Box<Type>),
    Map(Box<Type>, Box<Type>),
    /// A schema object: its declared (escaped) fields.
    Object(Arc<BTreeMap<String, Type>>),
    Optional(Box<Type>),
    /// A type value, e.g. `int` or `type(x)`.
    Type,
    /// A library type (`Quantity`, `URL`, `IP`, `CIDR`, `Semver`, `Regex`...).
    Opaque(&'static str),
}

impl Type {
    pub fn is_dyn(&self) -> bool {
        matches!(self, Type::Dyn)
    }

    /// Whether a value of type `self` can be where `other` is expected (dyn matches all).
    pub fn assignable(&self, other: &Type) -> bool {
        match (self, other) {
            (Type::Dyn, _) | (_, Type::Dyn) => true,
            (Type::List(a), Type::List(b)) | (Type::Optional(a), Type::Optional(b)) => {
                a.assignable(b)
            }
            (Type::Map(k1, v1), Type::Map(k2, v2)) => k1.assignable(k2) && v1.assignable(v2),
            (Type::Object(_), Type::Object(_)) => true,
            // A null is assignable to messages and wrappers; schema objects are messages.
            (Type::Null, Type::Object(_)) | (Type::Object(_), Type::Null) => true,
            (a, b) => std::mem::discriminant(a) == std::mem::discriminant(b),
        }
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Bool => f.write_str("bool"),
            Type::Int => f.write_str("int"),
            Type::Uint => f.write_str("uint"),
            Type::Double => f.write_str("double"),
            Type::String => f.write_str("string"),
            Type::Bytes => f.write_str("bytes"),
            Type::Null => f.write_str("null_type"),
            Type::Duration => f.write_str("google.protobuf.Duration"),
            Type::Timestamp => f.write_str("google.protobuf.Timestamp"),
            Type::Dyn => f.write_str("dyn"),
            Type::List(e) => write!(f, "list({e})"),
            Type::Map(k, v) => write!(f, "map({k}, {v})"),
            Type::Object(_) => f.write_str("object"),
            Type::Optional(t) => write!(f, "optional_type({t})"),
            Type::Type => f.write_str("type"),
            Type::Opaque(name) => f.write_str(name),
        }
    }
}

/// A schema node's CEL declaration: its type, and the bounds of the cost estimate.
#[derive(Debug, Clone)]
pub struct Decl {
    pub ty: Type,
    /// Elements of a list or map, chars of a string (maxLength × 4 bytes), else 0.
    pub max_elements: i64,
    /// The fewest bytes a serialized value takes.
    pub min_size: i64,
    /// What `self.x`, `self[*]` (`@items`, `@values`) and map keys (`@keys`) hold.
    pub fields: BTreeMap<String, Decl>,
    pub elem: Option<Box<Decl>>,
    /// Whether this is a string map (its keys are `@keys`).
    pub is_map: bool,
}

impl Decl {
    fn simple(ty: Type, min_size: i64, max_elements: i64) -> Decl {
        Decl {
            ty,
            max_elements,
            min_size,
            fields: BTreeMap::new(),
            elem: None,
            is_map: false,
        }
    }

    /// The declaration at a cost-estimate path below this one: field names, `@items`,
    /// `@values` and `@keys`.
    pub fn at<'d>(&'d self, path: &[String]) -> Option<&'d Decl> {
        let mut d = self;
        for step in path {
            d = match step.as_str() {
                "@items" | "@values" => d.elem.as_deref()?,
                "@keys" if d.is_map => return Some(&STRING_KEY),
                _ => d.fields.get(step)?,
            };
        }
        Some(d)
    }
}

/// The keys of a map, as the API server's size estimator sees them: its key type is a plain
/// string declaration with no maximum (apiserver/pkg/cel `StringType`, `MaxElements` 0), so a
/// key's estimated size is 0, not the request size (gateway-api's Gateway, whose rules run
/// `key.matches(...)` over label maps, is accepted only so).
static STRING_KEY: std::sync::LazyLock<Decl> =
    std::sync::LazyLock::new(|| Decl::simple(Type::String, MIN_STRING_SIZE, 0));

fn int(m: &Map<String, Value>, key: &str) -> Option<i64> {
    m.get(key).and_then(Value::as_i64).map(|v| v.max(0))
}

fn is_true(m: &Map<String, Value>, key: &str) -> bool {
    m.get(key) == Some(&Value::Bool(true))
}

fn string_bound(m: &Map<String, Value>) -> i64 {
    match m.get("format").and_then(Value::as_str) {
        _ if is_true(m, "x-kubernetes-int-or-string") => MAX_REQUEST_SIZE_BYTES - 2,
        Some("duration") => MAX_DURATION_SIZE_JSON,
        Some("date") => JSON_DATE_SIZE,
        Some("date-time") => MAX_DATETIME_SIZE_JSON,
        _ => MAX_REQUEST_SIZE_BYTES - 2,
    }
}

/// CEL's literals and reserved words, which the API server escapes as property names (`__if__`).
pub fn is_keyword(name: &str) -> bool {
    ["true", "false", "null", "in"].contains(&name) || super::parse::RESERVED.contains(&name)
}

/// A CEL field name for a property, escaped as the API server does (`a-b` → `a__dash__b`),
/// or None if the property is not reachable from CEL.
pub fn escape(name: &str) -> Option<String> {
    if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    if is_keyword(name) {
        return Some(format!("__{name}__"));
    }
    let mut out = String::new();
    let mut chars = name.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '_' if chars.peek() == Some(&'_') => {
                chars.next();
                out.push_str("__underscores__");
            }
            '.' => out.push_str("__dot__"),
            '-' => out.push_str("__dash__"),
            '/' => out.push_str("__slash__"),
            c if c.is_ascii_alphanumeric() || c == '_' => out.push(c),
            _ => return None,
        }
    }
    Some(out)
}

/// The declaration of a schema node, or None where the API server exposes nothing to CEL (no
/// type and not int-or-string, e.g. a bare `x-kubernetes-preserve-unknown-fields`).
/// `resource_root` is the CRD's root or an embedded resource: `apiVersion`, `kind` and
/// `metadata` (with only `name` and `generateName`) are declared there.
pub fn decl(m: &Map<String, Value>, resource_root: bool) -> Option<Decl> {
    if is_true(m, "x-kubernetes-int-or-string") {
        let max = match int(m, "maxLength") {
            Some(n) => n * 4,
            None => string_bound(m),
        };
        return Some(Decl::simple(Type::Dyn, 1, max));
    }
    let embedded = |s: &Map<String, Value>| is_true(s, "x-kubernetes-embedded-resource");
    match m.get("type").and_then(Value::as_str)? {
        "array" => {
            let items = m.get("items")?.as_object()?;
            let item = decl(items, embedded(items))?;
            let max =
                int(m, "maxItems").unwrap_or((MAX_REQUEST_SIZE_BYTES - 2) / (item.min_size + 1));
            Some(Decl {
                ty: Type::List(Box::new(item.ty.clone())),
                max_elements: max,
                min_size: 2,
                fields: BTreeMap::new(),
                elem: Some(Box::new(item)),
                is_map: false,
            })
        }
        "object" => {
            if let Some(ap) = m.get("additionalProperties").and_then(Value::as_object) {
                let value = decl(ap, embedded(ap))?;
                let max = int(m, "maxProperties")
                    .unwrap_or((MAX_REQUEST_SIZE_BYTES - 2) / (value.min_size + 6));
                return Some(Decl {
                    ty: Type::Map(Box::new(Type::String), Box::new(value.ty.clone())),
                    max_elements: max,
                    min_size: 2,
                    fields: BTreeMap::new(),
                    elem: Some(Box::new(value)),
                    is_map: true,
                });
            }
            // Borrowed: cloning every level's properties made this quadratic in the depth.
            let mut props = match m.get("properties").and_then(Value::as_object) {
                Some(props) => Cow::Borrowed(props),
                None => Cow::Owned(Map::new()),
            };
            if resource_root && !has_type_and_object_meta(&props) {
                let props = props.to_mut();
                let string = serde_json::json!({"type": "string"});
                props.insert("kind".into(), string.clone());
                props.insert("apiVersion".into(), string.clone());
                props.insert(
                    "metadata".into(),
                    serde_json::json!({"type": "object", "properties": {"name": string, "generateName": string}}),
                );
            }
            let required: Vec<&str> = m
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let mut fields = BTreeMap::new();
            let mut min_size = 2;
            for (name, prop) in props.iter() {
                let Some(prop) = prop.as_object() else {
                    continue;
                };
                let Some(d) = decl(prop, embedded(prop)) else {
                    continue;
                };
                if required.contains(&name.as_str()) && !prop.contains_key("default") {
                    min_size += name.len() as i64 + d.min_size + 4;
                }
                if let Some(escaped) = escape(name) {
                    fields.insert(escaped, d);
                }
            }
            let types = fields.iter().map(|(k, d)| (k.clone(), d.ty.clone()));
            Some(Decl {
                ty: Type::Object(Arc::new(types.collect())),
                max_elements: 0,
                min_size,
                fields,
                elem: None,
                is_map: false,
            })
        }
        "string" => {
            let (ty, min) = match m.get("format").and_then(Value::as_str) {
                Some("byte") => (Type::Bytes, MIN_STRING_SIZE),
                Some("duration") => (Type::Duration, MIN_DURATION_SIZE_JSON),
                Some("date") => (Type::Timestamp, JSON_DATE_SIZE),
                Some("date-time") => (Type::Timestamp, MIN_DATETIME_SIZE_JSON),
                _ => (Type::String, MIN_STRING_SIZE),
            };
            let max = match (&ty, int(m, "maxLength")) {
                (Type::Bytes, Some(n)) => n,
                (Type::String, Some(n)) => n * 4,
                (Type::String, None) => match m.get("enum").and_then(Value::as_array) {
                    Some(values) if !values.is_empty() => values
                        .iter()
                        .filter_map(Value::as_str)
                        .map(|s| s.len() as i64)
                        .max()
                        .unwrap_or(0),
                    _ => string_bound(m),
                },
                _ => string_bound(m),
            };
            Some(Decl::simple(ty, min, max))
        }
        "boolean" => Some(Decl::simple(Type::Bool, MIN_BOOL_SIZE, 0)),
        "number" => Some(Decl::simple(Type::Double, MIN_NUMBER_SIZE, 0)),
        "integer" => Some(Decl::simple(Type::Int, MIN_NUMBER_SIZE, 0)),
        _ => None,
    }
}

fn has_type_and_object_meta(props: &Map<String, Value>) -> bool {
    let ty = |v: Option<&Value>, t: &str| {
        v.and_then(|v| v.get("type")).and_then(Value::as_str) == Some(t)
    };
    let meta = props.get("metadata");
    let meta_props = meta.and_then(|m| m.get("properties"));
    ty(props.get("kind"), "string")
        && ty(props.get("apiVersion"), "string")
        && ty(meta, "object")
        && ty(meta_props.and_then(|p| p.get("name")), "string")
        && ty(meta_props.and_then(|p| p.get("generateName")), "string")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn d(v: Value) -> Decl {
        decl(v.as_object().unwrap(), false).unwrap()
    }

    #[test]
    fn escapes_property_names_as_the_api_server() {
        assert_eq!(
            escape("a-b.c/d").as_deref(),
            Some("a__dash__b__dot__c__slash__d")
        );
        assert_eq!(escape("a__b").as_deref(), Some("a__underscores__b"));
        assert_eq!(escape("namespace").as_deref(), Some("__namespace__"));
        assert_eq!(escape("plain_name").as_deref(), Some("plain_name"));
        assert_eq!(escape("1st"), None);
        assert_eq!(escape("a b"), None);
    }

    #[test]
    fn bounds_follow_the_request_size() {
        // An unbounded list of strings: (3 MiB - 2) / (2 + 1) items.
        let list = d(json!({"type": "array", "items": {"type": "string"}}));
        assert_eq!(list.max_elements, (MAX_REQUEST_SIZE_BYTES - 2) / 3);
        assert_eq!(
            list.elem.as_ref().unwrap().max_elements,
            MAX_REQUEST_SIZE_BYTES - 2
        );
        let bounded = d(
            json!({"type": "array", "maxItems": 5, "items": {"type": "string", "maxLength": 10}}),
        );
        assert_eq!(bounded.max_elements, 5);
        assert_eq!(bounded.elem.as_ref().unwrap().max_elements, 40);
        let map = d(json!({"type": "object", "additionalProperties": {"type": "integer"}}));
        assert_eq!(
            map.ty,
            Type::Map(Box::new(Type::String), Box::new(Type::Int))
        );
        assert_eq!(map.max_elements, (MAX_REQUEST_SIZE_BYTES - 2) / 7);
        // Required fields without defaults grow an object's smallest size.
        let obj = d(
            json!({"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}}),
        );
        assert_eq!(obj.min_size, 2 + 4 + 2 + 4);
    }

    #[test]
    fn formats_and_markers_choose_the_type() {
        let t = |v: Value| d(v).ty;
        assert_eq!(
            t(json!({"type": "string", "format": "date-time"})),
            Type::Timestamp
        );
        assert_eq!(
            t(json!({"type": "string", "format": "duration"})),
            Type::Duration
        );
        assert_eq!(t(json!({"type": "string", "format": "byte"})), Type::Bytes);
        assert_eq!(t(json!({"x-kubernetes-int-or-string": true})), Type::Dyn);
        assert_eq!(t(json!({"type": "integer", "format": "int32"})), Type::Int);
        assert!(
            decl(
                json!({"x-kubernetes-preserve-unknown-fields": true})
                    .as_object()
                    .unwrap(),
                false
            )
            .is_none()
        );
        let root = decl(
            json!({"type": "object", "properties": {"metadata": {"type": "object"}}})
                .as_object()
                .unwrap(),
            true,
        )
        .unwrap();
        let meta = root.at(&["metadata".to_owned()]).unwrap();
        assert_eq!(
            meta.fields.keys().collect::<Vec<_>>(),
            ["generateName", "name"]
        );
    }
}
