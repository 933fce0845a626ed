//! Two JSON values of one schema compared as the API server sees them: numbers by value, a
//! `null` the same as nothing where the schema is nullable; and the defaults the schema
//! declares, applied as the API server's structural defaulting applies them.

use serde_json::Value;

/// The schema of property `key` of an object of `schema` (`Null` where it says nothing).
fn property<'a>(schema: &'a Value, key: &str) -> &'a Value {
    match schema["properties"].get(key) {
        Some(property) => property,
        None => &schema["additionalProperties"],
    }
}

/// `value` as the API server stores it: a property's `default` set where the property is
/// absent (or `null` and not nullable), a `null` dropped where the schema is not nullable and
/// has no default.
pub(crate) fn defaulted(schema: &Value, value: &mut Value) {
    match value {
        Value::Object(object) => {
            if let Some(properties) = schema["properties"].as_object() {
                for (key, property) in properties {
                    let absent = object
                        .get(key)
                        .is_none_or(|v| v.is_null() && property["nullable"] != true);
                    if let (true, Some(default)) = (absent, property.get("default")) {
                        object.insert(key.clone(), default.clone());
                    }
                }
            }
            object.retain(|key, v| !v.is_null() || property(schema, key)["nullable"] == true);
            for (key, v) in object.iter_mut() {
                defaulted(property(schema, key), v);
            }
        }
        Value::Array(items) => items
            .iter_mut()
            .for_each(|item| defaulted(&schema["items"], item)),
        _ => {}
    }
}

/// What a server-side apply of `applied` makes of `live` when nobody else owns `live`'s
/// fields (the defaults the API server set at creation): objects merged key by key, the
/// entries of a `x-kubernetes-list-type: map` list merged by their keys (and a `set`'s
/// items) with `live`'s others kept first, anything else as applied.
pub(crate) fn applied_over(schema: &Value, live: &Value, applied: &Value) -> Value {
    match (live, applied) {
        (Value::Object(live), Value::Object(applied))
            if schema["x-kubernetes-map-type"] != "atomic" =>
        {
            let mut merged = live.clone();
            for (key, value) in applied {
                let value = match live.get(key) {
                    Some(old) => applied_over(property(schema, key), old, value),
                    None => value.clone(),
                };
                merged.insert(key.clone(), value);
            }
            Value::Object(merged)
        }
        (Value::Array(live), Value::Array(applied)) => {
            let key_of = |item: &Value| -> Option<Vec<Value>> {
                match schema["x-kubernetes-list-type"].as_str() {
                    Some("map") => Some(
                        schema["x-kubernetes-list-map-keys"]
                            .as_array()?
                            .iter()
                            .map(|k| item[k.as_str().unwrap_or_default()].clone())
                            .collect(),
                    ),
                    Some("set") => Some(vec![item.clone()]),
                    _ => None,
                }
            };
            if key_of(&Value::Null).is_none() {
                return Value::Array(applied.clone());
            }
            let mut merged: Vec<Value> = Vec::new();
            for old in live {
                match applied.iter().find(|new| key_of(new) == key_of(old)) {
                    Some(new) => merged.push(applied_over(&schema["items"], old, new)),
                    None => merged.push(old.clone()),
                }
            }
            for new in applied {
                if !live.iter().any(|old| key_of(old) == key_of(new)) {
                    merged.push(new.clone());
                }
            }
            Value::Array(merged)
        }
        _ => applied.clone(),
    }
}

/// How two values are compared.
#[derive(Clone, Copy)]
pub(crate) struct Sides<'a> {
    /// What each side is, for the messages.
    pub names: (&'a str, &'a str),
    /// Values Go's clients read and write alike are equal: a zero value (`""`, `0`, `false`,
    /// `[]`, `{}`) of a property the schema neither requires nor defaults and nothing (a field
    /// with `omitempty`, Rust's `skip_serializing_if`, reads the server's `""` and writes
    /// nothing; one without, a field serde defaults, reads nothing and writes `0`), and an
    /// int-or-string number and the same digits as a string (a `Quantity`).
    pub go_equal: bool,
}

/// Where `left` and `right` differ, as lines naming the path (`.spec.ports[0].name`) and both
/// values.
pub(crate) fn differences(
    schema: &Value,
    left: &Value,
    right: &Value,
    sides: Sides,
) -> Vec<String> {
    let mut out = Vec::new();
    walk(schema, String::new(), left, right, sides, &mut out);
    out
}

/// What a `null` where the schema has nothing usually comes from.
const NULL_HELP: &str = " (serde writes `null` for an `Option` without `skip_serializing_if = \"Option::is_none\"`: add it, or `+nullable` to the field)";

fn help(value: &Value) -> &'static str {
    if value.is_null() { NULL_HELP } else { "" }
}

fn is_zero(value: &Value) -> bool {
    match value {
        Value::String(s) => s.is_empty(),
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::Bool(b) => !b,
        Value::Array(items) => items.is_empty(),
        Value::Object(object) => object.is_empty(),
        Value::Null => false,
    }
}

