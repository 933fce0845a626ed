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

//! The MultiSecret controller against a real API server (envtest: etcd and kube-apiserver, no
//! kubelet, no controller-manager), running as the manager's ServiceAccount under the role
//! that `opgen manifests` generates from its `+kubebuilder:rbac` markers: a missing marker
//! fails this test.
//!
//! It installs the CRD from `config/crd/bases/`, applies the sample from `config/samples/`
//! and checks what the controller writes: a copy of the Secret in every namespace but the
//! excluded ones, annotated with its MultiSecret (children of a namespaced owner in other
//! namespaces cannot carry owner references); the counts in the status; a copy in a new
//! namespace; a deleted copy recreated, a changed one restored; a terminating namespace no
//! longer counted (without a namespace controller it never goes); and every copy deleted by
//! the finalizer when the MultiSecret is. Without the envtest binaries
//! (`tools/envtest/setup.sh` of opgen) it prints how to get them and passes, except under
//! `CI=true`.

use opgen_envtest::OperatorClients;
use std::{collections::BTreeMap, time::Duration};

use k8s_openapi::{
    ByteString,
    api::core::v1::{Namespace, Secret},
};
use kube::{
    Api, Client, ResourceExt,
    api::{DeleteParams, ListParams, ObjectMeta, Patch, PatchParams, PostParams},
};
use opgen_runtime::testing::RunningController;
use secret_operator::{
    api::v1alpha1::MultiSecret,
    controllers::multi_secret::{
        self, EXCLUDED_NAMESPACES, NAMESPACE_ANNOTATION, OWNER_ANNOTATION,
    },
};

const SAMPLE: &str = "config/samples/multi_v1alpha1_multisecret.yaml";
/// Where the MultiSecret lives (the manager watches MultiSecrets only there).
const SOURCE: &str = "secret-envtest";
/// A namespace created while the controller runs.
const ADDED: &str = "secret-envtest-added";
const TIMEOUT: Duration = Duration::from_secs(30);

