//! README.md's tutorial, followed as a new user would: its shell blocks run as they are (with
//! this build's opgen first on PATH), its Rust and YAML blocks pasted where the text says,
//! its error example checked against opgen's output. The project it makes must then pass its
//! own `cargo test` (envtest included) and clippy. If the README changes shape, this test
//! fails instead of letting it rot.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

const README: &str = include_str!("../README.md");

/// The fenced blocks of the tutorial section: (info string, body).
fn tutorial_blocks() -> Vec<(String, String)> {
    let start = README
        .find("## Tutorial")
        .expect("README has a Tutorial section");
    let section = &README[start..];
    let end = section[3..].find("\n## ").map_or(section.len(), |i| i + 3);
    let mut blocks = Vec::new();
    let mut lines = section[..end].lines();
    while let Some(line) = lines.next() {
        if let Some(info) = line.strip_prefix("```") {
            let body: Vec<&str> = lines.by_ref().take_while(|l| *l != "```").collect();
            blocks.push((info.to_owned(), body.join("\n") + "\n"));
        }
    }
    blocks
}

fn block<'b>(blocks: &'b [(String, String)], info: &str, containing: &str) -> &'b str {
    blocks
        .iter()
        .find(|(i, body)| i == info && body.contains(containing))
        .map(|(_, body)| body.as_str())
        .unwrap_or_else(|| panic!("the tutorial has no ```{info} block with {containing:?}"))
}

fn opgen_dir() -> PathBuf {
    support::opgen_bin().parent().unwrap().to_owned()
}

