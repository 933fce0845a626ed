//! Each schema marker applies itself to the node it stands on ([`SchemaMarker::apply_to`]);
//! the order among the markers of one node is the catalog's `priority`.

use crate::markers::Value as MarkerValue;
use crate::markers::typed::{ExternalDocs, SchemaMarker, XValidation};
use serde_json::{Map, Value, json};

fn int_or_string(schema: &Map<String, Value>) -> bool {
    schema.get("x-kubernetes-int-or-string") == Some(&Value::Bool(true))
}

fn number_json(v: f64) -> Value {
    if v.fract() == 0.0 && v.abs() < 9.0e15 {
        json!(v as i64)
    } else {
        json!(v)
    }
}

/// The x-kubernetes-validations entry of an XValidation marker.
pub fn cel_rule(v: &XValidation) -> Value {
    let mut rule = Map::new();
    let strings = [
        ("fieldPath", v.field_path.as_deref()),
        ("message", v.message.as_deref()),
        ("messageExpression", v.message_expression.as_deref()),
        ("reason", v.reason.map(|r| r.as_str())),
        ("rule", Some(v.rule.as_str())),
    ];
    for (key, value) in strings {
        if let Some(s) = value.filter(|s| !s.is_empty()) {
            rule.insert(key.into(), json!(s));
        }
    }
    if let Some(b) = v.optional_old_self {
        rule.insert("optionalOldSelf".into(), json!(b));
    }
    Value::Object(rule)
}

impl SchemaMarker {
    /// Applies this marker to `schema`. `node_type` is the schema type the marker is checked
    /// against (the type of the field's or type's own schema); `spelled` is the marker's name
    /// as written, for errors.
    pub fn apply_to(
        &self,
        schema: &mut Map<String, Value>,
        node_type: Option<&str>,
        spelled: &str,
    ) -> Result<(), String> {
        let node = Node {
            ty: node_type,
            int_or_string: int_or_string(schema),
            spelled,
        };
        let mut set = |key: &str, value: Value| {
            schema.insert(key.into(), value);
        };
        let node_type = node.ty;
        match self {
            Self::Maximum(v) => set("maximum", node.number(*v)?),
            Self::Minimum(v) => set("minimum", node.number(*v)?),
            Self::MultipleOf(v) => set("multipleOf", node.number(*v)?),
            Self::ExclusiveMaximum(on) => node.flag(Applies::Numbers, *on, || {
                set("exclusiveMaximum", json!(true));
            })?,
            Self::ExclusiveMinimum(on) => node.flag(Applies::Numbers, *on, || {
                set("exclusiveMinimum", json!(true));
            })?,
            Self::MaxLength(n) => set("maxLength", node.count(Applies::Strings, *n)?),
            Self::MinLength(n) => set("minLength", node.count(Applies::Strings, *n)?),
            Self::MaxItems(n) => set("maxItems", node.count(Applies::Lists, *n)?),
            Self::MinItems(n) => set("minItems", node.count(Applies::Lists, *n)?),
            Self::UniqueItems(on) => node.flag(Applies::Lists, *on, || {
                set("uniqueItems", json!(true));
            })?,
            Self::MaxProperties(n) => set("maxProperties", node.count(Applies::Objects, *n)?),
            Self::MinProperties(n) => set("minProperties", node.count(Applies::Objects, *n)?),
            Self::Pattern(pattern) => {
                node.need(Applies::Strings)?;
                // The API server compiles it with Go's regexp and refuses the CRD if that fails.
                if let Err(e) = super::values::go_regex(pattern) {
                    return Err(format!(
                        "the pattern `{pattern}` is not a valid Go (RE2) regular expression: {e}"
                    ));
                }
                set("pattern", json!(pattern));
            }
            Self::Enum(values) => {
                schema.insert(
                    "enum".into(),
                    Value::Array(values.iter().map(MarkerValue::to_json).collect()),
                );
            }
            Self::Format(format) => {
                // controller-gen's `Format=""` leaves the format empty, which its JSON omits:
                // the spelling of a number without a format (Go's float64) on an `f64`.
                if format.is_empty() {
                    schema.remove("format");
                } else {
                    schema.insert("format".into(), json!(format));
                }
            }
            Self::Type(ty) => {
                schema.insert("type".into(), json!(ty.as_str()));
            }
            Self::XPreserveUnknownFields | Self::PreserveUnknownFields => {
                schema.insert("x-kubernetes-preserve-unknown-fields".into(), json!(true));
            }
            Self::XEmbeddedResource | Self::EmbeddedResource => {
                schema.insert("x-kubernetes-embedded-resource".into(), json!(true));
            }
            Self::XIntOrString => {
                schema.insert("x-kubernetes-int-or-string".into(), json!(true));
            }
            Self::XValidation(v) => push_rule(schema, cel_rule(v)),
            // In source order with the field's XValidation rules (spec §3.7 leaves the order open).
            Self::Immutable => {
                push_rule(
                    schema,
                    json!({"message": "field is immutable", "rule": "self == oldSelf"}),
                );
            }
            Self::Nullable => {
                schema.insert("nullable".into(), json!(true));
            }
            Self::Default(v) | Self::KubebuilderDefault(v) => {
                let mut v = v.to_json();
                if node_type == Some("array") && v == json!({}) {
                    v = json!([]);
                }
                schema.insert("default".into(), v);
            }
            Self::Example(v) => {
                schema.insert("example".into(), v.to_json());
            }
            Self::Title(title) => {
                schema.insert("title".into(), json!(title_text(title, spelled)?));
            }
            Self::ExternalDocs(docs) => {
                schema.insert("externalDocs".into(), external_docs(docs)?);
            }
            Self::ListType(ty) => {
                node.need(Applies::Lists)?;
                schema.insert("x-kubernetes-list-type".into(), json!(ty.as_str()));
            }
            Self::ListMapKey(key) => {
                node.need(Applies::Lists)?;
                if schema.get("x-kubernetes-list-type").and_then(Value::as_str) != Some("map") {
                    return Err(format!("`{spelled}` needs +listType=map on the same list"));
                }
                push_to(schema, "x-kubernetes-list-map-keys", json!(key));
            }
            Self::MapType(ty) | Self::StructType(ty) => {
                node.need(Applies::ObjectsOrUntyped)?;
                schema.insert("x-kubernetes-map-type".into(), json!(ty.as_str()));
            }
            Self::AtMostOneOf(fields) | Self::ExactlyOneOf(fields) | Self::AtLeastOneOf(fields) => {
                node.need(Applies::Structs)?;
                push_rule(schema, self.one_of_rule(fields, spelled)?);
            }
            Self::K8sEnum => match schema.get_mut("enum") {
                Some(Value::Array(values)) => {
                    values.sort_by_key(|v| v.to_string());
                }
                _ => {
                    return Err(format!(
                        "`{spelled}` applies to enums whose variants are all unit variants"
                    ));
                }
            },
            // controller-tools v0.23.0 (K8sRequired.ApplyToSchema): a required string, list,
            // map or struct must also be non-empty, unless its minimum is set explicitly.
            Self::K8sRequired => {
                let key = match node_type {
                    Some("string") => Some("minLength"),
                    Some("array") => Some("minItems"),
                    Some("object") => Some("minProperties"),
                    _ => None,
                };
                if let Some(key) = key {
                    schema.entry(key).or_insert(json!(1));
                }
            }
            // Whether the parent lists the field as required, or how its type is read: the
            // schema generator's business, not this node's.
            Self::Optional | Self::Required | Self::Schemaless => {}
        }
        Ok(())
    }
}

