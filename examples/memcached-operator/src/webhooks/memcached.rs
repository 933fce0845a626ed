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

//! Admission webhooks for the `Memcached` kind: defaulting.
//!
//! The defaulting logic is `Defaulter::default`.
//! opgen-runtime turns each AdmissionReview into these calls, and `make manifests` writes
//! `config/webhook/manifests.yaml` from the `+kubebuilder:webhook` markers below.

use kube::ResourceExt;
use tracing::info;

use crate::api::v1alpha1::{DEFAULT_SIZE, Memcached};
use opgen_runtime::webhook::{Defaulter, Route, WebhookEntry};

/// Registry entry listed in [`crate::webhooks::WEBHOOKS`].
pub const WEBHOOK: WebhookEntry = WebhookEntry {
    name: "memcached",
    routes: &[Route::defaulting::<Memcached>(DEFAULTING_PATH)],
    conversion: None,
};

/// Path of the defaulting webhook: the `path` of its marker below.
pub const DEFAULTING_PATH: &str = "/mutate-cache-example-com-v1alpha1-memcached";

// NOTE: the 'path' attribute must match DEFAULTING_PATH, and the API server
// finds the webhook by it: change both together, or neither.
// +kubebuilder:webhook:path=/mutate-cache-example-com-v1alpha1-memcached,mutating=true,failurePolicy=fail,sideEffects=None,groups=cache.example.com,resources=memcacheds,verbs=create;update,versions=v1alpha1,name=mmemcached-v1alpha1.kb.io,admissionReviewVersions=v1

impl Defaulter for Memcached {
    /// Sets the defaults of a Memcached being created or updated. The API server
    /// receives the changes as a JSON patch.
    ///
    /// As upstream's webhook: a size of 0 (or none) becomes 3, the CRD's default, so that
    /// `size: 0` is defaulted rather than rejected by the schema's minimum of 1.
    fn default(&mut self) {
        if self.spec.size.unwrap_or(0) == 0 {
            info!(name = %self.name_any(), "defaulting spec.size to {DEFAULT_SIZE}");
            self.spec.size = Some(DEFAULT_SIZE);
        }
    }
}

#[cfg(test)]
mod tests {
    use kube::Resource;
    use serde_json::json;

    use super::*;
    use crate::api::v1alpha1::MemcachedSpec;

    /// The sample of config/samples (size 1, port 11211).
    fn sample() -> Memcached {
        Memcached::new("memcached-sample", MemcachedSpec::default())
    }

    #[test]
    fn defaulting_is_idempotent() {
        let encode = |object: &Memcached| serde_json::to_value(object).expect("encodes");
        let mut once = sample();
        Defaulter::default(&mut once);
        let mut twice = once.clone();
        Defaulter::default(&mut twice);
        assert_eq!(encode(&twice), encode(&once));
    }

    #[test]
    fn zero_or_missing_size_becomes_the_default_and_others_stay() {
        for (size, want) in [(None, DEFAULT_SIZE), (Some(0), DEFAULT_SIZE), (Some(2), 2)] {
            let mut object = sample();
            object.spec.size = size;
            Defaulter::default(&mut object);
            assert_eq!(object.spec.size, Some(want), "size {size:?}");
        }
    }

    #[test]
    fn paths_follow_the_kubebuilder_convention_and_the_markers() {
        let path = |prefix: &str| {
            let group = Memcached::group(&()).replace('.', "-");
            let (version, kind) = (Memcached::version(&()), Memcached::kind(&()));
            format!("/{prefix}-{group}-{version}-{}", kind.to_lowercase())
        };
        let source = include_str!("memcached.rs");
        let marker = |path: &str| format!("// +kubebuilder:webhook:path={path},");
        assert_eq!(DEFAULTING_PATH, path("mutate"));
        assert!(
            source.contains(&marker(DEFAULTING_PATH)),
            "defaulting marker"
        );
        let routes: Vec<_> = WEBHOOK.routes.iter().map(|route| route.path).collect();
        assert_eq!(routes, [DEFAULTING_PATH,]);
    }

    #[test]
    fn a_create_review_reaches_every_hook() {
        let review = json!({
            "apiVersion": "admission.k8s.io/v1",
            "kind": "AdmissionReview",
            "request": {
                "uid": "705ab4f5-6393-11e8-b7cc-42010a800002",
                "kind": {
                    "group": "cache.example.com",
                    "version": "v1alpha1",
                    "kind": "Memcached",
                },
                "resource": {
                    "group": "cache.example.com",
                    "version": "v1alpha1",
                    "resource": "memcacheds",
                },
                "name": "memcached-sample",
                "namespace": "default",
                "operation": "CREATE",
                "userInfo": {"username": "admin"},
                "object": serde_json::to_value(sample()).expect("sample encodes"),
                "oldObject": null,
            },
        });
        let body = review.to_string();
        for route in WEBHOOK.routes {
            let answer = (route.review)(body.as_bytes());
            assert_eq!(
                answer["response"]["allowed"], true,
                "{}: {answer}",
                route.path
            );
            assert_eq!(answer["response"]["uid"], review["request"]["uid"]);
        }
    }
}
