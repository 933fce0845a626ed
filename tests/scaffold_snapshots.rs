//! Snapshots (insta) of everything opgen writes: the whole tree after `init`, after `init` +
//! `create api` for a namespaced and a cluster-scoped kind, and for a multigroup project.
//! Review changes with `cargo insta review`.

mod support;

use serde_json::json;
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use support::{listing, opgen_ok, tree};

/// One document with every file of the tree, for a reviewable snapshot.
/// Every file's content, except the byte copies of opgen's own envtest and runtime crates
/// and setup script (`vendored_crates_are_copies_of_the_workspace_crates` checks those).
fn dump(tree: &BTreeMap<PathBuf, String>) -> String {
    let mut out = String::new();
    for (path, content) in tree {
        // Data opgen copies verbatim, each checked by a test of its own
        // (Cargo.lock: tests/scaffold_lock.rs).
        if content == "<dir>"
            || path.starts_with("vendor/opgen-envtest")
            || path.starts_with("vendor/opgen-runtime")
            || path == Path::new("Cargo.lock")
            || path == Path::new("hack/setup-envtest.sh")
        {
            continue;
        }
        out.push_str(&format!("=== {} ===\n{content}", path.display()));
        if !content.ends_with('\n') {
            out.push('\n');
        }
    }
    out
}

fn project(args: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let mut init = vec![
        "init",
        "--domain",
        "example.com",
        "--repo",
        "github.com/example/memcached-operator",
        "--project-name",
        "memcached-operator",
    ];
    init.extend_from_slice(args);
    opgen_ok(dir.path(), &init);
    dir
}

fn create(dir: &Path, group: &str, version: &str, kind: &str, extra: &[&str]) {
    let mut args = vec![
        "create",
        "api",
        "--group",
        group,
        "--version",
        version,
        "--kind",
        kind,
    ];
    args.extend_from_slice(extra);
    opgen_ok(dir, &args);
}

#[test]
fn init_tree() {
    let dir = project(&[]);
    let t = tree(dir.path());
    insta::assert_snapshot!("init_listing", listing(&t));
    insta::assert_snapshot!("init_files", dump(&t));
}

/// The scaffolded CI runs make targets, so a user can run each of its checks locally: every
/// `run:` step of the workflow is `make <target>` of a target the Makefile declares.
#[test]
fn the_ci_workflow_runs_targets_of_the_makefile() {
    let dir = project(&[]);
    let workflow = std::fs::read_to_string(dir.path().join(".github/workflows/ci.yml")).unwrap();
    let makefile = std::fs::read_to_string(dir.path().join("Makefile")).unwrap();
    let targets: Vec<&str> = workflow
        .lines()
        .filter_map(|l| l.trim().strip_prefix("- run: "))
        .map(|run| {
            run.strip_prefix("make ")
                .unwrap_or_else(|| panic!("a CI step is not a make target: {run}"))
        })
        .collect();
    assert_eq!(
        targets,
        ["lint", "verify-manifests", "lint-api", "verify-api", "test"]
    );
    for target in targets {
        assert!(
            makefile.contains(&format!("\n.PHONY: {target}\n{target}:")),
            "the Makefile has no target {target}"
        );
    }
}

#[test]
fn init_and_two_kinds_tree() {
    let dir = project(&[]);
    create(dir.path(), "cache", "v1alpha1", "Memcached", &[]);
    create(
        dir.path(),
        "cache",
        "v1alpha1",
        "CacheCluster",
        &["--namespaced=false"],
    );
    let t = tree(dir.path());
    insta::assert_snapshot!("two_kinds_listing", listing(&t));
    insta::assert_snapshot!("two_kinds_files", dump(&t));
}

#[test]
fn namespaced_manager_tree() {
    let dir = project(&["--namespaced", "--license", "none"]);
    create(dir.path(), "cache", "v1alpha1", "Memcached", &[]);
    let t = tree(dir.path());
    // Only what differs from a cluster-wide manager: RBAC, the Deployment and the controller.
    let selected: BTreeMap<PathBuf, String> = t
        .into_iter()
        .filter(|(p, _)| {
            let p = p.to_string_lossy();
            p == "PROJECT"
                || p == "Makefile"
                || p.starts_with("config/rbac/role")
                || p == "config/manager/manager.yaml"
                || p == "src/controllers/memcached.rs"
                || p == "tests/envtest/memcached_controller.rs"
        })
        .collect();
    insta::assert_snapshot!("namespaced_files", dump(&selected));
}

