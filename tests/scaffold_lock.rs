//! The Cargo.lock `opgen init` writes (data/scaffold/Cargo.lock with the project's name) is the
//! one cargo itself would keep for the scaffold's Cargo.toml, so `cargo build --locked` (the
//! Dockerfile's) works in a fresh project; and it pins the versions opgen's own workspace
//! builds, so the scaffold and the examples move together.
//!
//! `OPGEN_REGEN=1 cargo test --test scaffold_lock` rewrites the data from this workspace's
//! Cargo.lock: cargo trims it to the scaffold's dependency graph, keeping every version.

mod support;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use support::opgen_ok;

const PLACEHOLDER: &str = "opgen-scaffold-project";

fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn data() -> PathBuf {
    workspace_root().join("data/scaffold/Cargo.lock")
}

/// `cargo metadata` in `dir`; with `--locked` it fails when the lock file would change.
fn cargo_metadata(dir: &Path, locked: bool) -> std::process::Output {
    let mut cmd = Command::new(env!("CARGO"));
    cmd.args(["metadata", "--format-version", "1"])
        .current_dir(dir);
    if locked {
        cmd.arg("--locked");
    }
    cmd.output().expect("cargo runs")
}

/// (name, version) of every package in a lock file.
fn packages(lock: &str) -> BTreeSet<(String, String)> {
    let mut out = BTreeSet::new();
    let mut name = None;
    for line in lock.lines() {
        if let Some(n) = line.strip_prefix("name = \"") {
            name = Some(n.trim_end_matches('"').to_owned());
        } else if let (Some(v), Some(n)) = (line.strip_prefix("version = \""), name.take()) {
            out.insert((n, v.trim_end_matches('"').to_owned()));
        }
    }
    out
}

fn init(parent: &Path, name: &str) -> PathBuf {
    let dir = parent.join(name);
    std::fs::create_dir(&dir).unwrap();
    opgen_ok(&dir, &["init", "--domain", "example.com"]);
    dir
}

#[test]
fn a_new_project_builds_locked_with_the_workspace_versions() {
    let parent = tempfile::tempdir().unwrap();
    if std::env::var_os("OPGEN_REGEN").is_some() {
        let dir = init(parent.path(), PLACEHOLDER);
        std::fs::copy(workspace_root().join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
        let out = cargo_metadata(&dir, false);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        std::fs::copy(dir.join("Cargo.lock"), data()).unwrap();
        eprintln!("rewrote {}", data().display());
    }

    // A name that sorts in the middle of the packages, so the project's entry moves.
    let dir = init(parent.path(), "memcached-operator");
    let written = std::fs::read_to_string(dir.join("Cargo.lock")).expect("init writes Cargo.lock");
    let out = cargo_metadata(&dir, true);
    assert!(
        out.status.success(),
        "cargo refuses the lock file opgen init wrote (regenerate it with OPGEN_REGEN=1 cargo test --test scaffold_lock):\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("Cargo.lock")).unwrap(),
        written,
        "cargo rewrote the lock file"
    );

    let workspace =
        packages(&std::fs::read_to_string(workspace_root().join("Cargo.lock")).unwrap());
    let stray: Vec<_> = packages(&written)
        .into_iter()
        .filter(|package| package.0 != "memcached-operator" && !workspace.contains(package))
        .collect();
    assert!(
        stray.is_empty(),
        "the scaffold's lock pins versions opgen's workspace does not build (regenerate it with OPGEN_REGEN=1 cargo test --test scaffold_lock): {stray:?}"
    );

    // The upgrade fixtures stand for projects whose lock opgen wrote and nobody changed: an
    // upgrade replaces such a lock, and keeps any other (tests/upgrade.rs).
    for fixture in upgrade_fixture_locks() {
        if std::env::var_os("OPGEN_REGEN").is_some() {
            std::fs::write(&fixture, &written).unwrap();
        }
        assert!(
            std::fs::read_to_string(&fixture).unwrap() == written,
            "{} is not the lock opgen init writes (OPGEN_REGEN=1 cargo test --test scaffold_lock, twice when it rewrote the data)",
            fixture.display()
        );
    }
}

/// The Cargo.lock of the memcached fixture of every scaffold generation after the first
/// (`opgen-0.1.0`, whose lock is data/upgrade/scaffold-1's).
fn upgrade_fixture_locks() -> Vec<PathBuf> {
    let root = workspace_root().join("tests/fixtures/upgrade");
    let mut locks: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|dir| {
            dir.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("scaffold-")
        })
        .map(|dir| dir.join("memcached-operator/Cargo.lock"))
        .collect();
    locks.sort();
    assert!(locks.len() >= 5, "{locks:?}");
    locks
}
