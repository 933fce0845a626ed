//! Bad input: each case exits 1 with one clear message and leaves the tree byte-identical.

mod support;

use std::path::Path;
use support::{opgen, opgen_err, opgen_ok, tree};

fn initialized() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    opgen_ok(
        dir.path(),
        &["init", "--domain", "example.com", "--project-name", "demo"],
    );
    dir
}

/// Runs a failing command and checks the message and that nothing changed on disk.
fn refuses(dir: &Path, args: &[&str], want: &str) {
    let before = tree(dir);
    let stderr = opgen_err(dir, args);
    assert!(
        stderr.contains(want),
        "opgen {args:?}: expected {want:?} in:\n{stderr}"
    );
    assert!(stderr.starts_with("error: "), "{stderr}");
    assert_eq!(tree(dir), before, "opgen {args:?} changed the tree");
}

#[test]
fn init_rejects_bad_names() {
    let dir = tempfile::tempdir().unwrap();
    let cases: &[(&[&str], &str)] = &[
        (
            &["init", "--domain", "Example.COM"],
            "invalid value \"Example.COM\" for --domain: must be a DNS-1123 subdomain",
        ),
        (
            &["init", "--domain", "example.com", "--project-name", "My_Op"],
            "invalid value \"My_Op\" for --project-name",
        ),
        (
            &["init", "--domain", "example.com", "--project-name", "1op"],
            "starts with a letter",
        ),
        (
            &["init", "--domain", "example.com", "--project-name", "test"],
            "reserved by Rust or cargo",
        ),
        (
            &[
                "init",
                "--domain",
                "example.com",
                "--project-name",
                "op",
                "--repo",
                "https://github.com/x/y",
            ],
            "invalid value \"https://github.com/x/y\" for --repo",
        ),
    ];
    for (args, want) in cases {
        refuses(dir.path(), args, want);
    }
}

#[test]
fn init_defaults_the_project_name_to_a_valid_directory_name_only() {
    let parent = tempfile::tempdir().unwrap();
    let dir = parent.path().join("Bad_Name");
    std::fs::create_dir(&dir).unwrap();
    refuses(
        &dir,
        &["init", "--domain", "example.com"],
        "the directory name \"bad_name\" is not a valid project name",
    );
    assert!(opgen_err(&dir, &["init", "--domain", "example.com"]).contains("pass --project-name"));
}

#[test]
fn init_refuses_an_existing_project_but_allows_git_and_readme() {
    let dir = initialized();
    refuses(
        dir.path(),
        &["init", "--domain", "example.com"],
        "already holds an opgen project: found PROJECT",
    );

    // A crate is adopted (tests/init_adopt.rs), but a manifest without a package is not.
    let other = tempfile::tempdir().unwrap();
    std::fs::write(other.path().join("Cargo.toml"), "[package]\n").unwrap();
    refuses(
        other.path(),
        &["init", "--domain", "example.com", "--project-name", "x"],
        "Cargo.toml has no [package] name: opgen init adopts a package, not a workspace manifest",
    );

    let fresh = tempfile::tempdir().unwrap();
    std::fs::create_dir(fresh.path().join(".git")).unwrap();
    std::fs::write(fresh.path().join("README.md"), "my readme\n").unwrap();
    std::fs::write(fresh.path().join("LICENSE"), "my license\n").unwrap();
    std::fs::write(fresh.path().join(".editorconfig"), "root = true\n").unwrap();
    opgen_ok(
        fresh.path(),
        &["init", "--domain", "example.com", "--project-name", "fresh"],
    );
    assert_eq!(
        std::fs::read_to_string(fresh.path().join("README.md")).unwrap(),
        "my readme\n"
    );
    assert!(fresh.path().join("PROJECT").is_file());
}

