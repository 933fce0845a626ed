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

//! The envtest tests: each kind's controller, and its webhooks, against a real API server
//! (etcd and kube-apiserver, no kubelet). One module per test, in one test binary, so that
//! they share one control plane (`opgen_envtest::shared_or_skip` starts it for the first) and
//! one link. They run in parallel on it, so each works in a namespace of its own (a
//! cluster-scoped kind's objects carry a name and label of their own) and installs its
//! webhooks for that namespace or label only (`LocalWebhooks::for_namespace`, `for_label`).
//! Conversion tests change a whole CRD: each stays a binary of its own,
//! `tests/<kind>_conversion.rs`.
//!
//! `opgen create api` and `opgen create webhook` add their modules above the marker below.
//! `make test` builds the control plane once (`make setup-envtest`); a plain `cargo test`
//! without it prints how to get it and skips these tests, except under CI (`CI=true`).

mod multi_secret_controller;
mod multi_secret_v1alpha1_schema;
// +opgen:scaffold:envtest-modules
