//! Applying schema markers to one schema node (controller-gen spec §3.3–3.7).

use crate::markers::Marker;
use serde_json::{Map, Value, json};

/// Priority of a marker when several stand on one node (spec §3.7); lower runs first.
pub fn priority(name: &str) -> u8 {
    let base = name
        .strip_prefix("kubebuilder:validation:items:")
        .map_or(name, |n| n);
    match base {
        "kubebuilder:validation:Type"
        | "Type"
        | "kubebuilder:validation:XIntOrString"
        | "XIntOrString"
        | "listType"
        | "k8s:listType"
        | "default" => 9,
        "kubebuilder:validation:AtMostOneOf" => 11,
        "kubebuilder:validation:ExactlyOneOf" => 12,
        "kubebuilder:validation:AtLeastOneOf" => 13,
        _ => 10,
    }
}

/// Markers with no effect on the schema of the node they stand on (handled elsewhere).
pub fn is_structural(name: &str) -> bool {
    matches!(
        name,
        "kubebuilder:validation:Optional"
            | "kubebuilder:validation:Required"
            | "optional"
            | "required"
            | "k8s:optional"
            | "k8s:required"
            | "kubebuilder:validation:Schemaless"
    ) || crate::markers::describes_a_kind(name)
        // The CSV's descriptors (opgen bundle), not the schema.
        || name == "operator-sdk:csv:customresourcedefinitions"
}

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
pub fn cel_rule(m: &Marker) -> Value {
    let mut rule = Map::new();
    for key in [
        "fieldPath",
        "message",
        "messageExpression",
        "reason",
        "rule",
    ] {
        if let Some(s) = m.args.str_field(key).filter(|s| !s.is_empty()) {
            rule.insert(key.into(), json!(s));
        }
    }
    if let Some(b) = m.args.field("optionalOldSelf").and_then(|v| v.as_bool()) {
        rule.insert("optionalOldSelf".into(), json!(b));
    }
    Value::Object(rule)
}

