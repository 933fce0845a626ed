//! Helpers shared by the integration tests: running the opgen binary and reading trees.

#![allow(dead_code)]

pub mod referee_runs;
pub mod roundtrip;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The opgen binary under test: `OPGEN_BIN` when set (tools/test.sh builds an optimized one from
/// the same sources, `cargo build --profile test-opgen`), else the one cargo built for the tests.
pub fn opgen_bin() -> PathBuf {
    std::env::var_os("OPGEN_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_opgen")))
}

pub fn opgen(dir: &Path, args: &[&str]) -> Output {
    opgen_command(dir, args).output().expect("opgen runs")
}

/// [`opgen`] on at most `threads` threads (`OPGEN_THREADS`): 1 runs every stage on one, 2 splits
/// a whole `manifests` run between two whenever it can, however small (`OPGEN_SPLIT_MIN_BYTES`)
/// and even on a one-core machine.
pub fn opgen_on_threads(dir: &Path, args: &[&str], threads: usize) -> Output {
    opgen_command(dir, args)
        .env("OPGEN_THREADS", threads.to_string())
        .env("OPGEN_SPLIT_MIN_BYTES", "0")
        .output()
        .expect("opgen runs")
}

fn opgen_command(dir: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(opgen_bin());
    command
        .args(args)
        .current_dir(dir)
        .env("SOURCE_DATE_EPOCH", "1767225600") // 2026-01-01: stable license headers
        .env_remove("RUST_BACKTRACE")
        .env_remove("OPGEN_THREADS")
        .env_remove("OPGEN_SPLIT_MIN_BYTES");
    command
}