/// Runs a shell block with bash, this opgen first on PATH; returns (success, stdout+stderr).
fn sh(dir: &Path, script: &str) -> (bool, String) {
    let path = format!(
        "{}:{}",
        opgen_dir().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut cmd = Command::new("bash");
    cmd.args(["-ec", script])
        .current_dir(dir)
        .env("PATH", path)
        .env("GIT_AUTHOR_NAME", "Tutorial")
        .env("GIT_AUTHOR_EMAIL", "tutorial@example.com")
        .env("GIT_COMMITTER_NAME", "Tutorial")
        .env("GIT_COMMITTER_EMAIL", "tutorial@example.com");
    support::clear_outer_test_env(&mut cmd);
    let out = cmd.output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

fn sh_ok(dir: &Path, script: &str) -> String {
    let (ok, text) = sh(dir, script);
    assert!(ok, "`{}` failed:\n{text}", script.trim());
    text
}

/// Replaces `pub struct <name> { ... }` in `file` with `new`.
fn replace_struct(file: &Path, name: &str, new: &str) {
    let text = std::fs::read_to_string(file).unwrap();
    let start = text
        .find(&format!("pub struct {name} {{"))
        .unwrap_or_else(|| panic!("{} has no struct {name}", file.display()));
    let end = start + text[start..].find("\n}\n").unwrap() + 3;
    std::fs::write(file, format!("{}{}{}", &text[..start], new, &text[end..])).unwrap();
}

fn insert_before(file: &Path, anchor: &str, lines: &str) {
    let text = std::fs::read_to_string(file).unwrap();
    let at = text
        .find(anchor)
        .unwrap_or_else(|| panic!("{} has no {anchor:?}", file.display()));
    let at = text[..at].rfind('\n').map_or(0, |i| i + 1);
    std::fs::write(file, format!("{}{}{}", &text[..at], lines, &text[at..])).unwrap();
}

#[test]
fn the_tutorial_works_as_written() {
    let blocks = tutorial_blocks();
    let parent = tempfile::tempdir().unwrap();

    sh_ok(parent.path(), block(&blocks, "sh", "opgen init --domain"));
    let project = parent.path().join("memcached-operator");

    let types = project.join("src/api/v1alpha1/memcached_types.rs");
    replace_struct(
        &types,
        "MemcachedSpec",
        block(&blocks, "rust", "pub struct MemcachedSpec"),
    );
    let sample = project.join("config/samples/cache_v1alpha1_memcached.yaml");
    let text = std::fs::read_to_string(&sample).unwrap();
    let spec_at = text.find("spec:\n").expect("the sample has a spec");
    std::fs::write(
        &sample,
        format!("{}{}", &text[..spec_at], block(&blocks, "yaml", "spec:")),
    )
    .unwrap();
    sh_ok(&project, block(&blocks, "sh", "opgen manifests"));

    let crd =
        std::fs::read_to_string(project.join("config/crd/bases/cache.example.com_memcacheds.yaml"))
            .unwrap();
    for want in [
        "              containerPort:\n                default: 11211\n                description: containerPort is the port memcached listens on.\n                format: int32\n                maximum: 65535\n                minimum: 1\n                type: integer\n",
        "              size:\n                default: 1\n                description: size is the number of memcached pods.\n                format: int32\n                maximum: 5\n                minimum: 1\n                type: integer\n",
    ] {
        assert!(crd.contains(want), "the CRD lacks\n{want}\nin\n{crd}");
    }

    // The typo example: the same error, at the line the marker is on.
    let error_block = block(&blocks, "", "unknown marker");
    let typo = error_block
        .lines()
        .find_map(|l| l.split_once(" |     ").map(|(_, marker)| marker))
        .expect("the error example shows the marker line");
    let before = std::fs::read_to_string(&types).unwrap();
    insert_before(
        &types,
        "    pub size: Option<i32>,",
        &format!("    {typo}\n"),
    );
    let (ok, output) = sh(&project, "opgen manifests");
    assert!(!ok, "a misspelt marker is refused");
    let line = std::fs::read_to_string(&types)
        .unwrap()
        .lines()
        .position(|l| l.trim() == typo)
        .unwrap()
        + 1;
    let expected = error_block
        .replace(":22:9", &format!(":{line}:9"))
        .replace("\n22 |", &format!("\n{line} |"));
    assert!(
        output.contains(expected.trim_end()),
        "README's error example:\n{expected}\nopgen's output:\n{output}"
    );
    std::fs::write(&types, before).unwrap();

    // The RBAC marker above reconcile, then the webhook, then the project's own checks.
    let controller = project.join("src/controllers/memcached.rs");
    let marker = block(&blocks, "rust", "+kubebuilder:rbac");
    insert_before(&controller, "pub async fn reconcile(", marker);
    sh_ok(&project, block(&blocks, "sh", "opgen create webhook"));
    sh_ok(&project, "opgen manifests");
    let role = std::fs::read_to_string(project.join("config/rbac/role.yaml")).unwrap();
    assert!(
        role.contains(
            "  - deployments\n  verbs:\n  - create\n  - get\n  - list\n  - patch\n  - watch\n"
        ),
        "{role}"
    );

    after_the_first_release(&blocks, &project, &types);
    // The CRD takes the new field, as the README says next: the kind's agreement test sends
    // it, and finds a CRD without it pruning it.
    sh_ok(&project, "opgen manifests");

    // --locked: the Cargo.lock `opgen init` wrote builds as it is, as the Dockerfile needs.
    for args in [
        &["test", "--locked"][..],
        &["clippy", "--all-targets", "--", "-D", "warnings"],
    ] {
        let mut cmd = Command::new("cargo");
        cmd.args(args).current_dir(&project);
        support::builds_in_projects_target(&mut cmd);
        let status = cmd.status().unwrap();
        assert!(
            status.success(),
            "cargo {} failed in the tutorial's project",
            args.join(" ")
        );
    }
}

/// The tutorial's breaking change: tagged, a required field added is reported as the README
/// shows with exit status 1; the field optional with a default is compatible (status 0).
fn after_the_first_release(blocks: &[(String, String)], project: &Path, types: &Path) {
    sh_ok(project, block(blocks, "sh", "git tag v0.1.0"));
    let released = std::fs::read_to_string(types).unwrap();
    let add_field = |field: &str| {
        let text = released.replacen(
            "    pub container_port: Option<i32>,\n}\n",
            &format!("    pub container_port: Option<i32>,\n\n{field}}}\n"),
            1,
        );
        assert_ne!(
            text, released,
            "MemcachedSpec does not end with container_port"
        );
        std::fs::write(types, text).unwrap();
    };
    let diff = block(blocks, "sh", "opgen diff v0.1.0");
    add_field(block(blocks, "rust", "pub image: String"));
    let (ok, output) = sh(project, diff);
    assert!(!ok, "a new required field is breaking:\n{output}");
    assert_eq!(output, block(blocks, "", "now required"));
    add_field(block(blocks, "rust", "pub image: Option<String>"));
    let output = sh_ok(project, diff);
    assert_eq!(
        output,
        "compatible: 0 breaking, 0 possibly breaking, 1 compatible change(s) (strictness client; \
         -v lists the compatible ones)\n"
    );
}

/// Every fenced block of README.md, wherever it stands, is exercised: the tutorial's by
/// `the_tutorial_works_as_written`, the envtest example by `tests/readme_envtest_example.rs`
/// (the same lines, compiled and run), the first lines' and the install section's here. A block
/// this test does not know fails it.
#[test]
fn every_readme_block_is_exercised() {
    let tutorial = tutorial_blocks();
    let start = README.find("## Coming from Go").expect("the section");
    let section = &README[start..];
    let section = &section[..section[3..].find("\n## ").map_or(section.len(), |i| i + 3)];
    let coming_from_go: Vec<&str> = section
        .split("```sh\n")
        .skip(1)
        .filter_map(|b| b.split_once("```").map(|(body, _)| body))
        .collect();
    assert_eq!(coming_from_go.len(), 2, "the section's two blocks");
    let mut lines = README.lines();
    let mut seen = 0;
    while let Some(line) = lines.next() {
        let Some(info) = line.strip_prefix("```") else {
            continue;
        };
        let body = lines
            .by_ref()
            .take_while(|l| *l != "```")
            .collect::<Vec<_>>()
            .join("\n")
            + "\n";
        seen += 1;
        if tutorial.iter().any(|(i, b)| i == info && *b == body) {
            continue;
        }
        // "Coming from Go" runs as written in tests/import_go.rs
        // (`readme_coming_from_go_runs_as_written`).
        if info == "sh" && coming_from_go.contains(&body.as_str()) {
            continue;
        }
        match info {
            "rust,ignore" => {
                let example = include_str!("readme_envtest_example.rs");
                let start = example.find("// README begin\n").unwrap() + "// README begin\n".len();
                let end = example.find("    // README end").unwrap();
                let dedented: String = example[start..end]
                    .lines()
                    .map(|l| format!("{}\n", l.strip_prefix("    ").unwrap_or(l)))
                    .collect();
                assert_eq!(
                    body, dedented,
                    "README's envtest example differs from tests/readme_envtest_example.rs"
                );
            }
            "sh" if body.starts_with("cargo run --release -- new memcached-operator") => {
                // The first command (as the opgen binary; `cargo run --release --` builds it)
                // scaffolds a project whose `make test` is wired; the second, tools/test.sh, is
                // what CI runs (.ci/run), which runs this test.
                let first = body.lines().next().unwrap();
                assert_eq!(body.lines().nth(1), Some("bash tools/test.sh"));
                assert!(include_str!("../.ci/run").contains("bash tools/test.sh"));
                let parent = tempfile::tempdir().unwrap();
                let args = first.trim_start_matches("cargo run --release -- ");
                sh_ok(parent.path(), &format!("opgen {args}"));
                let dry = sh_ok(&parent.path().join("memcached-operator"), "make -n test");
                assert!(
                    dry.contains("hack/setup-envtest.sh") && dry.contains("cargo test"),
                    "{dry}"
                );
            }
            "sh" if body.starts_with("cargo install --path .") => {
                // Installing is `cargo install` of this crate, which this test binary was built
                // from; the two commands after it run as written.
                let home = tempfile::tempdir().unwrap();
                let completions = home.path().join(".local/share/bash-completion/completions");
                std::fs::create_dir_all(&completions).unwrap();
                let rest: String = body.lines().skip(1).map(|l| format!("{l}\n")).collect();
                let out = sh_ok(
                    home.path(),
                    &format!("export HOME={}\n{rest}", home.path().display()),
                );
                assert!(out.contains("Usage: opgen"), "{out}");
                let script = std::fs::read_to_string(completions.join("opgen")).unwrap();
                assert!(script.contains("_opgen()"), "{script}");
            }
            _ => panic!("README.md has a ```{info} block no test exercises:\n{body}"),
        }
    }
    assert!(seen >= 12, "found only {seen} blocks");
}
