// Copyright 2026 The memcached-operator Authors.
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

//! The `Memcached` kind.
//!
//! Edit this file to define the desired state (spec) and observed state (status)
//! of a `Memcached`, then run `make manifests` to regenerate the CRD.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use kube::CustomResource;
use serde::{Deserialize, Serialize};

/// Number of memcached pods when `spec.size` is omitted: the value upstream's
/// defaulting webhook sets, written into the CRD as the schema default.
pub const DEFAULT_SIZE: i32 = 3;

/// Port of the memcached container when `spec.containerPort` is omitted:
/// memcached's standard port, written into the CRD as the schema default.
pub const DEFAULT_CONTAINER_PORT: i32 = 11211;

/// MemcachedSpec defines the desired state of Memcached
// The kind's entry in the OLM ClusterServiceVersion (`make bundle`), as in operator-sdk's tutorial:
// +operator-sdk:csv:customresourcedefinitions:displayName="Memcached",resources={{Deployment,v1,memcached-deployment}}
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[kube(
    group = "cache.example.com",
    version = "v1alpha1",
    kind = "Memcached",
    plural = "memcacheds",
    namespaced,
    status = "MemcachedStatus",
    schema = "disabled",
    doc = "Memcached is the Schema for the memcacheds API"
)]
#[serde(rename_all = "camelCase")]
pub struct MemcachedSpec {
    /// Size defines the number of Memcached instances
    // +kubebuilder:validation:Minimum=1
    // +kubebuilder:validation:Maximum=3
    // +kubebuilder:validation:ExclusiveMaximum=false
    // +kubebuilder:default=3
    // +optional
    // +operator-sdk:csv:customresourcedefinitions:type=spec,xDescriptors={"urn:alm:descriptor:com.tectonic.ui:podCount"}
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<i32>,

    /// Port defines the port that will be used to init the container with the image
    // +kubebuilder:validation:Minimum=1
    // +kubebuilder:validation:Maximum=65535
    // +kubebuilder:default=11211
    // +optional
    // +operator-sdk:csv:customresourcedefinitions:type=spec,xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number"}
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub container_port: Option<i32>,
}

impl MemcachedSpec {
    /// The desired number of pods. The API server fills in the CRD default, so
    /// [`DEFAULT_SIZE`] only applies to objects stored before the default existed.
    pub fn size(&self) -> i32 {
        self.size.unwrap_or(DEFAULT_SIZE)
    }

    /// The memcached port, defaulted like [`MemcachedSpec::size`].
    pub fn container_port(&self) -> i32 {
        self.container_port.unwrap_or(DEFAULT_CONTAINER_PORT)
    }
}

/// MemcachedStatus defines the observed state of Memcached
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct MemcachedStatus {
    /// Conditions store the status conditions of the Memcached instances
    ///
    /// "Available" tells whether the memcached Deployment has all its replicas
    /// available; "Degraded" whether the operator failed to bring it to the spec
    /// (or is finalizing a deleted Memcached).
    // +listType=map
    // +listMapKey=type
    // +optional
    // +operator-sdk:csv:customresourcedefinitions:type=status,xDescriptors={"urn:alm:descriptor:io.kubernetes.conditions"}
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<Condition>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use kube::{CustomResourceExt, Resource};

    #[test]
    fn resource_identity_matches_the_crd_and_rbac_markers() {
        assert_eq!(Memcached::crd_name(), "memcacheds.cache.example.com");
        assert_eq!(Memcached::api_version(&()), "cache.example.com/v1alpha1");
        assert_eq!(Memcached::kind(&()), "Memcached");
        assert_eq!(Memcached::plural(&()), "memcacheds");
    }

    #[test]
    fn omitted_fields_take_the_crd_defaults() {
        let spec: MemcachedSpec = serde_json::from_value(serde_json::json!({})).expect("parses");
        assert_eq!((spec.size(), spec.container_port()), (3, 11211));

        let spec: MemcachedSpec =
            serde_json::from_value(serde_json::json!({"size": 1, "containerPort": 11311}))
                .expect("parses");
        assert_eq!((spec.size(), spec.container_port()), (1, 11311));
    }

    #[test]
    fn empty_optional_fields_are_not_serialized() {
        let object = Memcached::new("sample", MemcachedSpec::default());
        let json = serde_json::to_value(&object).expect("Memcached serializes");
        assert_eq!(json["spec"], serde_json::json!({}));
        assert!(json.get("status").is_none());

        let status = serde_json::to_value(MemcachedStatus::default()).expect("status serializes");
        assert_eq!(status, serde_json::json!({}));
    }
}