/// Runs opgen and fails the test with its output unless it succeeds.
pub fn opgen_ok(dir: &Path, args: &[&str]) -> String {
    let out = opgen(dir, args);
    assert!(
        out.status.success(),
        "opgen {args:?} failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Runs opgen expecting exit code 1 and returns stderr.
pub fn opgen_err(dir: &Path, args: &[&str]) -> String {
    let out = opgen(dir, args);
    assert_eq!(
        out.status.code(),
        Some(1),
        "opgen {args:?} should fail:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Every file below `root` (relative path → content), skipping build output.
pub fn tree(root: &Path) -> BTreeMap<PathBuf, String> {
    let mut out = BTreeMap::new();
    for entry in walkdir::WalkDir::new(root).sort_by_file_name() {
        let entry = entry.unwrap();
        let rel = entry.path().strip_prefix(root).unwrap().to_path_buf();
        if rel.starts_with("target") || rel.starts_with(".git") {
            continue;
        }
        if entry.file_type().is_file() {
            out.insert(
                rel,
                std::fs::read_to_string(entry.path()).unwrap_or_default(),
            );
        } else if entry.file_type().is_dir() && rel.as_os_str() != "" {
            out.insert(rel.join(""), String::from("<dir>"));
        }
    }
    out
}

/// The relative paths of a tree, one per line, for snapshots.
pub fn listing(tree: &BTreeMap<PathBuf, String>) -> String {
    tree.keys()
        .filter(|p| !p.to_string_lossy().ends_with('/'))
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Copies the tree `from` into `to` (created), leaving out a `target/` at its top.
pub fn copy_tree(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from) {
        let entry = entry.unwrap();
        let rel = entry.path().strip_prefix(from).unwrap();
        if rel.starts_with("target") {
            continue;
        }
        let dest = to.join(rel);
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&dest).unwrap();
        } else {
            std::fs::copy(entry.path(), &dest).unwrap();
        }
    }
}

/// `<target>/tmp/<name>`, empty: a work directory at the same path in every run of the suite,
/// for a copy of a Go module. Go's build cache keys a package's compilation on its directory, so
/// a copy at a new path in each run (a process id in its name) is compiled again by every Go
/// tool run on it (kube-api-linter, controller-gen, `opgen import go`); at one path, the next
/// run finds it compiled. `name` is unique among the tests that may run at once.
pub fn same_path_each_run(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A file or folder under `tests/fixtures/`.
pub fn fixture(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(relative)
}

/// `opgen create webhook --group cache --version v1alpha1 --kind Memcached --defaulting
/// --programmatic-validation` in `project` (one made by [`new_memcached_project`]).
pub fn add_memcached_webhooks(project: &Path) {
    opgen_ok(
        project,
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
}

/// `opgen new <name> --domain example.com --group cache --version v1alpha1 --kind Memcached`
/// in `parent`: the one-kind project most tests start from. Returns its directory.
pub fn new_memcached_project(parent: &Path, name: &str) -> PathBuf {
    opgen_ok(
        parent,
        &[
            "new",
            name,
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
    parent.join(name)
}

/// The target directory of every project the tests build: what they share (kube, k8s-openapi
/// and the rest) compiles once.
pub fn projects_target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target"))
        .join("scaffolded-project")
}

/// The referee binary the environment variable `var` names (tools/test.sh sets it from `setup`,
/// e.g. `tools/helm/setup.sh`). Unset: a one-line notice and `None`, but under CI (`CI=true`),
/// which must run every test, a panic.
pub fn referee(var: &str, setup: &str) -> Option<PathBuf> {
    if let Some(path) = std::env::var_os(var) {
        return Some(PathBuf::from(path));
    }
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "CI=true requires {var} (tools/test.sh sets it from {setup})"
    );
    eprintln!("notice: {var} unset (bash {setup} builds it); skipping");
    None
}

/// `project` mirrored at a path that stays the same from one run of the suite to the next,
/// `<target>/test-projects/<name>` (`name` unique to the calling test), for cargo to build:
/// a file whose bytes did not change is left alone, modification time included, so a second
/// run of the suite finds what cargo built from the same sources fresh instead of compiling
/// it again (a tempdir's new path and new files made cargo rebuild every project every time).
/// Cargo keeps one build per package name in the shared target directory (a root package's
/// path is not part of its identity), so each copy's packages must have names of their own
/// among the copies, which this checks ([`one_build_per_package`]).
/// Files the project no longer has are removed from the mirror. Nothing cargo writes into the
/// mirror reaches `project`.
pub fn stable_copy(project: &Path, name: &str) -> PathBuf {
    let mirror = projects_target_dir()
        .with_file_name("test-projects")
        .join(name);
    let mut kept = std::collections::BTreeSet::new();
    for entry in walkdir::WalkDir::new(project).follow_links(true) {
        let entry = entry.unwrap();
        let rel = entry.path().strip_prefix(project).unwrap();
        if rel.starts_with("target") || rel.starts_with(".git") {
            continue;
        }
        kept.insert(rel.to_owned());
        let dest = mirror.join(rel);
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&dest).unwrap();
            continue;
        }
        let bytes = std::fs::read(entry.path()).unwrap();
        if std::fs::read(&dest).is_ok_and(|old| old == bytes) {
            continue;
        }
        if dest.is_dir() {
            std::fs::remove_dir_all(&dest).unwrap();
        }
        std::fs::write(&dest, bytes).unwrap();
        let mode = entry.metadata().unwrap().permissions();
        std::fs::set_permissions(&dest, mode).unwrap();
    }
    // Deepest first, so that a directory is empty by the time it is removed.
    let mut stale: Vec<_> = walkdir::WalkDir::new(&mirror)
        .contents_first(true)
        .into_iter()
        .map(|e| e.unwrap())
        .filter(|e| !kept.contains(e.path().strip_prefix(&mirror).unwrap()))
        .collect();
    stale.retain(|e| e.depth() > 0);
    for entry in stale {
        if entry.file_type().is_dir() {
            std::fs::remove_dir(entry.path()).unwrap();
        } else {
            std::fs::remove_file(entry.path()).unwrap();
        }
    }
    one_build_per_package(&mirror);
    mirror
}

/// Fails unless every package of the stable copy `mirror` has a name of its own among the
/// stable copies (its path below its copy's root counted, as cargo counts it). Cargo keeps one
/// build of a package per name and path below the workspace root in a target directory: two
/// projects of one name would share it, and the second run of the suite would find the other
/// project's build fresh and link it (a missing conversion webhook, stops 46 to 49).
///
/// A clashing copy written before this test binary was built is taken for a leftover of
/// earlier code and removed: if a test still makes it, its next copy is new and clashes then.
fn one_build_per_package(mirror: &Path) {
    let copies = mirror
        .ancestors()
        .find(|dir| dir.file_name().is_some_and(|n| n == "test-projects"))
        .expect("a stable copy");
    // The copy's workspaces: `mirror` itself, the one it is in, or those below it.
    let ours: Vec<PathBuf> = match mirror
        .ancestors()
        .take_while(|dir| *dir != copies)
        .filter(|dir| dir.join("Cargo.toml").is_file())
        .last()
    {
        Some(root) => vec![root.to_owned()],
        None => workspaces(mirror),
    };
    let ours: Vec<_> = ours.iter().map(|root| (root, packages_of(root))).collect();
    let modified = |path: &Path| std::fs::metadata(path).and_then(|m| m.modified()).ok();
    let built = std::env::current_exe().ok().and_then(|exe| modified(&exe));
    for other in workspaces(copies) {
        if ours.iter().any(|(root, _)| *root == &other) {
            continue;
        }
        for package in packages_of(&other) {
            if let Some((root, _)) = ours.iter().find(|(_, ours)| ours.contains(&package)) {
                if modified(&other.join("Cargo.toml")) < built {
                    let _ = std::fs::remove_dir_all(&other);
                    break;
                }
                panic!(
                    "package {} (at ./{}) is built both from {} and from {}: cargo keeps one \
                     build of both in {}; give one a name of its own \
                     (support::stable_copy_renamed or stable_copy_of_its_own)",
                    package.0,
                    package.1.display(),
                    root.display(),
                    other.display(),
                    projects_target_dir().display()
                );
            }
        }
    }
}

/// The topmost directories below `dir` that hold a Cargo.toml.
fn workspaces(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut walk = walkdir::WalkDir::new(dir).into_iter();
    while let Some(entry) = walk.next() {
        let Ok(entry) = entry else { continue };
        if entry.file_type().is_dir() && entry.path().join("Cargo.toml").is_file() {
            found.push(entry.into_path());
            walk.skip_current_dir();
        }
    }
    found
}

/// The packages cargo builds of the workspace at `root` (its own and its members', not what
/// it merely holds, like `vendor/`): each name and its directory relative to `root`.
fn packages_of(root: &Path) -> Vec<(String, PathBuf)> {
    let manifest = |dir: &Path| -> Option<toml::Table> {
        std::fs::read_to_string(dir.join("Cargo.toml"))
            .ok()?
            .parse()
            .ok()
    };
    let name = |manifest: &toml::Table| -> Option<String> {
        Some(manifest.get("package")?.get("name")?.as_str()?.to_owned())
    };
    let Some(top) = manifest(root) else {
        return Vec::new();
    };
    let members = top
        .get("workspace")
        .and_then(|w| w.get("members"))
        .and_then(|m| m.as_array())
        .into_iter()
        .flatten()
        .filter_map(|m| m.as_str())
        .filter_map(|member| Some((name(&manifest(&root.join(member))?)?, member.into())));
    name(&top)
        .map(|name| (name, PathBuf::new()))
        .into_iter()
        .chain(members)
        .collect()
}

/// [`stable_copy`] named after the test binary, the running test (libtest names the test's
/// thread after it) and the project's directory, its package renamed after the test in the
/// copy ([`stable_copy_renamed`]): tests that build projects of one name (`memcached-operator`,
/// `demo`) would otherwise share one build of it.
pub fn stable_copy_for_this_test(project: &Path) -> PathBuf {
    let thread = std::thread::current();
    let test = thread.name().expect("called on a test's thread");
    let dir = project.file_name().expect("a project directory");
    stable_copy_renamed(
        project,
        &format!(
            "{}/{}/{}",
            env!("CARGO_CRATE_NAME"),
            test.replace("::", "-"),
            dir.to_string_lossy()
        ),
        test.rsplit("::").next().unwrap(),
    )
}

/// [`stable_copy`] of `project` at `name` whose package is named `<package>-<suffix>` in the
/// copy ([`package_of_its_own`]) and as before in `project`. Renamed before it is copied, so the
/// copy's bytes are the same in every run and cargo finds its build fresh.
pub fn stable_copy_renamed(project: &Path, name: &str, suffix: &str) -> PathBuf {
    let kept: Vec<_> = ["Cargo.toml", "Cargo.lock"]
        .into_iter()
        .map(|file| (file, std::fs::read(project.join(file)).ok()))
        .collect();
    package_of_its_own(project, suffix);
    let mirror = stable_copy(project, name);
    for (file, bytes) in kept {
        if let Some(bytes) = bytes {
            std::fs::write(project.join(file), bytes).unwrap();
        }
    }
    mirror
}

/// The crates a scaffolded project takes from `vendor/`, and this workspace's copy of each.
fn workspace_crates() -> impl Iterator<Item = (&'static str, String)> {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("crates");
    ["opgen-runtime", "opgen-envtest"]
        .into_iter()
        .map(move |name| (name, toml_string(&crates.join(name).to_string_lossy())))
}

/// `cargo <args>` in a project the tests scaffolded, in [`projects_target_dir`], with
/// opgen-runtime and opgen-envtest patched to this workspace's `crates/` instead of the
/// project's `vendor/` copies, which `scaffold_snapshots` proves identical: one build of each
/// for every project rather than one per project directory (a config patch wins over the
/// manifest's). Only `readme.rs` builds from `vendor/`, as a user does, and
/// `tools/package.sh` from the packaged crates.
pub fn project_cargo(project: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO"));
    // Before the subcommand: what follows a `--` in `args` is not cargo's.
    for (name, path) in workspace_crates() {
        cmd.arg("--config")
            .arg(format!("patch.crates-io.{name}.path={path}"));
    }
    // The scaffold's own profile, for a crate `init` adopted too: one build of the dependencies.
    cmd.arg("--config")
        .arg("profile.dev.package.\"*\".debug=false");
    cmd.args(args).current_dir(project);
    builds_in_projects_target(&mut cmd);
    cmd
}

/// Makes `cmd`, a command that builds scaffolded projects (cargo, or a script or `make` that
/// runs it), build them in [`projects_target_dir`] with the environment every other build there
/// has: without RUSTFLAGS and what the outer `cargo test` set ([`clear_outer_test_env`]). One
/// command that differs rebuilds ring, and after it rustls, kube and opgen-runtime, there and
/// in the next build of every other project.
pub fn builds_in_projects_target(cmd: &mut Command) {
    cmd.env("CARGO_TARGET_DIR", projects_target_dir())
        .env_remove("RUSTFLAGS");
    clear_outer_test_env(cmd);
}

/// Removes what the outer `cargo test` (or `bench/test-times.sh`) set for this test binary from
/// a command that builds a project: a build script that reruns when one changes (ring's on
/// CARGO_PKG_NAME and OUT_DIR, anyhow's and proc-macro2's on RUSTC_BOOTSTRAP) would otherwise
/// rebuild the projects' shared dependencies whenever another package's tests, or a timed run,
/// build one. OUT_DIR (this package's build script's, set for its tests) was the one left: the
/// tests that tools/test.sh runs again against the newest Kubernetes, started without it, and
/// the main run took turns rebuilding ring and all of rustls, kube and opgen-runtime after it
/// (cargo's fingerprint log: `EnvVarChanged { name: "OUT_DIR", .. }` on ring's build script).
pub fn clear_outer_test_env(cmd: &mut Command) {
    for (name, _) in std::env::vars_os() {
        let name = name.to_string_lossy();
        if name.starts_with("CARGO_PKG_")
            || name.starts_with("CARGO_MANIFEST_")
            || name.starts_with("CARGO_BIN_")
            || [
                "CARGO_CRATE_NAME",
                "CARGO_PRIMARY_PACKAGE",
                "CARGO_TARGET_TMPDIR",
                "CARGO_RUSTC_CURRENT_DIR",
                "OUT_DIR",
                "RUSTC_BOOTSTRAP",
            ]
            .contains(&name.as_ref())
        {
            cmd.env_remove(name.as_ref());
        }
    }
}

/// Renames the project's package to `<package>-<name>` (`name`'s other characters than ASCII
/// letters and digits made `-`), its library keeping its crate name: cargo keeps one build of a
/// package name in a target directory, so projects of one name (every import's `imported`)
/// built at their stable copies ([`stable_copy`]) would otherwise rebuild each other in every
/// run. Returns the new package name.
pub fn package_of_its_own(project: &Path, name: &str) -> String {
    let cargo_toml = project.join("Cargo.toml");
    let text = std::fs::read_to_string(&cargo_toml).unwrap();
    let package = text
        .lines()
        .find_map(|l| l.strip_prefix("name = \""))
        .and_then(|l| l.strip_suffix('"'))
        .expect("a package name")
        .to_owned();
    let suffix: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    assert!(
        !text.contains("[lib]\nname = "),
        "{} names its library already",
        cargo_toml.display()
    );
    let text = text
        .replacen(
            &format!("name = \"{package}\""),
            &format!("name = \"{package}-{suffix}\""),
            1,
        )
        .replacen(
            "[lib]\n",
            &format!("[lib]\nname = \"{}\"\n", package.replace('-', "_")),
            1,
        );
    assert!(
        text.contains(&format!("name = \"{package}-{suffix}\"")) && text.contains("[lib]\nname = "),
        "{text}"
    );
    std::fs::write(&cargo_toml, text).unwrap();
    // The lock file's entry too: with the old name there, cargo resolves the project again and
    // updates the crates.io index to do it, in every run.
    let cargo_lock = project.join("Cargo.lock");
    if let Ok(lock) = std::fs::read_to_string(&cargo_lock) {
        let entry = format!("\n[[package]]\nname = \"{package}\"\n");
        assert!(
            lock.contains(&entry),
            "{} has no {package}",
            cargo_lock.display()
        );
        let renamed = format!("\n[[package]]\nname = \"{package}-{suffix}\"\n");
        std::fs::write(&cargo_lock, lock.replacen(&entry, &renamed, 1)).unwrap();
    }
    format!("{package}-{suffix}")
}

/// Runs `work` on every item, two at a time (the machines that run the tests have few cores).
pub fn two_at_a_time<T: Sync, R: Send>(items: &[T], work: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results: Vec<std::sync::Mutex<Option<R>>> =
        items.iter().map(|_| std::sync::Mutex::new(None)).collect();
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(item) = items.get(i) else { break };
                    *results[i].lock().unwrap() = Some(work(item));
                }
            });
        }
    });
    results
        .into_iter()
        .map(|r| r.into_inner().unwrap().unwrap())
        .collect()
}

