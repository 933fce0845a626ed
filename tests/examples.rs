//! The example operators under examples/ are opgen projects: their scaffold files and committed
//! manifests must be exactly what this opgen writes, so that a change to opgen that would alter
//! an example fails here until the example follows it (`cd examples/<name> && opgen manifests`
//! for the manifests; the failure says how for the rest).

use opgen::generators::scaffold::{Provenance, provenance};
use opgen::ops::bundle::{BundleArgs, bundle};
use opgen::ops::create_helm::{HelmOptions, create_helm};
use opgen::ops::init::{InitOptions, K8sVersion, License, init};
use opgen::ops::manifests::{ManifestOptions, manifests};
use opgen::writer::{ChangeKind, Workspace};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const EXAMPLES: &[&str] = &[
    "cnat-operator",
    "memcached-operator",
    "sample-controller",
    "secret-operator",
    "tdset-operator",
];

#[test]
fn every_example_is_an_opgen_project() {
    let mut found: Vec<String> =
        std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("examples"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
    found.sort();
    assert_eq!(found, EXAMPLES, "keep EXAMPLES in step with examples/");
}

fn example_root(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(name)
}

/// What the replay writes that the examples do not hold, and why: they are members of this
/// workspace.
const LEFT_OUT: &[(&str, &str)] = &[
    (
        "vendor",
        "the workspace's crates/ stand in for opgen's copies of opgen-runtime and opgen-envtest",
    ),
    (
        "Cargo.lock",
        "the workspace's Cargo.lock is the examples' lock",
    ),
];

/// A file of an example that is not what opgen writes for its PROJECT: the example's own
/// (`edits` empty: not compared), or what opgen writes with `edits` applied, each replacing
/// text that occurs once in opgen's file.
struct Own {
    path: &'static str,
    reason: &'static str,
    edits: &'static [(&'static str, &'static str)],
}

const fn own(path: &'static str, reason: &'static str) -> Own {
    Own {
        path,
        reason,
        edits: &[],
    }
}

const fn edited(
    path: &'static str,
    reason: &'static str,
    edits: &'static [(&'static str, &'static str)],
) -> Own {
    Own {
        path,
        reason,
        edits,
    }
}

const CARGO_TOML: Own = edited(
    "Cargo.toml",
    "a workspace member: the workspace root's [patch.crates-io] points opgen-runtime and \
     opgen-envtest at crates/ (cargo ignores a member's own table), not vendor/, and the root's \
     profiles are the ones cargo uses (a member's own are ignored with a warning; the root's \
     operator-release is the scaffold's release profile, operator_release_is_the_scaffolds)",
    &[
        (
            "\n# Your code keeps its debug info; the dependencies' (kube, k8s-openapi, tokio...) is most of\n\
             # what `cargo test` would link after every edit, and of the first build. Backtraces still\n\
             # name their functions.\n\
             [profile.dev.package.\"*\"]\n\
             debug = false\n",
            "",
        ),
        (
            "\n# The binary `make build` and the image ship: the whole program optimized at once for size\n\
             # (fat LTO, one codegen unit) is half the size of the default profile's, its resident memory\n\
             # about a fifth smaller and its CPU time no higher; a release build after an edit takes about\n\
             # a minute instead of 25 s on two cores. `cargo run` and `cargo test` use the dev profile.\n\
             [profile.release]\n\
             lto = \"fat\"\n\
             codegen-units = 1\n\
             opt-level = \"s\"\n",
            "",
        ),
        (
            "\n# opgen-runtime and opgen-envtest are not on crates.io yet: until they are, the copies that opgen\n\
         # writes and updates in vendor/ (opgen's, not yours) stand in for them. Once they are published,\n\
         # delete this table and vendor/; nothing else changes.\n\
         [patch.crates-io]\n\
         opgen-runtime = { path = \"vendor/opgen-runtime\" }\n\
         opgen-envtest = { path = \"vendor/opgen-envtest\" }\n",
            "# (A scaffolded project's `[patch.crates-io]` table points both at vendor/ until they are\n\
         # published; in opgen's workspace, its root Cargo.toml points them at crates/.)\n",
        ),
    ],
);
const README: Own = own("README.md", "the example's own documentation");
const ROLE: Own = own(
    "config/rbac/role.yaml",
    "opgen manifests writes it from the controller's markers (examples_manifests_are_up_to_date)",
);

/// The files of each example that differ from what opgen scaffolds for its PROJECT, each with
/// why. Every other file is checked byte for byte by `examples_are_what_opgen_scaffolds`.
const CUSTOMIZED: &[(&str, &[Own])] = &[
    (
        "cnat-operator",
        &[
            CARGO_TOML,
            README,
            ROLE,
            own(
                "config/crd/bases/cnat.programming-kubernetes.info_ats.yaml",
                "opgen manifests writes it from the At types (examples_manifests_are_up_to_date)",
            ),
            own(
                "config/samples/cnat_v1alpha1_at.yaml",
                "an At with a schedule and a command",
            ),
            own("src/api/v1alpha1/at_types.rs", "cnat's At"),
            own("src/controllers/at.rs", "cnat's controller"),
            own(
                "tests/envtest/at_controller.rs",
                "the controller's envtest test, run through every phase",
            ),
        ],
    ),
    (
        "memcached-operator",
        &[
            CARGO_TOML,
            README,
            ROLE,
            edited(
                "Makefile",
                "MEMCACHED_IMAGE for make run, and VERSION 0.1.0, the version of the committed bundle",
                &[
                    (
                        "# Extra flags for the manager in `make run`",
                        "# The memcached image `make run` gives the manager (config/manager/manager.yaml sets the same\n\
                         # one for the deployed manager). Override it, e.g. `make run MEMCACHED_IMAGE=memcached:1.6-alpine`.\n\
                         MEMCACHED_IMAGE ?= memcached:1.4.36-alpine\n\
                         \n\
                         # Extra flags for the manager in `make run`",
                    ),
                    (
                        "\t$(CARGO) run --bin memcached-operator -- ",
                        "\tMEMCACHED_IMAGE=$(MEMCACHED_IMAGE) $(CARGO) run --bin memcached-operator -- ",
                    ),
                    ("VERSION ?= 0.0.1\n", "VERSION ?= 0.1.0\n"),
                ],
            ),
            own(
                "config/crd/bases/cache.example.com_memcacheds.yaml",
                "opgen manifests writes it from the Memcached types (examples_manifests_are_up_to_date)",
            ),
            edited(
                "config/manager/manager.yaml",
                "MEMCACHED_IMAGE in the manager's environment",
                &[(
                    "        env:\n",
                    "        env:\n\
                     \x20       # The image of the memcached Deployments the operator creates (the operand).\n\
                     \x20       - name: MEMCACHED_IMAGE\n\
                     \x20         value: memcached:1.4.36-alpine\n",
                )],
            ),
            own(
                "config/samples/cache_v1alpha1_memcached.yaml",
                "operator-sdk's sample",
            ),
            own(
                "src/api/v1alpha1/memcached_types.rs",
                "operator-sdk's Memcached",
            ),
            own("src/controllers/memcached.rs", "operator-sdk's controller"),
            own(
                "src/webhooks/memcached.rs",
                "the defaults of size and containerPort",
            ),
            own(
                "tests/envtest/memcached_controller.rs",
                "the controller's envtest test",
            ),
            own(
                "tests/envtest/memcached_webhooks.rs",
                "the defaulting webhook's envtest test",
            ),
        ],
    ),
    (
        "sample-controller",
        &[
            CARGO_TOML,
            README,
            ROLE,
            own(
                "config/crd/bases/samplecontroller.k8s.io_foos.yaml",
                "opgen manifests writes it from the Foo types (examples_manifests_are_up_to_date)",
            ),
            own(
                "config/samples/samplecontroller_v1alpha1_foo.yaml",
                "upstream's example Foo",
            ),
            own("src/api/v1alpha1/foo_types.rs", "sample-controller's Foo"),
            own("src/controllers/foo.rs", "sample-controller's controller"),
            own(
                "tests/envtest/foo_controller.rs",
                "the controller's envtest test",
            ),
        ],
    ),
    (
        "secret-operator",
        &[
            CARGO_TOML,
            README,
            ROLE,
            own(
                "config/crd/bases/multi.ddnw.ml_multisecrets.yaml",
                "opgen manifests writes it from the MultiSecret types (examples_manifests_are_up_to_date)",
            ),
            own(
                "config/samples/multi_v1alpha1_multisecret.yaml",
                "upstream's sample, verbatim",
            ),
            own(
                "src/api/v1alpha1/multi_secret_types.rs",
                "secret-operator's MultiSecret",
            ),
            own(
                "src/controllers/multi_secret.rs",
                "secret-operator's controller",
            ),
            own(
                "tests/envtest/multi_secret_controller.rs",
                "the controller's envtest test",
            ),
        ],
    ),
    (
        "tdset-operator",
        &[
            CARGO_TOML,
            README,
            ROLE,
            own(
                "config/crd/bases/schedule.rs_tdsets.yaml",
                "opgen manifests writes it from the TDSet types (examples_manifests_are_up_to_date)",
            ),
            own(
                "config/samples/kustomization.yaml",
                "lists the second sample",
            ),
            own(
                "config/samples/schedule_v1_tdset.yaml",
                "a TDSet with a schedule and a Service",
            ),
            own("src/api/v1/td_set_types.rs", "tdset-operator's TDSet"),
            own("src/controllers/td_set.rs", "tdset-operator's controller"),
            own(
                "tests/envtest/td_set_controller.rs",
                "the controller's envtest test",
            ),
        ],
    ),
];

/// What `opgen init`, then `opgen create api` for each resource and `opgen create webhook` for
/// each webhook of `project`, then `opgen manifests` write, path → content.
fn replay(project: &opgen::project::Project) -> BTreeMap<PathBuf, String> {
    let scratch = tempfile::tempdir().unwrap();
    let mut ws = Workspace::new(scratch.path());
    let options = InitOptions {
        domain: project.domain.clone(),
        repo: project.repo.clone(),
        project_name: Some(project.project_name.clone()),
        owner: None,
        license: License::Apache2,
        // The examples' k8s-openapi feature (Cargo.toml is customized, so not compared).
        k8s_version: K8sVersion::V1_33,
        namespaced: project.namespaced,
        multigroup: project.multigroup,
        force: false,
    };
    let name = &project.project_name;
    let (mut replayed, _) = init(&mut ws, &options).unwrap_or_else(|e| panic!("{name}:\n{e}"));
    opgen::ops::replay::create_recorded_resources(&mut ws, &mut replayed, project)
        .unwrap_or_else(|e| panic!("{name}:\n{e}"));
    // As `opgen new` and `opgen create` do by default (--make): CRDs, role, kustomizations.
    manifests(&mut ws, &ManifestOptions::default()).unwrap_or_else(|e| panic!("{name}:\n{e}"));
    let mut files = BTreeMap::new();
    for change in ws.changes().unwrap() {
        if let Some(content) = ws.read(&change.path).unwrap() {
            files.insert(change.path, content);
        }
    }
    files
}

/// The opgen commands that write what the replay writes, for the failure message.
fn scaffold_commands(project: &opgen::project::Project) -> String {
    let mut commands = format!(
        "opgen new /tmp/{0} --domain {1}{2} --project-name {0}{3}",
        project.project_name,
        project.domain,
        project
            .repo
            .as_ref()
            .map_or(String::new(), |r| format!(" --repo {r}")),
        if project.namespaced {
            " --namespaced"
        } else {
            ""
        },
    );
    commands += &format!(" && cd /tmp/{}", project.project_name);
    for r in &project.resources {
        commands += &format!(
            " && opgen create api --group {} --version {} --kind {}",
            r.group, r.version, r.kind
        );
        if let Some(plural) = &r.plural {
            commands += &format!(" --plural {plural}");
        }
        match &r.api {
            Some(api) if !api.namespaced => commands += " --namespaced=false",
            Some(_) => {}
            None => commands += " --resource=false",
        }
        if !r.controller {
            commands += " --controller=false";
        }
    }
    for r in &project.resources {
        let Some(hooks) = &r.webhooks else { continue };
        commands += &format!(
            " && opgen create webhook --group {} --version {} --kind {}{}{}",
            r.group,
            r.version,
            r.kind,
            if hooks.defaulting {
                " --defaulting"
            } else {
                ""
            },
            if hooks.validation {
                " --programmatic-validation"
            } else {
                ""
            },
        );
        if hooks.conversion {
            commands += &format!(" --conversion --spoke {}", hooks.spoke.join(","));
        }
    }
    commands
}

/// `text` with each `(from, to)` of `edits` made, or the first `from` that does not occur in it
/// exactly once.
fn apply_edits(text: &str, edits: &[(&'static str, &'static str)]) -> Result<String, &'static str> {
    let mut text = text.to_owned();
    for (from, to) in edits {
        if text.matches(from).count() != 1 {
            return Err(from);
        }
        text = text.replacen(from, to, 1);
    }
    Ok(text)
}

