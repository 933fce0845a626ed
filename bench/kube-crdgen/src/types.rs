use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// MemcachedSpec defines the desired state of Memcached.
#[derive(CustomResource, Deserialize, Serialize, Clone, Debug, JsonSchema)]
#[kube(
    group = "cache.example.com",
    version = "v1alpha1",
    kind = "Memcached",
    namespaced,
    status = "MemcachedStatus"
)]
pub struct MemcachedSpec {
    /// The number of Memcached pods.
    #[schemars(range(min = 1, max = 5))]
    pub size: i32,
    /// The port Memcached listens on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub container_port: Option<i32>,
}

/// MemcachedStatus defines the observed state of Memcached.
#[derive(Deserialize, Serialize, Clone, Debug, Default, JsonSchema)]
pub struct MemcachedStatus {
    /// The conditions of the Memcached.
    #[serde(default)]
    pub conditions: Vec<k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition>,
}
