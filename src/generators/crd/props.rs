//! [`SchemaProps`]: the OpenAPI v3 schema node the CRD generator builds, typed as
//! apiextensions' `JSONSchemaProps` (and controller-tools' copy of it) is, with the keys opgen
//! writes. The builder, the markers and the embedded k8s-openapi schemas write these; the
//! finished CRD is a `serde_json::Value` ([`SchemaProps::into_value`]), which the checks, the
//! emitter and every reader of CRDs opgen did not write take.
//!
//! Serialization gives exactly the object the builder wrote: a key is written when its field
//! is `Some` (an empty list or map included), and serde_json's map sorts keys as before.

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Number, Value};
use std::collections::BTreeMap;

/// One schema node. `None` is "key absent"; every `Some` is written, even when empty.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SchemaProps {
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub ty: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub external_docs: Option<ExternalDocs>,
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub default: Option<Value>,
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub example: Option<Value>,
    #[serde(rename = "enum", skip_serializing_if = "Option::is_none")]
    pub enum_values: Option<Vec<Value>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nullable: Option<bool>,

    #[serde(skip_serializing_if = "Option::is_none")]
    pub properties: Option<BTreeMap<String, SchemaProps>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub required: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub additional_properties: Option<Box<SchemaProps>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub items: Option<Box<SchemaProps>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub all_of: Option<Vec<SchemaProps>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub any_of: Option<Vec<SchemaProps>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub one_of: Option<Vec<SchemaProps>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not: Option<Box<SchemaProps>>,

    #[serde(skip_serializing_if = "Option::is_none")]
    pub minimum: Option<Number>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub maximum: Option<Number>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exclusive_minimum: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exclusive_maximum: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub multiple_of: Option<Number>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_length: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_length: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pattern: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_items: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_items: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unique_items: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_properties: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_properties: Option<i64>,

    #[serde(
        rename = "x-kubernetes-preserve-unknown-fields",
        skip_serializing_if = "Option::is_none"
    )]
    pub preserve_unknown_fields: Option<bool>,
    #[serde(
        rename = "x-kubernetes-embedded-resource",
        skip_serializing_if = "Option::is_none"
    )]
    pub embedded_resource: Option<bool>,
    #[serde(
        rename = "x-kubernetes-int-or-string",
        skip_serializing_if = "Option::is_none"
    )]
    pub int_or_string: Option<bool>,
    #[serde(
        rename = "x-kubernetes-list-type",
        skip_serializing_if = "Option::is_none"
    )]
    pub list_type: Option<String>,
    #[serde(
        rename = "x-kubernetes-list-map-keys",
        skip_serializing_if = "Option::is_none"
    )]
    pub list_map_keys: Option<Vec<String>>,
    #[serde(
        rename = "x-kubernetes-map-type",
        skip_serializing_if = "Option::is_none"
    )]
    pub map_type: Option<String>,
    #[serde(
        rename = "x-kubernetes-validations",
        skip_serializing_if = "Option::is_none"
    )]
    pub validations: Option<Vec<ValidationRule>>,
}

/// `externalDocs`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExternalDocs {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub url: String,
}

/// One entry of `x-kubernetes-validations`. Empty strings are not written (a marker's
/// `message=""` says nothing).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ValidationRule {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub rule: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message_expression: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field_path: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub optional_old_self: Option<bool>,
    /// The marker the rule came from (file, line, column, width), for the CEL check's
    /// errors; `CrdGenerator` removes it before anything is written. The key is
    /// `cel::ORIGIN_KEY` (a test holds them equal).
    #[serde(rename = "x-opgen-origin", skip_serializing_if = "Option::is_none")]
    pub origin: Option<[usize; 4]>,
}

impl ValidationRule {
    /// A rule with its message.
    pub fn new(rule: impl Into<String>, message: impl Into<String>) -> Self {
        ValidationRule {
            rule: rule.into(),
            message: Some(message.into()),
            ..ValidationRule::default()
        }
    }
}

