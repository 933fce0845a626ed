//! `tools/controller-gen/setup.sh` without building anything: a warm cache, `CONTROLLER_GEN`,
//! and the message when `go` is missing (the cold path, `go install`, is what the live
//! conformance tests and `bench/controller-gen.sh` use).

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Output};

fn setup(envs: &[(&str, &str)], path: &str) -> Output {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tools/controller-gen/setup.sh");
    let mut cmd = Command::new("/bin/bash");
    cmd.arg(script)
        .env_clear()
        .env("PATH", path)
        .env("HOME", "/nonexistent");
    for (k, v) in envs {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

fn version() -> String {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tools/controller-gen/setup.sh"),
    )
    .unwrap();
    text.lines()
        .find_map(|l| l.strip_prefix("VERSION=").map(str::to_owned))
        .unwrap()
}

fn executable(path: &Path) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, "#!/bin/sh\n").unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn warm_cache_prints_the_directory_last_without_go() {
    let cache = tempfile::tempdir().unwrap();
    let dir = cache.path().join("controller-gen").join(version());
    executable(&dir.join("controller-gen"));
    // PATH without go: a warm run needs nothing.
    let out = setup(
        &[("OPGEN_CACHE_DIR", cache.path().to_str().unwrap())],
        "/usr/bin:/bin",
    );
    assert!(out.status.success(), "{out:?}");
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(stdout.lines().last(), Some(dir.to_str().unwrap()));
}

#[test]
fn xdg_cache_home_is_the_default_root() {
    let cache = tempfile::tempdir().unwrap();
    let dir = cache.path().join("opgen/controller-gen").join(version());
    executable(&dir.join("controller-gen"));
    let out = setup(
        &[("XDG_CACHE_HOME", cache.path().to_str().unwrap())],
        "/usr/bin:/bin",
    );
    assert!(out.status.success(), "{out:?}");
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(stdout.lines().last(), Some(dir.to_str().unwrap()));
}

#[test]
fn controller_gen_env_names_an_existing_binary() {
    let tmp = tempfile::tempdir().unwrap();
    let bin = tmp.path().join("bin/controller-gen");
    executable(&bin);
    let out = setup(
        &[("CONTROLLER_GEN", bin.to_str().unwrap())],
        "/usr/bin:/bin",
    );
    assert!(out.status.success(), "{out:?}");
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        stdout.lines().last(),
        Some(tmp.path().join("bin").to_str().unwrap())
    );

    let out = setup(
        &[("CONTROLLER_GEN", tmp.path().join("nope").to_str().unwrap())],
        "/usr/bin:/bin",
    );
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("is not an executable file"),
        "{out:?}"
    );
}

#[test]
fn missing_go_is_a_clear_error() {
    let cache = tempfile::tempdir().unwrap();
    let empty_path = tempfile::tempdir().unwrap();
    // Only bash's own builtins and the tools the script needs before `go`.
    let tools = empty_path.path();
    for t in ["dirname", "mkdir", "mktemp", "rm", "mv", "tail", "basename"] {
        let target = ["/usr/bin", "/bin"]
            .iter()
            .map(|d| Path::new(d).join(t))
            .find(|p| p.exists())
            .unwrap_or_else(|| panic!("no {t} in /usr/bin or /bin"));
        std::os::unix::fs::symlink(target, tools.join(t)).unwrap();
    }
    let out = setup(
        &[("OPGEN_CACHE_DIR", cache.path().to_str().unwrap())],
        tools.to_str().unwrap(),
    );
    assert!(!out.status.success());
    assert!(out.stdout.is_empty(), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("`go` is not on PATH"), "{stderr}");
    assert!(stderr.contains("CONTROLLER_GEN"), "{stderr}");
}

#[test]
fn failed_build_shows_the_tail_of_the_log() {
    let cache = tempfile::tempdir().unwrap();
    let bin = tempfile::tempdir().unwrap();
    let go = bin.path().join("go");
    std::fs::write(
        &go,
        "#!/bin/sh\nif [ \"$1\" = version ]; then echo 'go version go0.0 test'; exit 0; fi\necho 'cmd/controller-gen: compile error' >&2\nexit 1\n",
    )
    .unwrap();
    std::fs::set_permissions(&go, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = setup(
        &[("OPGEN_CACHE_DIR", cache.path().to_str().unwrap())],
        &format!("{}:/usr/bin:/bin", bin.path().display()),
    );
    assert!(!out.status.success());
    assert!(out.stdout.is_empty(), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("failed; last lines of"), "{stderr}");
    assert!(
        stderr.contains("cmd/controller-gen: compile error"),
        "{stderr}"
    );
    let dir = cache.path().join("controller-gen").join(version());
    assert!(!dir.join("controller-gen").exists());
}