/// Makes `root` a workspace of the scaffolded projects `members` (directories below it, each
/// given a package name of its own, [`package_of_its_own`], from `name` and the member): a
/// member's `[profile]` tables move to the root, where cargo reads them, its `[patch]` is the
/// root's, to this workspace's `crates/` (cargo does not pass [`project_cargo`]'s `--config` on
/// to `cargo clippy`), and its manager binary is renamed after its package, since cargo copies
/// every member's binary to one directory. One cargo command then builds them side by side:
/// rustc checks a crate on one core.
pub fn workspace_of_projects(root: &Path, name: &str, members: &[String]) {
    // Table header → the table, as the first member has it (every member has the same).
    let mut profiles = std::collections::BTreeMap::new();
    let mut packages = Vec::new();
    for member in members {
        let project = root.join(member);
        let package = package_of_its_own(&project, &format!("{name}/{member}"));
        packages.push(package.clone());
        let cargo_toml = project.join("Cargo.toml");
        let text = std::fs::read_to_string(&cargo_toml).unwrap();
        let mut kept = String::new();
        let mut table = String::new();
        for line in text.split_inclusive('\n') {
            if line.starts_with('[') {
                table = line.trim().to_owned();
            }
            if line.starts_with('#') && table.starts_with("[profile.") {
                // A comment after a profile's keys is about the table below it.
                table.clear();
            }
            if table.starts_with("[profile.") {
                let block: &mut String = profiles.entry(table.clone()).or_default();
                if member == &members[0] {
                    block.push_str(line);
                }
            } else if !table.starts_with("[patch.") {
                kept.push_str(line);
            }
        }
        let kept = kept.replacen(
            "[[bin]]\nname = \"",
            &format!("[[bin]]\nname = \"{package}-"),
            1,
        );
        std::fs::write(&cargo_toml, kept).unwrap();
    }
    let listed: Vec<String> = members.iter().map(|m| toml_string(m)).collect();
    let profiles: String = profiles.into_values().collect();
    std::fs::write(
        root.join("Cargo.toml"),
        format!(
            "[workspace]\nmembers = [{}]\nresolver = \"3\"\n\n{profiles}\n{}",
            listed.join(", "),
            crates_patch()
        ),
    )
    .unwrap();
    // The members' lock files differ in their own entries only: the first one's with the
    // others' own entries added (cargo sorts them when it writes it), so that cargo finds every
    // member locked and neither resolves nor updates the crates.io index again.
    let mut lock = std::fs::read_to_string(root.join(&members[0]).join("Cargo.lock")).unwrap();
    for (member, package) in members.iter().zip(&packages).skip(1) {
        let own = std::fs::read_to_string(root.join(member).join("Cargo.lock")).unwrap();
        let start = own
            .find(&format!("\n[[package]]\nname = \"{package}\"\n"))
            .expect("the member's own entry");
        let end = own[start + 1..]
            .find("\n[[package]]\n")
            .map_or(own.len(), |i| start + 1 + i);
        lock.push_str(&own[start..end]);
    }
    std::fs::write(root.join("Cargo.lock"), lock).unwrap();
}

