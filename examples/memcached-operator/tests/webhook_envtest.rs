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
//! A separate test binary, so a separate control plane: the webhook configuration (failure
//! policy Fail) must not refuse the Memcacheds of `tests/envtest.rs` while nothing serves it.
//!
//! The webhook turns `size: 0` into 3. The CRD's own default (3) already fills an omitted
//! size before admission, so `size: 0` is what shows the webhook at work: without it the
//! schema's `minimum: 1` refuses the object.

use kube::api::PatchParams;
use memcached_operator::{
    server::{
        self,
        tls::{self, CertificateFiles},
    },
    webhooks::{self, WEBHOOKS},
};
use serde_json::json;
use tokio_util::sync::CancellationToken;

const NAMESPACE: &str = "memcached-webhooks";
const MANIFESTS: &str = "config/webhook/manifests.yaml";

#[tokio::test]
async fn size_zero_is_defaulted_by_the_webhook_the_api_server_calls() {
    let _ = tracing_subscriber::fmt()
        .with_test_writer()
        .with_ansi(false)
        .try_init();
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

    let webhooks = opgen_envtest::LocalWebhooks::new().expect("a port and certificate");
    webhooks
        .install(&admin, MANIFESTS)
        .await
        .expect("install the webhook configuration");
    // Nothing serves it yet: the API server refuses the object once it calls the webhook.
    webhooks
        .wait_until_called(&admin, size_zero("probe"), NAMESPACE)
        .await
        .expect("the API server sends Memcacheds to the webhook");

    // The manager's webhook server, as a tokio task.
    let shutdown = CancellationToken::new();
    let files = CertificateFiles::in_dir(webhooks.cert_dir(), "tls.crt", "tls.key");
    let acceptor =
        tls::server_acceptor("webhook", Some(files), &shutdown).expect("load the certificate");
    let listener = server::bind("webhook", &webhooks.address())
        .await
        .expect("bind the webhook address");
    let server = server::serve(
        "webhook",
        listener,
        Some(acceptor),
        webhooks::router(WEBHOOKS),
        shutdown.clone(),
    );

    // The webhook sets size 3 before the schema is checked: admitted, defaulted.
    let admitted = opgen_envtest::apply_documents(
        &admin,
        vec![size_zero("defaulted")],
        NAMESPACE,
        &apply,
        MANIFESTS.as_ref(),
    )
    .await
    .expect("the webhook defaults size 0 and the API server admits it");
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

    shutdown.cancel();
    server.await.expect("the webhook server stops");
}
