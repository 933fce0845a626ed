//! A project goes through `opgen edit --multigroup`, `opgen delete webhook`, `opgen delete api`
//! and `opgen edit --multigroup=false`, and after each step it still builds and passes its own
//! tests (`cargo test --locked`: the controllers against a mocked API server, and the envtest
//! tests against a real one), with the manifests unchanged by the edits.
//!
//! It builds in its own target directory under this workspace's, shared with
//! tests/scaffolded_project.rs (the outer `cargo test` holds the workspace's build lock).

mod support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use support::{new_memcached_project, opgen_ok, tree};

/// `cargo` in the project ([`support::stable_copy`]). Each step changes the sources, and
/// cargo keeps one build of a package name per target directory, so the steps share one place.
fn cargo(dir: &Path, args: &[&str]) {
    let built = support::stable_copy(dir, "edit_delete_project");
    support::project_cargo_ok(&built, args);
}

fn opgen(dir: &Path, args: &[&str]) {
    opgen_ok(dir, args);
}

/// The generated manifests: CRDs, the manager's role, the webhook configurations.
fn manifests(dir: &Path) -> BTreeMap<PathBuf, String> {
    tree(dir)
        .into_iter()
        .filter(|(p, _)| {
            p.starts_with("config/crd/bases")
                || p == Path::new("config/rbac/role.yaml")
                || p == Path::new("config/webhook/manifests.yaml")
        })
        .collect()
}

fn read(dir: &Path, file: &str) -> String {
    std::fs::read_to_string(dir.join(file)).unwrap()
}

/// The user's own test, naming the kinds' modules as they are before the edit.
const REGISTRY_TEST: &str = r#"use demo_operator::api::v1alpha1::{CacheCluster, Memcached};
use demo_operator::controllers::{self, memcached};

#[test]
fn the_registry_lists_the_controllers() {
    let names: Vec<&str> = controllers::CONTROLLERS.iter().map(|c| c.name).collect();
    assert!(names.contains(&memcached::CONTROLLER.name), "{names:?}");
    assert!(names.contains(&controllers::cache_cluster::CONTROLLER.name), "{names:?}");
    let _ = std::any::type_name::<(Memcached, CacheCluster)>();
}
"#;

#[test]
fn the_project_builds_and_passes_its_tests_after_edit_and_delete() {
    let parent = tempfile::tempdir().unwrap();
    let dir = new_memcached_project(parent.path(), "demo-operator");
    // Not tests/scaffolded_project.rs' `demo-operator`: cargo hashes a package's path relative
    // to its workspace root, so both projects built one library file in the shared target, and
    // a warm run's scaffolded project found this one's fresh and linked it (its conversion
    // test then waited for a webhook the library did not have).
    support::package_of_its_own(&dir, "edit-delete");
    let cache = |v: &'static str, k: &'static str| -> Vec<&'static str> {
        vec!["--group", "cache", "--version", v, "--kind", k]
    };
    let with = |cmd: &[&'static str], target: Vec<&'static str>, extra: &[&'static str]| {
        let mut args = cmd.to_vec();
        args.extend(target);
        args.extend_from_slice(extra);
        args
    };
    opgen(
        &dir,
        &with(
            &["create", "webhook"],
            cache("v1alpha1", "Memcached"),
            &["--defaulting", "--programmatic-validation"],
        ),
    );
    opgen(
        &dir,
        &with(
            &["create", "api"],
            cache("v1alpha1", "CacheCluster"),
            &["--namespaced=false"],
        ),
    );
    opgen(
        &dir,
        &with(
            &["create", "api"],
            cache("v1beta1", "CacheCluster"),
            &["--namespaced=false", "--controller=false"],
        ),
    );
    opgen(
        &dir,
        &with(
            &["create", "webhook"],
            cache("v1alpha1", "CacheCluster"),
            &["--conversion", "--spoke", "v1beta1"],
        ),
    );
    std::fs::write(dir.join("tests/registry.rs"), REGISTRY_TEST).unwrap();
    let generated = manifests(&dir);

    // 1. Into group directories, then a kind of a second group.
    opgen(&dir, &["edit", "--multigroup"]);
    assert_eq!(
        manifests(&dir),
        generated,
        "edit --multigroup changed the manifests"
    );
    assert!(
        dir.join("src/api/cache/v1alpha1/memcached_types.rs")
            .is_file()
    );
    assert!(
        dir.join("src/webhooks/cache/cache_cluster_conversion.rs")
            .is_file()
    );
    assert!(
        read(&dir, "tests/registry.rs")
            .contains("use demo_operator::controllers::{self, cache::memcached};")
    );
    opgen(
        &dir,
        &[
            "create",
            "api",
            "--group",
            "apps",
            "--version",
            "v1",
            "--kind",
            "Pipeline",
        ],
    );
    assert!(dir.join("src/api/apps/v1/pipeline_types.rs").is_file());
    assert!(dir.join("src/controllers/apps/pipeline.rs").is_file());
    cargo(&dir, &["test", "--locked"]);

    // 2. Every webhook, one version of the two-version kind, and the second group's kind.
    opgen(
        &dir,
        &with(&["delete", "webhook"], cache("v1alpha1", "Memcached"), &[]),
    );
    opgen(
        &dir,
        &with(
            &["delete", "webhook"],
            cache("v1alpha1", "CacheCluster"),
            &[],
        ),
    );
    let kustomization = read(&dir, "config/default/kustomization.yaml");
    assert!(
        kustomization.lines().any(|l| l == "#- ../webhook"),
        "{kustomization}"
    );
    opgen(
        &dir,
        &with(&["delete", "api"], cache("v1beta1", "CacheCluster"), &[]),
    );
    opgen(
        &dir,
        &[
            "delete",
            "api",
            "--group",
            "apps",
            "--version",
            "v1",
            "--kind",
            "Pipeline",
        ],
    );
    assert!(!dir.join("src/api/apps").exists());
    assert!(!dir.join("src/webhooks/cache").exists());
    let crd = read(
        &dir,
        "config/crd/bases/cache.example.com_cacheclusters.yaml",
    );
    assert!(
        !crd.contains("v1beta1") && !crd.contains("conversion:"),
        "{crd}"
    );
    opgen(&dir, &["manifests", "--check"]);
    cargo(&dir, &["test", "--locked"]);

    // 3. Back to one group: the manifests are as they were, less what was deleted.
    let generated = manifests(&dir);
    opgen(&dir, &["edit", "--multigroup=false"]);
    assert_eq!(
        manifests(&dir),
        generated,
        "edit --multigroup=false changed the manifests"
    );
    assert!(
        read(&dir, "tests/registry.rs")
            .contains("use demo_operator::controllers::{self, memcached};")
    );
    assert!(dir.join("src/controllers/memcached.rs").is_file());
    cargo(&dir, &["test", "--locked"]);
}
