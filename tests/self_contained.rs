//! A clone is all the tests need: no tracked file names a folder beside the repository, and the
//! upstream files kept under `tests/fixtures/` are listed with where they came from and are
//! unchanged since.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Files git tracks, relative to the repository, or `None` outside a git checkout (a packaged
/// crate), where this check has nothing to look at.
fn tracked_files() -> Option<Vec<PathBuf>> {
    let out = Command::new("git")
        .args(["ls-files", "-z"])
        .current_dir(repo())
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let list = String::from_utf8(out.stdout).expect("UTF-8 paths");
    Some(
        list.split('\0')
            .filter(|p| !p.is_empty())
            .map(PathBuf::from)
            .collect(),
    )
}

#[test]
fn no_tracked_file_names_a_folder_beside_the_repository() {
    let Some(files) = tracked_files() else {
        return;
    };
    // Spelled in two pieces so that this file does not name it either.
    let outside = format!("../{}", "shared");
    let mut found = Vec::new();
    for file in &files {
        let Ok(text) = std::fs::read(repo().join(file)) else {
            continue; // removed in the working tree
        };
        for (i, line) in String::from_utf8_lossy(&text).lines().enumerate() {
            if line.contains(&outside) {
                found.push(format!("{}:{}: {}", file.display(), i + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "nobody who clones opgen has {outside}; keep what tests compare with under tests/fixtures/ \
         (with its source) or produce it live:\n{}",
        found.join("\n")
    );
}

#[derive(serde::Deserialize)]
struct Source {
    dest: String,
    repo: String,
    path: String,
    snapshot_commit: String,
    sha256: String,
}

fn sha256_hex(bytes: &[u8]) -> String {
    ring::digest::digest(&ring::digest::SHA256, bytes)
        .as_ref()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn files_below(root: &Path) -> BTreeSet<String> {
    walkdir::WalkDir::new(root)
        .into_iter()
        .map(|e| e.expect("readable fixture tree"))
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let rel = e.path().strip_prefix(root).unwrap();
            rel.to_string_lossy().replace('\\', "/")
        })
        .collect()
}

/// Every data file below `dir` (but `sources.json` and `README.md`) is listed in its
/// `sources.json` with the SHA-256 of what is there, and every listed file exists.
fn check_sources(dir: &str) {
    let root = repo().join(dir);
    let manifest = root.join("sources.json");
    let text = std::fs::read_to_string(&manifest)
        .unwrap_or_else(|e| panic!("{}: {e}", manifest.display()));
    let sources: Vec<Source> =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", manifest.display()));
    let mut on_disk = files_below(&root);
    on_disk.remove("sources.json");
    on_disk.remove("README.md");
    let listed: BTreeSet<String> = sources.iter().map(|s| s.dest.clone()).collect();
    assert_eq!(
        listed.len(),
        sources.len(),
        "{dir}/sources.json lists a file twice"
    );
    let unlisted: Vec<_> = on_disk.difference(&listed).collect();
    let missing: Vec<_> = listed.difference(&on_disk).collect();
    assert!(
        unlisted.is_empty() && missing.is_empty(),
        "{dir}: files without a source in sources.json: {unlisted:?}; listed but absent: {missing:?}"
    );
    for source in &sources {
        assert!(
            source.repo.starts_with("github.com/")
                && !source.path.is_empty()
                && source.snapshot_commit.len() == 40,
            "{dir}/sources.json: {} needs its repository, path and commit",
            source.dest
        );
        let bytes = std::fs::read(root.join(&source.dest)).unwrap();
        assert_eq!(
            sha256_hex(&bytes),
            source.sha256,
            "{dir}/{} is no longer the file {} has at {} ({}): upstream files are kept as they are",
            source.dest,
            source.repo,
            source.path,
            source.snapshot_commit
        );
    }
}

#[test]
fn controller_gen_goldens_are_upstream_files_as_they_are() {
    check_sources("tests/fixtures/goldens/controller-gen");
}

#[test]
fn upstream_operator_files_are_as_they_are() {
    check_sources("tests/fixtures/upstream-operators");
}

#[test]
fn kube_rs_crates_are_as_they_are() {
    check_sources("tests/fixtures/kube-rs");
}

#[test]
fn kubebuilder_sample_projects_are_as_they_are() {
    check_sources("tests/fixtures/import-go/kubebuilder");
}