/// [`stable_copy`] of `project` under a package name of its own ([`package_of_its_own`]), both
/// named by `name`.
pub fn stable_copy_of_its_own(project: &Path, name: &str) -> PathBuf {
    package_of_its_own(project, name);
    stable_copy(project, name)
}

/// What [`project_cargo`] does, for the cargo that commands run below `dir` start (`make`
/// in a scaffolded project): `dir/.cargo/config.toml` patches opgen-runtime and opgen-envtest
/// to this workspace's `crates/`.
pub fn patch_projects_below(dir: &Path) {
    std::fs::create_dir_all(dir.join(".cargo")).unwrap();
    std::fs::write(dir.join(".cargo/config.toml"), crates_patch()).unwrap();
}

/// The `[patch.crates-io]` table of opgen-runtime and opgen-envtest to this workspace's
/// `crates/`.
fn crates_patch() -> String {
    let patches: String = workspace_crates()
        .map(|(name, path)| format!("{name} = {{ path = {path} }}\n"))
        .collect();
    format!("[patch.crates-io]\n{patches}")
}

/// A TOML basic string.
fn toml_string(text: &str) -> String {
    serde_json::to_string(text).expect("a string serializes")
}

/// Runs [`project_cargo`] and fails the test unless it succeeds.
pub fn project_cargo_ok(project: &Path, args: &[&str]) {
    let status = project_cargo(project, args).status().expect("cargo runs");
    assert!(
        status.success(),
        "`cargo {}` failed in {}",
        args.join(" "),
        project.display()
    );
}

