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

//! The MultiSecret controllers against a real API server (envtest: etcd and kube-apiserver
//! from `tools/envtest/setup.sh`, started by opgen-envtest; no kubelet, no controller-manager).
//!
//! It installs the CRD, runs the controllers of this crate in-process as the manager's
//! ServiceAccount under the ClusterRole that `opgen manifests` generated from the
//! `+kubebuilder:rbac` markers, applies the sample MultiSecret into a fresh namespace, and
//! checks the copies, the status, the namespace and drift handling and the finalizer.
//! Without the control plane binaries it prints how to get them and passes, except under CI.
//!
//! ```sh
//! cargo test --test envtest -- --nocapture
//! ```

use std::{
    collections::BTreeMap,
    future::Future,
    panic::AssertUnwindSafe,
    sync::Arc,
    time::{Duration, Instant, SystemTime, UNIX_EPOCH},
};

use futures::FutureExt;
use k8s_openapi::{
    ByteString,
    api::core::v1::{Namespace, Secret},
    apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition,
};
use kube::{
    Api, Client, ResourceExt,
    api::{DeleteParams, ListParams, ObjectMeta, Patch, PatchParams, PostParams},
    runtime::wait::{await_condition, conditions},
};
use secret_operator::{
    api::v1alpha1::MultiSecret,
    controllers::{
        CONTROLLERS, Context,
        multi_secret::{EXCLUDED_NAMESPACES, NAMESPACE_ANNOTATION, OWNER_ANNOTATION},
    },
    metrics::Metrics,
};
use tokio_util::sync::CancellationToken;

const CRD_FILE: &str = "config/crd/bases/multi.ddnw.ml_multisecrets.yaml";
const SAMPLE_FILE: &str = "config/samples/multi_v1alpha1_multisecret.yaml";
const CRD_NAME: &str = "multisecrets.multi.ddnw.ml";
const FIELD_MANAGER: &str = "secret-operator-test";
const TIMEOUT: Duration = Duration::from_secs(60);

#[tokio::test]
async fn sample_is_copied_into_every_namespace_and_cleaned_up() {
    let _ = tracing_subscriber::fmt()
        .with_test_writer()
        .with_ansi(false)
        .try_init();
    let Some(control_plane) = opgen_envtest::shared_or_skip().await else {
        return;
    };
    let client = control_plane.client().expect("admin client");
    let suffix = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("clock after 1970")
        .as_millis();
    let source = format!("multisecret-e2e-{suffix}");
    let added = format!("multisecret-e2e-added-{suffix}");

    let crd_was_installed = install_crd(&client).await;
    // What the controllers run as: the manager's ServiceAccount (in `source`, which this
    // creates) bound to the generated role.
    let manager = control_plane
        .client_with_roles("config/rbac/role.yaml", &source, "controller-manager")
        .await
        .expect("bind the generated role to the manager's ServiceAccount");
    let shutdown = CancellationToken::new();
    let result = AssertUnwindSafe(scenario(
        &client,
        manager,
        &source,
        &added,
        shutdown.clone(),
    ))
    .catch_unwind()
    .await;

    cleanup(&client, &source, &[&source, &added], !crd_was_installed).await;
    shutdown.cancel();
    if let Err(panic) = result {
        std::panic::resume_unwind(panic);
    }
}

