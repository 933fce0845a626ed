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
        "would remove tests/envtest/memcached_webhooks.rs",
        "would update tests/envtest/main.rs",
        "would update src/webhooks/mod.rs",
        "would update PROJECT",
        // The last webhook: config/webhook goes, with what opgen generated in it.
        "would remove config/webhook/manifests.yaml",
        "would update config/default/kustomization.yaml",
    ] {
        assert!(out.lines().any(|l| l == line), "{line:?} not in:\n{out}");
    }

    opgen_ok(dir.path(), &with(&["delete", "webhook"], &[]));
    let after = tree(dir.path());
    for gone in [
        "src/webhooks/memcached.rs",
        "tests/envtest/memcached_webhooks.rs",
    ] {
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
    // No webhook configuration left.
    assert!(!dir.path().join("config/webhook").exists());
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
    // The edited file's content is gone: it is named (issue 24).
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        stdout.contains("removed src/webhooks/memcached.rs (removed (--force))"),
        "{stdout}"
    );
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
    assert!(out.contains("9 removed"), "{out}");
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

#[test]
fn refusals_point_at_the_edited_lines() {
    let (dir, _) = project_with_api();
    let hook = read(dir.path(), "src/webhooks/memcached.rs");
    let lines = hook.lines().count();
    std::fs::write(
        dir.path().join("src/webhooks/memcached.rs"),
        format!("{hook}// my own notes\n"),
    )
    .unwrap();
    let registry = read(dir.path(), "src/webhooks/mod.rs");
    let line = registry
        .lines()
        .position(|l| l.trim() == "memcached::WEBHOOK,")
        .unwrap()
        + 1;
    std::fs::write(
        dir.path().join("src/webhooks/mod.rs"),
        registry.replace("memcached::WEBHOOK,", "memcached::WEBHOOK, // mine"),
    )
    .unwrap();
    let err = opgen_err(dir.path(), &with(&["delete", "webhook"], &[]));
    let first_change = lines + 1;
    for want in [
        format!(
            "src/webhooks/memcached.rs was edited since opgen created it (first change at line {first_change})"
        ),
        format!("--> src/webhooks/memcached.rs:{first_change}:1"),
        format!("{first_change} | // my own notes"),
        "it looks edited here:".to_owned(),
        format!("--> src/webhooks/mod.rs:{line}:5"),
        format!("{line} |     memcached::WEBHOOK, // mine"),
    ] {
        assert!(err.contains(&want), "{want:?} not in:\n{err}");
    }
}

#[test]
fn deleting_the_last_webhook_switches_the_kustomize_parts_back_off() {
    let (dir, before) = project_with_api();
    let enabled = read(dir.path(), "config/default/kustomization.yaml");
    assert!(enabled.lines().any(|l| l == "- ../webhook"), "{enabled}");
    opgen_ok(dir.path(), &with(&["delete", "webhook"], &[]));
    let disabled = read(dir.path(), "config/default/kustomization.yaml");
    assert!(disabled.lines().any(|l| l == "#- ../webhook"), "{disabled}");
    assert!(
        disabled
            .lines()
            .any(|l| l == "#- path: manager_webhook_patch.yaml"),
        "{disabled}"
    );
    // Byte for byte the project before create webhook: the toggles, the network policy list,
    // the webhook and cert-manager config (unchanged, so removed) and the generated manifests.
    let after = tree(dir.path());
    assert_eq!(support::listing(&after), support::listing(&before));
    assert_eq!(
        after, before,
        "create webhook + delete webhook is not a round trip"
    );
}

