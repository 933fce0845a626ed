//! A freshly scaffolded project passes its own checks with no edits: `cargo test` (the
//! controller tests against a mocked API server), `cargo clippy -D warnings`, `cargo fmt
//! --check`, `opgen manifests --check` and `kubectl kustomize config/default`.
//!
//! The project gets a namespaced and a cluster-scoped kind, defaulting and validating webhooks
//! for the first, and a second version of the other with a conversion webhook. It builds in its own target
//! directory under this workspace's (the outer `cargo test` holds the workspace's build
//! lock), and starts from this workspace's Cargo.lock so that the examples and the
//! scaffold resolve the same versions.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;
use support::opgen_ok;

fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn target_dir() -> PathBuf {
    let base = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("target"));
    base.join("scaffolded-project")
}

fn run(dir: &Path, program: &str, args: &[&str]) {
    let status = Command::new(program)
        .args(args)
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", target_dir())
        .env_remove("RUSTFLAGS")
        .status()
        .unwrap_or_else(|e| panic!("cannot run {program}: {e}"));
    assert!(
        status.success(),
        "`{program} {}` failed in the scaffolded project",
        args.join(" ")
    );
}

#[test]
fn scaffolded_project_builds_tests_and_lints_clean() {
    let parent = tempfile::tempdir().unwrap();
    opgen_ok(
        parent.path(),
        &[
            "new",
            "demo-operator",
            "--domain",
            "example.com",
            "--group",
            "cache",
            "--version",
            "v1alpha1",
            "--kind",
            "Memcached",
        ],
    );
    let project = parent.path().join("demo-operator");
    opgen_ok(
        &project,
        &[
            "create",
            "api",
            "--group",
            "cache",
            "--version",
            "v1alpha1",
            "--kind",
            "CacheCluster",
            "--namespaced=false",
        ],
    );
    opgen_ok(
        &project,
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
            "--programmatic-validation",
        ],
    );
    opgen_ok(
        &project,
        &[
            "create",
            "api",
            "--group",
            "cache",
            "--version",
            "v1beta1",
            "--kind",
            "CacheCluster",
            "--namespaced=false",
            "--controller=false",
        ],
    );
    opgen_ok(
        &project,
        &[
            "create",
            "webhook",
            "--group",
            "cache",
            "--version",
            "v1alpha1",
            "--kind",
            "CacheCluster",
            "--conversion",
            "--spoke",
            "v1beta1",
        ],
    );
    let lock = workspace_root().join("Cargo.lock");
    if lock.exists() {
        std::fs::copy(&lock, project.join("Cargo.lock")).unwrap();
    }

    run(&project, "cargo", &["fmt", "--check"]);
    run(&project, "cargo", &["test"]);
    run(
        &project,
        "cargo",
        &["clippy", "--all-targets", "--", "-D", "warnings"],
    );
    opgen_ok(&project, &["manifests", "--check"]);

    match Command::new("kubectl")
        .arg("version")
        .arg("--client")
        .output()
    {
        Ok(out) if out.status.success() => {
            let rendered = kustomize(&project, "config/default");
            for want in [
                "kind: CustomResourceDefinition\nmetadata:\n  annotations:",
                "name: memcacheds.cache.example.com",
                "name: cacheclusters.cache.example.com",
                "name: demo-operator-manager-role",
                "namespace: demo-operator-system",
                "readOnlyRootFilesystem: true",
                // create webhook enabled the webhook and cert-manager sections.
                "kind: MutatingWebhookConfiguration",
                "kind: ValidatingWebhookConfiguration",
                "cert-manager.io/inject-ca-from: demo-operator-system/demo-operator-serving-cert",
                "- demo-operator-webhook-service.demo-operator-system.svc",
                "--webhook-cert-path=/tmp/k8s-webhook-server/serving-certs",
                // The conversion webhook of CacheCluster, with the CA injected into its CRD.
                "strategy: Webhook",
                "path: /convert",
                "name: demo-operator-webhook-service",
            ] {
                assert!(rendered.contains(want), "config/default lacks {want:?}");
            }
            // The optional network policies: create webhook added the webhook one.
            let rendered = kustomize(&project, "config/network-policy");
            for want in [
                "name: allow-metrics-traffic",
                "name: allow-webhook-traffic",
                "port: 9443",
            ] {
                assert!(
                    rendered.contains(want),
                    "config/network-policy lacks {want:?}"
                );
            }
        }
        _ => eprintln!(
            "notice: kubectl is not installed; skipping `kubectl kustomize config/default`"
        ),
    }
}

/// `kubectl kustomize <dir>` in `project`: the rendered manifests, or a failed test.
fn kustomize(project: &Path, dir: &str) -> String {
    let out = Command::new("kubectl")
        .args(["kustomize", dir])
        .current_dir(project)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "kubectl kustomize {dir} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}
