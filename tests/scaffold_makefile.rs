//! The scaffolded Makefile finds or installs the opgen the project is pinned to, as
//! kubebuilder's does controller-gen: `make opgen` links bin/opgen-<version> to a matching opgen
//! on PATH, else `cargo install`s that version; `make manifests` uses it.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use support::opgen_ok;

const VERSION: &str = env!("CARGO_PKG_VERSION");

/// PATH without any directory that holds an `opgen`, then `extra` in front.
fn path_with(extra: Option<&Path>) -> String {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let dirs = std::env::split_paths(&path).filter(|d| !d.join("opgen").exists());
    let dirs: Vec<PathBuf> = extra
        .map(Path::to_path_buf)
        .into_iter()
        .chain(dirs)
        .collect();
    std::env::join_paths(dirs).unwrap().into_string().unwrap()
}

fn make(dir: &Path, path: &str, args: &[&str]) -> Output {
    Command::new("make")
        .args(args)
        .current_dir(dir)
        .env("PATH", path)
        .env("CARGO", env!("CARGO"))
        .env_remove("MAKEFLAGS")
        .output()
        .expect("make runs")
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// A crate named opgen whose binary prints `opgen <version>`, standing in for a release.
fn fake_opgen(parent: &Path, version: &str) -> PathBuf {
    let dir = parent.join(format!("fake-opgen-{version}"));
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(
        dir.join("Cargo.toml"),
        format!("[package]\nname = \"opgen\"\nversion = \"{version}\"\nedition = \"2021\"\n\n[workspace]\n"),
    )
    .unwrap();
    std::fs::write(
        dir.join("src/main.rs"),
        "fn main() { println!(\"opgen {}\", env!(\"CARGO_PKG_VERSION\")); }\n",
    )
    .unwrap();
    dir
}

fn new_project(parent: &Path) -> PathBuf {
    let dir = parent.join("demo");
    std::fs::create_dir(&dir).unwrap();
    opgen_ok(&dir, &["init", "--domain", "example.com"]);
    dir
}

#[test]
fn make_opgen_links_the_matching_opgen_on_path() {
    let tmp = tempfile::tempdir().unwrap();
    let project = new_project(tmp.path());
    let opgen_dir = support::opgen_bin().parent().unwrap().to_path_buf();
    let path = path_with(Some(&opgen_dir));

    let out = make(&project, &path, &["manifests"]);
    assert!(out.status.success(), "{}", text(&out));
    let pinned = project.join(format!("bin/opgen-{VERSION}"));
    assert_eq!(
        std::fs::read_link(&pinned).unwrap(),
        support::opgen_bin(),
        "bin/opgen-{VERSION} should link the opgen on PATH"
    );
    assert!(
        text(&out).contains(&format!("bin/opgen-{VERSION} manifests")),
        "make manifests ran another opgen: {}",
        text(&out)
    );
}

#[test]
fn make_opgen_installs_the_pinned_version_when_path_has_another() {
    let tmp = tempfile::tempdir().unwrap();
    let project = new_project(tmp.path());
    let source = fake_opgen(tmp.path(), "9.9.9");
    let from = format!("OPGEN_INSTALL_FROM=--path {}", source.display());
    // The opgen on PATH (this build) is not 9.9.9, so make builds 9.9.9 from the source.
    let opgen_dir = support::opgen_bin().parent().unwrap().to_path_buf();
    let path = path_with(Some(&opgen_dir));

    let out = make(&project, &path, &["opgen", "OPGEN_VERSION=9.9.9", &from]);
    assert!(out.status.success(), "{}", text(&out));
    let installed = project.join("bin/opgen-9.9.9");
    assert!(!installed.is_symlink(), "make linked the opgen on PATH");
    let version = Command::new(&installed).arg("--version").output().unwrap();
    assert_eq!(String::from_utf8_lossy(&version.stdout), "opgen 9.9.9\n");
    assert!(
        !project.join("bin/.opgen-9.9.9").exists(),
        "cargo install's root is left behind"
    );

    // A source of another version is refused, and leaves no binary behind.
    let out = make(&project, &path, &["opgen", "OPGEN_VERSION=9.9.8", &from]);
    assert!(!out.status.success());
    assert!(
        text(&out).contains("installed opgen 9.9.9, not opgen 9.9.8"),
        "{}",
        text(&out)
    );
    assert!(!project.join("bin/opgen-9.9.8").exists());
}

#[test]
fn deploy_targets_fall_back_to_the_committed_manifests_without_opgen() {
    let tmp = tempfile::tempdir().unwrap();
    let project = new_project(tmp.path());
    let nowhere = tmp.path().join("no-such-source");
    let from = format!("OPGEN_INSTALL_FROM=--path {}", nowhere.display());
    let path = path_with(None);

    let out = make(&project, &path, &["manifests-if-available", &from]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains(&format!(
            "warning: opgen {VERSION} not found and not installable (make opgen): using the committed manifests"
        )),
        "{}",
        text(&out)
    );
    // `make manifests` itself fails without opgen.
    let out = make(&project, &path, &["manifests", &from]);
    assert!(!out.status.success(), "{}", text(&out));
}

/// Issue #23 item 7: outside a git repository, `make verify-manifests` says so, instead of
/// git's usage and "out of date"; in one, it passes on a committed, up-to-date project.
#[test]
fn verify_manifests_needs_a_repository_and_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    let project = new_project(tmp.path());
    let opgen_dir = support::opgen_bin().parent().unwrap().to_path_buf();
    let path = path_with(Some(&opgen_dir));

    let out = make(&project, &path, &["verify-manifests"]);
    assert!(!out.status.success(), "{}", text(&out));
    let said = text(&out);
    assert!(
        said.contains("error: verify-manifests compares config/ with the last commit, and this project is not in a git repository: run 'git init' and commit it first"),
        "{said}"
    );
    assert!(
        !said.contains("out of date") && !said.contains("usage: git"),
        "{said}"
    );

    let git = |args: &[&str]| {
        let status = Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
            .args(args)
            .current_dir(&project)
            .status()
            .unwrap();
        assert!(status.success(), "git {args:?}");
    };
    git(&["init", "-q"]);
    git(&["add", "-A"]);
    git(&["commit", "-qm", "scaffold"]);
    let out = make(&project, &path, &["verify-manifests"]);
    assert!(out.status.success(), "{}", text(&out));
}