#[test]
fn deleting_one_version_of_a_kind_keeps_a_storage_version() {
    let (dir, _) = project_with_api();
    opgen_ok(dir.path(), &with(&["delete", "webhook"], &[]));
    let before = tree(dir.path());
    let backup = |version: &'static str| -> Vec<&'static str> {
        vec!["--group", "cache", "--version", version, "--kind", "Backup"]
    };
    let run = |cmd: &[&'static str], target: Vec<&'static str>, extra: &[&'static str]| {
        let mut args = cmd.to_vec();
        args.extend(target);
        args.extend_from_slice(extra);
        opgen_ok(dir.path(), &args)
    };
    run(&["create", "api"], backup("v1"), &[]);
    run(&["create", "api"], backup("v2"), &["--controller=false"]);
    run(
        &["create", "webhook"],
        backup("v1"),
        &["--conversion", "--spoke", "v2"],
    );
    assert!(read(dir.path(), "src/api/v2/backup_types.rs").contains("storage = false"));

    // The conversion webhook converts to v2: v2 stays until it goes.
    let err = opgen_err(dir.path(), &{
        let mut a = vec!["delete", "api"];
        a.extend(backup("v2"));
        a
    });
    assert!(
        err.contains("is a spoke of the conversion webhook of version v1"),
        "{err}"
    );
    run(&["delete", "webhook"], backup("v1"), &[]);
    // The first version goes: the second, still as scaffolded, becomes the storage version.
    run(&["delete", "api"], backup("v1"), &[]);
    let types = read(dir.path(), "src/api/v2/backup_types.rs");
    assert!(!types.contains("storage"), "{types}");
    let crd = read(
        dir.path(),
        "config/crd/bases/cache.example.com_backups.yaml",
    );
    assert!(
        crd.contains("name: v2\n    schema:") && !crd.contains("name: v1\n"),
        "{crd}"
    );
    assert!(crd.contains("storage: true"), "{crd}");
    let out = opgen_ok(dir.path(), &["manifests", "--check"]);
    assert!(out.contains("up to date"), "{out}");
    // And the last one: the project is as before the kind.
    run(&["delete", "api"], backup("v2"), &[]);
    assert_eq!(tree(dir.path()), before, "the kind left something behind");
}

/// Issue 24: `delete api --force` names each edited file it removes, as the other commands
/// name the files they replace with --force; unedited ones are only counted.
#[test]
fn delete_api_force_names_the_edited_files_it_removes() {
    let dir = tempfile::tempdir().unwrap();
    opgen_ok(
        dir.path(),
        &["init", "--domain", "example.com", "--project-name", "demo"],
    );
    opgen_ok(dir.path(), &with(&["create", "api"], &[]));
    let types = dir.path().join("src/api/v1/memcached_types.rs");
    let mut text = read(dir.path(), "src/api/v1/memcached_types.rs");
    text.push_str("\nimpl Memcached {}\n");
    std::fs::write(&types, text).unwrap();
    let out = opgen_ok(dir.path(), &with(&["delete", "api"], &["--force"]));
    assert!(
        out.contains("removed src/api/v1/memcached_types.rs (removed (--force))"),
        "{out}"
    );
    assert!(
        !out.contains("removed src/controllers/memcached.rs"),
        "{out}"
    );
    assert!(!types.exists());
}

/// Issue 24: `delete api` refuses while the user's code still names a module it removes,
/// at file:line:col, and with --force deletes anyway, naming the uses.
#[test]
fn delete_api_refuses_while_user_code_uses_the_kinds_modules() {
    let dir = tempfile::tempdir().unwrap();
    opgen_ok(
        dir.path(),
        &["init", "--domain", "example.com", "--project-name", "demo"],
    );
    opgen_ok(dir.path(), &with(&["create", "api"], &[]));
    std::fs::create_dir_all(dir.path().join("examples")).unwrap();
    std::fs::write(
        dir.path().join("examples/user.rs"),
        "use demo::api::v1::memcached_types::Memcached;\nfn main() {\n    let _ = demo::controllers::memcached::CONTROLLER;\n}\n",
    )
    .unwrap();
    let snapshot = tree(dir.path());
    let err = opgen_err(dir.path(), &with(&["delete", "api"], &[]));
    for want in [
        "examples/user.rs:1:5",
        "examples/user.rs:3:13",
        "which this change removes",
        "pass --force",
    ] {
        assert!(err.contains(want), "expected {want:?} in:\n{err}");
    }
    assert_eq!(
        tree(dir.path()),
        snapshot,
        "a refused delete changed the tree"
    );

    let out = support::opgen(dir.path(), &with(&["delete", "api"], &["--force"]));
    assert!(out.status.success());
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("examples/user.rs:3:13"), "{stderr}");
    assert!(!dir.path().join("src/controllers/memcached.rs").exists());
}