#[tokio::test]
async fn sample_is_copied_into_every_namespace_under_the_generated_role() {
    opgen_runtime::testing::init_tracing();
    let Some(control_plane) = opgen_envtest::shared_or_skip().await else {
        return;
    };
    let OperatorClients { admin, manager } = control_plane
        .install_operator("config/crd/bases", "config/rbac/role.yaml", SOURCE)
        .await
        .expect("install the CRDs and bind the generated role to the manager's ServiceAccount");

    let controller = RunningController::start(
        multi_secret::CONTROLLER,
        manager,
        secret_operator::PROJECT_NAME,
        vec![SOURCE.into()],
    );

    let multi_secrets: Api<MultiSecret> = Api::namespaced(admin.clone(), SOURCE);
    let applied = opgen_envtest::apply_file(&admin, SAMPLE, SOURCE)
        .await
        .expect("the API server accepts the sample");
    let name = applied[0].name_any();
    let child = format!("{name}.{SOURCE}.multisec");

    // A copy in every wanted namespace, counted in the status. The namespaces are listed on
    // each try: the other tests of this binary add and remove their own meanwhile.
    let (status, wanted) = opgen_envtest::eventually(
        "the status to count a copy per namespace",
        TIMEOUT,
        || async {
            let wanted = wanted_namespaces(&admin).await;
            let status = multi_secrets.get(&name).await.ok()?.status?;
            let expected = wanted.len() as i64;
            (status.wanted == expected && status.created == expected).then_some((status, wanted))
        },
    )
    .await;
    assert!(wanted.len() >= 2, "{wanted:?}");
    assert!(status.change_time.is_some());
    let still_wanted = wanted_namespaces(&admin).await;
    for namespace in wanted.iter().filter(|n| still_wanted.contains(n)) {
        let copy = get_secret(&admin, namespace, &child)
            .await
            .unwrap_or_else(|| panic!("no copy in {namespace}"));
        assert_eq!(secret_value(&copy), Some(b"topSecret\n".to_vec()));
        assert_eq!(copy.annotations().get(OWNER_ANNOTATION), Some(&name));
        assert_eq!(
            copy.annotations()
                .get(NAMESPACE_ANNOTATION)
                .map(String::as_str),
            Some(SOURCE)
        );
        assert_eq!(
            copy.labels()
                .get("app.kubernetes.io/part-of")
                .map(String::as_str),
            Some("secret-operator")
        );
    }
    for excluded in EXCLUDED_NAMESPACES {
        assert!(get_secret(&admin, excluded, &child).await.is_none());
    }
    let sample = multi_secrets.get(&name).await.expect("get the sample");
    assert!(
        sample
            .finalizers()
            .iter()
            .any(|f| f == multi_secret::FINALIZER)
    );

    // A new namespace gets a copy.
    let namespaces: Api<Namespace> = Api::all(admin.clone());
    let added = Namespace {
        metadata: ObjectMeta {
            name: Some(ADDED.into()),
            ..ObjectMeta::default()
        },
        ..Namespace::default()
    };
    namespaces
        .create(&PostParams::default(), &added)
        .await
        .expect("create a namespace");
    let copy = opgen_envtest::eventually("a copy in the new namespace", TIMEOUT, || {
        get_secret(&admin, ADDED, &child)
    })
    .await;
    opgen_envtest::eventually("the status to count the new namespace", TIMEOUT, || async {
        let status = multi_secrets.get(&name).await.ok()?.status?;
        let expected = wanted.len() as i64 + 1;
        (status.wanted == expected && status.created == expected).then_some(())
    })
    .await;

    // A deleted copy is created again.
    let secrets: Api<Secret> = Api::namespaced(admin.clone(), ADDED);
    secrets
        .delete(&child, &DeleteParams::default())
        .await
        .expect("delete a copy");
    let old_uid = copy.uid();
    opgen_envtest::eventually("the deleted copy to come back", TIMEOUT, || async {
        get_secret(&admin, ADDED, &child)
            .await
            .filter(|copy| copy.uid() != old_uid)
    })
    .await;

    // A changed copy is restored.
    let edit = serde_json::json!({"data": {"secret": "ZWRpdGVk"}});
    secrets
        .patch(&child, &PatchParams::default(), &Patch::Merge(&edit))
        .await
        .expect("edit a copy");
    opgen_envtest::eventually("the changed copy to be restored", TIMEOUT, || async {
        get_secret(&admin, ADDED, &child)
            .await
            .filter(|copy| secret_value(copy) == Some(b"topSecret\n".to_vec()))
    })
    .await;

    // A terminating namespace is no longer wanted (it stays Terminating here: no namespace
    // controller runs; its copy would go with it).
    namespaces
        .delete(ADDED, &DeleteParams::default())
        .await
        .expect("delete the added namespace");
    opgen_envtest::eventually(
        "the status to drop the terminating namespace",
        TIMEOUT,
        || async {
            let status = multi_secrets.get(&name).await.ok()?.status?;
            (status.wanted == wanted.len() as i64).then_some(())
        },
    )
    .await;

    // Deleting the MultiSecret deletes every copy, then the finalizer lets go.
    multi_secrets
        .delete(&name, &DeleteParams::default())
        .await
        .expect("delete the sample");
    opgen_envtest::eventually("the MultiSecret to be deleted", TIMEOUT, || async {
        multi_secrets
            .get_opt(&name)
            .await
            .ok()?
            .is_none()
            .then_some(())
    })
    .await;
    let left: Vec<String> = Api::<Secret>::all(admin.clone())
        .list(&ListParams::default().fields(&format!("metadata.name={child}")))
        .await
        .expect("list the copies")
        .items
        .into_iter()
        .filter(|copy| copy.namespace().as_deref() != Some(ADDED))
        .map(|copy| copy.namespace().unwrap_or_default())
        .collect();
    assert!(left.is_empty(), "copies left in {left:?}");

    controller
        .stop()
        .await
        .expect("the controller stops cleanly");
}

/// Namespaces that should hold a copy: active and not excluded.
async fn wanted_namespaces(client: &Client) -> Vec<String> {
    Api::<Namespace>::all(client.clone())
        .list(&ListParams::default())
        .await
        .expect("list the namespaces")
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
        .expect("get a Secret")
}

fn secret_value(secret: &Secret) -> Option<Vec<u8>> {
    let data: &BTreeMap<String, ByteString> = secret.data.as_ref()?;
    data.get("secret").map(|value| value.0.clone())
}
