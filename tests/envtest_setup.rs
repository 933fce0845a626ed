//! tools/envtest/setup.sh's interface, without building anything: the cache hit, the
//! KUBEBUILDER_ASSETS shortcut, bad versions, and a machine without Go.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Output};

fn setup(args: &[&str], env: &[(&str, &Path)], path: &str) -> Output {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tools/envtest/setup.sh");
    let mut command = Command::new("/bin/bash");
    command
        .arg(script)
        .args(args)
        .env_clear()
        .env("PATH", path)
        .env("HOME", "/nonexistent");
    for (name, value) in env {
        command.env(name, value);
    }
    command.output().unwrap()
}

fn fake_binaries(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    for name in ["kube-apiserver", "etcd", "kubectl"] {
        let file = dir.join(name);
        std::fs::write(&file, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
}

fn last_line(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .last()
        .unwrap_or_default()
        .to_owned()
}

#[test]
fn kubebuilder_assets_with_the_three_binaries_are_used_as_they_are() {
    let dir = tempfile::tempdir().unwrap();
    fake_binaries(dir.path());
    let out = setup(&[], &[("KUBEBUILDER_ASSETS", dir.path())], "/usr/bin:/bin");
    assert!(out.status.success(), "{out:?}");
    assert_eq!(last_line(&out), dir.path().display().to_string());
}

#[test]
fn a_cached_build_is_printed_without_go() {
    let cache = tempfile::tempdir().unwrap();
    let dir = cache.path().join("envtest/k8s-1.35.4");
    fake_binaries(&dir);
    std::fs::write(dir.join(".complete"), "kubernetes v1.35.4\n").unwrap();
    // No Go on PATH: a cache hit needs none.
    let out = setup(
        &["v1.35.4"],
        &[("OPGEN_CACHE_DIR", cache.path())],
        "/usr/bin:/bin",
    );
    assert!(out.status.success(), "{out:?}");
    assert_eq!(last_line(&out), dir.display().to_string());
}

#[test]
fn without_go_it_says_what_is_needed() {
    let cache = tempfile::tempdir().unwrap();
    let out = setup(
        &["1.35.4"],
        &[("OPGEN_CACHE_DIR", cache.path())],
        "/usr/bin:/bin",
    );
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("setup-envtest: Go is needed to build kube-apiserver 1.35.4, etcd and kubectl, and 'go' is not on PATH."),
        "{stderr}"
    );
    assert!(stderr.contains("KUBEBUILDER_ASSETS"), "{stderr}");
    assert!(out.stdout.is_empty());
    assert!(!cache.path().join("envtest/k8s-1.35.4").exists());
}

#[test]
fn a_version_that_is_not_a_release_is_refused() {
    let cache = tempfile::tempdir().unwrap();
    for bad in ["1.35", "latest", "1.35.4-rc.0"] {
        let out = setup(
            &[bad],
            &[("OPGEN_CACHE_DIR", cache.path())],
            "/usr/bin:/bin",
        );
        assert_eq!(out.status.code(), Some(2), "{bad}");
        assert!(
            String::from_utf8_lossy(&out.stderr)
                .contains("is not a Kubernetes release version like 1.33.13"),
            "{bad}"
        );
    }
}

#[test]
fn the_crate_looks_for_the_release_the_script_builds() {
    let script = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tools/envtest/setup.sh"),
    )
    .unwrap();
    let default = script
        .lines()
        .find_map(|l| l.strip_prefix("DEFAULT_K8S_VERSION="))
        .unwrap();
    assert_eq!(default, opgen_envtest::DEFAULT_K8S_VERSION);
}

#[test]
fn a_failed_build_shows_the_end_of_its_log() {
    let cache = tempfile::tempdir().unwrap();
    let bin = cache.path().join("fake-go");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::write(
        bin.join("go"),
        "#!/bin/sh\necho \"go: cannot reach the module proxy (fake)\" >&2\nexit 1\n",
    )
    .unwrap();
    std::fs::set_permissions(bin.join("go"), std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!("{}:/usr/bin:/bin", bin.display());
    let out = setup(&["1.35.4"], &[("OPGEN_CACHE_DIR", cache.path())], &path);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("setup-envtest: go mod init failed; the last lines of"),
        "{stderr}"
    );
    assert!(
        stderr.ends_with("go: cannot reach the module proxy (fake)\n"),
        "{stderr}"
    );
    assert!(
        !cache.path().join("envtest/k8s-1.35.4").exists(),
        "nothing half-built is left as the cache"
    );
}