async fn scenario(
    client: &Client,
    manager: Client,
    source: &str,
    added: &str,
    shutdown: CancellationToken,
) {
    create_namespace(client, source).await;

    // The controllers of the manager, watching MultiSecrets only in `source`.
    let ctx = Arc::new(Context::new(
        manager,
        Arc::new(Metrics::default()),
        vec![source.to_owned()],
        shutdown,
    ));
    for entry in CONTROLLERS {
        let ctx = ctx.clone();
        tokio::spawn(async move { (entry.run)(ctx).await.expect("controller runs") });
    }

    let sample: MultiSecret = serde_saphyr::from_str(
        &std::fs::read_to_string(SAMPLE_FILE).expect("sample file is readable"),
    )
    .expect("sample parses");
    let name = sample.name_any();
    let child = format!("{name}.{source}.multisec");
    let multi_secrets: Api<MultiSecret> = Api::namespaced(client.clone(), source);
    multi_secrets
        .create(&PostParams::default(), &sample)
        .await
        .expect("sample is created");

    // A copy in every wanted namespace, counted in the status.
    let status = wait_for("the status to count every copy", || async {
        let status = multi_secrets.get(&name).await.ok()?.status?;
        let expected = wanted_namespaces(client).await.len() as i64;
        (status.wanted == expected && status.created == expected).then_some(status)
    })
    .await;
    assert!(status.change_time.is_some());
    for namespace in wanted_namespaces(client).await {
        let copy = get_secret(client, &namespace, &child)
            .await
            .unwrap_or_else(|| panic!("no copy in {namespace}"));
        assert_eq!(secret_value(&copy), Some(b"topSecret\n".to_vec()));
        assert_eq!(
            copy.annotations().get(OWNER_ANNOTATION),
            Some(&name),
            "{namespace}"
        );
        assert_eq!(
            copy.annotations()
                .get(NAMESPACE_ANNOTATION)
                .map(String::as_str),
            Some(source)
        );
        assert_eq!(
            copy.labels()
                .get("app.kubernetes.io/part-of")
                .map(String::as_str),
            Some("secret-operator")
        );
    }
    for excluded in EXCLUDED_NAMESPACES {
        assert!(get_secret(client, excluded, &child).await.is_none());
    }

    // A new namespace gets a copy.
    create_namespace(client, added).await;
    let copy = wait_for("a copy in the new namespace", || {
        get_secret(client, added, &child)
    })
    .await;

    // A deleted copy is created again.
    let secrets: Api<Secret> = Api::namespaced(client.clone(), added);
    secrets
        .delete(&child, &DeleteParams::default())
        .await
        .expect("copy is deleted");
    let old_uid = copy.uid();
    wait_for("the deleted copy to come back", || async {
        get_secret(client, added, &child)
            .await
            .filter(|copy| copy.uid() != old_uid)
    })
    .await;

    // A changed copy is restored.
    let edit = serde_json::json!({"data": {"secret": "ZWRpdGVk"}});
    secrets
        .patch(&child, &PatchParams::default(), &Patch::Merge(&edit))
        .await
        .expect("copy is edited");
    wait_for("the changed copy to be restored", || async {
        get_secret(client, added, &child)
            .await
            .filter(|copy| secret_value(copy) == Some(b"topSecret\n".to_vec()))
    })
    .await;

    // Deleting the MultiSecret deletes every copy, then the finalizer lets go.
    let uid = multi_secrets
        .get(&name)
        .await
        .expect("sample exists")
        .uid()
        .expect("uid");
    multi_secrets
        .delete(&name, &DeleteParams::default())
        .await
        .expect("sample is deleted");
    tokio::time::timeout(
        TIMEOUT,
        await_condition(multi_secrets.clone(), &name, conditions::is_deleted(&uid)),
    )
    .await
    .expect("the MultiSecret is gone in time")
    .expect("watch works");
    let left = Api::<Secret>::all(client.clone())
        .list(&ListParams::default().fields(&format!("metadata.name={child}")))
        .await
        .expect("secrets are listed")
        .items
        .into_iter()
        .filter(|copy| copy.annotations().get(OWNER_ANNOTATION) == Some(&name))
        .filter(|copy| {
            // Copies in terminating namespaces go with their namespace.
            copy.metadata.deletion_timestamp.is_none()
        })
        .count();
    assert_eq!(left, 0, "every copy is deleted");
}