/// The schema nodes a marker applies to.
#[derive(Clone, Copy)]
enum Applies {
    Numbers,
    Strings,
    Lists,
    /// Maps and structs: `type: object`.
    Objects,
    /// Structs, whose fields a rule names; the same check as `Objects`.
    Structs,
    /// Maps, structs and nodes whose type another marker gives (`x-kubernetes-map-type`).
    ObjectsOrUntyped,
}

/// The node a marker stands on, as far as checking the marker goes.
struct Node<'a> {
    /// Its schema type, if it has one.
    ty: Option<&'a str>,
    /// `x-kubernetes-int-or-string`: string markers apply too.
    int_or_string: bool,
    /// The marker's name as written, for errors.
    spelled: &'a str,
}

impl Node<'_> {
    fn need(&self, applies: Applies) -> Result<(), String> {
        let (ok, what) = match applies {
            Applies::Numbers => (matches!(self.ty, Some("integer" | "number")), "numbers"),
            Applies::Strings => (self.ty == Some("string") || self.int_or_string, "strings"),
            Applies::Lists => (self.ty == Some("array"), "lists"),
            Applies::Objects => (self.ty == Some("object"), "maps and objects"),
            Applies::Structs => (self.ty == Some("object"), "objects"),
            Applies::ObjectsOrUntyped => {
                (matches!(self.ty, Some("object") | None), "maps and objects")
            }
        };
        if ok {
            return Ok(());
        }
        Err(format!(
            "`{}` applies to {what}, but this is {}",
            self.spelled,
            self.ty.map_or_else(
                || "a value without a type".to_owned(),
                |t| format!("of type {t}")
            )
        ))
    }

    /// A numeric bound's value; on an integer it must be a whole number.
    fn number(&self, v: f64) -> Result<Value, String> {
        self.need(Applies::Numbers)?;
        if self.ty == Some("integer") && v.fract() != 0.0 {
            return Err(format!(
                "`{}` on an integer must be a whole number, not {v}",
                self.spelled
            ));
        }
        Ok(number_json(v))
    }

    /// A length, item or property count.
    fn count(&self, applies: Applies, n: i64) -> Result<Value, String> {
        self.need(applies)?;
        Ok(json!(n))
    }

    /// A flag marker (`ExclusiveMaximum=true`), which only says something when set.
    fn flag(&self, applies: Applies, on: bool, set: impl FnOnce()) -> Result<(), String> {
        self.need(applies)?;
        if on {
            set();
        }
        Ok(())
    }
}