/// A small typed value (a rule, external docs) as JSON.
fn json_of<T: Serialize>(v: &T) -> Value {
    serde_json::to_value(v).expect("its keys are strings")
}

/// Keeps an explicit `null` (`default: null`) as `Some(Value::Null)`, which
/// `Option<Value>`'s own deserializer would read as absent.
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

impl SchemaProps {
    /// A node of one type (`{type: t}`).
    pub fn of_type(ty: &str) -> Self {
        SchemaProps {
            ty: Some(ty.to_owned()),
            ..SchemaProps::default()
        }
    }

    /// `{type: t, format: f}`.
    pub fn with_format(ty: &str, format: &str) -> Self {
        SchemaProps {
            format: Some(format.to_owned()),
            ..SchemaProps::of_type(ty)
        }
    }

    /// `{type: object, x-kubernetes-preserve-unknown-fields: true}`: an object of any fields.
    pub fn any_object() -> Self {
        SchemaProps {
            preserve_unknown_fields: Some(true),
            ..SchemaProps::of_type("object")
        }
    }

    pub fn ty(&self) -> Option<&str> {
        self.ty.as_deref()
    }

    pub fn is_int_or_string(&self) -> bool {
        self.int_or_string == Some(true)
    }

    pub fn preserves_unknown_fields(&self) -> bool {
        self.preserve_unknown_fields == Some(true)
    }

    /// Appends a CEL rule to `x-kubernetes-validations`.
    pub fn push_rule(&mut self, rule: ValidationRule) {
        self.validations.get_or_insert_with(Vec::new).push(rule);
    }

    /// The node as the JSON object it stands for: what `Serialize` writes, but moving the
    /// strings rather than copying them (the whole CRD passes through here once). The keys are
    /// serde's: the round-trip test below reads every key with serde and writes it with this.
    pub fn into_value(self) -> Value {
        let SchemaProps {
            ty,
            format,
            title,
            description,
            external_docs,
            default,
            example,
            enum_values,
            nullable,
            properties,
            required,
            additional_properties,
            items,
            all_of,
            any_of,
            one_of,
            not,
            minimum,
            maximum,
            exclusive_minimum,
            exclusive_maximum,
            multiple_of,
            min_length,
            max_length,
            pattern,
            min_items,
            max_items,
            unique_items,
            min_properties,
            max_properties,
            preserve_unknown_fields,
            embedded_resource,
            int_or_string,
            list_type,
            list_map_keys,
            map_type,
            validations,
        } = self;
        let mut m = Map::new();
        let mut put = |key: &str, v: Option<Value>| {
            if let Some(v) = v {
                m.insert(key.to_owned(), v);
            }
        };
        let node = |s: Box<SchemaProps>| s.into_value();
        let nodes =
            |l: Vec<SchemaProps>| Value::Array(l.into_iter().map(Self::into_value).collect());
        let strings = |l: Vec<String>| Value::Array(l.into_iter().map(Value::String).collect());
        put("type", ty.map(Value::String));
        put("format", format.map(Value::String));
        put("title", title.map(Value::String));
        put("description", description.map(Value::String));
        put("externalDocs", external_docs.map(|d| json_of(&d)));
        put("default", default);
        put("example", example);
        put("enum", enum_values.map(Value::Array));
        put("nullable", nullable.map(Value::Bool));
        put(
            "properties",
            properties
                .map(|p| Value::Object(p.into_iter().map(|(k, s)| (k, s.into_value())).collect())),
        );
        put("required", required.map(strings));
        put("additionalProperties", additional_properties.map(node));
        put("items", items.map(node));
        put("allOf", all_of.map(nodes));
        put("anyOf", any_of.map(nodes));
        put("oneOf", one_of.map(nodes));
        put("not", not.map(node));
        put("minimum", minimum.map(Value::Number));
        put("maximum", maximum.map(Value::Number));
        put("exclusiveMinimum", exclusive_minimum.map(Value::Bool));
        put("exclusiveMaximum", exclusive_maximum.map(Value::Bool));
        put("multipleOf", multiple_of.map(Value::Number));
        put("minLength", min_length.map(Value::from));
        put("maxLength", max_length.map(Value::from));
        put("pattern", pattern.map(Value::String));
        put("minItems", min_items.map(Value::from));
        put("maxItems", max_items.map(Value::from));
        put("uniqueItems", unique_items.map(Value::Bool));
        put("minProperties", min_properties.map(Value::from));
        put("maxProperties", max_properties.map(Value::from));
        put(
            "x-kubernetes-preserve-unknown-fields",
            preserve_unknown_fields.map(Value::Bool),
        );
        put(
            "x-kubernetes-embedded-resource",
            embedded_resource.map(Value::Bool),
        );
        put("x-kubernetes-int-or-string", int_or_string.map(Value::Bool));
        put("x-kubernetes-list-type", list_type.map(Value::String));
        put("x-kubernetes-list-map-keys", list_map_keys.map(strings));
        put("x-kubernetes-map-type", map_type.map(Value::String));
        put(
            "x-kubernetes-validations",
            validations.map(|r| Value::Array(r.iter().map(json_of).collect())),
        );
        Value::Object(m)
    }

