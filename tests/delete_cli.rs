//! `opgen delete webhook`: undoes `create webhook` exactly, and refuses (writing nothing)
//! when the user edited what it would remove.

mod support;

use std::path::{Path, PathBuf};
use support::{opgen_err, opgen_ok, tree};

const KIND: &[&str] = &["--group", "cache", "--version", "v1", "--kind", "Memcached"];

fn with(cmd: &[&'static str], extra: &[&'static str]) -> Vec<&'static str> {
    let mut v = cmd.to_vec();
    v.extend_from_slice(KIND);
    v.extend_from_slice(extra);
    v
}

/// An initialized project with one API, and its tree before any webhook.
fn project_with_api() -> (
    tempfile::TempDir,
    std::collections::BTreeMap<PathBuf, String>,
) {
    let dir = tempfile::tempdir().unwrap();
    opgen_ok(
        dir.path(),
        &["init", "--domain", "example.com", "--project-name", "demo"],
    );
    opgen_ok(dir.path(), &with(&["create", "api"], &[]));
    let before = tree(dir.path());
    opgen_ok(
        dir.path(),
        &with(
            &["create", "webhook"],
            &["--defaulting", "--programmatic-validation"],
        ),
    );
    (dir, before)
}

fn read(dir: &Path, file: &str) -> String {
    std::fs::read_to_string(dir.join(file)).unwrap()
}

#[test]
fn delete_webhook_undoes_create_webhook() {
    let (dir, before) = project_with_api();
    let created = tree(dir.path());

    let out = opgen_ok(dir.path(), &with(&["--dry-run", "delete", "webhook"], &[]));
    assert_eq!(tree(dir.path()), created, "--dry-run changed the tree");
    for line in [
        "would remove src/webhooks/memcached.rs",
        "would remove tests/memcached_webhooks.rs",
        "would update src/webhooks/mod.rs",
        "would update PROJECT",
        "would update config/webhook/manifests.yaml",
    ] {
        assert!(out.lines().any(|l| l == line), "{line:?} not in:\n{out}");
    }

    opgen_ok(dir.path(), &with(&["delete", "webhook"], &[]));
    let after = tree(dir.path());
    for gone in ["src/webhooks/memcached.rs", "tests/memcached_webhooks.rs"] {
        assert!(
            !after.contains_key(Path::new(gone)),
            "{gone} is still there"
        );
    }
    // The registrations and PROJECT are exactly as before the webhook.
    for file in ["src/webhooks/mod.rs", "PROJECT"] {
        assert_eq!(
            after[Path::new(file)],
            before[Path::new(file)],
            "{file} differs from before create webhook"
        );
    }
    // No webhook left in the generated configuration.
    assert!(
        !read(dir.path(), "config/webhook/manifests.yaml").contains("memcached"),
        "{}",
        read(dir.path(), "config/webhook/manifests.yaml")
    );
    let out = opgen_ok(dir.path(), &["manifests", "--check"]);
    assert!(out.contains("up to date"), "{out}");

    let err = opgen_err(dir.path(), &with(&["delete", "webhook"], &[]));
    assert!(
        err.contains("cache.example.com/v1 Memcached has no webhooks in PROJECT"),
        "{err}"
    );
}

#[test]
fn delete_webhook_refuses_edited_files_and_lines_without_force() {
    let (dir, _) = project_with_api();
    let hook = dir.path().join("src/webhooks/memcached.rs");
    let mut edited = read(dir.path(), "src/webhooks/memcached.rs");
    edited.push_str("\n// my own notes\n");
    std::fs::write(&hook, &edited).unwrap();
    let snapshot = tree(dir.path());
    let err = opgen_err(dir.path(), &with(&["delete", "webhook"], &[]));
    assert!(
        err.contains("src/webhooks/memcached.rs was edited since opgen created it"),
        "{err}"
    );
    assert!(err.contains("pass --force"), "{err}");
    assert_eq!(
        tree(dir.path()),
        snapshot,
        "a refused delete changed the tree"
    );

    // An edited registration line is named too, with the lines opgen looked for.
    let registry = read(dir.path(), "src/webhooks/mod.rs");
    assert!(registry.contains("memcached::WEBHOOK,"), "{registry}");
    std::fs::write(
        dir.path().join("src/webhooks/mod.rs"),
        registry.replace("memcached::WEBHOOK,", "memcached::WEBHOOK, // mine"),
    )
    .unwrap();
    let snapshot = tree(dir.path());
    let err = opgen_err(dir.path(), &with(&["delete", "webhook"], &[]));
    assert!(
        err.contains("src/webhooks/mod.rs no longer holds the lines opgen inserted")
            && err.contains("memcached::WEBHOOK,"),
        "{err}"
    );
    assert_eq!(
        tree(dir.path()),
        snapshot,
        "a refused delete changed the tree"
    );

    // --force removes the edited file and leaves the edited line, with a warning.
    let out = support::opgen(dir.path(), &with(&["delete", "webhook"], &["--force"]));
    assert!(out.status.success());
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("remove them by hand"), "{stderr}");
    assert!(!hook.exists());
    assert!(read(dir.path(), "src/webhooks/mod.rs").contains("memcached::WEBHOOK, // mine"));
    assert!(!read(dir.path(), "PROJECT").contains("webhooks:"));
}

#[test]
fn delete_api_undoes_create_api_and_waits_for_the_webhook() {
    let (dir, _) = project_with_api();
    // The kind has webhooks: refused, nothing changed.
    let snapshot = tree(dir.path());
    let err = opgen_err(dir.path(), &with(&["delete", "api"], &[]));
    assert!(
        err.contains("cache.example.com/v1 Memcached still has webhooks")
            && err.contains("opgen delete webhook --group cache --version v1 --kind Memcached"),
        "{err}"
    );
    assert_eq!(
        tree(dir.path()),
        snapshot,
        "a refused delete changed the tree"
    );

    // A second kind in the same version, then deleted: the tree is as before it.
    let before = tree(dir.path());
    let backup = ["--group", "cache", "--version", "v1", "--kind", "Backup"];
    let mut create = vec!["create", "api"];
    create.extend_from_slice(&backup);
    opgen_ok(dir.path(), &create);
    assert!(
        dir.path()
            .join("config/crd/bases/cache.example.com_backups.yaml")
            .exists()
    );
    let mut delete = vec!["delete", "api"];
    delete.extend_from_slice(&backup);
    let out = opgen_ok(dir.path(), &delete);
    assert!(out.contains("8 removed"), "{out}");
    let after = tree(dir.path());
    assert_eq!(
        support::listing(&after),
        support::listing(&before),
        "files differ after create api + delete api"
    );
    assert_eq!(
        after, before,
        "contents differ after create api + delete api"
    );
    let out = opgen_ok(dir.path(), &["manifests", "--check"]);
    assert!(out.contains("up to date"), "{out}");
}
