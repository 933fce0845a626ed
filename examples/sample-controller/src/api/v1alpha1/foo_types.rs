// Copyright 2026 The sample-controller Authors.
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

//! The `Foo` kind.
//!
//! Edit this file to define the desired state (spec) and observed state (status)
//! of a `Foo`, then run `make manifests` to regenerate the CRD.

use kube::CustomResource;
use serde::{Deserialize, Serialize};

/// The value of the `api-approved.kubernetes.io` annotation that the API server requires
/// on CRDs in the protected `*.k8s.io` and `*.kubernetes.io` groups (KEP-2337), as upstream
/// sample-controller sets it.
pub const API_APPROVED_ANNOTATION: &str = "unapproved, experimental-only; please get an approval from Kubernetes API reviewers if you're trying to develop a CRD in the *.k8s.io or *.kubernetes.io groups";

/// FooSpec is the spec for a Foo resource.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[kube(
    group = "samplecontroller.k8s.io",
    version = "v1alpha1",
    kind = "Foo",
    plural = "foos",
    namespaced,
    status = "FooStatus",
    schema = "disabled",
    doc = "Foo is a specification for a Foo resource.",
    annotation(
        "api-approved.kubernetes.io",
        "unapproved, experimental-only; please get an approval from Kubernetes API reviewers if you're trying to develop a CRD in the *.k8s.io or *.kubernetes.io groups"
    )
)]
#[serde(rename_all = "camelCase")]
pub struct FooSpec {
    /// deploymentName is the name of the Deployment the Foo owns, in the Foo's namespace.
    /// The controller reports a Foo without it and leaves it alone until it is set.
    // +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deployment_name: Option<String>,

    /// replicas is the number of replicas of the Deployment. Unset, the API server
    /// defaults the Deployment to 1 replica.
    // +kubebuilder:validation:Minimum=1
    // +kubebuilder:validation:Maximum=10
    // +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replicas: Option<i32>,
}

/// FooStatus is the status for a Foo resource.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct FooStatus {
    /// availableReplicas mirrors status.availableReplicas of the Deployment.
    // +optional
    #[serde(default)]
    pub available_replicas: i32,
}

#[cfg(test)]
mod tests {
    use super::*;
    use kube::{CustomResourceExt, Resource};

    #[test]
    fn resource_identity_matches_the_crd_and_rbac_markers() {
        assert_eq!(Foo::crd_name(), "foos.samplecontroller.k8s.io");
        assert_eq!(Foo::api_version(&()), "samplecontroller.k8s.io/v1alpha1");
        assert_eq!(Foo::kind(&()), "Foo");
        assert_eq!(Foo::plural(&()), "foos");
    }

    #[test]
    fn empty_optional_fields_are_not_serialized() {
        let object = Foo::new("sample", FooSpec::default());
        let json = serde_json::to_value(&object).expect("Foo serializes");
        assert_eq!(json["spec"], serde_json::json!({}));
        assert!(json.get("status").is_none());
    }

    #[test]
    fn fields_use_the_upstream_json_names() {
        let spec = FooSpec {
            deployment_name: Some("example-foo".into()),
            replicas: Some(1),
        };
        assert_eq!(
            serde_json::to_value(&spec).expect("spec serializes"),
            serde_json::json!({"deploymentName": "example-foo", "replicas": 1})
        );
        // Like Go's int32 without omitempty, availableReplicas is always written.
        let status = serde_json::to_value(FooStatus::default()).expect("status serializes");
        assert_eq!(status, serde_json::json!({"availableReplicas": 0}));
        let status: FooStatus = serde_json::from_value(serde_json::json!({})).expect("parses");
        assert_eq!(status.available_replicas, 0);
    }

    #[test]
    fn crd_carries_the_api_approved_annotation() {
        let crd = Foo::crd();
        let annotations = crd.metadata.annotations.expect("annotations are set");
        assert_eq!(
            annotations
                .get("api-approved.kubernetes.io")
                .map(String::as_str),
            Some(API_APPROVED_ANNOTATION)
        );
    }
}
