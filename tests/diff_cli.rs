//! `opgen diff` on the command line: its sources (files, a git revision, the project's sources
//! through `opgen manifests`, a cluster), its text and JSON output, its exit statuses
//! (0 nothing at or above --fail-on, 1 something, 2 bad input) and its errors.

mod support;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn pairs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/diff/pairs")
}

fn diff(dir: &Path, args: &[&str]) -> Output {
    let mut all = vec!["diff"];
    all.extend(args);
    support::opgen(dir, &all)
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn exit_status_follows_the_verdict_and_fail_on() {
    let dir = pairs();
    let breaking = diff(&dir, &["field-removed/old.yaml", "field-removed/new.yaml"]);
    assert_eq!(breaking.status.code(), Some(1), "{}", stderr(&breaking));
    assert_eq!(
        stdout(&breaking),
        "breaking          widgets.field-removed.diff.opgen.dev v1 .spec.a: field removed: the API server prunes it, from stored objects when they are read and from every request\nbreaking: 1 breaking, 0 possibly breaking, 0 compatible change(s) (strictness client)\n"
    );
    let possibly = ["enum-values-added/old.yaml", "enum-values-added/new.yaml"];
    assert_eq!(diff(&dir, &possibly).status.code(), Some(0));
    let mut strict = possibly.to_vec();
    strict.extend(["--fail-on", "possibly-breaking"]);
    assert_eq!(diff(&dir, &strict).status.code(), Some(1));
    // At wire strictness a new enum value is compatible.
    strict.extend(["--strictness", "wire"]);
    let wire = diff(&dir, &strict);
    assert_eq!(wire.status.code(), Some(0));
    assert!(
        stdout(&wire).starts_with("compatible: 0 breaking, 0 possibly breaking, 1 compatible"),
        "{}",
        stdout(&wire)
    );
}

#[test]
fn json_output_carries_every_finding() {
    let out = diff(
        &pairs(),
        &[
            "required-added/old.yaml",
            "required-added/new.yaml",
            "-o",
            "json",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["verdict"], "breaking");
    assert_eq!(json["strictness"], "client");
    let findings = json["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 1);
    let f = &findings[0];
    assert_eq!(
        (
            &f["crd"],
            &f["version"],
            &f["path"],
            &f["rule"],
            &f["severity"],
            &f["level"]
        ),
        (
            &Value::from("widgets.required-added.diff.opgen.dev"),
            &Value::from("v1"),
            &Value::from(".spec.b"),
            &Value::from("required-added"),
            &Value::from("breaking"),
            &Value::from("wire"),
        )
    );
}

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(["-c", "user.email=t@example.com", "-c", "user.name=t"])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {}", stderr(&out));
}

/// A project scaffolded with one kind, its manifests generated and committed.
fn project() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    support::opgen_ok(
        dir,
        &[
            "init",
            "--domain",
            "example.com",
            "--repo",
            "github.com/example/shop",
            "--project-name",
            "shop",
        ],
    );
    support::opgen_ok(
        dir,
        &[
            "create",
            "api",
            "--group",
            "shop",
            "--version",
            "v1",
            "--kind",
            "Widget",
        ],
    );
    support::opgen_ok(dir, &["manifests"]);
    git(dir, &["init", "-q"]);
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-qm", "v0.1.0"]);
    git(dir, &["tag", "v0.1.0"]);
    tmp
}

#[test]
fn last_release_against_the_sources_writes_nothing() {
    let tmp = project();
    let dir = tmp.path();
    let unchanged = diff(dir, &["v0.1.0"]);
    assert_eq!(unchanged.status.code(), Some(0), "{}", stderr(&unchanged));
    assert_eq!(
        stdout(&unchanged),
        "compatible: 0 breaking, 0 possibly breaking, 0 compatible change(s) (strictness client)\n"
    );
    // foo renamed to bar, and a new required field.
    let types = dir.join("src/api/v1/widget_types.rs");
    let text = std::fs::read_to_string(&types).unwrap();
    let edited = text.replacen(
        "    pub foo: Option<String>,\n}",
        "    pub bar: Option<String>,\n    pub size: i32,\n}",
        1,
    );
    assert_ne!(edited, text);
    std::fs::write(&types, edited).unwrap();
    let out = diff(dir, &["v0.1.0"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("breaking          widgets.shop.example.com v1 .spec.foo: field removed"),
        "{text}"
    );
    assert!(
        text.contains("breaking          widgets.shop.example.com v1 .spec.size: now required"),
        "{text}"
    );
    // The CRD on disk is still the released one: diff stages `opgen manifests`, never writes.
    let on_disk = diff(dir, &["v0.1.0", "config/crd/bases"]);
    assert_eq!(on_disk.status.code(), Some(0), "{}", stdout(&on_disk));
    // <rev>:<path>
    let explicit = diff(dir, &["v0.1.0:config/crd/bases", "config/crd/bases"]);
    assert_eq!(explicit.status.code(), Some(0), "{}", stderr(&explicit));
}

#[test]
fn bad_input_is_an_error_with_status_2() {
    let tmp = project();
    let dir = tmp.path();
    let unknown = diff(dir, &["v9.9.9"]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(
        stderr(&unknown)
            .starts_with("error: `v9.9.9` is neither a file, a directory nor a git revision"),
        "{}",
        stderr(&unknown)
    );
    let no_crds = diff(dir, &["v0.1.0:src"]);
    assert_eq!(no_crds.status.code(), Some(2));
    assert!(
        stderr(&no_crds).contains("no YAML file under src at revision v0.1.0"),
        "{}",
        stderr(&no_crds)
    );

    std::fs::write(
        dir.join("broken.yaml"),
        "kind: CustomResourceDefinition\nspec: [\n  a: b\n",
    )
    .unwrap();
    let yaml = diff(dir, &["broken.yaml", "config/crd/bases"]);
    assert_eq!(yaml.status.code(), Some(2));
    assert!(
        stderr(&yaml).contains("--> broken.yaml:2:7"),
        "{}",
        stderr(&yaml)
    );

    let invalid = "# a CRD\n---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.shop.example.com\nspec:\n  scope: Namespaced\n";
    std::fs::write(dir.join("invalid.yaml"), invalid).unwrap();
    let out = diff(dir, &["invalid.yaml", "config/crd/bases"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        "error: invalid CRD: widgets.shop.example.com: spec.versions is missing or empty\n  --> invalid.yaml:3:1\n"
    );
    let usage = diff(dir, &["--strictness", "loose", "v0.1.0"]);
    assert_eq!(usage.status.code(), Some(2));
}

/// A kubectl to run against a cluster that is not there: the envtest one, else the PATH's.
fn kubectl() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("KUBEBUILDER_ASSETS") {
        let k = Path::new(&dir).join("kubectl");
        if k.exists() {
            return Some(k);
        }
    }
    let found = Command::new("kubectl")
        .arg("version")
        .arg("--client")
        .output();
    found
        .is_ok_and(|o| o.status.success())
        .then(|| PathBuf::from("kubectl"))
}

#[test]
fn a_cluster_that_cannot_be_reached_is_an_error() {
    let Some(kubectl) = kubectl() else {
        assert!(std::env::var("CI").is_err(), "no kubectl under CI");
        eprintln!("skipped: no kubectl (run tools/envtest/setup.sh)");
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let config = tmp.path().join("kubeconfig");
    std::fs::write(
        &config,
        "apiVersion: v1\nkind: Config\nclusters:\n- name: gone\n  cluster: {server: \"https://127.0.0.1:9\"}\ncontexts:\n- name: gone\n  context: {cluster: gone, user: u}\ncurrent-context: gone\nusers:\n- name: u\n  user: {token: x}\n",
    )
    .unwrap();
    let out = Command::new(support::opgen_bin())
        .args(["diff", "cluster:"])
        .arg(pairs().join("field-removed/new.yaml"))
        .env("KUBECONFIG", &config)
        .env("KUBECTL", &kubectl)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    let err = stderr(&out);
    assert!(
        err.starts_with("error: cannot read the cluster's CRDs with "),
        "{err}"
    );
    assert!(err.contains("127.0.0.1:9"), "{err}");
    assert!(err.contains("help: check the current context"), "{err}");
}