#[test]
fn create_api_rejects_bad_names() {
    let dir = initialized();
    let api = |g: &'static str, v: &'static str, k: &'static str| -> Vec<&'static str> {
        vec!["create", "api", "--group", g, "--version", v, "--kind", k]
    };
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            api("Cache", "v1", "Memcached"),
            "invalid value \"Cache\" for --group",
        ),
        (
            api("cache", "1.0", "Memcached"),
            "invalid value \"1.0\" for --version: must be a Kubernetes API version matching ^v\\d+((alpha|beta)\\d+)?$",
        ),
        (
            api("cache", "v1beta", "Memcached"),
            "invalid value \"v1beta\" for --version",
        ),
        (
            api("cache", "v1", "memcached"),
            "invalid value \"memcached\" for --kind: must be PascalCase",
        ),
        (
            api("cache", "v1", "My-Kind"),
            "invalid value \"My-Kind\" for --kind",
        ),
        (
            api("cache", "v1", "Type"),
            "its snake-case form `type` is a Rust keyword",
        ),
        (
            api("cache", "v1", "Event"),
            "the scaffolded controller already uses the name `Event`",
        ),
    ];
    for (args, want) in cases {
        refuses(dir.path(), &args, want);
    }
    let mut with_plural = api("cache", "v1", "Memcached");
    with_plural.extend(["--plural", "Memcacheds"]);
    refuses(
        dir.path(),
        &with_plural,
        "invalid value \"Memcacheds\" for --plural",
    );
}

#[test]
fn create_api_outside_a_project() {
    let dir = tempfile::tempdir().unwrap();
    refuses(
        dir.path(),
        &[
            "create",
            "api",
            "--group",
            "cache",
            "--version",
            "v1",
            "--kind",
            "Memcached",
        ],
        "is not inside an opgen project",
    );
}

#[test]
fn create_api_with_nothing_to_create() {
    let dir = initialized();
    refuses(
        dir.path(),
        &[
            "create",
            "api",
            "--group",
            "cache",
            "--version",
            "v1",
            "--kind",
            "Memcached",
            "--resource=false",
            "--controller=false",
        ],
        "nothing to create",
    );
}

#[test]
fn create_api_twice_needs_force_and_force_names_replaced_files() {
    let dir = initialized();
    let args = [
        "create",
        "api",
        "--group",
        "cache",
        "--version",
        "v1",
        "--kind",
        "Memcached",
    ];
    opgen_ok(dir.path(), &args);
    refuses(
        dir.path(),
        &args,
        "the API cache.example.com/v1 Memcached already exists in PROJECT",
    );

    std::fs::write(
        dir.path().join("src/controllers/memcached.rs"),
        "// my edits\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("src/api/v1/memcached_types.rs"),
        "// my edits\n",
    )
    .unwrap();
    let mut forced = args.to_vec();
    forced.push("--force");
    let out = opgen_ok(dir.path(), &forced);
    assert!(
        out.contains("src/controllers/memcached.rs (replaced (--force))"),
        "{out}"
    );
    assert!(
        out.contains("src/api/v1/memcached_types.rs (replaced (--force))"),
        "{out}"
    );
    let project = std::fs::read_to_string(dir.path().join("PROJECT")).unwrap();
    assert_eq!(project.matches("kind: Memcached").count(), 1, "{project}");
}

#[test]
fn a_second_group_needs_a_multigroup_project() {
    let dir = initialized();
    opgen_ok(
        dir.path(),
        &[
            "create",
            "api",
            "--group",
            "cache",
            "--version",
            "v1",
            "--kind",
            "Memcached",
        ],
    );
    refuses(
        dir.path(),
        &[
            "create",
            "api",
            "--group",
            "web",
            "--version",
            "v1",
            "--kind",
            "Site",
        ],
        "a single-group project holds only one API group",
    );
}

#[test]
fn colliding_kinds_and_second_controllers_are_refused() {
    let dir = initialized();
    opgen_ok(
        dir.path(),
        &[
            "create",
            "api",
            "--group",
            "cache",
            "--version",
            "v1",
            "--kind",
            "CronJob",
        ],
    );
    refuses(
        dir.path(),
        &[
            "create",
            "api",
            "--group",
            "cache",
            "--version",
            "v1",
            "--kind",
            "Cronjob",
        ],
        "collides with the existing kind \"CronJob\"",
    );
    refuses(
        dir.path(),
        &[
            "create",
            "api",
            "--group",
            "cache",
            "--version",
            "v2",
            "--kind",
            "CronJob",
        ],
        "kind CronJob already has a controller",
    );
    opgen_ok(
        dir.path(),
        &[
            "create",
            "api",
            "--group",
            "cache",
            "--version",
            "v2",
            "--kind",
            "CronJob",
            "--controller=false",
        ],
    );
}

