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

//! The Memcached defaulting webhook as the API server calls it (envtest): served from this
//! test over TLS by the manager's own server code, registered from
//! `config/webhook/manifests.yaml` (what `opgen manifests` generates from the
//! `+kubebuilder:webhook` marker) with this address in place of the in-cluster Service.
//!
//! It shares the API server with `memcached_controller.rs`, so the webhook configuration
//! (failure policy Fail) is installed for this test's namespace only, and removed before
//! nothing serves it: it never sees the controller test's Memcacheds.
//!
//! The webhook turns `size: 0` into 3. The CRD's own default (3) already fills an omitted
//! size before admission, so `size: 0` is what shows the webhook at work: without it the
//! schema's `minimum: 1` refuses the object.

use std::time::Duration;

use kube::api::PatchParams;
use memcached_operator::{PROJECT_NAME, webhooks::WEBHOOKS};
use opgen_runtime::{CancellationToken, Manager, ManagerArgs};
use serde_json::json;

const NAMESPACE: &str = "memcached-webhooks";
const MANIFESTS: &str = "config/webhook/manifests.yaml";

#[tokio::test]
async fn size_zero_is_defaulted_by_the_webhook_the_api_server_calls() {
    opgen_runtime::testing::init_tracing();
    let Some(control_plane) = opgen_envtest::shared_or_skip().await else {
        return;
    };
    let admin = control_plane.client().expect("admin client");
    opgen_envtest::install_crds(&admin, "config/crd/bases")
        .await
        .expect("install the CRDs");
    let apply = PatchParams::apply("webhook-test");
    let namespace =
        json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}});
    opgen_envtest::apply_documents(
        &admin,
        vec![namespace],
        "default",
        &apply,
        MANIFESTS.as_ref(),
    )
    .await
    .expect("create the namespace");
    let size_zero = |name: &str| {
        json!({
            "apiVersion": "cache.example.com/v1alpha1",
            "kind": "Memcached",
            "metadata": {"name": name},
            "spec": {"size": 0},
        })
    };

    // Without the webhook, the schema refuses size 0.
    let refused = opgen_envtest::apply_documents(
        &admin,
        vec![size_zero("before-webhook")],
        NAMESPACE,
        &apply,
        MANIFESTS.as_ref(),
    )
    .await
    .expect_err("size 0 is below the schema's minimum");
    assert!(
        refused.to_string().contains("spec.size"),
        "unexpected refusal: {refused}"
    );

    // Only for this test's namespace: the API server is shared with the controller test.
    let webhooks =
        opgen_envtest::LocalWebhooks::for_namespace(NAMESPACE).expect("a port and certificate");
    webhooks
        .install(&admin, MANIFESTS)
        .await
        .expect("install the webhook configuration");
    // Nothing serves it yet: the API server refuses the object once it calls the webhook.
    webhooks
        .wait_until_called(&admin, size_zero("probe"), NAMESPACE)
        .await
        .expect("the API server sends Memcacheds to the webhook");

    // The manager with only its webhooks, as a tokio task, on this test's port and certificate.
    let port = webhooks
        .address()
        .rsplit_once(':')
        .expect("host:port")
        .1
        .to_owned();
    let args = ManagerArgs::try_from_flags([
        format!("--webhook-port={port}"),
        format!("--webhook-cert-path={}", webhooks.cert_dir().display()),
        "--health-probe-bind-address=0".into(),
    ])
    .expect("manager flags");
    let shutdown = CancellationToken::new();
    let manager = Manager::new(PROJECT_NAME)
        .client(admin.clone())
        .webhooks(WEBHOOKS);
    let server = tokio::spawn(manager.run_until(args, shutdown.clone()));

    // The webhook sets size 3 before the schema is checked: admitted, defaulted (retried
    // while the manager starts listening).
    let admitted = opgen_envtest::eventually(
        "the webhook to default size 0",
        Duration::from_secs(30),
        || async {
            let applied = opgen_envtest::apply_documents(
                &admin,
                vec![size_zero("defaulted")],
                NAMESPACE,
                &apply,
                MANIFESTS.as_ref(),
            )
            .await;
            match applied {
                Ok(admitted) => Some(admitted),
                Err(error) if error.to_string().contains("failed calling webhook") => None,
                Err(error) => panic!("the webhook refused size 0: {error}"),
            }
        },
    )
    .await;
    assert_eq!(
        admitted[0].data["spec"]["size"], 3,
        "{:?}",
        admitted[0].data
    );
    // An explicit size is left alone.
    let sample = opgen_envtest::apply_file(
        &admin,
        "config/samples/cache_v1alpha1_memcached.yaml",
        NAMESPACE,
    )
    .await
    .expect("the webhook admits the sample");
    assert_eq!(sample[0].data["spec"]["size"], 1);

    webhooks
        .uninstall(&admin)
        .await
        .expect("remove the webhook configuration");
    shutdown.cancel();
    server
        .await
        .expect("the manager's task")
        .expect("the manager stops cleanly");
}