/// Every file under `vendor/<name>` of the project tree `t` equals the crate's file in
/// `crates/<name>`, and they are its Cargo.toml and every file of its src/.
fn assert_vendored_copy(t: &BTreeMap<PathBuf, String>, name: &str) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let crate_dir = root.join("crates").join(name);
    let mut copied = 0;
    for (path, content) in t {
        let Ok(rel) = path.strip_prefix(Path::new("vendor").join(name)) else {
            continue;
        };
        if content == "<dir>" {
            continue;
        }
        let original = std::fs::read_to_string(crate_dir.join(rel)).unwrap();
        assert_eq!(content, &original, "{}", path.display());
        copied += 1;
    }
    let sources = walkdir::WalkDir::new(crate_dir.join("src"))
        .into_iter()
        .filter(|entry| entry.as_ref().unwrap().file_type().is_file())
        .count();
    assert_eq!(
        copied,
        sources + 1,
        "{name}: Cargo.toml and every file of src/"
    );
}

#[test]
fn vendored_crates_are_copies_of_the_workspace_crates() {
    let dir = project(&[]);
    let t = tree(dir.path());
    assert_vendored_copy(&t, "opgen-envtest");
    assert_vendored_copy(&t, "opgen-runtime");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    assert_eq!(
        t[Path::new("hack/setup-envtest.sh")],
        std::fs::read_to_string(root.join("tools/envtest/setup.sh")).unwrap()
    );
    // The project asks for the crates by version, as for published ones, and one
    // `[patch.crates-io]` table points both at the copies: deleting it is all that switching
    // to the published crates takes.
    let toml = |text: &str| -> serde_json::Value {
        serde_json::to_value(text.parse::<toml::Table>().unwrap()).unwrap()
    };
    let manifest = toml(&t[Path::new("Cargo.toml")]);
    assert_eq!(manifest["dependencies"]["opgen-runtime"], json!("0.1"));
    assert_eq!(
        manifest["dev-dependencies"]["opgen-runtime"],
        json!({ "version": "0.1", "features": ["testing"] })
    );
    assert_eq!(manifest["dev-dependencies"]["opgen-envtest"], json!("0.1"));
    assert_eq!(
        manifest["patch"],
        json!({ "crates-io": {
            "opgen-runtime": { "path": "vendor/opgen-runtime" },
            "opgen-envtest": { "path": "vendor/opgen-envtest" },
        }})
    );
    for name in ["opgen-runtime", "opgen-envtest"] {
        let vendored = toml(&t[&Path::new("vendor").join(name).join("Cargo.toml")]);
        assert_eq!(
            vendored["package"]["version"],
            json!("0.1.0"),
            "{name}: 0.1 takes it"
        );
    }
}

#[test]
fn multigroup_tree() {
    let dir = project(&["--multigroup"]);
    create(dir.path(), "cache", "v1alpha1", "Memcached", &[]);
    create(dir.path(), "web", "v1", "Site", &[]);
    let t = tree(dir.path());
    insta::assert_snapshot!("multigroup_listing", listing(&t));
    let selected: BTreeMap<PathBuf, String> = t
        .into_iter()
        .filter(|(p, _)| {
            let p = p.to_string_lossy();
            p == "PROJECT"
                || p.starts_with("src/api/")
                || p.ends_with("mod.rs")
                || p.starts_with("config/rbac/kustomization")
                || p.starts_with("config/samples/kustomization")
                || p.starts_with("config/crd/kustomization")
        })
        .collect();
    insta::assert_snapshot!("multigroup_files", dump(&selected));
}