fn walk(
    schema: &Value,
    path: String,
    left: &Value,
    right: &Value,
    sides: Sides,
    out: &mut Vec<String>,
) {
    let (l_name, r_name) = sides.names;
    match (left, right) {
        (Value::Object(l), Value::Object(r)) => {
            let mut keys: Vec<&String> = l.keys().chain(r.keys()).collect();
            keys.sort();
            keys.dedup();
            for key in keys {
                let sub = property(schema, key);
                let required = schema["required"]
                    .as_array()
                    .is_some_and(|r| r.iter().any(|name| name == key.as_str()));
                // `null` is nothing where the schema allows it, a zero value where Go's is.
                let nothing = |v: &Value| {
                    (v.is_null() && sub["nullable"] == true)
                        || (sides.go_equal
                            && !required
                            && sub.get("default").is_none()
                            && is_zero(v))
                };
                let here = format!("{path}.{key}");
                match (l.get(key), r.get(key)) {
                    (Some(lv), Some(rv)) => walk(sub, here, lv, rv, sides, out),
                    (Some(v), None) | (None, Some(v)) if nothing(v) => {}
                    (Some(v), None) => out.push(format!(
                        "{here}: {l_name} has {v}, {r_name} has nothing{}",
                        help(v)
                    )),
                    (None, Some(v)) => out.push(format!(
                        "{here}: {l_name} has nothing, {r_name} has {v}{}",
                        help(v)
                    )),
                    (None, None) => {}
                }
            }
        }
        (Value::Array(l), Value::Array(r)) if l.len() == r.len() => {
            for (i, (lv, rv)) in l.iter().zip(r).enumerate() {
                walk(&schema["items"], format!("{path}[{i}]"), lv, rv, sides, out);
            }
        }
        (Value::Number(l), Value::Number(r)) if same_number(l, r) => {}
        // A quantity (int-or-string) the server keeps as a number, and Go's `Quantity` as
        // k8s-openapi's writes as a string.
        (Value::Number(n), Value::String(q))
            if sides.go_equal
                && schema["x-kubernetes-int-or-string"] == true
                && n.to_string() == *q => {}
        _ if left == right => {}
        _ => out.push(format!("{path}: {l_name} has {left}, {r_name} has {right}")),
    }
}

fn same_number(l: &serde_json::Number, r: &serde_json::Number) -> bool {
    match (l.as_i64(), r.as_i64(), l.as_u64(), r.as_u64()) {
        (Some(a), Some(b), ..) => a == b,
        (.., Some(a), Some(b)) => a == b,
        _ => l.as_f64() == r.as_f64() && l.as_f64().is_some(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "size": {"type": "integer", "default": 3},
                "note": {"type": "string", "nullable": true},
                "name": {"type": "string"},
                "ratio": {"type": "number"},
                "cpu": {"x-kubernetes-int-or-string": true},
                "tags": {"type": "object", "additionalProperties": {"type": "object", "properties": {"on": {"type": "boolean", "default": true}}}},
            },
        })
    }

    /// Gateway API's statuses: the conditions the API server defaulted at creation stay beside
    /// those a status apply sends (a list map merges by `type`); an atomic list is replaced.
    #[test]
    fn an_apply_merges_list_maps_by_key_and_replaces_atomic_lists() {
        let schema = json!({"type": "object", "properties": {
            "conditions": {"type": "array", "x-kubernetes-list-type": "map",
                "x-kubernetes-list-map-keys": ["type"],
                "items": {"type": "object", "properties": {"type": {"type": "string"}, "status": {"type": "string"}}}},
            "addresses": {"type": "array", "items": {"type": "string"}},
        }});
        let live = json!({
            "conditions": [{"type": "Accepted", "status": "Unknown"}, {"type": "Ready", "status": "Unknown"}],
            "addresses": ["a"],
            "kept": 1,
        });
        let applied = json!({
            "conditions": [{"type": "Ready", "status": "True"}, {"type": "Custom", "status": "False"}],
            "addresses": ["b"],
        });
        assert_eq!(
            applied_over(&schema, &live, &applied),
            json!({
                "conditions": [
                    {"type": "Accepted", "status": "Unknown"},
                    {"type": "Ready", "status": "True"},
                    {"type": "Custom", "status": "False"},
                ],
                "addresses": ["b"],
                "kept": 1,
            })
        );
    }

    #[test]
    fn defaults_fill_absent_and_non_nullable_nulls_and_nulls_without_default_go() {
        let mut value = json!({"name": null, "note": null, "tags": {"a": {}}});
        defaulted(&schema(), &mut value);
        assert_eq!(
            value,
            json!({"size": 3, "note": null, "tags": {"a": {"on": true}}})
        );
        let mut value = json!({"size": null});
        defaulted(&schema(), &mut value);
        assert_eq!(value, json!({"size": 3}));
    }

    #[test]
    fn differences_name_the_path_and_both_sides() {
        let sent = json!({"name": null, "ratio": 2.0, "note": null, "tags": {"a": {"on": true}}});
        let kept = json!({"ratio": 2, "tags": {"a": {"on": false}}});
        let strict = Sides {
            names: ("serde", "the API server"),
            go_equal: false,
        };
        assert_eq!(
            differences(&schema(), &sent, &kept, strict),
            [
                format!(".name: serde has null, the API server has nothing{NULL_HELP}"),
                ".tags.a.on: serde has true, the API server has false".to_owned(),
            ]
        );
        assert_eq!(
            differences(&schema(), &json!([1]), &json!([1, 2]), strict).len(),
            1
        );
        let server = json!({"tags": {}, "ratio": 1.5, "name": "", "cpu": 2});
        let serde = json!({"ratio": 1.5, "size": 0, "cpu": "2"});
        assert_eq!(differences(&schema(), &server, &serde, strict).len(), 4);
        let go_equal = Sides {
            go_equal: true,
            ..strict
        };
        // `size` has a default: the server never leaves it out, so a 0 is a change.
        assert_eq!(
            differences(&schema(), &server, &serde, go_equal),
            [".size: serde has nothing, the API server has 0"]
        );
    }
}