#[test]
fn missing_scaffold_marker_fails_and_prints_the_snippet() {
    let dir = initialized();
    let mod_rs = dir.path().join("src/controllers/mod.rs");
    let text = std::fs::read_to_string(&mod_rs).unwrap();
    std::fs::write(&mod_rs, text.replace("// +opgen:scaffold:controllers", "")).unwrap();
    let before = tree(dir.path());
    let stderr = opgen_err(
        dir.path(),
        &[
            "create",
            "api",
            "--group",
            "cache",
            "--version",
            "v1",
            "--kind",
            "Memcached",
        ],
    );
    assert!(
        stderr.contains("src/controllers/mod.rs has no `// +opgen:scaffold:controllers` marker"),
        "{stderr}"
    );
    assert!(stderr.contains("memcached::CONTROLLER,"), "{stderr}");
    assert_eq!(tree(dir.path()), before);
}

#[test]
fn dry_run_lists_files_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let out = opgen_ok(
        dir.path(),
        &[
            "init",
            "--domain",
            "example.com",
            "--project-name",
            "demo",
            "--dry-run",
        ],
    );
    assert!(out.contains("would create Cargo.toml"), "{out}");
    assert!(
        out.contains("would create config/manager/manager.yaml"),
        "{out}"
    );
    assert!(out.ends_with("dry run: nothing was written\n"), "{out}");
    assert!(std::fs::read_dir(dir.path()).unwrap().next().is_none());
}

#[test]
fn new_refuses_an_existing_directory_and_unknown_flags_fail() {
    let parent = tempfile::tempdir().unwrap();
    std::fs::create_dir(parent.path().join("taken")).unwrap();
    std::fs::write(parent.path().join("taken/file"), "x").unwrap();
    refuses(
        parent.path(),
        &["new", "taken", "--domain", "example.com"],
        "destination taken already exists",
    );

    let out = opgen(
        parent.path(),
        &["new", "x", "--domain", "example.com", "--group", "cache"],
    );
    assert_eq!(out.status.code(), Some(2), "clap usage errors exit 2");
}

#[test]
fn new_with_an_invalid_kind_writes_no_directory() {
    let parent = tempfile::tempdir().unwrap();
    refuses(
        parent.path(),
        &[
            "new",
            "op",
            "--domain",
            "example.com",
            "--group",
            "cache",
            "--version",
            "v1",
            "--kind",
            "bad",
        ],
        "invalid value \"bad\" for --kind",
    );
    assert!(!parent.path().join("op").exists());
}

