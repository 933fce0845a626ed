// Copyright 2026 The secret-operator Authors.
//
// Licensed under the Apache License, Version 2.0 (the "License");
// you may not use this file except in compliance with the License.
// You may obtain a copy of the License at
//
//     http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing, software
// distributed under the License is distributed on an "AS IS" BASIS,
// WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
// See the License for the specific language governing permissions and
// limitations under the License.

//! The `MultiSecret` kind: a Secret that the operator copies into every namespace.
//!
//! The spec mirrors the `data`, `stringData` and `type` fields of a core/v1 Secret.
//! Run `make manifests` after editing this file to regenerate the CRD.

use std::collections::BTreeMap;

use k8s_openapi::ByteString;
use kube::CustomResource;
use serde::{Deserialize, Serialize};

/// MultiSecretSpec defines the desired state of MultiSecret: the content of the
/// Secret copied into every namespace.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[kube(
    group = "multi.ddnw.ml",
    version = "v1alpha1",
    kind = "MultiSecret",
    plural = "multisecrets",
    namespaced,
    status = "MultiSecretStatus",
    schema = "disabled",
    doc = "MultiSecret is the Schema for the multisecrets API.",
    printcolumn = r#"{"name":"Wanted","type":"integer","jsonPath":".status.wanted"}"#,
    printcolumn = r#"{"name":"Created","type":"integer","jsonPath":".status.created"}"#,
    printcolumn = r#"{"name":"ChangeTime","type":"string","jsonPath":".status.change_time"}"#
)]
#[serde(rename_all = "camelCase")]
pub struct MultiSecretSpec {
    /// data holds the secret data, base64-encoded in YAML and JSON, as in a Secret.
    // +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<BTreeMap<String, SecretBytes>>,

    /// stringData holds non-binary secret data as plain strings. It is merged into
    /// data in every copy; on duplicate keys, stringData wins.
    // +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub string_data: Option<BTreeMap<String, String>>,

    /// type of the copies (a Secret type such as `Opaque` or `kubernetes.io/tls`).
    /// Empty means `Opaque`.
    // +optional
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub type_: Option<String>,
}

/// One value of `spec.data`: bytes, base64-encoded in JSON like a Secret's data.
//
// A newtype over `Vec<u8>`, which opgen maps to the `format: byte` schema of
// Go's `[]byte` (opgen has no schema for `k8s_openapi::ByteString`). The serde
// impls below delegate to `ByteString` for the base64.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SecretBytes(pub Vec<u8>);

impl Serialize for SecretBytes {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        ByteString(self.0.clone()).serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for SecretBytes {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        ByteString::deserialize(deserializer).map(|bytes| SecretBytes(bytes.0))
    }
}

/// MultiSecretStatus defines the observed state of MultiSecret.
// The JSON names (`change_time` in snake case) are upstream's.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct MultiSecretStatus {
    /// wanted is the number of namespaces that should hold a copy.
    // Upstream's Go `int` has an integer schema without a format; opgen would write
    // `format: int64` for any Rust integer of that size, hence the two markers.
    // +kubebuilder:validation:Schemaless
    // +kubebuilder:validation:Type=integer
    pub wanted: i64,

    /// created is the number of namespaces that hold an up-to-date copy.
    // +kubebuilder:validation:Schemaless
    // +kubebuilder:validation:Type=integer
    pub created: i64,

    /// change_time is when the operator last changed a copy or a count (RFC 3339).
    // +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub change_time: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use kube::{CustomResourceExt, Resource};

    #[test]
    fn resource_identity_matches_the_crd_and_rbac_markers() {
        assert_eq!(MultiSecret::crd_name(), "multisecrets.multi.ddnw.ml");
        assert_eq!(MultiSecret::api_version(&()), "multi.ddnw.ml/v1alpha1");
        assert_eq!(MultiSecret::kind(&()), "MultiSecret");
        assert_eq!(MultiSecret::plural(&()), "multisecrets");
    }

    #[test]
    fn empty_optional_fields_are_not_serialized() {
        let object = MultiSecret::new("sample", MultiSecretSpec::default());
        let json = serde_json::to_value(&object).expect("MultiSecret serializes");
        assert_eq!(json["spec"], serde_json::json!({}));
        assert!(json.get("status").is_none());

        // wanted and created are required (no omitempty upstream).
        let status = serde_json::to_value(MultiSecretStatus::default()).expect("status serializes");
        assert_eq!(status, serde_json::json!({"wanted": 0, "created": 0}));
    }

    #[test]
    fn json_names_and_base64_data_match_upstream() {
        let json = serde_json::json!({
            "data": {"secret": "dG9wU2VjcmV0Cg=="},
            "stringData": {"user": "admin"},
            "type": "Opaque",
        });
        let spec: MultiSecretSpec = serde_json::from_value(json.clone()).expect("spec parses");
        assert_eq!(
            spec.data,
            Some(BTreeMap::from([(
                "secret".to_owned(),
                SecretBytes(b"topSecret\n".to_vec())
            )]))
        );
        assert_eq!(spec.type_.as_deref(), Some("Opaque"));
        assert_eq!(serde_json::to_value(&spec).expect("spec serializes"), json);

        let status = MultiSecretStatus {
            wanted: 3,
            created: 2,
            change_time: Some("2023-01-09T10:00:00Z".into()),
        };
        assert_eq!(
            serde_json::to_value(&status).expect("status serializes"),
            serde_json::json!({"wanted": 3, "created": 2, "change_time": "2023-01-09T10:00:00Z"})
        );
    }

    #[test]
    fn invalid_base64_is_rejected() {
        let json = serde_json::json!({"data": {"secret": "not base64!"}});
        assert!(serde_json::from_value::<MultiSecretSpec>(json).is_err());
    }
}
