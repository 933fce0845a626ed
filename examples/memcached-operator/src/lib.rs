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

//! memcached-operator: a Kubernetes operator built on kube-rs and opgen-runtime.
//!
//! - [`api`]: the custom resource types, one module per API version;
//! - [`controllers`]: one controller per kind, and the registry of them;
//! - [`webhooks`]: one module of admission webhooks per kind, and the registry of them.
//!
//! The manager, its flags, leader election, the metrics and webhook servers and the
//! webhook plumbing come from the opgen-runtime crate.

pub mod api;
pub mod controllers;
pub mod webhooks;

/// The project name: field manager of server-side applies and reporter of events.
pub const PROJECT_NAME: &str = "memcached-operator";

/// Name of the leader election Lease, shared by all replicas (kubebuilder's
/// fnv32a of the repository, plus the domain).
pub const LEASE_NAME: &str = "86f835c3.example.com";

/// The manager of this operator: every registered controller and webhook.
pub fn manager() -> opgen_runtime::Manager {
    opgen_runtime::Manager::new(PROJECT_NAME)
        .lease_name(LEASE_NAME)
        .metrics_prefix("memcached_operator")
        .controllers(controllers::CONTROLLERS)
        .webhooks(webhooks::WEBHOOKS)
}
