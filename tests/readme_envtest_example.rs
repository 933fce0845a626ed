//! README.md's envtest example ("Testing against a real API server"), compiled and run as
//! written in a project `opgen new` made; `tests/readme.rs` checks that the README shows
//! exactly the lines between the markers below. Its own test binary: it changes the current
//! directory, as the example's relative paths need.

mod support;

use kube::Api;
use support::new_memcached_project;

#[tokio::test]
async fn the_readme_envtest_example_runs() -> Result<(), Box<dyn std::error::Error>> {
    let parent = tempfile::tempdir()?;
    let project = new_memcached_project(parent.path(), "my-operator");
    std::env::set_current_dir(project)?;

    // README begin
    let Some(control_plane) = opgen_envtest::shared_or_skip().await else {
        return Ok(());
    };
    let admin = control_plane.client()?;
    opgen_envtest::install_crds(&admin, "config/crd/bases").await?;
    let manager = control_plane
        .client_with_roles(
            "config/rbac/role.yaml",
            "my-operator-system",
            "controller-manager",
        )
        .await?;
    // README end

    // The manager's client may list what its role grants, and nothing more.
    let memcacheds: Api<kube::api::DynamicObject> = Api::all_with(
        manager.clone(),
        &kube::api::ApiResource {
            group: "cache.example.com".into(),
            version: "v1alpha1".into(),
            api_version: "cache.example.com/v1alpha1".into(),
            kind: "Memcached".into(),
            plural: "memcacheds".into(),
        },
    );
    memcacheds.list(&Default::default()).await?;
    let secrets: Api<k8s_openapi::api::core::v1::Secret> = Api::all(manager);
    assert!(
        secrets.list(&Default::default()).await.is_err(),
        "the generated role grants no Secrets"
    );
    Ok(())
}
