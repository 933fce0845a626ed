// Copyright 2026 The cnat-operator Authors.
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

//! Admission and conversion webhooks, one module per kind, and the registry the
//! manager serves them from (opgen-runtime's webhook server: HTTPS on
//! `--webhook-port`, served by every replica). With no entry, no server is started.
//!
//! Adding a kind's webhooks adds its module above `+opgen:scaffold:webhook-modules`
//! and its entry above `+opgen:scaffold:webhooks`; nothing else here changes.

use opgen_runtime::WebhookEntry;

// +opgen:scaffold:webhook-modules

/// Every webhook of this operator. The manager serves them all on one server.
pub const WEBHOOKS: &[WebhookEntry] = &[
    // +opgen:scaffold:webhooks
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registered_paths_are_unique() {
        let mut paths = std::collections::HashSet::new();
        for route in WEBHOOKS.iter().flat_map(|webhook| webhook.routes) {
            assert!(route.path.starts_with('/'), "{}", route.path);
            assert_ne!(route.path, opgen_runtime::webhook::CONVERSION_PATH);
            assert!(
                paths.insert(route.path),
                "{} is registered twice",
                route.path
            );
        }
        // Panics on an invalid or duplicate path.
        let _ = opgen_runtime::webhook::router(WEBHOOKS);
    }
}
