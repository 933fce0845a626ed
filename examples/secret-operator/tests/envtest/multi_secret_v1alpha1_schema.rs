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

//! `MultiSecret` v1alpha1: its Rust type and its CRD schema agree on a real API server.
//! Objects drawn from the schema that the server accepts deserialize into the type and
//! serialize back unchanged; what serde sends of them, created and server-side applied, is
//! kept as sent plus the schema's defaults (no field pruned, no `null` refused). A
//! disagreement names the field, e.g. an `Option` without `skip_serializing_if` or an enum
//! variant the schema lacks.
//! `OPGEN_AGREEMENT_SEED` and `OPGEN_AGREEMENT_CASES` pick the objects.

use opgen_envtest::agreement::Agreement;

use secret_operator::api::v1alpha1::MultiSecret;

#[tokio::test]
async fn multi_secret_v1alpha1_serde_agrees_with_its_crd_schema() {
    let Some(control_plane) = opgen_envtest::shared_or_skip().await else {
        return;
    };
    let admin = control_plane
        .client()
        .expect("a client of the control plane");
    Agreement::new(&admin, "config/crd/bases", "multisecret-v1alpha1-agreement")
        .check::<MultiSecret>()
        .await
        .expect("the API server answers")
        .assert_agreed();
}