impl SchemaMarker {
    /// The CEL rule of `AtMostOneOf`, `ExactlyOneOf` or `AtLeastOneOf` over `fields`.
    fn one_of_rule(&self, fields: &[String], spelled: &str) -> Result<Value, String> {
        let nested: Vec<&str> = fields
            .iter()
            .filter(|f| f.contains('.'))
            .map(String::as_str)
            .collect();
        if !nested.is_empty() {
            return Err(format!(
                "{spelled}: cannot reference nested fields: {}",
                nested.join(",")
            ));
        }
        let joined = fields.join(" ");
        let (rule, message) = match self {
            Self::AtMostOneOf(_) => (
                format!("{} <= 1", count_expr(fields)),
                format!("at most one of the fields in [{joined}] may be set"),
            ),
            Self::ExactlyOneOf(_) => (
                format!("{} == 1", count_expr(fields)),
                format!("exactly one of the fields in [{joined}] must be set"),
            ),
            _ => (
                fields
                    .iter()
                    .map(|f| format!("has(self.{f})"))
                    .collect::<Vec<_>>()
                    .join("||"),
                format!("at least one of the fields in [{joined}] must be set"),
            ),
        };
        Ok(json!({"message": message, "rule": rule}))
    }
}

/// A title must be a string: the `any` value of `+kubebuilder:title` guesses a type.
fn title_text<'v>(title: &'v MarkerValue, spelled: &str) -> Result<&'v str, String> {
    if let MarkerValue::String(title) = title {
        return Ok(title);
    }
    let got = match title.to_json() {
        Value::Number(n) if n.is_i64() || n.is_u64() => "int",
        Value::Number(_) => "float",
        Value::Bool(_) => "bool",
        Value::Array(_) => "a list",
        Value::Object(_) => "a map",
        _ => "nothing",
    };
    Err(format!(
        "`{spelled}` expects a string, got {got}; quote it, e.g. +kubebuilder:title=\"...\""
    ))
}

fn external_docs(docs: &ExternalDocs) -> Result<Value, String> {
    let url = &docs.url;
    if !(url.contains("://") || url.starts_with('/')) {
        return Err(format!(
            "externalDocs url {url:?} must be an absolute URL or path"
        ));
    }
    let mut out = Map::new();
    if let Some(d) = &docs.description {
        out.insert("description".into(), json!(d));
    }
    out.insert("url".into(), json!(url));
    Ok(Value::Object(out))
}

fn count_expr(fields: &[String]) -> String {
    fields
        .iter()
        .map(|f| format!("(has(self.{f})?1:0)"))
        .collect::<Vec<_>>()
        .join("+")
}

/// Pairs of bounds on `node` that no value satisfies: (lower marker suffix, upper marker
/// suffix, message), e.g. Minimum=5 with Maximum=3.
pub fn unsatisfiable_bounds(
    node: &Map<String, Value>,
) -> Vec<(&'static str, &'static str, String)> {
    let mut found = Vec::new();
    let number = |key: &str| node.get(key).and_then(Value::as_f64);
    if let (Some(min), Some(max)) = (number("minimum"), number("maximum")) {
        let exclusive = |key: &str| node.get(key).and_then(Value::as_bool) == Some(true);
        let empty = min > max
            || (min == max && (exclusive("exclusiveMinimum") || exclusive("exclusiveMaximum")));
        if empty {
            let show = |key: &str| node.get(key).map_or(String::new(), Value::to_string);
            found.push((
                "Minimum",
                "Maximum",
                format!(
                    "no value satisfies minimum {}{} and maximum {}{}",
                    show("minimum"),
                    if exclusive("exclusiveMinimum") {
                        " (exclusive)"
                    } else {
                        ""
                    },
                    show("maximum"),
                    if exclusive("exclusiveMaximum") {
                        " (exclusive)"
                    } else {
                        ""
                    },
                ),
            ));
        }
    }
    for (lower, upper, min_key, max_key) in [
        ("MinLength", "MaxLength", "minLength", "maxLength"),
        ("MinItems", "MaxItems", "minItems", "maxItems"),
        (
            "MinProperties",
            "MaxProperties",
            "minProperties",
            "maxProperties",
        ),
    ] {
        let count = |key: &str| node.get(key).and_then(Value::as_u64);
        if let (Some(min), Some(max)) = (count(min_key), count(max_key))
            && min > max
        {
            found.push((
                lower,
                upper,
                format!("no value satisfies {min_key} {min} and {max_key} {max}"),
            ));
        }
    }
    found
}

pub fn push_rule(schema: &mut Map<String, Value>, rule: Value) {
    push_to(schema, "x-kubernetes-validations", rule);
}

/// Appends to the list `schema[key]`, which only markers write (and always as a list).
fn push_to(schema: &mut Map<String, Value>, key: &str, item: Value) {
    match schema.entry(key).or_insert_with(|| json!([])) {
        Value::Array(items) => items.push(item),
        _ => unreachable!("{key} is always a list"),
    }
}