/// Issue 24: a file whose only change is its line endings (CRLF) was refused "at line 88" of
/// an 87-line file, with an empty source line: the line endings are named, at a real line.
#[test]
fn a_line_ending_change_is_named_as_one() {
    let (dir, _) = project_with_api();
    let text = read(dir.path(), "src/webhooks/memcached.rs");
    std::fs::write(
        dir.path().join("src/webhooks/memcached.rs"),
        text.replace('\n', "\r\n"),
    )
    .unwrap();
    let snapshot = tree(dir.path());
    let err = opgen_err(dir.path(), &with(&["delete", "webhook"], &[]));
    let first = text.lines().next().unwrap();
    for want in [
        "src/webhooks/memcached.rs was edited since opgen created it (only its line endings: CRLF where opgen wrote LF, first at line 1)".to_owned(),
        "--> src/webhooks/memcached.rs:1:1".to_owned(),
        format!("1 | {first}"),
    ] {
        assert!(err.contains(&want), "{want:?} not in:\n{err}");
    }
    assert_eq!(
        tree(dir.path()),
        snapshot,
        "a refused delete changed the tree"
    );
}

/// Issue 24: a glob re-export (`pub use …::*`) hands the modules of what it names to code
/// opgen cannot follow: one that re-exports a module `delete api` removes is refused like an
/// explicit use (and named with --force), as is a glob of the removed module itself.
#[test]
fn delete_api_refuses_glob_reexports_of_the_kinds_modules() {
    let dir = tempfile::tempdir().unwrap();
    opgen_ok(
        dir.path(),
        &["init", "--domain", "example.com", "--project-name", "demo"],
    );
    opgen_ok(dir.path(), &with(&["create", "api"], &[]));
    // Another kind in v1: the version module stays, the Memcached modules go.
    let backup = [
        "create",
        "api",
        "--group",
        "cache",
        "--version",
        "v1",
        "--kind",
        "Backup",
    ];
    opgen_ok(dir.path(), &backup);
    let lib = read(dir.path(), "src/lib.rs");
    let line = lib.lines().count() + 1;
    std::fs::write(
        dir.path().join("src/lib.rs"),
        format!("{lib}pub use crate::api::v1::*;\npub(crate) use crate::controllers::*;\n"),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("tests/user.rs"),
        "use demo::api::v1::memcached_types::*;\n",
    )
    .unwrap();
    let snapshot = tree(dir.path());
    let err = opgen_err(dir.path(), &with(&["delete", "api"], &[]));
    for want in [
        format!(
            "`crate::api::v1::*` re-exports the module `api::v1::memcached_types`, which this change removes\n  --> src/lib.rs:{line}:9"
        ),
        format!(
            "`crate::controllers::*` re-exports the module `controllers::memcached`, which this change removes\n  --> src/lib.rs:{}:16",
            line + 1
        ),
        "tests/user.rs:1:5".to_owned(),
    ] {
        assert!(err.contains(&want), "expected {want:?} in:\n{err}");
    }
    assert_eq!(
        tree(dir.path()),
        snapshot,
        "a refused delete changed the tree"
    );

    let out = support::opgen(dir.path(), &with(&["delete", "api"], &["--force"]));
    assert!(out.status.success());
    let stderr = String::from_utf8(out.stderr).unwrap();
    for want in [
        format!("src/lib.rs:{line}:9"),
        format!("src/lib.rs:{}:16", line + 1),
    ] {
        assert!(stderr.contains(&want), "expected {want:?} in:\n{stderr}");
    }
    assert!(!dir.path().join("src/api/v1/memcached_types.rs").exists());
    assert!(dir.path().join("src/api/v1/backup_types.rs").exists());
}