/// `opgen create api --group <group> --version <version> --kind <kind>` in `project`.
pub fn create_api(project: &Path, group: &str, version: &str, kind: &str) {
    opgen_ok(
        project,
        &[
            "create",
            "api",
            "--group",
            group,
            "--version",
            version,
            "--kind",
            kind,
        ],
    );
}

/// Whether this is CI (`CI` set and not `false`/`0`), where a missing tool fails a test.
pub fn on_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false" && v != "0")
}

/// A published Go module's directory in the module cache, downloaded through the Go module
/// proxy (`go mod download`); None when that fails.
pub fn go_module_dir(module: &str, version: &str) -> Option<PathBuf> {
    let out = Command::new("go")
        .args(["mod", "download", "-json", &format!("{module}@{version}")])
        .output()
        .ok()
        .filter(|o| o.status.success())?;
    let info: serde_json::Value = serde_json::from_slice(&out.stdout).ok()?;
    info["Dir"].as_str().map(PathBuf::from)
}

/// A release pair of a published Go module whose shipped CRDs `opgen diff` is tested on.
pub struct ReleasePair {
    /// The folder of crdify's verdicts under tests/fixtures/diff/crdify/.
    pub project: &'static str,
    pub module: &'static str,
    /// (version, the CRDs' directory in the module at that version)
    pub old: (&'static str, &'static str),
    pub new: (&'static str, &'static str),
    /// Where the module keeps sample objects (read at the old version), if it does.
    pub samples: Option<&'static str>,
}

