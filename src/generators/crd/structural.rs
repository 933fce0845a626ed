//! The API server's rules for CRD schemas, checked before anything is written.
//!
//! A CRD that breaks them is rejected by `kubectl apply` with an error far from its cause;
//! opgen refuses to write it and names the property instead. The rules are those of
//! apiextensions-apiserver's structural schema and validation checks.

use super::values;
use serde_json::{Map, Value};

/// One violation: the JSON path of the offending node and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    pub path: String,
    pub message: String,
}

const JUNCTORS: &[&str] = &["allOf", "anyOf", "oneOf", "not"];

/// Checks a version's `openAPIV3Schema`; `path` names it in messages.
pub fn check(schema: &Value, path: &str) -> Vec<Violation> {
    let mut out = Vec::new();
    if let Value::Object(m) = schema {
        node(m, &mut path.to_owned(), false, &mut out);
    }
    out
}

/// Checks `child` with `path` extended by `segment`.
fn child(
    m: &Map<String, Value>,
    path: &mut String,
    segment: std::fmt::Arguments,
    in_junctor: bool,
    out: &mut Vec<Violation>,
) {
    super::with_segment(path, segment, |path| node(m, path, in_junctor, out));
}

fn violation(out: &mut Vec<Violation>, path: &str, message: impl Into<String>) {
    out.push(Violation {
        path: path.to_owned(),
        message: message.into(),
    });
}

/// The entries of a schema node that the checks read, found in one pass over the node (a
/// lookup each cost more: a CRD embedding Kubernetes types has hundreds of thousands of nodes).
#[derive(Default)]
struct Entries<'v> {
    reference: bool,
    unique_items: Option<&'v Value>,
    preserve: Option<&'v Value>,
    int_or_string: Option<&'v Value>,
    ty: Option<&'v Value>,
    description: bool,
    default: Option<&'v Value>,
    nullable: bool,
    properties: Option<&'v Value>,
    additional_properties: Option<&'v Value>,
    items: Option<&'v Value>,
    /// In the order of [`JUNCTORS`].
    junctors: [Option<&'v Value>; 4],
}

impl<'v> Entries<'v> {
    fn of(m: &'v Map<String, Value>) -> Self {
        let mut e = Entries::default();
        for (k, v) in m {
            match k.as_str() {
                "$ref" => e.reference = true,
                "uniqueItems" => e.unique_items = Some(v),
                "x-kubernetes-preserve-unknown-fields" => e.preserve = Some(v),
                "x-kubernetes-int-or-string" => e.int_or_string = Some(v),
                "type" => e.ty = Some(v),
                "description" => e.description = true,
                "default" => e.default = Some(v),
                "nullable" => e.nullable = true,
                "properties" => e.properties = Some(v),
                "additionalProperties" => e.additional_properties = Some(v),
                "items" => e.items = Some(v),
                "allOf" => e.junctors[0] = Some(v),
                "anyOf" => e.junctors[1] = Some(v),
                "oneOf" => e.junctors[2] = Some(v),
                "not" => e.junctors[3] = Some(v),
                _ => {}
            }
        }
        e
    }
}

fn node(m: &Map<String, Value>, path: &mut String, in_junctor: bool, out: &mut Vec<Violation>) {
    let e = Entries::of(m);
    let is_true = |v: Option<&Value>| v == Some(&Value::Bool(true));
    if e.reference {
        violation(out, path, "$ref is not allowed in a CRD schema");
    }
    if is_true(e.unique_items) {
        violation(
            out,
            path,
            "uniqueItems: true is not allowed in a CRD schema; use x-kubernetes-list-type: set",
        );
    }
    if e.preserve == Some(&Value::Bool(false)) {
        violation(
            out,
            path,
            "x-kubernetes-preserve-unknown-fields must be true or absent",
        );
    }
    let int_or_string = is_true(e.int_or_string);
    let preserve = is_true(e.preserve);
    let ty = e.ty.and_then(Value::as_str);
    if in_junctor {
        let present = [
            ("type", e.ty.is_some()),
            ("description", e.description),
            ("default", e.default.is_some()),
            ("additionalProperties", e.additional_properties.is_some()),
            ("nullable", e.nullable),
        ];
        for (key, present) in present {
            // The int-or-string pattern `anyOf: [{type: integer}, {type: string}]` is the one exception.
            if present && !(key == "type" && m.len() == 1) {
                violation(
                    out,
                    path,
                    format!("`{key}` is not allowed inside allOf, anyOf, oneOf or not"),
                );
            }
        }
    } else if ty.is_none() && !int_or_string && !preserve {
        violation(
            out,
            path,
            "every node of a structural schema needs a type (or x-kubernetes-int-or-string or x-kubernetes-preserve-unknown-fields)",
        );
    }
    if int_or_string && let Some(Value::Array(any_of)) = e.junctors[1] {
        let types: Vec<Option<&str>> = any_of
            .iter()
            .map(|b| b.get("type").and_then(Value::as_str))
            .collect();
        if types != [Some("integer"), Some("string")] && !types.is_empty() {
            violation(
                out,
                path,
                "x-kubernetes-int-or-string allows only anyOf: [{type: integer}, {type: string}]",
            );
        }
    }
    if int_or_string && ty.is_some() {
        violation(out, path, "x-kubernetes-int-or-string must not have a type");
    }
    if e.properties.is_some() && e.additional_properties.is_some() {
        violation(
            out,
            path,
            "properties and additionalProperties are mutually exclusive",
        );
    }
    if ty == Some("array") && e.items.is_none() && !in_junctor {
        violation(out, path, "an array needs items");
    }
    if let Some(Value::Object(props)) = e.properties {
        for (k, v) in props {
            if let Value::Object(c) = v {
                child(c, path, format_args!(".{k}"), false, out);
            }
        }
    }
    if let Some(Value::Object(items)) = e.items {
        child(items, path, format_args!("[*]"), false, out);
        list_checks(m, items, path, out);
    }
    if let Some(Value::Object(ap)) = e.additional_properties {
        child(ap, path, format_args!("{{*}}"), false, out);
    }
    for (j, junctor) in JUNCTORS.iter().zip(e.junctors) {
        match junctor {
            Some(Value::Array(branches)) => {
                for (i, b) in branches.iter().enumerate() {
                    if let Value::Object(bm) = b {
                        child(bm, path, format_args!(".{j}[{i}]"), true, out);
                    }
                }
            }
            Some(Value::Object(bm)) => child(bm, path, format_args!(".{j}"), true, out),
            _ => {}
        }
    }
    // Markers' defaults are checked where they are written, with their location; this is
    // the net for a default that the merge of a type and its field put under new rules.
    // A null default is skipped by the API server (never checked, never applied).
    if let Some(default) = e.default.filter(|d| !d.is_null()) {
        let errors = values::check(default, m);
        if !errors.is_empty() {
            violation(
                out,
                path,
                format!(
                    "the default {default} does not fit the schema: {}",
                    errors.join("; ")
                ),
            );
        }
    }
}

