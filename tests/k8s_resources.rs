//! `data/k8s-resources/1.<minor>.json`, the built-in resources that opgen checks RBAC markers
//! against, is what a real API server of that minor serves in discovery. Run against each
//! envtest release (tools/test.sh runs 1.33 and 1.37); `OPGEN_REGEN=1` rewrites the file.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// group ("" for core) → resource → subresources, over every served version of the group.
type Resources = BTreeMap<String, BTreeMap<String, BTreeSet<String>>>;

async fn served(client: &kube::Client) -> Resources {
    let mut resources = Resources::new();
    let mut api_versions: Vec<(String, String)> = client
        .list_core_api_versions()
        .await
        .unwrap()
        .versions
        .into_iter()
        .map(|v| (String::new(), v))
        .collect();
    for group in client.list_api_groups().await.unwrap().groups {
        for version in group.versions {
            api_versions.push((group.name.clone(), version.group_version));
        }
    }
    for (group, api_version) in api_versions {
        let list = if group.is_empty() {
            client.list_core_api_resources(&api_version).await
        } else {
            client.list_api_group_resources(&api_version).await
        }
        .unwrap();
        let entry = resources.entry(group).or_default();
        for resource in list.resources {
            match resource.name.split_once('/') {
                Some((name, sub)) => {
                    entry
                        .entry(name.to_owned())
                        .or_default()
                        .insert(sub.to_owned());
                }
                None => {
                    entry.entry(resource.name).or_default();
                }
            }
        }
    }
    resources
}

#[tokio::test]
async fn embedded_builtin_resources_are_what_the_api_server_serves() {
    let Some(control_plane) = opgen_envtest::shared_or_skip().await else {
        return;
    };
    let client = control_plane.client().unwrap();
    let version = client.apiserver_version().await.unwrap();
    let minor = version.minor.trim_end_matches('+');
    let served = served(&client).await;
    let file =
        Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("data/k8s-resources/1.{minor}.json"));
    let text = serde_json::to_string_pretty(&served).unwrap() + "\n";
    if std::env::var_os("OPGEN_REGEN").is_some() {
        std::fs::write(&file, &text).unwrap();
        eprintln!("wrote {}", file.display());
        return;
    }
    let embedded = std::fs::read_to_string(&file).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; run this test with OPGEN_REGEN=1 against Kubernetes 1.{minor}",
            file.display()
        )
    });
    assert!(
        embedded == text,
        "{} differs from what Kubernetes {} serves; rerun with OPGEN_REGEN=1",
        file.display(),
        version.git_version
    );
}
