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

//! memcached-operator: a Kubernetes operator built on kube-rs.
//!
//! - [`api`]: the custom resource types, one module per API version;
//! - [`controllers`]: one controller per kind, and the registry of them;
//! - [`webhooks`]: one module of admission webhooks per kind, and the registry of them;
//! - [`manager`]: runs the controllers, with probes, metrics, webhooks and leader election.

pub mod api;
pub mod cli;
pub mod controllers;
mod error;
pub mod leader_election;
pub mod logging;
pub mod manager;
pub mod metrics;
pub mod server;
#[cfg(test)]
pub mod testing;
pub mod webhooks;

pub use error::{Error, Result};

/// The project name: field manager of server-side applies and reporter of events.
pub const PROJECT_NAME: &str = "memcached-operator";

/// This replica's name: `$POD_NAME` (set from the downward API), else `$HOSTNAME`,
/// which Kubernetes sets to the pod name.
pub fn instance_name() -> Option<String> {
    ["POD_NAME", "HOSTNAME"]
        .into_iter()
        .find_map(|variable| std::env::var(variable).ok().filter(|name| !name.is_empty()))
}