    /// [`SchemaProps::into_value`]'s object, for the checks that read any schema as JSON.
    pub fn to_map(&self) -> Map<String, Value> {
        match serde_json::to_value(self) {
            Ok(Value::Object(map)) => map,
            _ => unreachable!("a schema serializes to an object"),
        }
    }

    /// Reads a schema written as JSON; an error names a key `SchemaProps` does not model.
    pub fn from_value(v: Value) -> Result<Self, serde_json::Error> {
        serde_json::from_value(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn round_trips_every_key_and_keeps_empty_lists_and_null_defaults() {
        // Parsed, not `json!`: the literal is beyond the macro's recursion limit.
        let v: Value = serde_json::from_str(
            r#"{
            "type": "object", "format": "f", "title": "t", "description": "d",
            "externalDocs": {"url": "https://x"}, "default": null, "example": {"a": 1},
            "enum": [], "nullable": true, "properties": {"a": {"type": "string"}},
            "required": [], "additionalProperties": {}, "items": {"type": "integer"},
            "allOf": [{"minimum": 1}], "anyOf": [{"required": ["a"]}], "oneOf": [],
            "not": {}, "minimum": 0, "maximum": 2.5, "exclusiveMinimum": true,
            "exclusiveMaximum": false, "multipleOf": 3, "minLength": 1, "maxLength": 2,
            "pattern": "^a$", "minItems": 0, "maxItems": 9, "uniqueItems": true,
            "minProperties": 1, "maxProperties": 4,
            "x-kubernetes-preserve-unknown-fields": true,
            "x-kubernetes-embedded-resource": true, "x-kubernetes-int-or-string": true,
            "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
            "x-kubernetes-map-type": "atomic",
            "x-kubernetes-validations": [{"rule": "self.a", "message": "m",
                "messageExpression": "'e'", "reason": "FieldValueInvalid", "fieldPath": ".a",
                "optionalOldSelf": true, "x-opgen-origin": [0, 1, 2, 3]}]
        }"#,
        )
        .unwrap();
        let props = SchemaProps::from_value(v.clone()).unwrap();
        assert_eq!(props.default, Some(Value::Null));
        assert_eq!(Value::Object(props.to_map()), v);
        assert_eq!(props.into_value(), v);
    }

    #[test]
    fn an_unknown_key_is_refused() {
        let err = SchemaProps::from_value(json!({"type": "string", "multipleof": 2})).unwrap_err();
        assert!(
            err.to_string().contains("unknown field `multipleof`"),
            "{err}"
        );
    }

    #[test]
    fn the_origin_key_is_the_cel_checks() {
        let rule = ValidationRule {
            origin: Some([1, 2, 3, 4]),
            ..ValidationRule::new("self", "m")
        };
        let v = serde_json::to_value(rule).unwrap();
        assert_eq!(v[super::super::cel::ORIGIN_KEY], json!([1, 2, 3, 4]));
    }
}
