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

/// Where `left` and `right` differ, as lines naming the path (`.spec.ports[0].name`) and both
/// values, each side named by `names`.
pub(crate) fn differences(
    schema: &Value,
    left: &Value,
    right: &Value,
    names: (&str, &str),
) -> Vec<String> {
    let mut out = Vec::new();
    walk(schema, String::new(), left, right, names, &mut out);
    out
}

fn walk(
    schema: &Value,
    path: String,
    left: &Value,
    right: &Value,
    names: (&str, &str),
    out: &mut Vec<String>,
) {
    match (left, right) {
        (Value::Object(l), Value::Object(r)) => {
            let mut keys: Vec<&String> = l.keys().chain(r.keys()).collect();
            keys.sort();
            keys.dedup();
            for key in keys {
                let sub = property(schema, key);
                let nothing = if sub["nullable"] == true {
                    Value::Null
                } else {
                    Value::Bool(false)
                };
                let (lv, rv) = (l.get(key), r.get(key));
                let here = format!("{path}.{key}");
                match (lv, rv) {
                    (Some(lv), Some(rv)) => walk(sub, here, lv, rv, names, out),
                    (Some(v), None) if *v != nothing => out.push(format!(
                        "{here}: {} has {v}, {} has nothing",
                        names.0, names.1
                    )),
                    (None, Some(v)) if *v != nothing => out.push(format!(
                        "{here}: {} has nothing, {} has {v}",
                        names.0, names.1
                    )),
                    _ => {}
                }
            }
        }
        (Value::Array(l), Value::Array(r)) if l.len() == r.len() => {
            for (i, (lv, rv)) in l.iter().zip(r).enumerate() {
                walk(&schema["items"], format!("{path}[{i}]"), lv, rv, names, out);
            }
        }
        (Value::Number(l), Value::Number(r)) if same_number(l, r) => {}
        _ if left == right => {}
        _ => out.push(format!(
            "{path}: {} has {left}, {} has {right}",
            names.0, names.1
        )),
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
                "tags": {"type": "object", "additionalProperties": {"type": "object", "properties": {"on": {"type": "boolean", "default": true}}}},
            },
        })
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
        assert_eq!(
            differences(&schema(), &sent, &kept, ("serde", "the API server")),
            [
                ".name: serde has null, the API server has nothing",
                ".tags.a.on: serde has true, the API server has false",
            ]
        );
        assert!(differences(&schema(), &json!([1]), &json!([1, 2]), ("a", "b")).len() == 1);
    }
}