/// Consecutive releases the Go module proxy holds (gateway-api v1.7.0 and source-controller
/// v1.10 need Go 1.27; the proxy has no cluster-api release between these two, only patch
/// releases of one cert-manager minor, and one kueue release).
pub const RELEASE_PAIRS: &[ReleasePair] = &[
    ReleasePair {
        project: "gateway-api",
        module: "sigs.k8s.io/gateway-api",
        old: ("v1.3.0", "config/crd/standard"),
        new: ("v1.4.0", "config/crd/standard"),
        samples: Some("examples/standard"),
    },
    ReleasePair {
        project: "gateway-api",
        module: "sigs.k8s.io/gateway-api",
        old: ("v1.4.0", "config/crd/standard"),
        new: ("v1.5.0", "config/crd/standard"),
        samples: Some("examples/standard"),
    },
    ReleasePair {
        project: "gateway-api",
        module: "sigs.k8s.io/gateway-api",
        old: ("v1.5.0", "config/crd/standard"),
        new: ("v1.6.0", "config/crd/standard"),
        samples: Some("examples/standard"),
    },
    ReleasePair {
        project: "source-controller",
        module: "github.com/fluxcd/source-controller",
        old: ("v1.8.5", "config/crd/bases"),
        new: ("v1.9.6", "config/crd/bases"),
        samples: Some("config/samples"),
    },
    ReleasePair {
        project: "cert-manager",
        module: "github.com/cert-manager/cert-manager",
        old: ("v1.21.0", "deploy/crds"),
        new: ("v1.21.2", "deploy/crds"),
        samples: None,
    },
    ReleasePair {
        project: "cluster-api",
        module: "sigs.k8s.io/cluster-api",
        old: ("v1.13.6", "config/crd/bases"),
        new: ("v1.14.2", "core/config/crd/bases"),
        samples: None,
    },
    // v0.16.0 (v1beta2 added, and made the storage version) and v0.16.3–5 are refused by the
    // module proxy (403): the nearest releases it serves on each side.
    ReleasePair {
        project: "kueue",
        module: "sigs.k8s.io/kueue",
        old: ("v0.15.1", "config/components/crd/bases"),
        new: ("v0.16.2", "config/components/crd/bases"),
        samples: None,
    },
    ReleasePair {
        project: "kueue",
        module: "sigs.k8s.io/kueue",
        old: ("v0.16.2", "config/components/crd/bases"),
        new: ("v0.17.1", "config/components/crd/bases"),
        samples: None,
    },
];

