//! `opgen manifests` as a user runs it: check mode for CI, writes only on change, helper
//! roles and kustomizations kept in step with PROJECT.

mod support;

use std::fs;
use support::{opgen_err, opgen_ok, tree};

fn project_with_memcached() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    opgen_ok(
        dir.path(),
        &["init", "--domain", "example.com", "--project-name", "demo"],
    );
    opgen_ok(
        dir.path(),
        &[
            "create",
            "api",
            "--group",
            "cache",
            "--version",
            "v1alpha1",
            "--kind",
            "Memcached",
        ],
    );
    dir
}

#[test]
fn check_mode_lists_stale_files_and_writes_nothing() {
    let dir = project_with_memcached();
    assert_eq!(
        opgen_ok(dir.path(), &["manifests", "--check"]),
        "manifests are up to date\n"
    );

    let types = dir.path().join("src/api/v1alpha1/memcached_types.rs");
    let text = fs::read_to_string(&types).unwrap();
    let edited = text.replace(
        "    pub foo: Option<String>,\n",
        "    pub foo: Option<String>,\n    /// size is the number of replicas.\n    // +kubebuilder:validation:Minimum=1\n    #[serde(default)]\n    pub size: i32,\n",
    );
    assert_ne!(edited, text);
    fs::write(&types, edited).unwrap();

    let before = tree(dir.path());
    let stderr = opgen_err(dir.path(), &["manifests", "--check"]);
    assert!(stderr.contains("1 manifest file(s) are out of date:\n  config/crd/bases/cache.example.com_memcacheds.yaml"), "{stderr}");
    assert!(stderr.contains("run `opgen manifests`"), "{stderr}");
    assert_eq!(tree(dir.path()), before);

    let out = opgen_ok(dir.path(), &["manifests", "-v"]);
    assert!(
        out.contains("updated config/crd/bases/cache.example.com_memcacheds.yaml"),
        "{out}"
    );
    let crd = fs::read_to_string(
        dir.path()
            .join("config/crd/bases/cache.example.com_memcacheds.yaml"),
    )
    .unwrap();
    assert!(crd.contains("size:\n                description: size is the number of replicas.\n                format: int32\n                minimum: 1\n"), "{crd}");
    // A second run changes nothing.
    assert!(opgen_ok(dir.path(), &["manifests"]).ends_with("0 created, 0 updated\n"));
}

#[test]
fn helper_roles_and_kustomization_follow_the_kind() {
    let dir = project_with_memcached();
    let types = dir.path().join("src/api/v1alpha1/memcached_types.rs");
    let text = fs::read_to_string(&types).unwrap();
    fs::write(
        &types,
        text.replace("plural = \"memcacheds\"", "plural = \"caches\""),
    )
    .unwrap();
    let rbac_kustomization = dir.path().join("config/rbac/kustomization.yaml");
    let k = fs::read_to_string(&rbac_kustomization).unwrap();
    fs::write(
        &rbac_kustomization,
        k.replace("- memcached_viewer_role.yaml\n", ""),
    )
    .unwrap();

    opgen_ok(dir.path(), &["manifests"]);
    let editor =
        fs::read_to_string(dir.path().join("config/rbac/memcached_editor_role.yaml")).unwrap();
    assert!(
        editor.contains("  - caches\n") && editor.contains("  - caches/status\n"),
        "{editor}"
    );
    assert!(!editor.contains("memcacheds"), "{editor}");
    let k = fs::read_to_string(&rbac_kustomization).unwrap();
    assert!(
        k.contains("- memcached_viewer_role.yaml\n# +opgen:scaffold:rbac-helper-roles"),
        "{k}"
    );
    assert!(
        dir.path()
            .join("config/crd/bases/cache.example.com_caches.yaml")
            .is_file()
    );
    let crd_k = fs::read_to_string(dir.path().join("config/crd/kustomization.yaml")).unwrap();
    assert!(
        crd_k.contains("- bases/cache.example.com_caches.yaml"),
        "{crd_k}"
    );
}

#[test]
fn a_broken_types_file_fails_with_its_location_and_writes_nothing() {
    let dir = project_with_memcached();
    let types = dir.path().join("src/api/v1alpha1/memcached_types.rs");
    let text = fs::read_to_string(&types).unwrap();
    fs::write(
        &types,
        text.replace("// +optional", "// +kubebuilder:validation:MinLenght=1"),
    )
    .unwrap();
    let before = tree(dir.path());
    let stderr = opgen_err(dir.path(), &["manifests"]);
    assert!(
        stderr.contains("unknown marker `kubebuilder:validation:MinLenght`"),
        "{stderr}"
    );
    assert!(
        stderr.contains("--> src/api/v1alpha1/memcached_types.rs:"),
        "{stderr}"
    );
    assert!(
        stderr.contains("did you mean `kubebuilder:validation:MinLength`"),
        "{stderr}"
    );
    assert_eq!(tree(dir.path()), before);
}

#[test]
fn markers_command_explains_a_marker() {
    let dir = tempfile::tempdir().unwrap();
    let out = opgen_ok(dir.path(), &["markers", "kubebuilder:validation:MaxLength"]);
    assert!(
        out.starts_with("+kubebuilder:validation:MaxLength\n  Maximum length of a string."),
        "{out}"
    );
    assert!(out.contains("value: an integer"), "{out}");
    let all = opgen_ok(dir.path(), &["markers"]);
    assert!(all.lines().count() > 60, "{all}");
    let err = opgen_err(dir.path(), &["markers", "kubebuilder:validation:Maxlenght"]);
    assert!(err.contains("did you mean"), "{err}");
}