/// Server-side applies the generated CRD and waits until it is established.
/// Returns whether it was installed before.
async fn install_crd(client: &Client) -> bool {
    let crds: Api<CustomResourceDefinition> = Api::all(client.clone());
    let existed = crds
        .get_opt(CRD_NAME)
        .await
        .expect("CRDs are readable")
        .is_some();
    let crd: CustomResourceDefinition =
        serde_saphyr::from_str(&std::fs::read_to_string(CRD_FILE).expect("CRD file is readable"))
            .expect("CRD parses");
    crds.patch(
        CRD_NAME,
        &PatchParams::apply(FIELD_MANAGER).force(),
        &Patch::Apply(&crd),
    )
    .await
    .expect("CRD is applied");
    tokio::time::timeout(
        TIMEOUT,
        await_condition(crds, CRD_NAME, conditions::is_crd_established()),
    )
    .await
    .expect("CRD is established in time")
    .expect("watch works");
    existed
}

async fn create_namespace(client: &Client, name: &str) {
    let namespace = Namespace {
        metadata: ObjectMeta {
            name: Some(name.into()),
            ..ObjectMeta::default()
        },
        ..Namespace::default()
    };
    Api::<Namespace>::all(client.clone())
        .patch(
            name,
            &PatchParams::apply(FIELD_MANAGER),
            &Patch::Apply(&namespace),
        )
        .await
        .expect("namespace is created");
}

/// Namespaces that should hold a copy: active and not excluded.
async fn wanted_namespaces(client: &Client) -> Vec<String> {
    Api::<Namespace>::all(client.clone())
        .list(&ListParams::default())
        .await
        .expect("namespaces are listed")
        .items
        .into_iter()
        .filter(|namespace| namespace.metadata.deletion_timestamp.is_none())
        .map(|namespace| namespace.name_any())
        .filter(|name| !EXCLUDED_NAMESPACES.contains(&name.as_str()))
        .collect()
}

async fn get_secret(client: &Client, namespace: &str, name: &str) -> Option<Secret> {
    Api::<Secret>::namespaced(client.clone(), namespace)
        .get_opt(name)
        .await
        .expect("secrets are readable")
}

fn secret_value(secret: &Secret) -> Option<Vec<u8>> {
    let data: &BTreeMap<String, ByteString> = secret.data.as_ref()?;
    data.get("secret").map(|value| value.0.clone())
}

/// Polls `check` until it is true; false after [`TIMEOUT`].
async fn wait_until<F, Fut>(mut check: F) -> bool
where
    F: FnMut() -> Fut,
    Fut: Future<Output = bool>,
{
    let deadline = Instant::now() + TIMEOUT;
    while Instant::now() < deadline {
        if check().await {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    false
}

/// Polls `check` until it returns a value; panics after [`TIMEOUT`].
async fn wait_for<T, F, Fut>(what: &str, mut check: F) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    let deadline = Instant::now() + TIMEOUT;
    loop {
        if let Some(value) = check().await {
            return value;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

/// Deletes what the test created, also after a failure (errors are ignored).
///
/// Runs while the controllers still run, so that a MultiSecret left behind by a
/// failure has its copies deleted by the finalizer; one still there after the
/// timeout loses its finalizer so that its namespace can go. Then deletes the
/// test namespaces and the CRD if this test installed it.
async fn cleanup(client: &Client, source: &str, namespaces: &[&str], delete_crd: bool) {
    let multi_secrets: Api<MultiSecret> = Api::namespaced(client.clone(), source);
    if let Ok(left) = multi_secrets.list(&ListParams::default()).await {
        for obj in left.items {
            let name = obj.name_any();
            let _ = multi_secrets.delete(&name, &DeleteParams::default()).await;
            let gone =
                wait_until(|| async { matches!(multi_secrets.get_opt(&name).await, Ok(None)) })
                    .await;
            if !gone {
                let release = serde_json::json!({"metadata": {"finalizers": null}});
                let _ = multi_secrets
                    .patch(&name, &PatchParams::default(), &Patch::Merge(&release))
                    .await;
            }
        }
    }
    let api: Api<Namespace> = Api::all(client.clone());
    for namespace in namespaces {
        let _ = api.delete(namespace, &DeleteParams::default()).await;
    }
    if delete_crd {
        let crds: Api<CustomResourceDefinition> = Api::all(client.clone());
        let _ = crds.delete(CRD_NAME, &DeleteParams::default()).await;
    }
}