/// Issue #23 item 7: `opgen new` makes the project a git repository, as `cargo new` does
/// (`make verify-manifests` compares with git), but not inside an existing one, nor with
/// `--vcs none`.
#[test]
fn new_initialises_git_as_cargo_new_does() {
    let parent = tempfile::tempdir().unwrap();
    opgen_ok(parent.path(), &["new", "alone", "--domain", "example.com"]);
    let alone = parent.path().join("alone");
    let top = std::process::Command::new("git")
        .args(["rev-parse", "--show-toplevel"])
        .current_dir(&alone)
        .output()
        .unwrap();
    assert!(top.status.success(), "{top:?}");
    assert_eq!(
        Path::new(String::from_utf8_lossy(&top.stdout).trim()),
        alone.canonicalize().unwrap()
    );
    // Inside that repository, a second project is a folder of it.
    opgen_ok(&alone, &["new", "nested", "--domain", "example.com"]);
    assert!(!alone.join("nested/.git").exists());
    opgen_ok(
        parent.path(),
        &["new", "plain", "--domain", "example.com", "--vcs", "none"],
    );
    assert!(parent.path().join("plain/Cargo.toml").exists());
    assert!(!parent.path().join("plain/.git").exists());
}

#[test]
fn new_equals_init_plus_create_api() {
    let parent = tempfile::tempdir().unwrap();
    opgen_ok(
        parent.path(),
        &[
            "new",
            "memcached-operator",
            "--domain",
            "example.com",
            "--repo",
            "github.com/example/memcached-operator",
            "--group",
            "cache",
            "--version",
            "v1alpha1",
            "--kind",
            "Memcached",
        ],
    );
    let stepwise = project(&[]);
    create(stepwise.path(), "cache", "v1alpha1", "Memcached", &[]);
    assert_eq!(
        tree(&parent.path().join("memcached-operator")),
        tree(stepwise.path())
    );
}

#[test]
fn webhook_files() {
    let dir = project(&[]);
    create(dir.path(), "cache", "v1alpha1", "Memcached", &[]);
    opgen_ok(
        dir.path(),
        &[
            "create",
            "webhook",
            "--group",
            "cache",
            "--version",
            "v1alpha1",
            "--kind",
            "Memcached",
            "--defaulting",
        ],
    );
    let t = tree(dir.path());
    let selected: BTreeMap<PathBuf, String> = t
        .into_iter()
        .filter(|(p, _)| {
            let p = p.to_string_lossy();
            p.starts_with("src/webhooks/")
                || p.ends_with("_webhooks.rs")
                || p == "tests/envtest/main.rs"
                || p.ends_with("_conversion.rs")
                || p.starts_with("config/webhook/")
                || p.starts_with("config/certmanager/")
                || p.starts_with("config/default/")
                || p.starts_with("config/network-policy/")
        })
        .collect();
    insta::assert_snapshot!("webhook_files", dump(&selected));
}

#[test]
fn a_project_inside_another_cargo_workspace_stays_out_of_it_unless_listed() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join("Cargo.toml"),
        "[workspace]\nmembers = [\"operators/*\"]\nresolver = \"3\"\n",
    )
    .unwrap();
    opgen_ok(
        dir.path(),
        &["new", "tools/demo", "--domain", "example.com"],
    );
    let manifest = fs::read_to_string(dir.path().join("tools/demo/Cargo.toml")).unwrap();
    assert!(
        manifest.ends_with("of Cargo.lock.\n[workspace]\nexclude = [\"vendor\"]\n"),
        "{manifest}"
    );
    // Cargo accepts the project as it is (without the table it refuses to read it at all), and
    // the Cargo.lock init wrote fits it: the vendored crates are not members, so their
    // dev-dependencies are not resolved. Not `--offline`: metadata reads the manifest of every
    // locked crate, other platforms' too (anstyle-wincon), which a fresh machine has not
    // downloaded.
    let out = std::process::Command::new("cargo")
        .args(["metadata", "--locked", "--format-version", "1"])
        .current_dir(dir.path().join("tools/demo"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    opgen_ok(
        dir.path(),
        &["new", "operators/listed", "--domain", "example.com"],
    );
    let manifest = fs::read_to_string(dir.path().join("operators/listed/Cargo.toml")).unwrap();
    assert!(!manifest.contains("[workspace]"), "{manifest}");
}
