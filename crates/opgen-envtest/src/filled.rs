//! Objects with every field set, made from a CRD's schema: test data that notices a field a
//! conversion (or any other mapping) drops, where an object with an empty spec cannot.

use std::path::Path;

use serde_json::{Map, Value, json};

use crate::{Error, parse_documents};

/// An object of version `version` of the CustomResourceDefinition in `crd` (a file of
/// `config/crd/bases`) whose spec and status set every property their schemas declare, each
/// to a value of its type: the first enum value, an RFC 3339 time for `date-time`, one item
/// per list and one key per map.
///
/// The values fit the types serde decodes (the Rust types the CRD was generated from); they
/// need not pass the schema's other checks (patterns, bounds, CEL rules).
pub fn object_with_every_field(crd: impl AsRef<Path>, version: &str) -> Result<Value, Error> {
    let crd = crd.as_ref();
    let document = parse_documents(crd)?.into_iter().next().unwrap_or_default();
    let spec = &document["spec"];
    let schema = spec["versions"]
        .as_array()
        .and_then(|versions| versions.iter().find(|v| v["name"] == version))
        .map(|v| &v["schema"]["openAPIV3Schema"])
        .ok_or_else(|| Error::Yaml {
            path: crd.to_owned(),
            message: format!("no version {version} with a schema"),
        })?;
    let mut object = json!({
        "apiVersion": format!("{}/{version}", spec["group"].as_str().unwrap_or_default()),
        "kind": spec["names"]["kind"],
        "metadata": {"name": "every-field"},
    });
    if let Some(properties) = schema["properties"].as_object() {
        for (name, property) in properties {
            if !matches!(name.as_str(), "apiVersion" | "kind" | "metadata") {
                object[name] = filled(property, 0);
            }
        }
    }
    Ok(object)
}

/// A value of `schema`'s type with every property set; recursion stops at a depth where
/// only self-referencing schemas get.
fn filled(schema: &Value, depth: usize) -> Value {
    if let Some(first) = schema["enum"].as_array().and_then(|e| e.first()) {
        return first.clone();
    }
    if schema["x-kubernetes-int-or-string"] == true {
        return json!(1);
    }
    match schema["type"].as_str() {
        Some("object") => {
            let mut object = Map::new();
            if depth < 16 {
                if let Some(properties) = schema["properties"].as_object() {
                    for (name, property) in properties {
                        object.insert(name.clone(), filled(property, depth + 1));
                    }
                } else if schema["additionalProperties"].is_object() {
                    object.insert(
                        "key".to_owned(),
                        filled(&schema["additionalProperties"], depth + 1),
                    );
                }
            }
            Value::Object(object)
        }
        Some("array") if depth < 16 => json!([filled(&schema["items"], depth + 1)]),
        Some("array") => json!([]),
        Some("string") => match schema["format"].as_str() {
            Some("date-time") => json!("2024-01-02T03:04:05Z"),
            Some("date") => json!("2024-01-02"),
            Some("byte") => json!("dmFsdWU="),
            Some("duration") => json!("1m0s"),
            _ => json!("value"),
        },
        Some("integer") => json!(1),
        Some("number") => json!(1.5),
        Some("boolean") => json!(true),
        _ => json!({}),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_property_gets_a_value_of_its_type() {
        let dir = std::env::temp_dir().join(format!("opgen-envtest-filled-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let crd = dir.join("crd.yaml");
        std::fs::write(
            &crd,
            r#"apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names:
    kind: Widget
    plural: widgets
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          apiVersion:
            type: string
          metadata:
            type: object
          spec:
            type: object
            properties:
              mode:
                type: string
                enum: [Fast, Slow]
              port:
                x-kubernetes-int-or-string: true
              replicas:
                type: integer
              labels:
                type: object
                additionalProperties:
                  type: string
              since:
                type: string
                format: date-time
              items:
                type: array
                items:
                  type: object
                  properties:
                    on:
                      type: boolean
"#,
        )
        .unwrap();
        let object = object_with_every_field(&crd, "v1").unwrap();
        let missing = object_with_every_field(&crd, "v2").unwrap_err().to_string();
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(missing.contains("no version v2 with a schema"), "{missing}");
        assert_eq!(
            object,
            json!({
                "apiVersion": "example.com/v1",
                "kind": "Widget",
                "metadata": {"name": "every-field"},
                "spec": {
                    "mode": "Fast",
                    "port": 1,
                    "replicas": 1,
                    "labels": {"key": "value"},
                    "since": "2024-01-02T03:04:05Z",
                    "items": [{"on": true}],
                },
            })
        );
    }
}
