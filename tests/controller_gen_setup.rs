//! tools/controller-gen/setup.sh's interface, without installing anything: the cache hit,
//! the CONTROLLER_GEN shortcut, bad versions, and a machine without Go.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Output};

fn setup(args: &[&str], env: &[(&str, &Path)]) -> Output {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tools/controller-gen/setup.sh");
    let mut command = Command::new("/bin/bash");
    command
        .arg(script)
        .args(args)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", "/nonexistent");
    for (name, value) in env {
        command.env(name, value);
    }
    command.output().unwrap()
}

fn last_line(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .last()
        .unwrap_or_default()
        .to_owned()
}

fn executable(path: &Path) {
    std::fs::write(path, "#!/bin/sh\n").unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn an_existing_controller_gen_is_used_as_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let binary = dir.path().join("controller-gen");
    executable(&binary);
    let out = setup(&[], &[("CONTROLLER_GEN", &binary)]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(last_line(&out), dir.path().display().to_string());
}

#[test]
fn a_cached_install_is_printed_without_go() {
    let cache = tempfile::tempdir().unwrap();
    let dir = cache.path().join("controller-gen/v0.21.0");
    std::fs::create_dir_all(&dir).unwrap();
    executable(&dir.join("controller-gen"));
    std::fs::write(dir.join(".complete"), "controller-tools v0.21.0\n").unwrap();
    let out = setup(&["0.21.0"], &[("OPGEN_CACHE_DIR", cache.path())]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(last_line(&out), dir.display().to_string());
}

#[test]
fn without_go_it_says_what_is_needed() {
    let cache = tempfile::tempdir().unwrap();
    let out = setup(&[], &[("OPGEN_CACHE_DIR", cache.path())]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("setup-controller-gen: Go is needed to install controller-gen v0.23.0"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn a_version_that_is_not_a_release_is_refused() {
    let out = setup(&["latest"], &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("'vlatest' is not a controller-tools release like v0.23.0")
    );
}
