//! `opgen init` in a crate made by `cargo new` adopts it, as kubebuilder adopts a go.mod: the
//! crate keeps its name, dependencies and files; only real conflicts are refused (with their
//! line in Cargo.toml, nothing written), and `--force` takes the scaffold's side.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;
use support::{opgen, opgen_err, opgen_ok, tree};

fn cargo(dir: &Path, args: &[&str]) {
    let out = Command::new(env!("CARGO"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "cargo {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `cargo new <name> [extra]` in a fresh temporary directory.
fn cargo_new(parent: &Path, name: &str, extra: &[&str]) -> PathBuf {
    let mut args = vec!["new", "--vcs", "none", name];
    args.extend_from_slice(extra);
    cargo(parent, &args);
    parent.join(name)
}

fn read(dir: &Path, file: &str) -> String {
    std::fs::read_to_string(dir.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"))
}

#[test]
fn init_adopts_a_cargo_new_crate_and_it_builds() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = cargo_new(tmp.path(), "my_operator", &[]);
    cargo(&dir, &["add", "--quiet", "serde@1", "--features", "rc"]);
    std::fs::write(
        dir.join("Cargo.toml"),
        read(&dir, "Cargo.toml").replace("[dependencies]", "# my own comment\n[dependencies]"),
    )
    .unwrap();
    std::fs::write(dir.join("src/notes.rs"), "// mine\n").unwrap();
    std::fs::write(dir.join(".gitignore"), "/target\n*.local\n").unwrap();

    let out = opgen_ok(&dir, &["init", "--domain", "example.com"]);
    assert!(out.contains("initialized project my-operator"), "{out}");

    let manifest = read(&dir, "Cargo.toml");
    // The crate's name, its comment and its dependency with its own requirement and
    // features, plus the scaffold's features for it.
    assert!(manifest.contains("name = \"my_operator\""), "{manifest}");
    assert!(
        manifest.contains("# my own comment\n[dependencies]"),
        "{manifest}"
    );
    assert!(
        manifest.contains("serde = { version = \"1\", features = [\"rc\", \"derive\"] }"),
        "{manifest}"
    );
    // The scaffold's dependencies with their comments, and its binary named after the project.
    assert!(
        manifest.contains("# One explicit Kubernetes version feature: the oldest cluster version this operator supports.\nk8s-openapi = "),
        "{manifest}"
    );
    assert!(
        manifest.contains("[[bin]]\nname = \"my-operator\"\npath = \"src/main.rs\""),
        "{manifest}"
    );
    assert_eq!(
        read(&dir, "src/notes.rs"),
        "// mine\n",
        "a file of the crate changed"
    );
    assert!(
        read(&dir, "src/main.rs").contains("my_operator::"),
        "cargo new's main.rs is replaced by the manager's"
    );
    let ignore = read(&dir, ".gitignore");
    assert!(
        ignore.starts_with("/target\n*.local\n\n# Added by opgen init\n"),
        "{ignore}"
    );
    assert!(
        ignore.contains("\n/bin/\n") && !ignore.contains("/target/"),
        "{ignore}"
    );

    // The adopted crate builds, and its manifests are up to date. It shares the scaffolded
    // projects' target directory: the same dependencies, built once.
    let built = support::stable_copy_for_this_test(&dir);
    let out = support::project_cargo(&built, &["build", "--bin", "my-operator"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    opgen_ok(&dir, &["manifests", "--check"]);
}

#[test]
fn init_refuses_real_conflicts_with_their_lines_and_writes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = cargo_new(tmp.path(), "legacy", &["--edition", "2021"]);
    cargo(
        &dir,
        &["add", "--quiet", "kube@0.99", "--no-default-features"],
    );
    std::fs::write(
        dir.join("src/main.rs"),
        "fn main() { println!(\"mine\"); }\n",
    )
    .unwrap();
    let before = tree(&dir);

    let err = opgen_err(&dir, &["init", "--domain", "example.com"]);
    for want in [
        "error: edition 2021, but the code opgen generates needs edition 2024",
        "legacy/Cargo.toml:4:1",
        "help: migrate with `cargo fix --edition`",
        "error: dependencies.kube = \"0.99\" does not accept kube 5.0.0",
        "legacy/Cargo.toml:7:1",
        "error: src/main.rs already exists",
        "pass --force",
    ] {
        assert!(err.contains(want), "missing {want:?} in:\n{err}");
    }
    assert_eq!(tree(&dir), before, "a refused init changed the directory");

    let out = opgen_ok(&dir, &["init", "--domain", "example.com", "--force"]);
    assert!(out.contains("src/main.rs (replaced (--force))"), "{out}");
    let manifest = read(&dir, "Cargo.toml");
    assert!(manifest.contains("edition = \"2024\""), "{manifest}");
    assert!(
        manifest.contains("kube = { version = \"5.0.0\""),
        "{manifest}"
    );
}

#[test]
fn init_refuses_what_it_cannot_adopt() {
    let tmp = tempfile::tempdir().unwrap();

    // A virtual workspace manifest has no package to adopt.
    let ws = tmp.path().join("ws");
    std::fs::create_dir(&ws).unwrap();
    std::fs::write(ws.join("Cargo.toml"), "[workspace]\nmembers = []\n").unwrap();
    let err = opgen_err(&ws, &["init", "--domain", "example.com"]);
    assert!(err.contains("has no [package] name"), "{err}");

    // The crate keeps its name.
    let dir = cargo_new(tmp.path(), "named", &[]);
    let err = opgen_err(
        &dir,
        &["init", "--domain", "example.com", "--project-name", "other"],
    );
    assert!(
        err.contains("the crate in")
            && err.contains("is named \"named\", but the project would be \"other\""),
        "{err}"
    );

    // Invalid TOML is reported where it is.
    std::fs::write(
        dir.join("Cargo.toml"),
        "[package]\nname = \"named\"\nversion = \n",
    )
    .unwrap();
    let out = opgen(&dir, &["init", "--domain", "example.com"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("Cargo.toml is not valid TOML") && err.contains("Cargo.toml:3:"),
        "{err}"
    );

    // An opgen project is not initialized twice.
    let project = tmp.path().join("project");
    std::fs::create_dir(&project).unwrap();
    opgen_ok(&project, &["init", "--domain", "example.com"]);
    let err = opgen_err(&project, &["init", "--domain", "example.com"]);
    assert!(
        err.contains("already holds an opgen project: found PROJECT"),
        "{err}"
    );
}

/// A kube-rs crate (dappmesh's API types, `tests/fixtures/kube-rs/`) with its own library
/// root: `init` keeps it and adds the scaffold's modules and items after it, without --force;
/// one that already declares an item of the scaffold's is refused at its line.
#[test]
fn init_adds_its_modules_to_an_adopted_crates_own_library() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("dappmesh");
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(
        dir.join("Cargo.toml"),
        "[package]\nname = \"dappmesh\"\nversion = \"0.1.0\"\nedition = \"2024\"\n",
    )
    .unwrap();
    std::fs::copy(
        support::fixture("kube-rs/dappmesh/crd.rs"),
        dir.join("src/crd.rs"),
    )
    .unwrap();
    let mine = "//! DappMesh's operator.\n\npub mod crd;\n\npub fn version() -> &'static str {\n    \"1\"\n}\n";
    std::fs::write(dir.join("src/lib.rs"), mine).unwrap();

    let clashing = mine.replace("pub mod crd;", "pub mod crd;\nmod webhooks {}");
    std::fs::write(dir.join("src/lib.rs"), clashing).unwrap();
    let before = tree(&dir);
    let err = opgen_err(&dir, &["init", "--domain", "example.com"]);
    assert!(
        err.contains(
            "error: src/lib.rs already has an item named `webhooks`, which opgen init adds to the library"
        ) && err.contains("dappmesh/src/lib.rs:4:1"),
        "{err}"
    );
    assert_eq!(tree(&dir), before, "a refused init changed the directory");

    std::fs::write(dir.join("src/lib.rs"), mine).unwrap();
    opgen_ok(&dir, &["init", "--domain", "example.com"]);
    let lib = read(&dir, "src/lib.rs");
    let added = lib
        .strip_prefix(mine)
        .unwrap_or_else(|| panic!("the crate's library is not kept as it was:\n{lib}"));
    assert!(
        added.starts_with(
            "\n// Added by opgen init: the scaffold's modules, the names its code uses and the manager.\npub mod api;\npub mod controllers;\npub mod webhooks;\n\n/// The project name"
        ) && added.contains("\npub fn manager() -> opgen_runtime::Manager {\n"),
        "{added}"
    );
    assert!(
        !added.contains("//!"),
        "inner doc comments only open a file:\n{added}"
    );

    opgen_ok(&dir, &["manifests"]);
    let crd = read(&dir, "config/crd/bases/dappmesh.io_dappproducts.yaml");
    assert!(crd.contains("kind: DappProduct"), "{crd}");
}
