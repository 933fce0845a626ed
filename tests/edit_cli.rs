//! `opgen edit`: `--multigroup` turns a single-group project into exactly what `init
//! --multigroup` and the same `create` commands would have made but for the samples, which are
//! the user's (and `=false` back), and the project still builds; it keeps
//! edited files with their paths rewritten, refuses what it cannot rewrite with its place, and
//! changes no manifest. `--license`/`--owner` change the header of later files.

mod support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use support::{opgen_err, opgen_ok, tree};

/// init (with `init_flags`), two kinds of one group with a webhook each (defaulting, and a
/// conversion between two versions of the second kind).
fn project(parent: &Path, name: &str, init_flags: &[&str]) -> PathBuf {
    let dir = parent.join(name);
    std::fs::create_dir(&dir).unwrap();
    let mut init = vec!["init", "--domain", "example.com", "--project-name", "demo"];
    init.extend_from_slice(init_flags);
    opgen_ok(&dir, &init);
    let kind = |v: &'static str, k: &'static str| ["--group", "cache", "--version", v, "--kind", k];
    let run = |cmd: &[&str], target: [&str; 6], extra: &[&str]| {
        let mut args = cmd.to_vec();
        args.extend_from_slice(&target);
        args.extend_from_slice(extra);
        opgen_ok(&dir, &args);
    };
    run(&["create", "api"], kind("v1", "Memcached"), &[]);
    run(&["create", "api"], kind("v1", "Backup"), &[]);
    run(
        &["create", "webhook"],
        kind("v1", "Memcached"),
        &["--defaulting"],
    );
    run(
        &["create", "api"],
        kind("v2", "Backup"),
        &["--controller=false"],
    );
    run(
        &["create", "webhook"],
        kind("v1", "Backup"),
        &["--conversion", "--spoke", "v2"],
    );
    dir
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

#[test]
fn multigroup_makes_what_a_multigroup_project_has_and_back() {
    let parent = tempfile::tempdir().unwrap();
    let single = project(parent.path(), "single", &[]);
    let multi = project(parent.path(), "multi", &["--multigroup"]);
    let before = tree(&single);
    let generated = manifests(&single);

    let out = opgen_ok(&single, &["edit", "--multigroup", "--dry-run"]);
    assert_eq!(tree(&single), before, "--dry-run changed the tree");
    for line in [
        "would remove src/api/v1/memcached_types.rs",
        "would create src/api/cache/v1/memcached_types.rs",
        "would create src/api/cache/mod.rs",
        "would update src/api/mod.rs",
        "would remove src/controllers/memcached.rs",
        "would create src/controllers/cache/memcached.rs",
        "would create src/webhooks/cache/backup_conversion.rs",
        "would remove tests/envtest/memcached_webhooks.rs",
        "would create tests/envtest/cache_memcached_webhooks.rs",
        "would update tests/envtest/main.rs",
        "would remove config/rbac/memcached_admin_role.yaml",
        "would create config/rbac/cache_memcached_admin_role.yaml",
        "would update config/rbac/kustomization.yaml",
        "would update PROJECT",
    ] {
        assert!(out.lines().any(|l| l == line), "{line:?} not in:\n{out}");
    }

    let out = opgen_ok(&single, &["edit", "--multigroup", "-v"]);
    assert!(out.contains("25 created, 9 updated, 22 removed"), "{out}");
    // The unedited samples' TODO comments follow the types files; no CRD is rewritten.
    assert!(out.contains("updated config/samples/"), "{out}");
    assert!(!out.contains("config/crd"), "{out}");
    let after = tree(&single);
    assert_eq!(
        support::listing(&after),
        support::listing(&tree(&multi)),
        "files differ from a multigroup project's"
    );
    assert_eq!(
        after,
        tree(&multi),
        "contents differ from a multigroup project's"
    );
    assert_eq!(manifests(&single), generated, "the manifests changed");
    assert!(read(&single, "PROJECT").contains("multigroup: true\n"));
    assert!(read(&single, "PROJECT").contains("path: demo::api::cache::v2\n"));
    support::project_cargo_ok(
        &support::stable_copy_for_this_test(&single),
        &["check", "--all-targets", "--locked", "--quiet"],
    );

    let out = opgen_ok(&single, &["edit", "--multigroup=false"]);
    assert!(out.contains("22 created, 9 updated, 25 removed"), "{out}");
    assert_eq!(
        tree(&single),
        before,
        "edit --multigroup=false is not the way back"
    );

    // Again: a warning, and nothing to do.
    let out = support::opgen(&single, &["edit", "--multigroup=false"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("already single-group"));
    assert_eq!(tree(&single), before);
}

#[test]
fn edited_files_move_with_their_paths_rewritten() {
    let parent = tempfile::tempdir().unwrap();
    let dir = project(parent.path(), "p", &[]);
    // A module of the user's that names the moved ones in every way opgen resolves.
    let lib =
        read(&dir, "src/lib.rs").replace("pub mod webhooks;", "pub mod webhooks;\npub mod util;");
    std::fs::write(dir.join("src/lib.rs"), lib).unwrap();
    let util = "use crate::api::v1::{Memcached, MemcachedSpec};\nuse crate::controllers::{self, memcached};\n\npub fn names() -> Vec<&'static str> {\n    let _ = crate::api::v2::BackupSpec::default();\n    vec![memcached::CONTROLLER.name, controllers::backup::CONTROLLER.name, std::any::type_name::<(Memcached, MemcachedSpec)>()]\n}\n";
    std::fs::write(dir.join("src/util.rs"), util).unwrap();
    // An edited controller: its relative path to the registry must still lead there.
    let controller = read(&dir, "src/controllers/memcached.rs")
        + "\npub fn count() -> usize {\n    super::CONTROLLERS.len()\n}\n";
    std::fs::write(dir.join("src/controllers/memcached.rs"), &controller).unwrap();
    let test = "use demo::api::v1::Memcached;\nuse demo::controllers;\n\n#[test]\nfn registered() {\n    assert_eq!(controllers::memcached::CONTROLLER.name, \"memcached\");\n    let _ = std::any::type_name::<Memcached>();\n}\n";
    std::fs::write(dir.join("tests/mine.rs"), test).unwrap();

    opgen_ok(&dir, &["edit", "--multigroup"]);
    assert_eq!(
        read(&dir, "src/util.rs"),
        "use crate::api::cache::v1::{Memcached, MemcachedSpec};\nuse crate::controllers::{self, cache::memcached};\n\npub fn names() -> Vec<&'static str> {\n    let _ = crate::api::cache::v2::BackupSpec::default();\n    vec![memcached::CONTROLLER.name, controllers::cache::backup::CONTROLLER.name, std::any::type_name::<(Memcached, MemcachedSpec)>()]\n}\n"
    );
    let moved = read(&dir, "src/controllers/cache/memcached.rs");
    assert_eq!(
        moved,
        controller
            .replace("use crate::api::v1::", "use crate::api::cache::v1::")
            .replace(
                "super::CONTROLLERS.len()",
                "crate::controllers::CONTROLLERS.len()"
            ),
        "the edited controller moved with exactly its paths rewritten"
    );
    assert!(!dir.join("src/controllers/memcached.rs").exists());
    assert_eq!(
        read(&dir, "tests/mine.rs"),
        test.replace("demo::api::v1", "demo::api::cache::v1")
            .replace(
                "controllers::memcached::",
                "controllers::cache::memcached::"
            )
    );
    // A later kind of another group lands in the group layout.
    support::create_api(&dir, "apps", "v1", "Pipeline");
    for file in [
        "src/api/apps/v1/pipeline_types.rs",
        "src/controllers/apps/pipeline.rs",
        "tests/envtest/apps_pipeline_controller.rs",
        "config/rbac/apps_pipeline_admin_role.yaml",
    ] {
        assert!(dir.join(file).is_file(), "{file} was not created");
    }
    assert!(read(&dir, "src/api/mod.rs").contains("pub mod apps;\npub mod cache;\n"));

    // Two groups cannot go back to one; nothing changes.
    let snapshot = tree(&dir);
    let err = opgen_err(&dir, &["edit", "--multigroup=false"]);
    assert!(
        err.contains(
            "a single-group project holds one API group, and this one has \"apps\", \"cache\""
        ),
        "{err}"
    );
    assert!(err.contains("opgen delete api"), "{err}");
    assert_eq!(tree(&dir), snapshot);
    // The rewritten paths compile.
    support::project_cargo_ok(
        &support::stable_copy_for_this_test(&dir),
        &["check", "--all-targets", "--locked", "--quiet"],
    );
}

#[test]
fn a_path_it_cannot_resolve_is_refused_at_its_place() {
    let parent = tempfile::tempdir().unwrap();
    let dir = project(parent.path(), "p", &[]);
    let lib =
        read(&dir, "src/lib.rs").replace("pub mod webhooks;", "pub mod webhooks;\npub mod util;");
    std::fs::write(dir.join("src/lib.rs"), lib).unwrap();
    // Through a glob of a module that is not opgen's, `v1` cannot be told apart.
    std::fs::write(
        dir.join("src/util.rs"),
        "use some_crate::*;\n\npub fn f() {\n    let _ = v1::Memcached::default();\n}\n",
    )
    .unwrap();
    let snapshot = tree(&dir);
    let err = opgen_err(&dir, &["edit", "--multigroup"]);
    assert!(
        err.contains("cannot tell which module `v1::Memcached::default` names"),
        "{err}"
    );
    assert!(err.contains("--> src/util.rs:4:13"), "{err}");
    assert!(err.contains("write the path from the crate root"), "{err}");
    assert_eq!(tree(&dir), snapshot, "a refused edit changed the tree");

    let out = opgen_err(&dir, &["edit"]);
    assert!(out.contains("nothing to edit"), "{out}");
}

#[test]
fn license_and_owner_change_the_header_of_later_files() {
    let dir = tempfile::tempdir().unwrap();
    opgen_ok(
        dir.path(),
        &["init", "--domain", "example.com", "--project-name", "demo"],
    );
    let types_before = tree(dir.path());

    opgen_ok(dir.path(), &["edit", "--owner", "Example Corp"]);
    assert!(
        read(dir.path(), "hack/boilerplate.rs.txt")
            .starts_with("// Copyright YEAR Example Corp.\n"),
        "{}",
        read(dir.path(), "hack/boilerplate.rs.txt")
    );
    // Existing files keep their header.
    assert_eq!(
        read(dir.path(), "src/lib.rs"),
        types_before[Path::new("src/lib.rs")]
    );
    support::create_api(dir.path(), "cache", "v1", "Memcached");
    assert!(
        read(dir.path(), "src/api/v1/memcached_types.rs")
            .starts_with("// Copyright 2026 Example Corp.\n")
    );

    opgen_ok(dir.path(), &["edit", "--license", "none"]);
    assert!(!dir.path().join("hack/boilerplate.rs.txt").exists());
    support::create_api(dir.path(), "cache", "v1", "Backup");
    assert!(
        read(dir.path(), "src/api/v1/backup_types.rs").starts_with("//! The `Backup` kind.\n"),
        "{}",
        read(dir.path(), "src/api/v1/backup_types.rs")
    );

    let err = opgen_err(dir.path(), &["edit", "--license", "none", "--owner", "Me"]);
    assert!(err.contains("--license none has none"), "{err}");
}

#[test]
fn edit_and_delete_have_their_help() {
    let dir = tempfile::tempdir().unwrap();
    for (args, wants) in [
        (
            &["edit", "--help"][..],
            &[
                "--multigroup [<BOOL>]",
                "--license <LICENSE>",
                "--owner <OWNER>",
                "--dry-run",
                "opgen edit --multigroup=false",
            ][..],
        ),
        (
            &["delete", "api", "--help"][..],
            &["--group <GROUP>", "--force", "--dry-run"][..],
        ),
        (
            &["delete", "webhook", "--help"][..],
            &["--group <GROUP>", "--force", "--dry-run"][..],
        ),
    ] {
        let out = opgen_ok(dir.path(), args);
        for want in wants {
            assert!(out.contains(want), "{args:?}: {want:?} not in:\n{out}");
        }
    }
}

/// init + one kind, for the issue-24 cases below.
fn small(parent: &Path, name: &str) -> PathBuf {
    let dir = parent.join(name);
    std::fs::create_dir(&dir).unwrap();
    opgen_ok(
        &dir,
        &["init", "--domain", "example.com", "--project-name", "demo"],
    );
    support::create_api(&dir, "cache", "v1", "Memcached");
    dir
}

fn append(dir: &Path, file: &str, text: &str) -> usize {
    let path = dir.join(file);
    let old = std::fs::read_to_string(&path).unwrap_or_default();
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, format!("{old}{text}")).unwrap();
    old.lines().count() + 1
}

/// Issue 24: `$crate::` in macro bodies, `::demo::` and an `extern crate demo as op;` alias
/// in tests/ name moved modules too: rewritten.
#[test]
fn multigroup_rewrites_dollar_crate_leading_colons_and_crate_aliases() {
    let parent = tempfile::tempdir().unwrap();
    let dir = small(parent.path(), "p");
    append(
        &dir,
        "src/lib.rs",
        "#[macro_export]\nmacro_rules! memcached {\n    () => {\n        $crate::api::v1::Memcached::default()\n    };\n}\n",
    );
    append(
        &dir,
        "tests/user.rs",
        "extern crate demo as op;\nuse ::demo::api::v1::MemcachedSpec;\nuse op::api::v1::MemcachedStatus;\n\n#[test]\nfn f() {\n    let _ = ::demo::api::v1::Memcached::new;\n    let _ = op::api::v1::Memcached::new;\n}\n",
    );
    opgen_ok(&dir, &["edit", "--multigroup"]);
    let lib = read(&dir, "src/lib.rs");
    assert!(
        lib.contains("$crate::api::cache::v1::Memcached::default()"),
        "{lib}"
    );
    let user = read(&dir, "tests/user.rs");
    for want in [
        "use ::demo::api::cache::v1::MemcachedSpec;",
        "use op::api::cache::v1::MemcachedStatus;",
        "let _ = ::demo::api::cache::v1::Memcached::new;",
        "let _ = op::api::cache::v1::Memcached::new;",
    ] {
        assert!(user.contains(want), "expected {want:?} in:\n{user}");
    }
    support::project_cargo_ok(
        &support::stable_copy_for_this_test(&dir),
        &["check", "--all-targets", "--locked", "--quiet"],
    );
}

/// Issue 24: file paths opgen cannot rewrite (`#[path]`, `include_str!` into a moved
/// directory) and a user module whose file would collide with a new group `mod.rs` are
/// refused at their place, nothing written.
#[test]
fn multigroup_refuses_file_paths_and_colliding_modules() {
    let parent = tempfile::tempdir().unwrap();
    let cases: [(&str, &str, &str); 4] = [
        (
            "src/lib.rs",
            "#[path = \"api/v1/extra_user.rs\"]\nmod extra_user;\n",
            "#[path] \"api/v1/extra_user.rs\"",
        ),
        (
            "src/api/v1/mod.rs",
            "#[path = \"../../user_helpers.rs\"]\nmod user_helpers;\n",
            "instead of src/user_helpers.rs",
        ),
        (
            "src/lib.rs",
            "pub const TYPES: &str = include_str!(\"api/v1/memcached_types.rs\");\n",
            "include_str! \"api/v1/memcached_types.rs\"",
        ),
        (
            "src/api/cache.rs",
            "pub fn mine() {}\n",
            "src/api/cache.rs: this module's file would also be src/api/cache/mod.rs",
        ),
    ];
    for (i, (file, text, want)) in cases.into_iter().enumerate() {
        let dir = small(parent.path(), &format!("p{i}"));
        let line = append(&dir, file, text);
        if file == "src/api/cache.rs" {
            append(&dir, "src/api/mod.rs", "pub mod cache;\n");
        }
        let before = support::tree(&dir);
        let err = opgen_err(&dir, &["edit", "--multigroup"]);
        assert!(err.contains(want), "expected {want:?} in:\n{err}");
        if file != "src/api/cache.rs" {
            let at = format!("{file}:{}:", line + usize::from(text.starts_with("#[")));
            let at_attr = format!("{file}:{line}:");
            assert!(
                err.contains(&at) || err.contains(&at_attr),
                "expected {at:?} in:\n{err}"
            );
        }
        assert_eq!(support::tree(&dir), before, "{file}: the tree changed");
    }
}

/// `tree` without the user-owned samples, which `edit` leaves as they are (their TODO comment
/// names the types file where `create api` put it).
fn without_samples(tree: BTreeMap<PathBuf, String>) -> BTreeMap<PathBuf, String> {
    tree.into_iter()
        .filter(|(p, _)| !p.starts_with("config/samples"))
        .collect()
}

/// init (with `init_flags`) + `create api` of `kind` in group `cache`, version v1alpha1.
fn one_kind(parent: &Path, name: &str, init_flags: &[&str], kind: &str) -> PathBuf {
    let dir = parent.join(name);
    std::fs::create_dir(&dir).unwrap();
    let mut init = vec![
        "init",
        "--domain",
        "example.com",
        "--repo",
        "github.com/example/c1",
        "--project-name",
        "c1",
    ];
    init.extend_from_slice(init_flags);
    opgen_ok(&dir, &init);
    support::create_api(&dir, "cache", "v1alpha1", kind);
    dir
}

/// Issue 24: a kind named like its group (`Cache` in `cache`) has a module `controllers::cache`
/// in both layouts; `use c1::controllers::cache` was refused as ending in a moved module. The
/// edited project is what `init --multigroup` makes, and it builds.
#[test]
fn multigroup_moves_a_kind_named_like_its_group() {
    let parent = tempfile::tempdir().unwrap();
    let single = one_kind(parent.path(), "single", &[], "Cache");
    let multi = one_kind(parent.path(), "multi", &["--multigroup"], "Cache");
    opgen_ok(&single, &["edit", "--multigroup"]);
    let after = without_samples(tree(&single));
    assert_eq!(
        support::listing(&after),
        support::listing(&without_samples(tree(&multi)))
    );
    assert_eq!(after, without_samples(tree(&multi)));
    assert_eq!(
        tree(&single.join("config/samples")),
        tree(&multi.join("config/samples"))
    );
    assert!(
        read(&single, "tests/envtest/cache_cache_controller.rs")
            .contains("use c1::{PROJECT_NAME, controllers::cache::cache};")
    );
    support::project_cargo_ok(
        &support::stable_copy_for_this_test(&single),
        &["check", "--all-targets", "--locked", "--quiet"],
    );

    // And back: the single-group project again.
    opgen_ok(&single, &["edit", "--multigroup=false"]);
    let back = one_kind(parent.path(), "back", &[], "Cache");
    assert_eq!(tree(&single), tree(&back));
}

/// Issue 24: `multigroup: true` written into PROJECT by hand, the modules not moved: `edit
/// --multigroup` said "nothing to move" and `manifests` then added a second set of helper
/// roles. It goes by the modules: they move, and there is one set of roles.
#[test]
fn multigroup_set_by_hand_in_project_moves_the_modules_once() {
    let parent = tempfile::tempdir().unwrap();
    let dir = one_kind(parent.path(), "p", &[], "Memcached");
    let multi = one_kind(parent.path(), "multi", &["--multigroup"], "Memcached");
    let project = read(&dir, "PROJECT");
    std::fs::write(
        dir.join("PROJECT"),
        project.replace("\nprojectName:", "\nmultigroup: true\nprojectName:"),
    )
    .unwrap();
    let out = support::opgen(&dir, &["edit", "--multigroup"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains(
            "PROJECT says `multigroup: true`, but the modules are laid out for one group"
        ),
        "{stderr}"
    );
    assert_eq!(without_samples(tree(&dir)), without_samples(tree(&multi)));
    assert!(!dir.join("config/rbac/memcached_admin_role.yaml").exists());

    // Again: nothing to move, nothing written.
    let before = tree(&dir);
    let out = support::opgen(&dir, &["edit", "--multigroup"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("already multigroup: nothing to move"));
    assert_eq!(tree(&dir), before);
}

/// Issue 24: a data file that is not UTF-8 beside an API version's modules stopped `edit`
/// with "not UTF-8 text"; it moves with them, byte for byte.
#[test]
fn multigroup_moves_a_binary_data_file_as_bytes() {
    let parent = tempfile::tempdir().unwrap();
    let dir = small(parent.path(), "p");
    let blob: &[u8] = &[0x89, b'P', b'N', b'G', 0xff, 0x00, 0xfe, b'\r', b'\n'];
    std::fs::write(dir.join("src/api/v1/logo.png"), blob).unwrap();
    let out = opgen_ok(&dir, &["edit", "--multigroup", "--dry-run"]);
    assert!(
        out.lines()
            .any(|l| l == "would create src/api/cache/v1/logo.png"),
        "{out}"
    );
    opgen_ok(&dir, &["edit", "--multigroup"]);
    assert_eq!(
        std::fs::read(dir.join("src/api/cache/v1/logo.png")).unwrap(),
        blob
    );
    assert!(!dir.join("src/api/v1").exists());
}

/// Issue 24: `edit` rewrote the CRDs an older opgen had written (only the `opgen.dev/version`
/// stamp differed), and would rewrite an edited sample. An unedited sample's TODO comment
/// follows the types file (else `delete api` takes it for edited: `edit_delete_project`).
#[test]
fn edit_leaves_samples_and_restamped_crds_alone() {
    let parent = tempfile::tempdir().unwrap();
    let dir = small(parent.path(), "p");
    let crd = "config/crd/bases/cache.example.com_memcacheds.yaml";
    let text = read(&dir, crd);
    let stamp = text
        .lines()
        .find(|l| l.trim_start().starts_with("opgen.dev/version:"))
        .unwrap()
        .to_owned();
    let old = format!(
        "{}opgen.dev/version: 0.0.1",
        &stamp[..stamp.find('o').unwrap()]
    );
    std::fs::write(dir.join(crd), text.replace(&stamp, &old)).unwrap();
    let sample = "config/samples/cache_v1_memcached.yaml";
    let sample_text = read(&dir, sample);
    assert!(
        sample_text.contains("src/api/v1/memcached_types.rs"),
        "{sample_text}"
    );
    let edited = small(parent.path(), "q");
    let edited_sample = format!("{sample_text}# ours\n");
    std::fs::write(edited.join(sample), &edited_sample).unwrap();

    let out = opgen_ok(&dir, &["edit", "--multigroup", "-v"]);
    assert!(!out.contains("config/crd"), "{out}");
    assert!(read(&dir, crd).contains(&old));
    assert_eq!(
        read(&dir, sample),
        sample_text.replace("src/api/v1/", "src/api/cache/v1/")
    );
    let out = opgen_ok(&edited, &["edit", "--multigroup", "-v"]);
    assert!(!out.contains("config/samples"), "{out}");
    assert_eq!(read(&edited, sample), edited_sample);
    let out = opgen_ok(&dir, &["edit", "--license", "none", "-v"]);
    assert!(!out.contains("config/crd"), "{out}");
    // `opgen manifests` stamps today's version.
    opgen_ok(&dir, &["manifests"]);
    assert!(read(&dir, crd).contains(&stamp));
}