/// The first line where `a` and `b` differ (1-based), with both versions of it.
fn first_difference(a: &str, b: &str) -> String {
    let (mut a_lines, mut b_lines) = (a.lines(), b.lines());
    for number in 1.. {
        match (a_lines.next(), b_lines.next()) {
            (Some(x), Some(y)) if x == y => continue,
            (None, None) => break,
            (x, y) => {
                return format!(
                    "line {number}: expected {:?}, the example has {:?}",
                    x.unwrap_or("<end of file>"),
                    y.unwrap_or("<end of file>")
                );
            }
        }
    }
    "only in line endings".into()
}

/// Every file an example holds from the scaffold is what opgen writes today for its PROJECT,
/// byte for byte, so that a change to a template fails here until the examples follow it. The
/// examples' own files, and those with a few edits (made exactly), are listed in CUSTOMIZED
/// with their reasons.
#[test]
fn examples_are_what_opgen_scaffolds() {
    assert_eq!(
        CUSTOMIZED.iter().map(|(name, _)| *name).collect::<Vec<_>>(),
        EXAMPLES,
        "one CUSTOMIZED entry per example"
    );
    let mut problems = Vec::new();
    for (name, customized) in CUSTOMIZED {
        let root = example_root(name);
        let project = opgen::project::Project::load(&Workspace::new(&root)).unwrap();
        let mut files = replay(&project);
        // The license headers carry the year the example was made in.
        let year_line = |text: &str| text.lines().next().unwrap_or_default().to_owned();
        let ours = year_line(&std::fs::read_to_string(root.join("src/lib.rs")).unwrap());
        let today = year_line(&files[Path::new("src/lib.rs")]);
        for text in files.values_mut() {
            if ours.starts_with("// Copyright ") && text.starts_with(&format!("{today}\n")) {
                *text = format!("{ours}{}", &text[today.len()..]);
            }
        }
        let commands = scaffold_commands(&project);
        for (path, replayed) in &files {
            if LEFT_OUT.iter().any(|(p, _)| path.starts_with(p)) {
                continue;
            }
            let shown = path.display();
            let Ok(bytes) = std::fs::read(root.join(path)) else {
                problems.push(format!(
                    "examples/{name}/{shown} is missing: opgen writes it for this PROJECT; \
                     copy it from a project made with `{commands}`"
                ));
                continue;
            };
            let committed = String::from_utf8_lossy(&bytes);
            let Some(listed) = customized.iter().find(|o| Path::new(o.path) == path) else {
                if committed != *replayed {
                    problems.push(format!(
                        "examples/{name}/{shown} is not what opgen writes for this PROJECT ({}): \
                         copy it from a project made with `{commands}`, or, if the example \
                         really customizes it, list it in CUSTOMIZED in tests/examples.rs with \
                         the reason",
                        first_difference(replayed, &committed)
                    ));
                }
                continue;
            };
            if committed == *replayed {
                problems.push(format!(
                    "examples/{name}/{shown} is what opgen writes: remove it from CUSTOMIZED in \
                     tests/examples.rs"
                ));
                continue;
            }
            if listed.edits.is_empty() {
                continue;
            }
            match apply_edits(replayed, listed.edits) {
                Err(from) => problems.push(format!(
                    "examples/{name}/{shown}: opgen's file no longer holds {from:?} exactly once, \
                     where CUSTOMIZED in tests/examples.rs edits it: redo the example's edits \
                     ({}) on the file of a project made with `{commands}`, and update them in \
                     the list",
                    listed.reason
                )),
                Ok(expected) if committed != expected => problems.push(format!(
                    "examples/{name}/{shown} is not what opgen writes with the edits CUSTOMIZED \
                     in tests/examples.rs lists ({}): take the file of a project made with \
                     `{commands}` and redo those edits ({}), or update them in the list",
                    first_difference(&expected, &committed),
                    listed.reason
                )),
                Ok(_) => {}
            }
        }
        for listed in *customized {
            if !files.contains_key(Path::new(listed.path)) {
                problems.push(format!(
                    "examples/{name}/{} is listed in CUSTOMIZED but opgen does not write it: \
                     remove it from the list in tests/examples.rs",
                    listed.path
                ));
            }
        }
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

/// The examples are workspace members, so their release builds (bench/runtime.sh) take the root's
/// `operator-release` profile for the `[profile.release]` a scaffolded project has.
#[test]
fn operator_release_is_the_scaffolds_release_profile() {
    let root = example_root("memcached-operator");
    let project = opgen::project::Project::load(&Workspace::new(&root)).unwrap();
    let table = |text: &str, profile: &str| -> toml::Table {
        let manifest: toml::Table = text.parse().unwrap();
        manifest["profile"][profile].as_table().unwrap().clone()
    };
    let scaffolded = table(&replay(&project)[Path::new("Cargo.toml")], "release");
    let workspace =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml"));
    let mut ours = table(&workspace.unwrap(), "operator-release");
    assert_eq!(ours.remove("inherits"), Some(toml::Value::from("release")));
    assert_eq!(ours, scaffolded);
    assert!(scaffolded.contains_key("lto"), "{scaffolded:?}");
}

#[test]
fn examples_manifests_are_up_to_date() {
    for name in EXAMPLES {
        let root = example_root(name);
        assert!(root.join("PROJECT").is_file(), "{name} has no PROJECT");
        let mut ws = Workspace::new(&root);
        manifests(&mut ws, &ManifestOptions::default()).unwrap_or_else(|e| panic!("{name}:\n{e}"));
        let stale: Vec<String> = ws
            .changes()
            .unwrap()
            .into_iter()
            .filter(|c| c.kind != ChangeKind::Unchanged)
            .map(|c| c.path.display().to_string())
            .collect();
        assert!(
            stale.is_empty(),
            "{name}: out of date, run `opgen manifests` there: {stale:?}"
        );
    }
}

/// Examples with an OLM bundle: it is what `opgen bundle` makes of them today, and
/// operator-framework's validators accept it (when tools/olm's OLM_VALIDATE is at hand).
const BUNDLED: &[&str] = &["memcached-operator"];

#[test]
fn examples_bundles_are_up_to_date_and_valid() {
    let on_ci = std::env::var("CI").as_deref() == Ok("true");
    let kubectl = match opgen_envtest::Assets::locate() {
        Ok(assets) => assets.kubectl(),
        Err(e) => {
            assert!(
                !on_ci,
                "CI=true requires the envtest binaries (kubectl): {e}"
            );
            eprintln!("notice: no kubectl from the envtest binaries ({e}); skipping");
            return;
        }
    };
    for name in BUNDLED {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("examples")
            .join(name);
        let mut ws = Workspace::new(&root);
        let args = BundleArgs {
            kubectl: kubectl.clone(),
            ..BundleArgs::default()
        };
        bundle(&mut ws, &args).unwrap_or_else(|e| panic!("{name}:\n{e}"));
        let stale: Vec<String> = ws
            .changes()
            .unwrap()
            .into_iter()
            .filter(|c| c.kind != ChangeKind::Unchanged)
            .map(|c| c.path.display().to_string())
            .collect();
        assert!(
            stale.is_empty(),
            "{name}: out of date, run `make bundle` there: {stale:?}"
        );
        match std::env::var_os("OLM_VALIDATE") {
            Some(validate) => {
                let out = std::process::Command::new(validate)
                    .arg(root.join("bundle"))
                    .output()
                    .unwrap();
                let text = String::from_utf8_lossy(&out.stdout);
                assert!(out.status.success(), "{name}: {text}");
                assert_eq!(text.trim(), "bundle valid", "{name}: no warnings either");
            }
            None => assert!(!on_ci, "CI=true requires OLM_VALIDATE"),
        }
    }
}

/// The examples' Helm charts (dist/chart) are what `make helm` makes of them today: config/default
/// rendered by the envtest kubectl (as `make build-installer` renders it), then `opgen create
/// helm`. Regenerate one with `make helm` in the example (and delete dist/install.yaml).
#[test]
fn examples_charts_are_up_to_date() {
    let kubectl = match opgen_envtest::Assets::locate() {
        Ok(assets) => assets.kubectl(),
        Err(e) if std::env::var("CI").as_deref() != Ok("true") => {
            eprintln!("notice: {e}; skipping");
            return;
        }
        Err(e) => panic!("{e}"),
    };
    let mut checked = Vec::new();
    for name in EXAMPLES {
        let root = example_root(name);
        if !root.join("dist/chart").is_dir() {
            continue;
        }
        let out = std::process::Command::new(&kubectl)
            .args(["kustomize", "config/default"])
            .current_dir(&root)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let mut ws = Workspace::new(&root);
        ws.stage("dist/install.yaml", String::from_utf8(out.stdout).unwrap());
        let project = opgen::project::Project::load(&ws).unwrap();
        create_helm(&mut ws, &project, &HelmOptions::default())
            .unwrap_or_else(|e| panic!("{name}:\n{e}"));
        let stale: Vec<String> = ws
            .changes()
            .unwrap()
            .into_iter()
            .filter(|c| c.kind != ChangeKind::Unchanged && c.path.starts_with("dist/chart"))
            .map(|c| c.path.display().to_string())
            .collect();
        assert!(
            stale.is_empty(),
            "{name}: chart out of date, run `make helm` there: {stale:?}"
        );
        // Edited files are kept by create helm: an example's chart must have none.
        for file in ws.list_files(Path::new("dist/chart"), "").unwrap() {
            let text = ws.read(&file).unwrap().unwrap();
            assert_eq!(
                provenance(&text),
                Provenance::Unedited,
                "{name}: {} was edited; the examples' charts are opgen's output",
                file.display()
            );
        }
        checked.push(*name);
    }
    assert_eq!(checked, ["memcached-operator"]);
}
