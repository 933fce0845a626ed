//! `opgen upgrade` on a project as opgen 0.1.0 wrote it (tests/fixtures/upgrade): the
//! framework modules leave src/ for opgen-runtime, the project builds and tests offline,
//! user edits are kept, and a file both the user and the scaffold changed is refused with
//! diffs, merged with --merge, replaced with --force.

mod support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use support::{new_memcached_project, opgen, opgen_err, opgen_ok, tree};

const FIXTURE: &str = "tests/fixtures/upgrade/opgen-0.1.0/memcached-operator";

/// A copy of the 0.1.0 project in a temporary directory.
fn fixture_copy(parent: &Path) -> PathBuf {
    copy_of(FIXTURE, parent)
}

fn copy_of(fixture: &str, parent: &Path) -> PathBuf {
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join(fixture);
    let to = parent.join(from.file_name().unwrap());
    support::copy_tree(&from, &to);
    to
}

fn read(project: &Path, file: &str) -> String {
    std::fs::read_to_string(project.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"))
}

fn write(project: &Path, file: &str, content: &str) {
    std::fs::write(project.join(file), content).unwrap();
}

/// Replaces exactly one occurrence of `from` in a file of the project.
fn edit(project: &Path, file: &str, from: &str, to: &str) {
    let text = read(project, file);
    assert_eq!(text.matches(from).count(), 1, "{file}: {from:?}");
    write(project, file, &text.replacen(from, to, 1));
}

fn rust_lines(project: &Path, dir: &str) -> usize {
    tree(&project.join(dir))
        .iter()
        .filter(|(p, _)| p.extension().is_some_and(|e| e == "rs"))
        .map(|(_, text)| text.lines().count())
        .sum()
}

/// Builds in the tests' shared target, opgen-runtime and opgen-envtest from `crates/`, which
/// the `vendor/` the upgrade wrote copies (`scaffold_snapshots`); the manifest's patch on
/// `vendor/` is checked as text.
fn cargo(project: &Path, args: &[&str]) {
    support::project_cargo_ok(&support::stable_copy_for_this_test(project), args);
}

/// The framework modules 0.1.0 wrote into src/, which opgen-runtime holds now.
const FRAMEWORK: &[&str] = &[
    "src/cli.rs",
    "src/error.rs",
    "src/leader_election.rs",
    "src/logging.rs",
    "src/manager.rs",
    "src/metrics.rs",
    "src/testing.rs",
    "src/server/mod.rs",
    "src/server/auth.rs",
    "src/server/tls.rs",
    "src/controllers/backoff.rs",
    "src/controllers/conditions.rs",
];

#[test]
fn an_unchanged_0_1_0_project_is_upgraded_builds_tests_and_is_then_up_to_date() {
    let parent = tempfile::tempdir().unwrap();
    let project = fixture_copy(parent.path());
    let src_before = rust_lines(&project, "src");
    let types = read(&project, "src/api/v1alpha1/memcached_types.rs");

    let out = opgen_ok(&project, &["upgrade"]);
    assert!(
        out.contains("upgraded memcached-operator from scaffold 1 to 9"),
        "{out}"
    );
    // Untouched by the user, so nothing was a conflict and every framework file went.
    for file in FRAMEWORK {
        assert!(!project.join(file).exists(), "{file} was left");
    }
    let src_after = rust_lines(&project, "src");
    assert!(
        src_after * 4 < src_before,
        "src/ went from {src_before} to {src_after} lines"
    );
    let manifest = read(&project, "Cargo.toml");
    assert!(
        manifest.contains("\nopgen-runtime = \"0.1\"\n"),
        "{manifest}"
    );
    assert!(
        manifest
            .contains("[patch.crates-io]\nopgen-runtime = { path = \"vendor/opgen-runtime\" }\n"),
        "{manifest}"
    );
    assert!(!manifest.contains("kube-lease-manager"), "{manifest}");
    assert!(
        project
            .join("vendor/opgen-runtime/src/manager.rs")
            .is_file()
    );
    let recorded = read(&project, "PROJECT");
    assert!(recorded.contains("scaffoldVersion: 9\n"), "{recorded}");
    // The types are the user's and the scaffold did not change their template.
    assert_eq!(read(&project, "src/api/v1alpha1/memcached_types.rs"), types);
    // The controller and webhook run on opgen-runtime now, the 2025 headers kept.
    let controller = read(&project, "src/controllers/memcached.rs");
    assert!(controller.contains("use opgen_runtime::{"), "{controller}");
    assert!(controller.starts_with("// Copyright 2025 The memcached-operator Authors."));
    let webhook = read(&project, "src/webhooks/memcached.rs");
    assert!(
        webhook.contains("impl Validator for Memcached {"),
        "{webhook}"
    );

    // The project builds and passes its own tests offline, with the lock the upgrade wrote.
    cargo(&project, &["build", "--locked", "--offline"]);
    cargo(&project, &["test", "--locked", "--offline"]);
    opgen_ok(&project, &["manifests", "--check"]);

    let before = without_build_output(tree(&project));
    let out = opgen_ok(&project, &["upgrade"]);
    assert_eq!(
        out,
        "memcached-operator is already up to date (scaffold 9)\n"
    );
    assert_eq!(without_build_output(tree(&project)), before);
}

fn without_build_output(mut files: BTreeMap<PathBuf, String>) -> BTreeMap<PathBuf, String> {
    files.retain(|p, _| !p.starts_with("target"));
    files
}

/// What opgen 0.1.0 wrote is rendered again exactly for other kinds of projects too: no
/// license, conversion webhooks, registries not in PROJECT's order, multigroup, namespaced,
/// another owner and Kubernetes version. Any difference would be a conflict here.
const SCAFFOLD_2: &str = "tests/fixtures/upgrade/scaffold-2/memcached-operator";

/// Scaffold 2 asked for opgen-runtime and opgen-envtest by path on vendor/; scaffold 3 asks by
/// version and patches crates.io with vendor/, and installs the `opgen-cli` package.
#[test]
fn a_scaffold_2_project_asks_for_the_crates_by_version_and_builds() {
    let parent = tempfile::tempdir().unwrap();
    let project = copy_of(SCAFFOLD_2, parent.path());
    let types = read(&project, "src/api/v1alpha1/memcached_types.rs");
    let out = opgen_ok(&project, &["upgrade"]);
    assert!(
        out.contains("upgraded memcached-operator from scaffold 2 to 9"),
        "{out}"
    );
    let manifest = read(&project, "Cargo.toml");
    for line in [
        "\nopgen-runtime = \"0.1\"\n",
        "\nopgen-runtime = { version = \"0.1\", features = [\"testing\"] }\n",
        "\nopgen-envtest = \"0.1\"\n",
        "\n[patch.crates-io]\n\
         opgen-runtime = { path = \"vendor/opgen-runtime\" }\n\
         opgen-envtest = { path = \"vendor/opgen-envtest\" }\n",
    ] {
        assert!(manifest.contains(line), "{line:?} in\n{manifest}");
    }
    assert!(
        !manifest.contains("path = \"vendor/opgen-runtime\", features"),
        "{manifest}"
    );
    assert!(
        read(&project, "Makefile").contains("\nOPGEN_INSTALL_FROM ?= opgen-cli@$(OPGEN_VERSION)\n")
    );
    assert!(read(&project, "PROJECT").contains("scaffoldVersion: 9\n"));
    assert_eq!(read(&project, "src/api/v1alpha1/memcached_types.rs"), types);
    cargo(
        &project,
        &["build", "--locked", "--offline", "--all-targets"],
    );

    // A user who added a dependency: both changed Cargo.toml, in lines apart, so --merge
    // settles it without conflict markers.
    let project = copy_of(SCAFFOLD_2, &parent.path().join("edited"));
    edit(
        &project,
        "Cargo.toml",
        "clap = { version = \"4.6\", features = [\"derive\", \"env\"] }\n",
        "clap = { version = \"4.6\", features = [\"derive\", \"env\"] }\nanyhow = \"1\"\n",
    );
    let before = tree(&project);
    let err = opgen_err(&project, &["upgrade"]);
    assert!(err.contains("Cargo.toml"), "{err}");
    assert_eq!(tree(&project), before, "a refused upgrade writes nothing");
    opgen_ok(&project, &["upgrade", "--merge"]);
    let manifest = read(&project, "Cargo.toml");
    assert!(manifest.contains("\nanyhow = \"1\"\n"), "{manifest}");
    assert!(
        manifest.contains("\nopgen-runtime = \"0.1\"\n"),
        "{manifest}"
    );
    assert!(!manifest.contains("<<<<<<<"), "{manifest}");
}

/// Scaffold 3 built the dependencies with debug info; scaffold 4 builds them without (the
/// project's own code keeps it), and changes nothing else.
const SCAFFOLD_3: &str = "tests/fixtures/upgrade/scaffold-3/memcached-operator";

/// The files of a project of scaffold 3 or 4 that scaffold 5 changes: its envtest tests move
/// into the one test binary tests/envtest/ (and the README says so).
const ENVTEST_MOVED: &[&str] = &[
    "tests/memcached_controller.rs",
    "tests/memcached_webhooks.rs",
];
const ENVTEST_ADDED: &[&str] = &[
    "tests/envtest/main.rs",
    "tests/envtest/memcached_controller.rs",
    "tests/envtest/memcached_webhooks.rs",
];

/// What an upgrade changed: (changed or added, removed), vendor/ aside (opgen's, written whole;
/// the fixtures leave it out).
fn upgrade_changes(
    before: &BTreeMap<PathBuf, String>,
    project: &Path,
) -> (Vec<PathBuf>, Vec<PathBuf>) {
    assert!(project.join("vendor/opgen-runtime/Cargo.toml").is_file());
    let mut after = tree(project);
    after.retain(|path, _| !path.starts_with("vendor"));
    let changed = after
        .iter()
        .filter(|(path, text)| before.get(*path) != Some(*text) && *text != "<dir>")
        .map(|(path, _)| path.clone())
        .collect();
    let removed = before
        .keys()
        .filter(|path| !after.contains_key(*path))
        .cloned()
        .collect();
    (changed, removed)
}

/// The files of `lists`, each once, in order: what several scaffold generations changed.
fn paths(lists: &[&[&str]]) -> Vec<PathBuf> {
    let paths: std::collections::BTreeSet<PathBuf> =
        lists.iter().copied().flatten().map(PathBuf::from).collect();
    paths.into_iter().collect()
}

#[test]
fn a_scaffold_3_project_builds_its_dependencies_without_debug_info() {
    let parent = tempfile::tempdir().unwrap();
    let project = copy_of(SCAFFOLD_3, parent.path());
    let before = tree(&project);
    let out = opgen_ok(&project, &["upgrade"]);
    assert!(
        out.contains("upgraded memcached-operator from scaffold 3 to 9"),
        "{out}"
    );
    let (changed, removed) = upgrade_changes(&before, &project);
    let expected = paths(&[
        ENVTEST_ADDED,
        &["Cargo.toml", "Makefile", "src/controllers/memcached.rs"],
        SCAFFOLD_6_CHANGED,
        SCAFFOLD_7_CHANGED,
        SCAFFOLD_8_CHANGED,
        SCAFFOLD_9_CHANGED,
    ]);
    assert_eq!(changed, expected, "{out}");
    assert_eq!(removed, paths(&[ENVTEST_MOVED]), "{out}");
    let manifest = read(&project, "Cargo.toml");
    assert!(
        manifest.contains("\n[profile.dev.package.\"*\"]\ndebug = false\n"),
        "{manifest}"
    );
    assert!(read(&project, "PROJECT").contains("scaffoldVersion: 9\n"));
    assert_eq!(
        opgen_ok(&project, &["upgrade"]),
        "memcached-operator is already up to date (scaffold 9)\n"
    );
}

/// Scaffold 4 had one envtest test binary per kind and webhook, each starting its own control
/// plane; scaffold 5 makes them modules of one, tests/envtest/, on one control plane, with
/// webhooks scoped to each test's namespace. The upgraded project is what opgen scaffolds today,
/// file for file (`scaffolded_project` builds and tests that).
const SCAFFOLD_4: &str = "tests/fixtures/upgrade/scaffold-4/memcached-operator";

#[test]
fn a_scaffold_4_project_gets_one_envtest_binary_and_is_then_as_scaffolded_today() {
    let parent = tempfile::tempdir().unwrap();
    let project = copy_of(SCAFFOLD_4, parent.path());
    let before = tree(&project);
    let out = opgen_ok(&project, &["upgrade", "-v"]);
    assert!(
        out.contains("upgraded memcached-operator from scaffold 4 to 9"),
        "{out}"
    );
    let (changed, removed) = upgrade_changes(&before, &project);
    let expected = paths(&[
        ENVTEST_ADDED,
        // Cargo.toml: the fixture's `[workspace]` table, which the copy outside the repository
        // no longer needs.
        &["Cargo.toml"],
        SCAFFOLD_6_CHANGED,
        SCAFFOLD_7_CHANGED,
        SCAFFOLD_8_CHANGED,
        SCAFFOLD_9_CHANGED,
    ]);
    assert_eq!(changed, expected, "{out}");
    assert_eq!(removed, paths(&[ENVTEST_MOVED]), "{out}");

    is_as_scaffolded_today(&project);
}

/// The memcached fixture `project`, upgraded, is file for file what the same commands write
/// today, and a second upgrade finds nothing to do.
fn is_as_scaffolded_today(project: &Path) {
    // The same commands today write the same project.
    let fresh_dir = tempfile::tempdir().unwrap();
    opgen_ok(
        fresh_dir.path(),
        &[
            "new",
            "memcached-operator",
            "--domain",
            "example.com",
            "--repo",
            "github.com/example/memcached-operator",
            "--group",
            "cache",
            "--version",
            "v1alpha1",
            "--kind",
            "Memcached",
            "-q",
        ],
    );
    let fresh = fresh_dir.path().join("memcached-operator");
    support::add_memcached_webhooks(&fresh);
    let mut upgraded = tree(project);
    let mut today = tree(&fresh);
    for files in [&mut upgraded, &mut today] {
        files.retain(|path, _| !path.starts_with("vendor"));
    }
    assert_eq!(
        upgraded.keys().collect::<Vec<_>>(),
        today.keys().collect::<Vec<_>>()
    );
    for (path, text) in &upgraded {
        assert_eq!(text, &today[path], "{}", path.display());
    }
    assert_eq!(
        opgen_ok(project, &["upgrade"]),
        "memcached-operator is already up to date (scaffold 9)\n"
    );
}

/// Scaffold 6: a controller's unit tests check outcomes on a fake API server, the README shows
/// how to own objects, `verify-manifests` says when there is no git repository.
const SCAFFOLD_5: &str = "tests/fixtures/upgrade/scaffold-5/memcached-operator";

/// The files of the memcached fixture that scaffold 6 changes.
const SCAFFOLD_6_CHANGED: &[&str] = &[
    "Makefile",
    "PROJECT",
    "README.md",
    "src/controllers/memcached.rs",
    "tests/envtest/memcached_webhooks.rs",
];

/// Scaffold 7: `make lint-api`, `verify-api` and `docs`, a CI workflow that runs the checks, and
/// a controller on opgen-runtime's status and condition helpers.
const SCAFFOLD_6: &str = "tests/fixtures/upgrade/scaffold-6/memcached-operator";

/// The files of the memcached fixture that scaffold 7 changes or adds.
const SCAFFOLD_7_CHANGED: &[&str] = &[
    ".github/workflows/ci.yml",
    "Makefile",
    "PROJECT",
    "README.md",
    "src/controllers/memcached.rs",
    "tests/envtest/main.rs",
    "tests/envtest/memcached_v1alpha1_schema.rs",
];

#[test]
fn a_scaffold_5_project_is_upgraded_to_what_opgen_scaffolds_today() {
    let parent = tempfile::tempdir().unwrap();
    let project = copy_of(SCAFFOLD_5, parent.path());
    let before = tree(&project);
    let out = opgen_ok(&project, &["upgrade", "-v"]);
    assert!(
        out.contains("upgraded memcached-operator from scaffold 5 to 9"),
        "{out}"
    );
    let (changed, removed) = upgrade_changes(&before, &project);
    let expected = paths(&[
        SCAFFOLD_6_CHANGED,
        SCAFFOLD_7_CHANGED,
        SCAFFOLD_8_CHANGED,
        SCAFFOLD_9_CHANGED,
    ]);
    assert_eq!(changed, expected, "{out}");
    assert!(removed.is_empty(), "{removed:?}");
    let controller = read(&project, "src/controllers/memcached.rs");
    assert!(controller.contains("fake_client"), "{controller}");
    is_as_scaffolded_today(&project);
}

#[test]
fn a_scaffold_6_project_gets_the_api_checks_and_is_then_as_scaffolded_today() {
    let parent = tempfile::tempdir().unwrap();
    let project = copy_of(SCAFFOLD_6, parent.path());
    let before = tree(&project);
    let out = opgen_ok(&project, &["upgrade", "-v"]);
    assert!(
        out.contains("upgraded memcached-operator from scaffold 6 to 9"),
        "{out}"
    );
    let (changed, removed) = upgrade_changes(&before, &project);
    assert_eq!(
        changed,
        paths(&[SCAFFOLD_7_CHANGED, SCAFFOLD_8_CHANGED, SCAFFOLD_9_CHANGED]),
        "{out}"
    );
    assert!(removed.is_empty(), "{removed:?}");
    let makefile = read(&project, "Makefile");
    for target in ["lint-api", "verify-api", "docs"] {
        assert!(
            makefile.contains(&format!("\n.PHONY: {target}\n")),
            "{makefile}"
        );
    }
    is_as_scaffolded_today(&project);
}

const SCAFFOLD_7: &str = "tests/fixtures/upgrade/scaffold-7/memcached-operator";

/// The files of the memcached fixture that scaffold 8 changes: the generated webhooks and tests
/// within 100 columns (markers aside), and a conversion test that fails with the manager's
/// error when the manager stops before serving `/convert`.
const SCAFFOLD_8_CHANGED: &[&str] = &[
    "PROJECT",
    "src/webhooks/memcached.rs",
    "tests/envtest/memcached_v1alpha1_schema.rs",
    "tests/envtest/memcached_webhooks.rs",
];

#[test]
fn a_scaffold_7_project_is_upgraded_to_what_opgen_scaffolds_today() {
    let parent = tempfile::tempdir().unwrap();
    let project = copy_of(SCAFFOLD_7, parent.path());
    let before = tree(&project);
    let out = opgen_ok(&project, &["upgrade", "-v"]);
    assert!(
        out.contains("upgraded memcached-operator from scaffold 7 to 9"),
        "{out}"
    );
    let (changed, removed) = upgrade_changes(&before, &project);
    assert_eq!(
        changed,
        paths(&[SCAFFOLD_8_CHANGED, SCAFFOLD_9_CHANGED]),
        "{out}"
    );
    assert!(removed.is_empty(), "{removed:?}");
    for file in &SCAFFOLD_8_CHANGED[1..] {
        let text = read(&project, file);
        let long: Vec<_> = text
            .lines()
            .filter(|l| l.len() > 100 && !l.starts_with("// +kubebuilder:"))
            .collect();
        assert!(long.is_empty(), "{file}: {long:#?}");
    }
    is_as_scaffolded_today(&project);
}

const SCAFFOLD_8: &str = "tests/fixtures/upgrade/scaffold-8/memcached-operator";

/// The files of the memcached fixture that scaffold 9 changes: the release profile the image is
/// built with (fat LTO, one codegen unit, optimized for size), the README's owned children
/// watched for their metadata alone (`owns_metadata`), and hack/setup-envtest.sh, which opgen
/// owns and replaces on every upgrade (its Go builds write no debug information since).
const SCAFFOLD_9_CHANGED: &[&str] = &[
    "Cargo.toml",
    "PROJECT",
    "README.md",
    "hack/setup-envtest.sh",
];

#[test]
fn a_scaffold_8_project_gets_the_release_profile_and_is_then_as_scaffolded_today() {
    let parent = tempfile::tempdir().unwrap();
    let project = copy_of(SCAFFOLD_8, parent.path());
    let before = tree(&project);
    let out = opgen_ok(&project, &["upgrade", "-v"]);
    assert!(
        out.contains("upgraded memcached-operator from scaffold 8 to 9"),
        "{out}"
    );
    let (changed, removed) = upgrade_changes(&before, &project);
    assert_eq!(changed, paths(&[SCAFFOLD_9_CHANGED]), "{out}");
    assert!(removed.is_empty(), "{removed:?}");
    let manifest = read(&project, "Cargo.toml");
    assert!(
        manifest
            .contains("\n[profile.release]\nlto = \"fat\"\ncodegen-units = 1\nopt-level = \"s\"\n"),
        "{manifest}"
    );
    assert!(read(&project, "README.md").contains("owns_metadata::<StatefulSet>"));
    is_as_scaffolded_today(&project);
}

/// An edited test of scaffold 4 is a conflict; with --merge it is kept, as a test binary of its
/// own beside tests/envtest/, and the warning says where its scaffold 5 copy is.
#[test]
fn an_edited_scaffold_4_envtest_test_is_kept_beside_the_new_binary() {
    let parent = tempfile::tempdir().unwrap();
    let project = copy_of(SCAFFOLD_4, parent.path());
    let test = read(&project, "tests/memcached_webhooks.rs") + "\n// Our own check.\n";
    write(&project, "tests/memcached_webhooks.rs", &test);
    let err = opgen_err(&project, &["upgrade"]);
    assert!(
        err.contains("tests/memcached_webhooks.rs is no longer part of the scaffold (tests/envtest/memcached_webhooks.rs is, a module of the one envtest test binary), but you changed it:"),
        "{err}"
    );
    assert!(err.contains("    +// Our own check.\n"), "{err}");
    assert!(
        !project.join("tests/envtest").exists(),
        "nothing is written"
    );

    let out = opgen(&project, &["upgrade", "--merge"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(read(&project, "tests/memcached_webhooks.rs"), test);
    assert!(!project.join("tests/memcached_controller.rs").exists());
    assert!(
        project
            .join("tests/envtest/memcached_webhooks.rs")
            .is_file()
    );
    assert!(
        stderr.contains("tests/memcached_webhooks.rs is no longer part of the scaffold 9 (tests/envtest/memcached_webhooks.rs is, a module of the one envtest test binary), but you changed it: kept, a test binary of its own"),
        "{stderr}"
    );
}

#[test]
fn other_0_1_0_projects_upgrade_without_conflicts() {
    for fixture in ["conversion-operator", "multigroup-operator"] {
        let parent = tempfile::tempdir().unwrap();
        let project = copy_of(
            &format!("tests/fixtures/upgrade/opgen-0.1.0/{fixture}"),
            parent.path(),
        );
        let out = opgen(&project, &["upgrade"]);
        let (stdout, stderr) = (
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
        );
        assert!(out.status.success(), "{fixture}: {stderr}");
        assert!(
            stdout.contains(&format!("upgraded {fixture} from scaffold 1 to 9")),
            "{stdout}"
        );
        assert_eq!(
            stderr,
            "warning: the framework modules of scaffold 1 are in opgen-runtime now: 12 files of src/ are no longer part of the project\n",
            "{fixture}"
        );
        for file in FRAMEWORK {
            assert!(!project.join(file).exists(), "{fixture}: {file} was left");
        }
        assert!(project.join("vendor/opgen-runtime/Cargo.toml").is_file());
        opgen_ok(&project, &["manifests", "--check"]);
        let out = opgen_ok(&project, &["upgrade"]);
        assert_eq!(
            out,
            format!("{fixture} is already up to date (scaffold 9)\n")
        );
    }
    // The registry keeps the order the user created the webhooks in.
    let parent = tempfile::tempdir().unwrap();
    let project = copy_of(
        "tests/fixtures/upgrade/opgen-0.1.0/conversion-operator",
        parent.path(),
    );
    opgen_ok(&project, &["upgrade"]);
    let registry = read(&project, "src/webhooks/mod.rs");
    let conversion = registry
        .find("    cache_cluster_conversion::WEBHOOK,\n")
        .unwrap();
    let foo = registry.find("    foo::WEBHOOK,\n").unwrap();
    assert!(conversion < foo, "{registry}");
    // No license: no header.
    assert!(read(&project, "src/main.rs").starts_with("//! "));
    let multigroup = copy_of(
        "tests/fixtures/upgrade/opgen-0.1.0/multigroup-operator",
        parent.path(),
    );
    opgen_ok(&multigroup, &["upgrade"]);
    assert!(read(&multigroup, "src/main.rs").starts_with("// Copyright 2025 Acme Corp.\n"));
    assert!(read(&multigroup, "Cargo.toml").contains("features = [\"v1_37\"]"));
}

#[test]
fn dry_run_lists_every_change_and_writes_nothing() {
    let parent = tempfile::tempdir().unwrap();
    let project = fixture_copy(parent.path());
    let before = tree(&project);
    let out = opgen_ok(&project, &["upgrade", "--dry-run"]);
    for line in [
        "would remove src/cli.rs\n",
        "would remove src/server/tls.rs\n",
        "would update src/lib.rs\n",
        "would update src/controllers/memcached.rs\n",
        "would update Cargo.toml\n",
        "would update PROJECT\n",
        "would create vendor/opgen-runtime/src/lib.rs\n",
        "dry run: nothing was written\n",
    ] {
        assert!(out.contains(line), "{line:?} missing from:\n{out}");
    }
    // Files neither side changed are not listed.
    assert!(!out.contains("memcached_types.rs"), "{out}");
    assert_eq!(tree(&project), before);
}

#[test]
fn user_edits_to_files_the_scaffold_did_not_change_are_kept() {
    let parent = tempfile::tempdir().unwrap();
    let project = fixture_copy(parent.path());
    let types = "src/api/v1alpha1/memcached_types.rs";
    edit(
        &project,
        types,
        "pub struct MemcachedSpec {\n",
        "pub struct MemcachedSpec {\n    /// Replicas of the memcached Deployment.\n    #[serde(default)]\n    pub size: i32,\n",
    );
    edit(
        &project,
        "Dockerfile",
        "FROM gcr.io/distroless/cc-debian12:nonroot",
        "# Ours: the debug image while we chase a crash.\nFROM gcr.io/distroless/cc-debian12:debug-nonroot",
    );
    // A lock file cargo updated since: the user's, kept (cargo adds what the runtime needs).
    let lock = read(&project, "Cargo.lock") + "\n";
    write(&project, "Cargo.lock", &lock);
    let (types_text, dockerfile) = (read(&project, types), read(&project, "Dockerfile"));

    let out = opgen(&project, &["upgrade"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(read(&project, types), types_text);
    assert_eq!(read(&project, "Dockerfile"), dockerfile);
    assert_eq!(read(&project, "Cargo.lock"), lock);
    assert!(
        stderr.contains("warning: Cargo.lock is no longer the one opgen wrote: kept as it is"),
        "{stderr}"
    );
    // The CRD follows the user's field (manifests ran after the upgrade).
    let crd = read(
        &project,
        "config/crd/bases/cache.example.com_memcacheds.yaml",
    );
    assert!(crd.contains("size:\n"), "{crd}");
}

#[test]
fn a_file_both_changed_is_refused_with_diffs_merged_with_merge_replaced_with_force() {
    let parent = tempfile::tempdir().unwrap();
    let project = fixture_copy(parent.path());
    // A line the new scaffold rewrites too.
    edit(
        &project,
        "src/main.rs",
        "//! The manager binary: parses flags, sets up logging and runs the manager.",
        "//! The memcached manager, as we run it.",
    );
    let before = tree(&project);

    for args in [&["upgrade"][..], &["upgrade", "--dry-run"]] {
        let err = opgen_err(&project, args);
        assert!(
            err.contains("error: src/main.rs: you changed it, and the new scaffold changes it too (--merge leaves 1 conflict(s) to resolve by hand)"),
            "{err}"
        );
        assert!(
            err.contains("    -//! The manager binary: parses flags, sets up logging and runs the manager.\n    +//! The memcached manager, as we run it.\n"),
            "the user's change is shown as a diff:\n{err}"
        );
        assert!(
            err.contains("    +use opgen_runtime::ManagerArgs;\n"),
            "the scaffold's change is shown as a diff:\n{err}"
        );
        assert!(err.contains("nothing was written; pass --merge"), "{err}");
        // Only the conflict is an error: the other files would have upgraded cleanly.
        let errors = err.lines().filter(|l| l.starts_with("error: ")).count();
        assert_eq!(errors, 1, "{err}");
        assert_eq!(tree(&project), before);
    }

    let merged_dir = tempfile::tempdir().unwrap();
    let merged = fixture_copy(merged_dir.path());
    for (path, content) in &before {
        if content != "<dir>" {
            std::fs::write(merged.join(path), content).unwrap();
        }
    }
    let out = opgen(&merged, &["upgrade", "--merge"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let main = read(&merged, "src/main.rs");
    let ours = main.find("<<<<<<< ours\n").expect("conflict markers");
    let mine = main
        .find("//! The memcached manager, as we run it.\n")
        .unwrap();
    let theirs = main.find(">>>>>>> theirs\n").unwrap();
    assert!(ours < mine && mine < theirs, "{main}");
    assert!(main.contains("use opgen_runtime::ManagerArgs;"), "{main}");
    assert!(
        stderr.contains("src/main.rs: your changes and the new scaffold's overlap"),
        "{stderr}"
    );
    assert!(stderr.contains("opgen manifests was not run"), "{stderr}");
    // Everything else was upgraded.
    assert!(!merged.join("src/cli.rs").exists());
    assert!(read(&merged, "PROJECT").contains("scaffoldVersion: 9\n"));

    let out = opgen_ok(&project, &["upgrade", "--force"]);
    assert!(
        out.contains("updated src/main.rs (replaced (--force))"),
        "{out}"
    );
    let clean_dir = tempfile::tempdir().unwrap();
    let clean = fixture_copy(clean_dir.path());
    opgen_ok(&clean, &["upgrade"]);
    assert_eq!(read(&project, "src/main.rs"), read(&clean, "src/main.rs"));
}

#[test]
fn an_edited_framework_file_is_a_conflict_and_merge_keeps_it() {
    let parent = tempfile::tempdir().unwrap();
    let project = fixture_copy(parent.path());
    let metrics = read(&project, "src/metrics.rs") + "\n// Our own metric.\n";
    write(&project, "src/metrics.rs", &metrics);
    let err = opgen_err(&project, &["upgrade"]);
    assert!(
        err.contains("src/metrics.rs is no longer part of the scaffold (opgen-runtime holds it), but you changed it:"),
        "{err}"
    );
    assert!(err.contains("    +// Our own metric.\n"), "{err}");
    assert!(project.join("src/cli.rs").exists(), "nothing is written");

    let out = opgen(&project, &["upgrade", "--merge"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(read(&project, "src/metrics.rs"), metrics);
    assert!(!project.join("src/cli.rs").exists());
    assert!(
        stderr.contains("src/metrics.rs is no longer part of the scaffold 9"),
        "{stderr}"
    );
}

/// The user's reconcile body and webhook rules survive a merge, and every use of a 0.1.0
/// framework item left in them is named at its line with what replaces it.
#[test]
fn user_controller_and_webhook_code_survives_and_stale_paths_are_named() {
    let parent = tempfile::tempdir().unwrap();
    let project = fixture_copy(parent.path());
    let controller = "src/controllers/memcached.rs";
    let webhook = "src/webhooks/memcached.rs";
    // An import of their own next to 0.1.0's, and a line in the reconcile body.
    edit(
        &project,
        controller,
        "use crate::controllers::{\n",
        "use k8s_openapi::api::apps::v1::Deployment;\n\nuse crate::controllers::{\n",
    );
    edit(
        &project,
        controller,
        "    if desired == current {\n",
        "    // Ours: scale the memcached Deployment to spec.size here.\n    if desired == current {\n",
    );
    edit(
        &project,
        webhook,
        "    // TODO(user): fill in your validation logic upon object creation.\n",
        "    if obj.name_any().len() > 40 {\n        return Err(\"name longer than 40 characters\".into());\n    }\n",
    );

    let err = opgen_err(&project, &["upgrade"]);
    for file in [controller, webhook] {
        assert!(
            err.contains(&format!("error: {file}: you changed it")),
            "{err}"
        );
    }

    let out = opgen(&project, &["upgrade", "--merge"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let merged = read(&project, controller);
    assert!(merged.contains("    // Ours: scale the memcached Deployment to spec.size here.\n"));
    assert!(merged.contains("use k8s_openapi::api::apps::v1::Deployment;\n"));
    // The registration is the new scaffold's, on opgen-runtime.
    assert!(merged.contains("controller::run(ctx, NAME, reconcile, error_policy)"));
    let merged_webhook = read(&project, webhook);
    assert!(merged_webhook.contains("return Err(\"name longer than 40 characters\".into());"));
    assert!(merged_webhook.contains("impl Validator for Memcached {"));

    // Each stale path is named at the line and column that hold it, with its replacement.
    let mut named = Vec::new();
    let mut item = None;
    for line in stderr.lines() {
        if let Some(rest) = line.strip_prefix("warning: `")
            && let Some((path, _)) = rest.split_once("` of scaffold 1 is ")
        {
            item = Some(path.rsplit("::").next().unwrap().to_owned());
        }
        let Some(at) = line.strip_prefix("  --> ") else {
            continue;
        };
        let mut parts = at.rsplitn(3, ':');
        let column: usize = parts.next().unwrap().parse().unwrap();
        let number: usize = parts.next().unwrap().parse().unwrap();
        let file = parts.next().unwrap();
        let text = read(&project, file);
        let source = text.lines().nth(number - 1).unwrap();
        let item = item.take().expect("a location follows its message");
        assert!(source[column - 1..].starts_with(&item), "{line}: {source}");
        named.push(item);
    }
    for item in [
        "Context",
        "is_not_found",
        "ensure_crd_installed",
        "log_reconcile_result",
    ] {
        assert!(
            named.iter().any(|n| n == item),
            "{item} not named:\n{stderr}"
        );
    }
    assert!(
        stderr
            .contains("`controllers::Context` of scaffold 1 is moved: this line needs a hand edit"),
        "{stderr}"
    );
    assert!(
        stderr.contains("= help: use opgen_runtime::Context\n"),
        "{stderr}"
    );
    // ControllerEntry still resolves: the new src/controllers/mod.rs imports it.
    assert!(!named.iter().any(|n| n == "ControllerEntry"), "{stderr}");
}

#[test]
fn a_current_project_is_already_up_to_date() {
    let parent = tempfile::tempdir().unwrap();
    let project = new_memcached_project(parent.path(), "memcached-operator");
    assert!(read(&project, "PROJECT").contains("scaffoldVersion: 9\n"));
    let before = tree(&project);
    let out = opgen_ok(&project, &["upgrade"]);
    assert_eq!(
        out,
        "memcached-operator is already up to date (scaffold 9)\n"
    );
    assert_eq!(tree(&project), before);

    // Without scaffoldVersion, a project on opgen-runtime is taken for scaffold 2 (PROJECT
    // records it since then). Its files are already as scaffold 3 writes them, so the upgrade
    // to 3 finds both sides equal everywhere: only PROJECT changes.
    let recorded = read(&project, "PROJECT");
    write(
        &project,
        "PROJECT",
        &recorded.replace("scaffoldVersion: 9\n", ""),
    );
    let out = opgen_ok(&project, &["upgrade", "-v"]);
    assert_eq!(
        out,
        "updated PROJECT\nupgraded memcached-operator from scaffold 2 to 9: 0 created, 1 updated\n"
    );
    assert_eq!(tree(&project), before);
}

#[test]
fn a_project_of_a_newer_opgen_is_refused() {
    let parent = tempfile::tempdir().unwrap();
    let project = fixture_copy(parent.path());
    let recorded = read(&project, "PROJECT");
    write(
        &project,
        "PROJECT",
        &recorded.replace("version: '3'", "scaffoldVersion: 10\nversion: '3'"),
    );
    let before = tree(&project);
    let err = opgen_err(&project, &["upgrade"]);
    assert!(
        err.contains("PROJECT has scaffoldVersion 10, and this opgen knows scaffolds 1 to 9"),
        "{err}"
    );
    assert!(err.contains("a newer opgen wrote this project"), "{err}");
    assert_eq!(tree(&project), before);
}

#[test]
fn help_names_the_ways_to_settle_a_conflict() {
    let dir = tempfile::tempdir().unwrap();
    let help = opgen_ok(dir.path(), &["upgrade", "--help"]);
    for want in [
        "Bring a project made by an earlier opgen to the current scaffold",
        "--dry-run",
        "--merge",
        "--force",
        "opgen upgrade --merge",
    ] {
        assert!(help.contains(want), "{want:?} missing from:\n{help}");
    }
    let err = opgen(dir.path(), &["upgrade", "--merge", "--force"]);
    assert_eq!(err.status.code(), Some(2), "clap refuses both");
}

#[test]
fn a_manifest_without_a_kubernetes_version_is_refused_with_the_fix() {
    let parent = tempfile::tempdir().unwrap();
    let project = fixture_copy(parent.path());
    edit(
        &project,
        "Cargo.toml",
        "features = [\"v1_33\"]",
        "features = []",
    );
    let before = tree(&project);
    let err = opgen_err(&project, &["upgrade"]);
    assert!(
        err.contains("Cargo.toml: the k8s-openapi dependency has no Kubernetes version feature this opgen knows (v1_33 to v1_37)"),
        "{err}"
    );
    assert!(
        err.contains("help: opgen upgrade renders the scaffold for that version"),
        "{err}"
    );
    assert_eq!(tree(&project), before);
}

#[test]
fn an_unreadable_manifest_is_refused_at_its_line() {
    let parent = tempfile::tempdir().unwrap();
    let project = fixture_copy(parent.path());
    edit(&project, "Cargo.toml", "publish = false\n", "publish = \n");
    let before = tree(&project);
    let err = opgen_err(&project, &["upgrade"]);
    assert!(
        err.contains("Cargo.toml:6:11: not a valid Cargo.toml"),
        "{err}"
    );
    assert_eq!(tree(&project), before);
}

/// `scaffoldVersion` only means something if it changes with the scaffold: the templates
/// `init` and `create` render are recorded (FNV-1a over paths and contents) for the current
/// version, so changing them without deciding about a bump fails here.
#[test]
fn the_scaffold_templates_are_those_recorded_for_the_scaffold_version() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for dir in ["templates/api", "templates/project", "templates/webhook"] {
        for entry in walkdir::WalkDir::new(root.join(dir)).sort_by_file_name() {
            let entry = entry.unwrap();
            if !entry.file_type().is_file() {
                continue;
            }
            let rel = entry.path().strip_prefix(root).unwrap().to_string_lossy();
            let content = std::fs::read(entry.path()).unwrap();
            for byte in rel.bytes().chain([0]).chain(content).chain([0]) {
                hash = (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
            }
        }
    }
    let recorded = root.join("data/upgrade/current-templates.txt");
    let version = opgen::project::SCAFFOLD_VERSION;
    let line = format!("scaffold {version}: {hash:016x}\n");
    if std::env::var_os("OPGEN_REGEN").is_some() {
        std::fs::write(&recorded, &line).unwrap();
    }
    assert_eq!(
        std::fs::read_to_string(&recorded).unwrap(),
        line,
        "templates/ changed since scaffold {version} was recorded. If a file projects already \
         have changes (anything but a new template), bump SCAFFOLD_VERSION in \
         src/project.rs, copy the previous templates/ to \
         data/upgrade/scaffold-{version}/templates (git archive) and teach \
         templates::template_dir and opgen upgrade's tests about it; in every case, record the \
         digest with OPGEN_REGEN=1"
    );
}