#[test]
fn create_webhook_refuses_bad_requests() {
    let dir = initialized();
    let hook = |extra: &[&'static str]| -> Vec<&'static str> {
        let mut v = vec![
            "create",
            "webhook",
            "--group",
            "cache",
            "--version",
            "v1",
            "--kind",
            "Memcached",
        ];
        v.extend_from_slice(extra);
        v
    };
    refuses(
        dir.path(),
        &hook(&["--defaulting"]),
        "no API cache.example.com/v1 Memcached in PROJECT",
    );
    opgen_ok(
        dir.path(),
        &[
            "create",
            "api",
            "--group",
            "cache",
            "--version",
            "v1",
            "--kind",
            "Memcached",
        ],
    );
    refuses(
        dir.path(),
        &hook(&[]),
        "needs at least one of --defaulting, --programmatic-validation and --conversion",
    );
    opgen_ok(dir.path(), &hook(&["--defaulting"]));
    refuses(
        dir.path(),
        &hook(&["--defaulting"]),
        "a defaulting webhook already exists",
    );
    // A second kind of webhook rewrites the kind's (user-owned) file: that needs --force.
    refuses(
        dir.path(),
        &hook(&["--programmatic-validation"]),
        "src/webhooks/memcached.rs already exists",
    );
    let out = opgen_ok(dir.path(), &hook(&["--programmatic-validation", "--force"]));
    assert!(
        out.contains("src/webhooks/memcached.rs (replaced (--force))"),
        "{out}"
    );
    let manifests =
        std::fs::read_to_string(dir.path().join("config/webhook/manifests.yaml")).unwrap();
    assert!(
        manifests.contains("kind: MutatingWebhookConfiguration")
            && manifests.contains("kind: ValidatingWebhookConfiguration"),
        "{manifests}"
    );
    let project = std::fs::read_to_string(dir.path().join("PROJECT")).unwrap();
    assert!(
        project.contains(
            "webhooks:\n    defaulting: true\n    validation: true\n    webhookVersion: v1"
        ),
        "{project}"
    );
    // Issue #23 item 14: the kind's webhooks already serve a second version; asking for them
    // there says so, instead of asking for --force.
    opgen_ok(
        dir.path(),
        &[
            "create",
            "api",
            "--group",
            "cache",
            "--version",
            "v2",
            "--kind",
            "Memcached",
            "--controller=false",
        ],
    );
    let mut on_v2 = hook(&["--defaulting"]);
    on_v2[5] = "v2";
    refuses(
        dir.path(),
        &on_v2,
        "the defaulting and validation webhooks of Memcached on cache.example.com/v1 already serve v2: a kind's webhooks serve all its versions (the API server's default matchPolicy, Equivalent, converts a v2 request to v1 for them)",
    );
    let stderr = opgen_err(dir.path(), &on_v2);
    assert!(
        stderr.contains("help: nothing to scaffold: v2 objects reach it as v1"),
        "{stderr}"
    );
}

#[test]
fn conversion_webhooks_need_existing_spokes() {
    let dir = initialized();
    opgen_ok(
        dir.path(),
        &[
            "create",
            "api",
            "--group",
            "cache",
            "--version",
            "v1",
            "--kind",
            "Memcached",
        ],
    );
    let conv = |extra: &[&'static str]| -> Vec<&'static str> {
        let mut v = vec![
            "create",
            "webhook",
            "--group",
            "cache",
            "--version",
            "v1",
            "--kind",
            "Memcached",
            "--conversion",
        ];
        v.extend_from_slice(extra);
        v
    };
    refuses(
        dir.path(),
        &conv(&[]),
        "--conversion needs the versions to convert: --spoke",
    );
    refuses(
        dir.path(),
        &conv(&["--spoke", "v2"]),
        "invalid spoke version \"v2\": PROJECT has no cache.example.com Memcached in that version",
    );
    refuses(
        dir.path(),
        &conv(&["--spoke", "v1"]),
        "invalid spoke version \"v1\": it is the hub",
    );
    opgen_ok(
        dir.path(),
        &[
            "create",
            "api",
            "--group",
            "cache",
            "--version",
            "v2",
            "--kind",
            "Memcached",
            "--controller=false",
        ],
    );
    opgen_ok(dir.path(), &conv(&["--spoke", "v2"]));
    let patch = std::fs::read_to_string(
        dir.path()
            .join("config/crd/patches/webhook_in_memcacheds.yaml"),
    )
    .unwrap();
    assert!(
        patch.contains("strategy: Webhook") && patch.contains("path: /convert"),
        "{patch}"
    );
    let project = std::fs::read_to_string(dir.path().join("PROJECT")).unwrap();
    assert!(
        project.contains("conversion: true") && project.contains("spoke:\n    - v2"),
        "{project}"
    );
    refuses(
        dir.path(),
        &conv(&["--spoke", "v2"]),
        "a conversion webhook already exists",
    );
    let out = opgen(
        dir.path(),
        &[
            "create",
            "webhook",
            "--group",
            "cache",
            "--version",
            "v1",
            "--kind",
            "Memcached",
            "--spoke",
            "v2",
        ],
    );
    assert_eq!(out.status.code(), Some(2), "--spoke requires --conversion");
}

/// Issue 24: a 63-character kind passes its own check, but its plural (64 characters) cannot
/// name the CRD's resource: refused by `create api`, not later by `manifests`; and a kind
/// whose module would shadow `std` or a scaffold crate is refused before it blocks `edit`.
#[test]
fn create_api_refuses_a_kind_whose_plural_or_module_cannot_work() {
    let dir = initialized();
    let kind = format!("A{}", "b".repeat(62));
    let create = |kind: &str| {
        vec![
            "create".to_owned(),
            "api".to_owned(),
            "--group".to_owned(),
            "cache".to_owned(),
            "--version".to_owned(),
            "v1".to_owned(),
            "--kind".to_owned(),
            kind.to_owned(),
        ]
    };
    let args = create(&kind);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    refuses(
        dir.path(),
        &args,
        "(64 characters) cannot name the CRD's resource",
    );
    let args = create("Std");
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    refuses(dir.path(), &args, "would shadow the crate `std`");
}

/// Issue #23 items 12 and 19: a new version whose names or scope differ from the kind's other
/// versions is refused naming the difference, and nothing is written; without options, a new
/// version takes the kind's names and scope, and a sample of its own name.
#[test]
fn a_version_with_other_names_or_scope_is_refused_naming_the_difference() {
    let dir = initialized();
    let api = |version: &'static str, extra: &[&'static str]| -> Vec<&'static str> {
        let mut v = vec![
            "create",
            "api",
            "--group",
            "cache",
            "--version",
            version,
            "--kind",
            "Memcached",
        ];
        v.extend_from_slice(extra);
        v
    };
    opgen_ok(dir.path(), &api("v1", &[]));
    refuses(
        dir.path(),
        &api("v2", &["--namespaced=false", "--controller=false"]),
        "versions v1 and v2 of Memcached disagree on scope (v1: Namespaced; v2: Cluster); every version of a kind must have the same plural, singular, short names, categories and scope",
    );
    let stderr = opgen_err(
        dir.path(),
        &api("v2", &["--namespaced=false", "--controller=false"]),
    );
    assert!(
        stderr.contains("help: give v2 the names and scope v1 has (or change them in both)"),
        "{stderr}"
    );
    // Without --namespaced or --plural, a new version takes the kind's scope and plural.
    let node = |version: &'static str, extra: &[&'static str]| -> Vec<&'static str> {
        let mut v = vec![
            "create",
            "api",
            "--group",
            "cache",
            "--version",
            version,
            "--kind",
            "Node",
            "--controller=false",
        ];
        v.extend_from_slice(extra);
        v
    };
    opgen_ok(
        dir.path(),
        &node("v1", &["--namespaced=false", "--plural", "nodez"]),
    );
    // The user gives v1 short names and a category, one as a #[kube] attribute, one as a
    // marker: v2 repeats them, and its sample does not reuse v1's object name.
    let v1 = dir.path().join("src/api/v1/node_types.rs");
    let text = std::fs::read_to_string(&v1).unwrap();
    let text = text
        .replace(
            "    plural = \"nodez\",\n",
            "    plural = \"nodez\",\n    singular = \"nodey\",\n    shortname = \"nz\",\n",
        )
        .replace(
            "/// NodeSpec defines",
            "// +kubebuilder:resource:shortName=nd,categories=infra\n/// NodeSpec defines",
        );
    std::fs::write(&v1, text).unwrap();
    opgen_ok(dir.path(), &node("v2", &[]));
    let types = std::fs::read_to_string(dir.path().join("src/api/v2/node_types.rs")).unwrap();
    assert!(
        types.contains(
            "    plural = \"nodez\",\n    singular = \"nodey\",\n    shortname = \"nz\",\n    shortname = \"nd\",\n    category = \"infra\",\n"
        ) && !types.contains("    namespaced,"),
        "{types}"
    );
    let sample = |version: &str| {
        std::fs::read_to_string(
            dir.path()
                .join(format!("config/samples/cache_{version}_node.yaml")),
        )
        .unwrap()
    };
    assert!(sample("v1").contains("\n  name: node-sample\n"));
    assert!(sample("v2").contains("\n  name: node-v2-sample\n"));
    assert!(
        dir.path()
            .join("config/crd/bases/cache.example.com_nodez.yaml")
            .is_file()
    );
}