/// Issue #23 item 21: one webhook of a kind goes, the others stay. The admission module both
/// hooks share is rewritten as `create webhook` writes it for the one left, with the user's
/// edits to that one kept; edits to the code that goes are refused (nothing written) unless
/// --force; the conversion goes with its files and CRD patch.
#[test]
fn delete_webhook_drops_only_the_webhooks_named() {
    let (dir, _) = project_with_api();
    let path = dir.path().join("src/webhooks/memcached.rs");
    let validation_todo =
        "        // TODO(user): fill in your validation logic upon object creation.\n";
    let my_check = "        // my own creation check\n";
    let edited =
        read(dir.path(), "src/webhooks/memcached.rs").replacen(validation_todo, my_check, 1);
    std::fs::write(&path, &edited).unwrap();
    opgen_ok(
        dir.path(),
        &[
            "create",
            "api",
            "--group",
            "cache",
            "--version",
            "v2",
            "--kind",
            "Memcached",
            "--controller=false",
        ],
    );
    opgen_ok(
        dir.path(),
        &with(&["create", "webhook"], &["--conversion", "--spoke", "v2"]),
    );

    // The defaulting code edited too: refused, and nothing changes.
    let defaulting_todo = "        // TODO(user): fill in your defaulting logic.\n";
    let both_edited = edited.replacen(defaulting_todo, "        // my own default\n", 1);
    std::fs::write(&path, &both_edited).unwrap();
    let before = tree(dir.path());
    let err = opgen_err(dir.path(), &with(&["delete", "webhook"], &["--defaulting"]));
    assert!(
        err.contains(
            "src/webhooks/memcached.rs: your edits overlap the code of the webhook being deleted"
        ),
        "{err}"
    );
    assert_eq!(tree(dir.path()), before);

    // Without that edit, the defaulting hook goes and the validation edit stays.
    std::fs::write(&path, &edited).unwrap();
    opgen_ok(dir.path(), &with(&["delete", "webhook"], &["--defaulting"]));
    let hooks = read(dir.path(), "src/webhooks/memcached.rs");
    assert!(hooks.contains(my_check), "{hooks}");
    assert!(!hooks.contains("Defaulter"), "{hooks}");
    // It is what create webhook writes for validation alone, with the user's edit.
    let fresh = tempfile::tempdir().unwrap();
    opgen_ok(
        fresh.path(),
        &["init", "--domain", "example.com", "--project-name", "demo"],
    );
    opgen_ok(fresh.path(), &with(&["create", "api"], &[]));
    opgen_ok(
        fresh.path(),
        &with(&["create", "webhook"], &["--programmatic-validation"]),
    );
    assert_eq!(
        hooks,
        read(fresh.path(), "src/webhooks/memcached.rs").replacen(validation_todo, my_check, 1)
    );
    let project = read(dir.path(), "PROJECT");
    assert!(
        !project.contains("defaulting: true") && project.contains("validation: true"),
        "{project}"
    );
    let configurations = read(dir.path(), "config/webhook/manifests.yaml");
    assert!(
        !configurations.contains("MutatingWebhookConfiguration")
            && configurations.contains("ValidatingWebhookConfiguration"),
        "{configurations}"
    );

    // The conversion goes alone.
    assert!(
        dir.path()
            .join("src/webhooks/memcached_conversion.rs")
            .is_file()
    );
    opgen_ok(dir.path(), &with(&["delete", "webhook"], &["--conversion"]));
    assert!(
        !dir.path()
            .join("src/webhooks/memcached_conversion.rs")
            .exists()
    );
    assert_eq!(read(dir.path(), "src/webhooks/memcached.rs"), hooks);
    let project = read(dir.path(), "PROJECT");
    assert!(
        !project.contains("conversion: true") && !project.contains("spoke"),
        "{project}"
    );
    assert!(!read(dir.path(), "config/crd/kustomization.yaml").contains("patches:"));

    let err = opgen_err(dir.path(), &with(&["delete", "webhook"], &["--conversion"]));
    assert!(
        err.contains("cache.example.com/v1 Memcached has no conversion webhook")
            && err.contains("its webhooks: validating"),
        "{err}"
    );
    opgen_ok(dir.path(), &["manifests", "--check"]);
}