impl ReleasePair {
    /// `<old>..<new>`
    pub fn span(&self) -> String {
        format!("{}..{}", self.old.0, self.new.0)
    }

    /// The two CRD directories, downloaded; None (after a notice) when the proxy is out of
    /// reach, which fails under CI.
    pub fn crd_dirs(&self) -> Option<(PathBuf, PathBuf)> {
        let dir = |(version, path): (&str, &str)| {
            go_module_dir(self.module, version).map(|d| d.join(path))
        };
        match (dir(self.old), dir(self.new)) {
            (Some(old), Some(new)) => Some((old, new)),
            _ => {
                assert!(!on_ci(), "cannot download {} {}", self.module, self.span());
                eprintln!(
                    "skipped {} {}: the Go module proxy is out of reach",
                    self.module,
                    self.span()
                );
                None
            }
        }
    }

    /// The module's sample objects at the old version (every YAML document below `samples`).
    pub fn samples(&self) -> Vec<serde_json::Value> {
        let (Some(samples), Some(dir)) = (self.samples, go_module_dir(self.module, self.old.0))
        else {
            return Vec::new();
        };
        let mut files: Vec<PathBuf> = walkdir::WalkDir::new(dir.join(samples))
            .into_iter()
            .filter_map(Result::ok)
            .map(|e| e.into_path())
            .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
            .collect();
        files.sort();
        files
            .iter()
            .filter_map(|f| opgen_envtest::parse_documents(f).ok())
            .flatten()
            .collect()
    }

    /// The CRDs of one side, as (file stem, CRD) in file order.
    pub fn crds(dir: &Path) -> Vec<(String, serde_json::Value)> {
        let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
            .collect();
        files.sort();
        let mut crds = Vec::new();
        for file in files {
            let stem = file.file_stem().unwrap().to_string_lossy().into_owned();
            for value in opgen_envtest::parse_documents(&file).unwrap() {
                if value["kind"] == "CustomResourceDefinition" {
                    crds.push((stem.clone(), value));
                }
            }
        }
        crds
    }
}