fn list_checks(
    list: &Map<String, Value>,
    items: &Map<String, Value>,
    path: &str,
    out: &mut Vec<Violation>,
) {
    let list_type = list.get("x-kubernetes-list-type").and_then(Value::as_str);
    let keys: Vec<&str> = list
        .get("x-kubernetes-list-map-keys")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let item_type = items.get("type").and_then(Value::as_str);
    match list_type {
        Some("map") => {
            if item_type != Some("object") {
                violation(out, path, "x-kubernetes-list-type: map needs object items");
            }
            if keys.is_empty() {
                violation(
                    out,
                    path,
                    "x-kubernetes-list-type: map needs x-kubernetes-list-map-keys",
                );
            }
            let required: Vec<&str> = items
                .get("required")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            for k in &keys {
                let prop = items.get("properties").and_then(|p| p.get(*k));
                match prop {
                    None => violation(
                        out,
                        path,
                        format!("list map key `{k}` is not a property of the items"),
                    ),
                    Some(p) => {
                        let scalar = matches!(
                            p.get("type").and_then(Value::as_str),
                            Some("string" | "integer" | "number" | "boolean")
                        );
                        if !scalar {
                            violation(out, path, format!("list map key `{k}` must be a scalar"));
                        }
                        if !required.contains(k) && p.get("default").is_none() {
                            violation(
                                out,
                                path,
                                format!("list map key `{k}` must be required or have a default"),
                            );
                        }
                    }
                }
            }
        }
        Some("set") => {
            let scalar = matches!(item_type, Some("string" | "integer" | "number" | "boolean"));
            let atomic =
                items.get("x-kubernetes-map-type").and_then(Value::as_str) == Some("atomic");
            if !scalar && !atomic {
                violation(
                    out,
                    path,
                    "x-kubernetes-list-type: set needs scalar items (or atomic objects)",
                );
            }
            if !keys.is_empty() {
                violation(
                    out,
                    path,
                    "x-kubernetes-list-map-keys needs x-kubernetes-list-type: map",
                );
            }
        }
        _ if !keys.is_empty() => violation(
            out,
            path,
            "x-kubernetes-list-map-keys needs x-kubernetes-list-type: map",
        ),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn messages(schema: Value) -> Vec<String> {
        check(&schema, "spec")
            .into_iter()
            .map(|v| format!("{}: {}", v.path, v.message))
            .collect()
    }

    #[test]
    fn accepts_a_structural_schema() {
        let s = json!({"type": "object", "properties": {
            "port": {"anyOf": [{"type": "integer"}, {"type": "string"}], "x-kubernetes-int-or-string": true},
            "any": {"x-kubernetes-preserve-unknown-fields": true},
            "conds": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["type"],
                "items": {"type": "object", "required": ["type"], "properties": {"type": {"type": "string"}}}},
            "n": {"type": "integer", "default": 3, "x-kubernetes-validations": [{"rule": "self >= 0 && size(string(self)) < 10"}]},
            "ignoredNull": {"type": "string", "default": null}
        }});
        assert_eq!(messages(s), Vec::<String>::new());
    }

    #[test]
    fn reports_each_rule_with_its_path() {
        let s = json!({"type": "object", "properties": {
            "untyped": {"description": "x"},
            "both": {"type": "object", "properties": {}, "additionalProperties": {"type": "string"}},
            "badDefault": {"type": "integer", "default": "three"},
            "keys": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                "items": {"type": "object", "properties": {"name": {"type": "string"}}}},
            "junk": {"type": "object", "allOf": [{"type": "string"}, {"minLength": 1, "default": "a"}]}
        }});
        let got = messages(s);
        let want = [
            "spec.badDefault: the default \"three\" does not fit the schema: expected integer, found string \"three\"",
            "spec.both: properties and additionalProperties are mutually exclusive",
            "spec.junk.allOf[1]: `default` is not allowed inside allOf, anyOf, oneOf or not",
            "spec.keys: list map key `name` must be required or have a default",
            "spec.untyped: every node of a structural schema needs a type (or x-kubernetes-int-or-string or x-kubernetes-preserve-unknown-fields)",
        ];
        let mut got_sorted = got.clone();
        got_sorted.sort();
        assert_eq!(got_sorted, want, "{got:#?}");
    }
}