/// Applies one marker to `schema`. `node_type` is the schema type the marker is checked
/// against (the type of the field's or type's own schema).
pub fn apply(
    schema: &mut Map<String, Value>,
    node_type: Option<&str>,
    m: &Marker,
) -> Result<(), String> {
    let name = m.name();
    let base = name
        .strip_prefix("kubebuilder:validation:items:")
        .map(|n| format!("kubebuilder:validation:{n}"));
    let name = base.as_deref().unwrap_or(name);
    let value = m.args.value.as_ref();
    let need = |ok: bool, what: &str| -> Result<(), String> {
        if ok {
            Ok(())
        } else {
            Err(format!(
                "`{}` applies to {what}, but this is {}",
                m.name(),
                node_type.map_or_else(
                    || "a value without a type".to_owned(),
                    |t| format!("of type {t}")
                )
            ))
        }
    };
    let numeric = matches!(node_type, Some("integer" | "number"));
    let stringy = node_type == Some("string") || int_or_string(schema);
    match name {
        "kubebuilder:validation:Maximum"
        | "kubebuilder:validation:Minimum"
        | "kubebuilder:validation:MultipleOf" => {
            need(numeric, "numbers")?;
            let v = value.and_then(|v| v.as_f64()).ok_or("expected a number")?;
            if node_type == Some("integer") && v.fract() != 0.0 {
                return Err(format!(
                    "`{}` on an integer must be a whole number, not {v}",
                    m.name()
                ));
            }
            let key = match name {
                "kubebuilder:validation:Maximum" => "maximum",
                "kubebuilder:validation:Minimum" => "minimum",
                _ => "multipleOf",
            };
            schema.insert(key.into(), number_json(v));
        }
        "kubebuilder:validation:ExclusiveMaximum" | "kubebuilder:validation:ExclusiveMinimum" => {
            need(numeric, "numbers")?;
            let key = if name.ends_with("Maximum") {
                "exclusiveMaximum"
            } else {
                "exclusiveMinimum"
            };
            if value.and_then(|v| v.as_bool()) == Some(true) {
                schema.insert(key.into(), json!(true));
            }
        }
        "kubebuilder:validation:MaxLength" | "kubebuilder:validation:MinLength" => {
            need(stringy, "strings")?;
            let key = if name.ends_with("MaxLength") {
                "maxLength"
            } else {
                "minLength"
            };
            schema.insert(
                key.into(),
                json!(
                    value
                        .and_then(|v| v.as_i64())
                        .ok_or("expected an integer")?
                ),
            );
        }
        "kubebuilder:validation:Pattern" => {
            need(stringy, "strings")?;
            let pattern = value.and_then(|v| v.as_str()).ok_or("expected a string")?;
            // The API server compiles it with Go's regexp and refuses the CRD if that fails.
            if let Err(e) = super::values::go_regex(pattern) {
                return Err(format!(
                    "the pattern `{pattern}` is not a valid Go (RE2) regular expression: {e}"
                ));
            }
            schema.insert("pattern".into(), json!(pattern));
        }
        "kubebuilder:validation:MaxItems" | "kubebuilder:validation:MinItems" => {
            need(node_type == Some("array"), "lists")?;
            let key = if name.ends_with("MaxItems") {
                "maxItems"
            } else {
                "minItems"
            };
            schema.insert(
                key.into(),
                json!(
                    value
                        .and_then(|v| v.as_i64())
                        .ok_or("expected an integer")?
                ),
            );
        }
        "kubebuilder:validation:UniqueItems" => {
            need(node_type == Some("array"), "lists")?;
            if value.and_then(|v| v.as_bool()) == Some(true) {
                schema.insert("uniqueItems".into(), json!(true));
            }
        }
        "kubebuilder:validation:MaxProperties" | "kubebuilder:validation:MinProperties" => {
            need(node_type == Some("object"), "maps and objects")?;
            let key = if name.ends_with("MaxProperties") {
                "maxProperties"
            } else {
                "minProperties"
            };
            schema.insert(
                key.into(),
                json!(
                    value
                        .and_then(|v| v.as_i64())
                        .ok_or("expected an integer")?
                ),
            );
        }
        "kubebuilder:validation:Enum" => {
            let list = match value.map(|v| v.to_json()) {
                Some(Value::Array(items)) => items,
                Some(other) => vec![other],
                None => return Err("expected a list".into()),
            };
            schema.insert("enum".into(), Value::Array(list));
        }
        "kubebuilder:validation:Format" => {
            let format = value.and_then(|v| v.as_str()).ok_or("expected a string")?;
            // controller-gen's `Format=""` leaves the format empty, which its JSON omits: the
            // spelling of a number without a format (Go's float64) on an `f64`.
            if format.is_empty() {
                schema.remove("format");
            } else {
                schema.insert("format".into(), json!(format));
            }
        }
        "kubebuilder:validation:Type" => {
            schema.insert(
                "type".into(),
                json!(value.and_then(|v| v.as_str()).ok_or("expected a string")?),
            );
        }
        "kubebuilder:validation:XPreserveUnknownFields"
        | "kubebuilder:pruning:PreserveUnknownFields" => {
            schema.insert("x-kubernetes-preserve-unknown-fields".into(), json!(true));
        }
        "kubebuilder:validation:XEmbeddedResource" | "kubebuilder:validation:EmbeddedResource" => {
            schema.insert("x-kubernetes-embedded-resource".into(), json!(true));
        }
        "kubebuilder:validation:XIntOrString" => {
            schema.insert("x-kubernetes-int-or-string".into(), json!(true));
        }
        "kubebuilder:validation:XValidation" => push_rule(schema, cel_rule(m)),
        // In source order with the field's XValidation rules (spec §3.7 leaves the order open).
        "k8s:immutable" => {
            push_rule(
                schema,
                json!({"message": "field is immutable", "rule": "self == oldSelf"}),
            );
        }
        "nullable" => {
            schema.insert("nullable".into(), json!(true));
        }
        "default" | "kubebuilder:default" => {
            let mut v = value.map(|v| v.to_json()).ok_or("expected a value")?;
            if node_type == Some("array") && v == json!({}) {
                v = json!([]);
            }
            schema.insert("default".into(), v);
        }
        "kubebuilder:example" => {
            schema.insert(
                "example".into(),
                value.map(|v| v.to_json()).ok_or("expected a value")?,
            );
        }
        "kubebuilder:title" => match value {
            Some(v) if v.as_str().is_some() => {
                schema.insert("title".into(), v.to_json());
            }
            other => {
                let got = match other.map(|v| v.to_json()) {
                    Some(Value::Number(n)) if n.is_i64() || n.is_u64() => "int",
                    Some(Value::Number(_)) => "float",
                    Some(Value::Bool(_)) => "bool",
                    Some(Value::Array(_)) => "a list",
                    Some(Value::Object(_)) => "a map",
                    _ => "nothing",
                };
                return Err(format!(
                    "`{}` expects a string, got {got}; quote it, e.g. +kubebuilder:title=\"...\"",
                    m.name()
                ));
            }
        },
        "kubebuilder:externalDocs" => {
            let url = m.args.str_field("url").unwrap_or_default();
            if !(url.contains("://") || url.starts_with('/')) {
                return Err(format!(
                    "externalDocs url {url:?} must be an absolute URL or path"
                ));
            }
            let mut docs = Map::new();
            if let Some(d) = m.args.str_field("description") {
                docs.insert("description".into(), json!(d));
            }
            docs.insert("url".into(), json!(url));
            schema.insert("externalDocs".into(), Value::Object(docs));
        }
        "listType" | "k8s:listType" => {
            need(node_type == Some("array"), "lists")?;
            schema.insert(
                "x-kubernetes-list-type".into(),
                value.map(|v| v.to_json()).ok_or("expected a value")?,
            );
        }
        "listMapKey" | "k8s:listMapKey" => {
            need(node_type == Some("array"), "lists")?;
            if schema.get("x-kubernetes-list-type").and_then(Value::as_str) != Some("map") {
                return Err(format!(
                    "`{}` needs +listType=map on the same list",
                    m.name()
                ));
            }
            let key = value.map(|v| v.to_json()).ok_or("expected a value")?;
            match schema
                .entry("x-kubernetes-list-map-keys")
                .or_insert_with(|| json!([]))
            {
                Value::Array(keys) => keys.push(key),
                _ => unreachable!("list-map-keys is always an array"),
            }
        }
        "mapType" | "structType" => {
            need(
                matches!(node_type, Some("object") | None),
                "maps and objects",
            )?;
            schema.insert(
                "x-kubernetes-map-type".into(),
                value.map(|v| v.to_json()).ok_or("expected a value")?,
            );
        }
        "kubebuilder:validation:AtMostOneOf"
        | "kubebuilder:validation:ExactlyOneOf"
        | "kubebuilder:validation:AtLeastOneOf" => {
            need(node_type == Some("object"), "objects")?;
            let fields = value.map(|v| v.as_strings()).unwrap_or_default();
            let nested: Vec<&str> = fields
                .iter()
                .filter(|f| f.contains('.'))
                .map(String::as_str)
                .collect();
            if !nested.is_empty() {
                return Err(format!(
                    "{}: cannot reference nested fields: {}",
                    m.name(),
                    nested.join(",")
                ));
            }
            let joined = fields.join(" ");
            let (rule, message) = match name {
                "kubebuilder:validation:AtMostOneOf" => (
                    format!("{} <= 1", count_expr(&fields)),
                    format!("at most one of the fields in [{joined}] may be set"),
                ),
                "kubebuilder:validation:ExactlyOneOf" => (
                    format!("{} == 1", count_expr(&fields)),
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
            push_rule(schema, json!({"message": message, "rule": rule}));
        }
        "k8s:enum" => match schema.get_mut("enum") {
            Some(Value::Array(values)) => {
                values.sort_by_key(|v| v.to_string());
            }
            _ => {
                return Err(
                    "`k8s:enum` applies to enums whose variants are all unit variants".into(),
                );
            }
        },
        // controller-tools v0.23.0 (K8sRequired.ApplyToSchema): a required string, list, map or
        // struct must also be non-empty, unless its minimum is set explicitly.
        "k8s:required" => {
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
        other if is_structural(other) => {}
        other => return Err(format!("`{other}` has no schema effect here")),
    }
    Ok(())
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
    match schema
        .entry("x-kubernetes-validations")
        .or_insert_with(|| json!([]))
    {
        Value::Array(rules) => rules.push(rule),
        _ => unreachable!("validations are always an array"),
    }
}
