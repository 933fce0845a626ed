//! `opgen import crd`: every CRD of the repository's corpus (controller-gen's golden files and
//! the upstream operators' CRDs) imported into a fresh project and regenerated with `opgen
//! manifests` must come back the same (as YAML values; byte for byte, but for the generator's
//! version annotation, where the input is controller-gen's own output). Each CRD that does not
//! is listed in `EXCEPTIONS` with the reason. The imported types must build (one project holding
//! many CRDs, since building is expensive), and bad input must leave the tree untouched.
//!
//! The live corpus (`every_live_corpus_crd_round_trips`, ≥ 300 CRDs) is made by the test, not
//! kept in the repository: the CRDs controller-gen writes now for every module of the Go corpus
//! (the harness's `GO_CORPUS`, which tests/import_go.rs imports as Go), and the CRD YAML that
//! pinned Go modules ship ([`COLLECTIONS`], from the Go module proxy). Without Go or
//! controller-gen it says so and checks nothing; under `CI=true` that is a failure.

#[path = "fixtures/controller-gen/harness.rs"]
mod harness;
mod support;

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use support::roundtrip::{Typed, round_trips_in_one_workspace, write_round_trip};
use support::{
    fixture, opgen, opgen_err, opgen_ok, project_cargo_ok, stable_copy, tree, two_at_a_time,
};

/// CRDs that do not round-trip, relative to tests/fixtures, with the reason.
const EXCEPTIONS: &[(&str, &str)] = &[
    (
        "goldens/controller-gen/crd/gen/bar.example.com_foos.v1beta1.yaml",
        "its version `foo` is not a Kubernetes API version (vN, vNalphaN, vNbetaN), which `create api` refuses",
    ),
    (
        "goldens/controller-gen/crd/gen/bar.example.com_foos.yaml",
        "its version `foo` is not a Kubernetes API version (vN, vNalphaN, vNbetaN), which `create api` refuses",
    ),
    (
        "goldens/controller-gen/crd/gen/bar.example.com_foos_maxdesclen.yaml",
        "its version `foo` is not a Kubernetes API version (vN, vNalphaN, vNbetaN), which `create api` refuses",
    ),
    (
        "goldens/controller-gen/crd/gen/zoo/bar.example.com_zoos.v1beta1.yaml",
        "its version `zoo` is not a Kubernetes API version (vN, vNalphaN, vNbetaN), which `create api` refuses",
    ),
    (
        "goldens/controller-gen/crd/gen/zoo/bar.example.com_zoos.yaml",
        "its version `zoo` is not a Kubernetes API version (vN, vNalphaN, vNbetaN), which `create api` refuses",
    ),
    (
        "goldens/controller-gen/crd/testdata._cronjobs.yaml",
        "the core (empty) API group is in no project's domain, so a project cannot own it (only --external imports it)",
    ),
    (
        "goldens/controller-gen/crd/testdata.kubebuilder.io_enums.yaml",
        "the kind `Enum`: its module `enum` would be a Rust keyword, which `create api` refuses (--external imports it)",
    ),
    (
        "upstream-operators/cnat/kubebuilder/crd/cnat_v1alpha1_at.yaml",
        "v1beta1 from kubebuilder 2: no root `type: object`, no listKind or singular, one-line apiVersion and kind descriptions; opgen writes what controller-gen writes today",
    ),
    (
        "upstream-operators/cnat/operator-sdk/crd/cnat_v1alpha1_at_crd.yaml",
        "v1beta1 from operator-sdk 0.x: no root `type: object`, apiVersion and kind without descriptions; opgen writes what controller-gen writes today",
    ),
    (
        "upstream-operators/cnat/client-go/crd/cnat-crd.yaml",
        "it has no schema, so there are no types to import (an error)",
    ),
    (
        "upstream-operators/sample-controller/crd/crd.yaml",
        "hand-written: no apiVersion, kind and metadata in the schema, no listKind or singular (opgen writes them, as controller-gen does)",
    ),
    (
        "upstream-operators/sample-controller/crd/crd-status-subresource.yaml",
        "hand-written: no apiVersion, kind and metadata in the schema, no listKind or singular (opgen writes them, as controller-gen does)",
    ),
    (
        "upstream-operators/secret-operator/crd/multi.ddnw.ml_multisecrets.yaml",
        "controller-gen before v0.12 wrote the descriptions of apiVersion and kind on one line; opgen writes today's",
    ),
    (
        "upstream-operators/tdset-operator/crd/schedule.rs_tdsets.yaml",
        "controller-gen v0.10's one-line apiVersion and kind descriptions, and a description with trailing spaces, which doc comments drop",
    ),
];

/// Differences every CRD may show, with the reason, applied before comparing.
/// * opgen requires `spec` at the root where controller-gen does not (Go's `omitempty`):
///   kube-derive's root type cannot deserialize an object without it (as in
///   tests/fixtures/controller-gen/harness.rs, `root_requires_spec`).
/// * a v1beta1 CRD comes back as v1 (`opgen::ops::import_crd::to_v1` of the input).
fn tolerate(want: &Value, got: &mut Value) {
    let Some(versions) = got["spec"]["versions"].as_array_mut() else {
        return;
    };
    for (i, v) in versions.iter_mut().enumerate() {
        let input_required = &want["spec"]["versions"][i]["schema"]["openAPIV3Schema"]["required"];
        let requires_spec = input_required
            .as_array()
            .is_some_and(|r| r.contains(&Value::from("spec")));
        let root = &mut v["schema"]["openAPIV3Schema"];
        if requires_spec {
            continue;
        }
        if let Some(o) = root.as_object_mut()
            && let Some(Value::Array(r)) = o.get_mut("required")
        {
            r.retain(|x| x != "spec");
            if r.is_empty() {
                o.remove("required");
            }
        }
    }
}

/// Every CRD file of the corpus, relative to tests/fixtures.
fn corpus() -> Vec<String> {
    let root = fixture("");
    let mut out = Vec::new();
    for pattern in [
        "goldens/controller-gen/**/*.yaml",
        "upstream-operators/**/crd*/**/*.yaml",
    ] {
        for path in glob::glob(&root.join(pattern).to_string_lossy()).unwrap() {
            let path = path.unwrap();
            let text = std::fs::read_to_string(&path).unwrap();
            if text.contains("kind: CustomResourceDefinition") {
                out.push(
                    path.strip_prefix(&root)
                        .unwrap()
                        .to_string_lossy()
                        .into_owned(),
                );
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

fn crd_of(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap();
    serde_yaml::from_str(&text).unwrap()
}

/// The CRD without what no two generators write alike: the generator's version annotation
/// (controller-gen's or opgen's), the creation timestamp and the status.
fn normalize(mut crd: Value) -> Value {
    let o = crd.as_object_mut().unwrap();
    o.remove("status");
    let meta = o.get_mut("metadata").unwrap().as_object_mut().unwrap();
    meta.remove("creationTimestamp");
    if let Some(a) = meta.get_mut("annotations").and_then(Value::as_object_mut) {
        a.remove("controller-gen.kubebuilder.io/version");
        a.remove("opgen.dev/version");
        if a.is_empty() {
            meta.remove("annotations");
        }
    }
    crd
}

/// The text without the generator's version annotation line.
fn without_version_line(text: &str) -> String {
    text.lines()
        .filter(|l| {
            let t = l.trim_start();
            !t.starts_with("controller-gen.kubebuilder.io/version:")
                && !t.starts_with("opgen.dev/version:")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// `opgen init --domain <domain> --project-name <name>` in `parent/<dir>`.
fn init_project(parent: &Path, dir: &str, domain: &str, name: &str) -> PathBuf {
    let dir = parent.join(dir);
    std::fs::create_dir_all(&dir).unwrap();
    opgen_ok(&dir, &["init", "--domain", domain, "--project-name", name]);
    dir
}

/// A fresh project whose domain holds `group`'s API group, in `parent`: a copy of the one
/// `opgen init` made for that domain in this run. The round trips import hundreds of CRDs each
/// into a project of its own, and an init (its templates rendered and formatted by rustfmt) cost
/// as much as the import and the `manifests` after it.
fn project_for(parent: &Path, group: &str) -> Option<PathBuf> {
    static INITIALIZED: std::sync::Mutex<Option<PathBuf>> = std::sync::Mutex::new(None);
    let (_, domain) = group.split_once('.')?;
    let template = {
        let mut root = INITIALIZED.lock().unwrap_or_else(|e| e.into_inner());
        let root = root.get_or_insert_with(|| support::same_path_each_run("import_crd-init"));
        let template = root.join(domain);
        if !template.exists() {
            init_project(root, domain, domain, "imported");
        }
        template
    };
    let project = parent.join("p");
    // Its vendored crates, half its files, are read by neither the import nor `manifests`:
    // linked, not copied for each of the corpus's CRDs.
    std::fs::create_dir(&project).unwrap();
    for entry in std::fs::read_dir(&template).unwrap() {
        let from = entry.unwrap().path();
        let to = project.join(from.file_name().unwrap());
        if from.ends_with("vendor") {
            std::os::unix::fs::symlink(&from, &to).unwrap();
        } else if from.is_dir() {
            support::copy_tree(&from, &to);
        } else {
            std::fs::copy(&from, &to).unwrap();
        }
    }
    Some(project)
}

/// Imports `file` into a new project and returns what `opgen manifests` then writes for it,
/// or why that failed.
fn round_trip(file: &Path) -> Result<String, String> {
    let input = crd_of(file);
    let group = input["spec"]["group"].as_str().unwrap_or_default();
    let plural = input["spec"]["names"]["plural"].as_str().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let Some(project) = project_for(tmp.path(), group) else {
        return Err(format!("the group {group:?} has no domain part"));
    };
    let out = opgen(&project, &["import", "crd", &file.to_string_lossy()]);
    if !out.status.success() {
        return Err(format!(
            "import failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    opgen_ok(&project, &["manifests"]);
    let written = project.join(format!("config/crd/bases/{group}_{plural}.yaml"));
    std::fs::read_to_string(&written).map_err(|e| format!("{}: {e}", written.display()))
}

/// Imports `file` into a new project, regenerates it, and compares: as values after
/// [`tolerate`], and byte for byte (but the version annotation) when the input is
/// controller-gen's or opgen's own output.
fn check(file: &Path) -> Result<(), String> {
    round_trip(file).and_then(|written| {
        let want = normalize(opgen::ops::import_crd::to_v1(&crd_of(file)));
        let mut got = normalize(serde_yaml::from_str(&written).unwrap());
        let tolerated = {
            let before = got.clone();
            tolerate(&want, &mut got);
            before != got
        };
        // As values (a number is equal to the same number written another way).
        let found = opgen::ops::import_crd::differences(&want, &got);
        if !found.is_empty() {
            return Err(format!(
                "{} difference(s):\n    {}",
                found.len(),
                found
                    .iter()
                    .take(15)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join("\n    ")
            ));
        }
        let input = std::fs::read_to_string(file).unwrap();
        let generated = input.contains("controller-gen.kubebuilder.io/version")
            || input.contains("opgen.dev/version");
        if !tolerated && generated && without_version_line(&input) != without_version_line(&written)
        {
            return Err("equal as YAML values but not byte for byte".into());
        }
        Ok(())
    })
}

#[test]
fn every_corpus_crd_round_trips() {
    let mut failures = Vec::new();
    let mut matched = Vec::new();
    for rel in corpus() {
        let file = fixture(&rel);
        let exception = EXCEPTIONS.iter().find(|(f, _)| *f == rel).map(|(_, r)| *r);
        let outcome = check(&file);
        match (outcome, exception) {
            (Ok(()), None) => matched.push(rel),
            (Ok(()), Some(reason)) => failures.push(format!(
                "{rel} now round-trips: remove it from EXCEPTIONS ({reason})"
            )),
            (Err(_), Some(_)) => {}
            (Err(e), None) => failures.push(format!("{rel}: {e}")),
        }
    }
    eprintln!("{} CRDs round-trip: {matched:#?}", matched.len());
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// One project importing every kind of the corpus (owned where the domain allows, the rest with
/// --external) builds, clippy-clean.
///
/// Named to come first: libtest starts a binary's tests in the order of their names, and this
/// crate, checked on one core, then overlaps the live corpus's gathering and imports instead of
/// holding the projects' target directory alone after the live corpus's clippy (when the
/// samples' round trips wait for it: 2 minutes at half the cores in stop 43's clean-clone run).
#[test]
fn a_project_importing_every_corpus_kind_builds() {
    let tmp = tempfile::tempdir().unwrap();
    let project = init_project(tmp.path(), "imported", "kubebuilder.io", "imported");
    let owned = fixture("goldens/controller-gen/crd/testdata.kubebuilder.io_cronjobs.yaml");
    opgen_ok(&project, &["import", "crd", &owned.to_string_lossy()]);
    let mut seen = std::collections::BTreeSet::new();
    let mut external = Vec::new();
    for rel in corpus() {
        let crd = crd_of(&fixture(&rel));
        let key = (
            crd["spec"]["group"].as_str().unwrap_or_default().to_owned(),
            crd["spec"]["names"]["kind"].as_str().unwrap().to_owned(),
        );
        // Imported above; and a CRD without a schema has no types to import.
        let owned = key.0 == "testdata.kubebuilder.io" && key.1 == "CronJob";
        if owned || rel == "upstream-operators/cnat/client-go/crd/cnat-crd.yaml" {
            continue;
        }
        if seen.insert(key) {
            external.push(fixture(&rel).to_string_lossy().into_owned());
        }
    }
    // And the CRDs opgen writes for the real-world conformance fixtures.
    for (name, text) in realworld_crds() {
        let file = tmp.path().join(name);
        std::fs::write(&file, text).unwrap();
        external.push(file.to_string_lossy().into_owned());
    }
    let mut args = vec!["import", "crd", "--external"];
    args.extend(external.iter().map(String::as_str));
    opgen_ok(&project, &args);
    opgen_ok(&project, &["manifests", "--check"]);
    // The library, where the imported types are: its test build would compile them a second
    // time (with twice the memory of a large crate) and holds nothing imported.
    let built = support::stable_copy_of_its_own(
        &project,
        "import_crd/a_project_importing_every_corpus_kind",
    );
    project_cargo_ok(&built, &["clippy", "--lib", "--", "-D", "warnings"]);
}

#[test]
fn bad_yaml_is_an_error_at_its_line_and_nothing_is_written() {
    let tmp = tempfile::tempdir().unwrap();
    let project = init_project(tmp.path(), "p", "example.com", "demo");
    let bad = project.join("bad.yaml");
    std::fs::write(
        &bad,
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec:\n  group: [a,\n  names: {}\n",
    )
    .unwrap();
    let before = tree(&project);
    let stderr = opgen_err(&project, &["import", "crd", "bad.yaml"]);
    assert!(stderr.contains("--> bad.yaml:4:10"), "{stderr}");
    assert!(stderr.contains("not valid YAML"), "{stderr}");
    assert_eq!(before, tree(&project), "the tree changed");

    // A CRD the API server would refuse (a schema node without a type) is refused too.
    std::fs::write(
        &bad,
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.demo.example.com\nspec:\n  group: demo.example.com\n  names: {kind: Widget, plural: widgets}\n  scope: Namespaced\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n        type: object\n        properties:\n          spec:\n            type: object\n            properties:\n              anything: {}\n",
    )
    .unwrap();
    let before = tree(&project);
    let stderr = opgen_err(&project, &["import", "crd", "bad.yaml"]);
    assert!(stderr.contains("spec.anything"), "{stderr}");
    assert!(
        stderr.contains("refuses the types imported from bad.yaml"),
        "{stderr}"
    );
    assert_eq!(before, tree(&project), "the tree changed");

    // A CRD outside the project's domain is refused the same way.
    let foreign = fixture("upstream-operators/tdset-operator/crd/schedule.rs_tdsets.yaml");
    let stderr = opgen_err(&project, &["import", "crd", &foreign.to_string_lossy()]);
    assert!(stderr.contains("--external"), "{stderr}");
    assert_eq!(before, tree(&project), "the tree changed");
}

#[test]
fn reimporting_needs_force_and_external_types_get_no_crd() {
    let tmp = tempfile::tempdir().unwrap();
    let project = init_project(tmp.path(), "p", "example.com", "demo");
    let crd = fixture(
        "upstream-operators/memcached-operator/operator-sdk/crd/cache.example.com_memcacheds.yaml",
    );
    let crd = crd.to_string_lossy();
    opgen_ok(&project, &["import", "crd", &crd]);
    let types = project.join("src/api/v1alpha1/memcached_types.rs");
    assert!(
        std::fs::read_to_string(&types)
            .unwrap()
            .contains("pub struct MemcachedSpec")
    );

    let before = tree(&project);
    let stderr = opgen_err(&project, &["import", "crd", &crd]);
    assert!(stderr.contains("--force"), "{stderr}");
    assert_eq!(before, tree(&project), "the tree changed");
    opgen_ok(&project, &["import", "crd", "--force", &crd]);
    assert_eq!(
        before,
        tree(&project),
        "a forced re-import changed the tree"
    );

    // --external: the types only, in a module opgen writes no CRD for.
    let foreign = fixture("upstream-operators/tdset-operator/crd/schedule.rs_tdsets.yaml");
    opgen_ok(
        &project,
        &["import", "crd", "--external", &foreign.to_string_lossy()],
    );
    let module = project.join("src/api/external/schedule_rs/v1");
    assert!(module.join("td_set_types.rs").is_file());
    assert!(
        std::fs::read_to_string(module.join("mod.rs"))
            .unwrap()
            .contains("+kubebuilder:skip")
    );
    assert!(
        !project
            .join("config/crd/bases/schedule.rs_tdsets.yaml")
            .exists()
    );
    opgen_ok(&project, &["manifests", "--check"]);

    // A directory: every CRD below it (here two Memcached kinds of two groups).
    let dir = fixture("upstream-operators/memcached-operator");
    opgen_ok(
        &project,
        &["import", "crd", "--external", &dir.to_string_lossy()],
    );
    for group in ["cache_example_com", "example_com_testproject_org"] {
        let types = format!("src/api/external/{group}/v1alpha1/memcached_types.rs");
        assert!(project.join(&types).is_file(), "no {types}");
    }
    opgen_ok(&project, &["manifests", "--check"]);
}

/// The CRDs opgen writes for the real-world conformance fixtures (cert-manager, Cluster API,
/// Flux, Gateway API, JobSet, Kueue, Prometheus Operator: Go types ported to Rust by hand)
/// round-trip too, byte for byte.
#[test]
fn conformance_fixture_crds_round_trip() {
    let tmp = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    let mut count = 0;
    for (name, text) in realworld_crds() {
        let file = tmp.path().join(&name);
        std::fs::write(&file, text).unwrap();
        count += 1;
        if let Err(e) = check(&file) {
            failures.push(format!("{name}: {e}"));
        }
    }
    eprintln!("{count} CRDs of the real-world fixtures checked");
    assert!(count >= 30, "only {count} CRDs");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The CRDs `opgen manifests` writes for tests/fixtures/controller-gen/realworld-* (file name,
/// YAML), staged in memory as tests/fixtures/controller-gen/harness.rs does.
fn realworld_crds() -> Vec<(String, String)> {
    use opgen::ops::manifests::{ManifestOptions, manifests};
    let mut names: Vec<String> = std::fs::read_dir(fixture("controller-gen"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("realworld-"))
        .collect();
    names.sort();
    let mut out = Vec::new();
    for name in names {
        let mut ws = opgen::writer::Workspace::new(fixture(&format!("controller-gen/{name}")));
        let opts = ManifestOptions {
            // JobSet's Makefile runs controller-gen with crd:generateEmbeddedObjectMeta=true.
            generate_embedded_object_meta: name == "realworld-jobset",
            ..ManifestOptions::default()
        };
        let report = manifests(&mut ws, &opts).unwrap();
        for path in report
            .files
            .iter()
            .filter(|p| p.starts_with("config/crd/bases"))
        {
            let file = path.file_name().unwrap().to_string_lossy().into_owned();
            out.push((file, ws.read(path).unwrap().unwrap()));
        }
    }
    out
}

/// `kubectl get crd <name> -o yaml | opgen import crd -`: what the API server and kubectl add
/// (status, uid, resourceVersion, the last-applied annotation...) is not imported.
#[test]
fn a_crd_read_back_from_a_cluster_is_imported_from_stdin() {
    use std::io::Write;
    let tmp = tempfile::tempdir().unwrap();
    let project = init_project(tmp.path(), "p", "example.com", "demo");
    let file = fixture(
        "upstream-operators/memcached-operator/operator-sdk/crd/cache.example.com_memcacheds.yaml",
    );
    let mut crd = crd_of(&file);
    let meta = crd["metadata"].as_object_mut().unwrap();
    meta.insert("uid".into(), "0c9a3d1e".into());
    meta.insert("resourceVersion".into(), "4242".into());
    meta.insert("generation".into(), 1.into());
    meta["annotations"]["kubectl.kubernetes.io/last-applied-configuration"] = "{}".into();
    crd["status"] = serde_json::json!({"storedVersions": ["v1alpha1"]});
    let mut child = std::process::Command::new(support::opgen_bin())
        .args(["import", "crd", "-"])
        .current_dir(&project)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(serde_yaml::to_string(&crd).unwrap().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("<stdin>:1:1"), "{stderr}");
    let types =
        std::fs::read_to_string(project.join("src/api/v1alpha1/memcached_types.rs")).unwrap();
    assert!(!types.contains("last-applied"), "{types}");
    let written =
        std::fs::read_to_string(project.join("config/crd/bases/cache.example.com_memcacheds.yaml"))
            .unwrap();
    assert!(
        !written.contains("uid") && !written.contains("storedVersions"),
        "{written}"
    );
}

// ------------------------------------------------------------------ the live corpus

/// CRD YAML that projects ship in their Go modules, read from the module zips the Go module proxy
/// serves (`go mod download`): module, pinned version (and why that one), and the files (globs
/// relative to the module's root; a file may hold several CRDs).
struct Collection {
    module: &'static str,
    version: &'static str,
    why: &'static str,
    files: &'static [&'static str],
    /// Globs of the module's example objects (of any kind: those of corpus kinds are taken).
    samples: &'static [&'static str],
}

const COLLECTIONS: &[Collection] = &[
    Collection {
        module: "github.com/cert-manager/cert-manager",
        version: "v1.21.2",
        why: "the Go corpus's release: the CRDs it ships beside controller-gen's",
        files: &["deploy/crds/*.yaml"],
        samples: &[],
    },
    Collection {
        module: "github.com/argoproj/argo-rollouts",
        version: "v1.10.1",
        why: "the Go corpus's release (its manifests are post-processed by hack/gen-crd-spec)",
        files: &["manifests/crds/*-crd.yaml"],
        samples: &["examples/*.yaml"],
    },
    Collection {
        module: "github.com/argoproj/argo-cd/v3",
        version: "v3.5.0",
        why: "v3.6's go.mod requires go 1.27 (`go mod download` refuses it under GOTOOLCHAIN=local): Application, ApplicationSet, AppProject",
        files: &["manifests/crds/*-crd.yaml"],
        samples: &["examples/**/*.yaml"],
    },
    Collection {
        module: "github.com/kyverno/kyverno",
        version: "v1.19.1",
        why: "the Go corpus's release: config/crds also holds policies.kyverno.io, which the Go corpus leaves out",
        files: &["config/crds/*/*.yaml"],
        samples: &[],
    },
    Collection {
        module: "github.com/kedacore/keda/v2",
        version: "v2.21.0",
        why: "the Go corpus's release",
        files: &["config/crd/bases/*.yaml"],
        samples: &["config/samples/*.yaml"],
    },
    Collection {
        module: "github.com/vmware-tanzu/velero",
        version: "v1.18.3",
        why: "the Go corpus's release",
        files: &["config/crd/*/bases/*.yaml"],
        samples: &[],
    },
    Collection {
        module: "sigs.k8s.io/gateway-api",
        version: "v1.6.3",
        why: "the Go corpus's release: its standard and experimental channels",
        files: &[
            "config/crd/standard/*.yaml",
            "config/crd/experimental/*.yaml",
        ],
        samples: &["examples/**/*.yaml"],
    },
    Collection {
        module: "github.com/external-secrets/external-secrets",
        version: "v0.16.2",
        why: "the Go corpus's release",
        files: &["config/crds/bases/*.yaml"],
        samples: &[],
    },
    Collection {
        module: "sigs.k8s.io/cluster-api",
        version: "v1.14.2",
        why: "the Go corpus's release of the api module: the CRDs the main module ships",
        files: &[
            "core/config/crd/bases/*.yaml",
            "controlplane/kubeadm/config/crd/bases/*.yaml",
            "bootstrap/kubeadm/config/crd/bases/*.yaml",
        ],
        samples: &[],
    },
    Collection {
        module: "sigs.k8s.io/cluster-api-provider-aws/v2",
        version: "v2.13.0",
        why: "the Go corpus's release: config/crd/bases holds the exp and bootstrap kinds too",
        files: &["config/crd/bases/*.yaml"],
        samples: &[],
    },
    Collection {
        module: "sigs.k8s.io/cluster-api-provider-gcp",
        version: "v1.13.1",
        why: "the newest release the proxy serves at writing",
        files: &["config/crd/bases/*.yaml"],
        samples: &[],
    },
    Collection {
        module: "sigs.k8s.io/kueue",
        version: "v0.17.0",
        why: "the Go corpus's release",
        files: &["config/components/crd/bases/*.yaml"],
        samples: &["cmd/kueueviz/examples/*.yaml"],
    },
    Collection {
        module: "sigs.k8s.io/karpenter",
        version: "v1.14.1",
        why: "the Go corpus's release (and its kwok provider's kind)",
        files: &["pkg/apis/crds/*.yaml", "kwok/apis/crds/*.yaml"],
        samples: &[],
    },
    Collection {
        module: "go.universe.tf/metallb",
        version: "v0.16.2",
        why: "the newest release the proxy serves at writing",
        files: &["config/crd/bases/*.yaml"],
        samples: &[],
    },
    Collection {
        module: "knative.dev/serving",
        version: "v0.51.0",
        why: "the newest release the proxy serves at writing: hand-written CRDs",
        files: &["config/core/300-resources/*.yaml"],
        samples: &[],
    },
    Collection {
        module: "github.com/open-policy-agent/gatekeeper/v3",
        version: "v3.23.1",
        why: "the newest release the proxy serves at writing",
        files: &["config/crd/bases/*.yaml"],
        samples: &["config/samples/*.yaml"],
    },
    Collection {
        module: "github.com/prometheus-operator/prometheus-operator",
        version: "v0.85.0",
        why: "the newest main-module release the proxy serves at writing (the Go corpus has the v0.95.1 API module)",
        files: &["example/prometheus-operator-crd/*.yaml"],
        samples: &["example/**/*.yaml"],
    },
    Collection {
        module: "github.com/cilium/cilium",
        version: "v1.20.2",
        why: "the newest release the proxy serves at writing",
        files: &["pkg/k8s/apis/cilium.io/client/crds/*/*.yaml"],
        samples: &["examples/**/*.yaml"],
    },
    Collection {
        module: "istio.io/istio",
        version: "v0.0.0-20260827124520-eed52ebb66ad",
        why: "istio tags no Go module versions: the newest pseudo-version the proxy serves at writing; one file of 15 CRDs generated from protobuf",
        files: &["manifests/charts/base/files/crd-all.gen.yaml"],
        samples: &[],
    },
];

/// Live CRDs that do not round-trip, by label (see [`live_corpus`]), with the reason.
const LIVE_EXCEPTIONS: &[(&str, &str)] = &[
    (
        "github.com/argoproj/argo-rollouts@v1.10.1 manifests/crds/analysis-run-crd.yaml",
        "post-processed YAML: controller-gen's document without its leading `---`; equal as values, not as bytes",
    ),
    (
        "github.com/argoproj/argo-rollouts@v1.10.1 manifests/crds/experiment-crd.yaml",
        "post-processed YAML: controller-gen's document without its leading `---`; equal as values, not as bytes",
    ),
    (
        "github.com/argoproj/argo-rollouts@v1.10.1 manifests/crds/analysis-template-crd.yaml",
        "post-processed YAML, not controller-gen v0.23's formatting: equal as values, not as bytes",
    ),
    (
        "github.com/argoproj/argo-rollouts@v1.10.1 manifests/crds/cluster-analysis-template-crd.yaml",
        "post-processed YAML, not controller-gen v0.23's formatting: equal as values, not as bytes",
    ),
    (
        "github.com/argoproj/argo-rollouts@v1.10.1 manifests/crds/rollout-crd.yaml",
        "post-processed YAML, not controller-gen v0.23's formatting: equal as values, not as bytes",
    ),
    (
        "github.com/argoproj/argo-cd/v3@v3.5.0 manifests/crds/applicationset-crd.yaml",
        "no descriptions on apiVersion and kind (post-processed); opgen writes controller-gen's",
    ),
    (
        "github.com/kyverno/kyverno@v1.19.1 config/crds/kyverno/kyverno.io_cleanuppolicies.yaml",
        "hand-written or post-processed schema combinators (oneOf/anyOf/not/allOf), which no marker expresses",
    ),
    (
        "github.com/kyverno/kyverno@v1.19.1 config/crds/kyverno/kyverno.io_clustercleanuppolicies.yaml",
        "hand-written or post-processed schema combinators (oneOf/anyOf/not/allOf), which no marker expresses",
    ),
    (
        "github.com/kyverno/kyverno@v1.19.1 config/crds/kyverno/kyverno.io_clusterpolicies.yaml",
        "hand-written or post-processed schema combinators (oneOf/anyOf/not/allOf), which no marker expresses",
    ),
    (
        "github.com/kyverno/kyverno@v1.19.1 config/crds/kyverno/kyverno.io_globalcontextentries.yaml",
        "hand-written or post-processed schema combinators (oneOf/anyOf/not/allOf), which no marker expresses",
    ),
    (
        "github.com/kyverno/kyverno@v1.19.1 config/crds/kyverno/kyverno.io_policies.yaml",
        "hand-written or post-processed schema combinators (oneOf/anyOf/not/allOf), which no marker expresses",
    ),
    (
        "github.com/kyverno/kyverno@v1.19.1 config/crds/kyverno/kyverno.io_policyexceptions.yaml",
        "hand-written or post-processed schema combinators (oneOf/anyOf/not/allOf), which no marker expresses",
    ),
    (
        "github.com/kyverno/kyverno@v1.19.1 config/crds/policies.kyverno.io/policies.kyverno.io_imagevalidatingpolicies.yaml",
        "hand-written or post-processed schema combinators (oneOf/anyOf/not/allOf), which no marker expresses",
    ),
    (
        "github.com/kyverno/kyverno@v1.19.1 config/crds/policies.kyverno.io/policies.kyverno.io_namespacedimagevalidatingpolicies.yaml",
        "hand-written or post-processed schema combinators (oneOf/anyOf/not/allOf), which no marker expresses",
    ),
    (
        "sigs.k8s.io/gateway-api@v1.6.3 config/crd/experimental/gateway.networking.k8s.io_backendtlspolicies.yaml",
        "post-processed descriptions: gateway-api's generator cuts the experimental sections out of controller-gen's, leaving blank lines in a row, which a doc comment cannot carry word for word (the import warns)",
    ),
    (
        "sigs.k8s.io/gateway-api@v1.6.3 config/crd/experimental/gateway.networking.k8s.io_gateways.yaml",
        "post-processed: a `oneOf` on the spec and status addresses (gateway-api's generator adds it to controller-gen's), which no marker expresses (the import warns)",
    ),
    (
        "sigs.k8s.io/gateway-api@v1.6.3 config/crd/experimental/gateway.networking.k8s.io_grpcroutes.yaml",
        "post-processed descriptions: gateway-api's generator cuts the experimental sections out of controller-gen's, leaving blank lines in a row, which a doc comment cannot carry word for word (the import warns)",
    ),
    (
        "sigs.k8s.io/gateway-api@v1.6.3 config/crd/experimental/gateway.networking.k8s.io_httproutes.yaml",
        "post-processed descriptions: gateway-api's generator cuts the experimental sections out of controller-gen's, leaving blank lines in a row, which a doc comment cannot carry word for word (the import warns)",
    ),
    (
        "sigs.k8s.io/gateway-api@v1.6.3 config/crd/experimental/gateway.networking.k8s.io_tcproutes.yaml",
        "post-processed descriptions: gateway-api's generator cuts the experimental sections out of controller-gen's, leaving blank lines in a row, which a doc comment cannot carry word for word (the import warns)",
    ),
    (
        "sigs.k8s.io/gateway-api@v1.6.3 config/crd/experimental/gateway.networking.k8s.io_tlsroutes.yaml",
        "post-processed descriptions: gateway-api's generator cuts the experimental sections out of controller-gen's, leaving blank lines in a row, which a doc comment cannot carry word for word (the import warns)",
    ),
    (
        "sigs.k8s.io/gateway-api@v1.6.3 config/crd/experimental/gateway.networking.k8s.io_udproutes.yaml",
        "post-processed descriptions: gateway-api's generator cuts the experimental sections out of controller-gen's, leaving blank lines in a row, which a doc comment cannot carry word for word (the import warns)",
    ),
    (
        "sigs.k8s.io/gateway-api@v1.6.3 config/crd/experimental/gateway.networking.x-k8s.io_xbackends.yaml",
        "post-processed descriptions: gateway-api's generator cuts the experimental sections out of controller-gen's, leaving blank lines in a row, which a doc comment cannot carry word for word (the import warns)",
    ),
    (
        "sigs.k8s.io/gateway-api@v1.6.3 config/crd/experimental/gateway.networking.x-k8s.io_xbackendtrafficpolicies.yaml",
        "post-processed descriptions: gateway-api's generator cuts the experimental sections out of controller-gen's, leaving blank lines in a row, which a doc comment cannot carry word for word (the import warns)",
    ),
    (
        "sigs.k8s.io/gateway-api@v1.6.3 config/crd/standard/gateway.networking.k8s.io_gateways.yaml",
        "post-processed: a `oneOf` on the spec and status addresses (gateway-api's generator adds it to controller-gen's), which no marker expresses (the import warns)",
    ),
    (
        "sigs.k8s.io/cluster-api-provider-aws/v2@v2.13.0 config/crd/bases/controlplane.cluster.x-k8s.io_awsmanagedcontrolplanes.yaml",
        "hand-written or post-processed schema combinators (oneOf/anyOf/not/allOf), which no marker expresses",
    ),
    (
        "sigs.k8s.io/cluster-api-provider-aws/v2@v2.13.0 config/crd/bases/infrastructure.cluster.x-k8s.io_awsclusters.yaml",
        "hand-written or post-processed schema combinators (oneOf/anyOf/not/allOf), which no marker expresses",
    ),
    (
        "sigs.k8s.io/cluster-api-provider-aws/v2@v2.13.0 config/crd/bases/infrastructure.cluster.x-k8s.io_awsmachinepools.yaml",
        "hand-written or post-processed schema combinators (oneOf/anyOf/not/allOf), which no marker expresses",
    ),
    (
        "sigs.k8s.io/cluster-api-provider-aws/v2@v2.13.0 config/crd/bases/infrastructure.cluster.x-k8s.io_awsmachines.yaml",
        "hand-written or post-processed schema combinators (oneOf/anyOf/not/allOf), which no marker expresses",
    ),
    (
        "sigs.k8s.io/cluster-api-provider-aws/v2@v2.13.0 config/crd/bases/infrastructure.cluster.x-k8s.io_awsmachinetemplates.yaml",
        "hand-written or post-processed schema combinators (oneOf/anyOf/not/allOf), which no marker expresses",
    ),
    (
        "sigs.k8s.io/cluster-api-provider-aws/v2@v2.13.0 config/crd/bases/infrastructure.cluster.x-k8s.io_awsmanagedmachinepools.yaml",
        "hand-written or post-processed schema combinators (oneOf/anyOf/not/allOf), which no marker expresses",
    ),
    (
        "sigs.k8s.io/cluster-api-provider-gcp@v1.13.1 config/crd/bases/infrastructure.cluster.x-k8s.io_gcpclusters.yaml",
        "hand-written or post-processed schema combinators (oneOf/anyOf/not/allOf), which no marker expresses",
    ),
    (
        "sigs.k8s.io/cluster-api-provider-gcp@v1.13.1 config/crd/bases/infrastructure.cluster.x-k8s.io_gcpclustertemplates.yaml",
        "hand-written or post-processed schema combinators (oneOf/anyOf/not/allOf), which no marker expresses",
    ),
    (
        "sigs.k8s.io/cluster-api-provider-gcp@v1.13.1 config/crd/bases/infrastructure.cluster.x-k8s.io_gcpmanagedclusters.yaml",
        "hand-written or post-processed schema combinators (oneOf/anyOf/not/allOf), which no marker expresses",
    ),
    (
        "sigs.k8s.io/cluster-api-provider-gcp@v1.13.1 config/crd/bases/infrastructure.cluster.x-k8s.io_gcpmanagedclustertemplates.yaml",
        "hand-written or post-processed schema combinators (oneOf/anyOf/not/allOf), which no marker expresses",
    ),
    (
        "sigs.k8s.io/karpenter@v1.14.1 pkg/apis/crds/karpenter.sh_nodeclaims.yaml",
        "post-processed: `maxLength` and `pattern` on a list of strings, where the API server ignores them and no marker can write them (the import leaves them out with a warning)",
    ),
    (
        "sigs.k8s.io/karpenter@v1.14.1 pkg/apis/crds/karpenter.sh_nodeoverlays.yaml",
        "post-processed: `maxLength` and `pattern` on a list of strings, where the API server ignores them and no marker can write them (the import leaves them out with a warning)",
    ),
    (
        "sigs.k8s.io/karpenter@v1.14.1 pkg/apis/crds/karpenter.sh_nodepools.yaml",
        "post-processed: `maxLength` and `pattern` on a list of strings, where the API server ignores them and no marker can write them (the import leaves them out with a warning)",
    ),
    (
        "knative.dev/serving@v0.51.0 config/core/300-resources/configuration.yaml",
        "hand-written: no listKind (opgen writes it, as controller-gen does)",
    ),
    (
        "knative.dev/serving@v0.51.0 config/core/300-resources/domain-mapping.yaml",
        "hand-written: no listKind (opgen writes it, as controller-gen does)",
    ),
    (
        "knative.dev/serving@v0.51.0 config/core/300-resources/metric.yaml",
        "hand-written: no listKind (opgen writes it, as controller-gen does)",
    ),
    (
        "knative.dev/serving@v0.51.0 config/core/300-resources/podautoscaler.yaml",
        "hand-written: no listKind (opgen writes it, as controller-gen does)",
    ),
    (
        "knative.dev/serving@v0.51.0 config/core/300-resources/revision.yaml",
        "hand-written: no listKind (opgen writes it, as controller-gen does)",
    ),
    (
        "knative.dev/serving@v0.51.0 config/core/300-resources/route.yaml",
        "hand-written: no listKind (opgen writes it, as controller-gen does)",
    ),
    (
        "knative.dev/serving@v0.51.0 config/core/300-resources/service.yaml",
        "hand-written: no listKind (opgen writes it, as controller-gen does)",
    ),
    (
        "github.com/open-policy-agent/gatekeeper/v3@v3.23.1 config/crd/bases/_.yaml",
        "the core (empty) API group is in no project's domain (only --external imports it)",
    ),
    (
        "github.com/open-policy-agent/gatekeeper/v3@v3.23.1 config/crd/bases/_assignimages.yaml",
        "the core (empty) API group is in no project's domain (only --external imports it)",
    ),
    (
        "github.com/open-policy-agent/gatekeeper/v3@v3.23.1 config/crd/bases/_assignmetadata.yaml",
        "the core (empty) API group is in no project's domain (only --external imports it)",
    ),
    (
        "github.com/open-policy-agent/gatekeeper/v3@v3.23.1 config/crd/bases/_assigns.yaml",
        "the core (empty) API group is in no project's domain (only --external imports it)",
    ),
    (
        "github.com/open-policy-agent/gatekeeper/v3@v3.23.1 config/crd/bases/_expansiontemplate.yaml",
        "the core (empty) API group is in no project's domain (only --external imports it)",
    ),
    (
        "github.com/open-policy-agent/gatekeeper/v3@v3.23.1 config/crd/bases/_modifysets.yaml",
        "the core (empty) API group is in no project's domain (only --external imports it)",
    ),
    (
        "github.com/open-policy-agent/gatekeeper/v3@v3.23.1 config/crd/bases/match.gatekeeper.sh_matchcrd.yaml",
        "the group `match` would name its module with a Rust keyword, which `create api` refuses",
    ),
    (
        "github.com/prometheus-operator/prometheus-operator@v0.85.0 example/prometheus-operator-crd/monitoring.coreos.com_scrapeconfigs.yaml",
        "hand-written or post-processed schema combinators (oneOf/anyOf/not/allOf), which no marker expresses",
    ),
    (
        "github.com/cilium/cilium@v1.20.2 pkg/k8s/apis/cilium.io/client/crds/v2/ciliumclusterwidenetworkpolicies.yaml",
        "hand-written or post-processed schema combinators (oneOf/anyOf/not/allOf), which no marker expresses",
    ),
    (
        "github.com/cilium/cilium@v1.20.2 pkg/k8s/apis/cilium.io/client/crds/v2/ciliumlocalredirectpolicies.yaml",
        "hand-written or post-processed schema combinators (oneOf/anyOf/not/allOf), which no marker expresses",
    ),
    (
        "github.com/cilium/cilium@v1.20.2 pkg/k8s/apis/cilium.io/client/crds/v2/ciliumnetworkpolicies.yaml",
        "hand-written or post-processed schema combinators (oneOf/anyOf/not/allOf), which no marker expresses",
    ),
    (
        "github.com/cilium/cilium@v1.20.2 pkg/k8s/apis/cilium.io/client/crds/v2alpha1/ciliumendpointslices.yaml",
        "the root `required` is not in controller-gen's order; opgen sorts it",
    ),
    (
        "istio.io/istio@v0.0.0-20260827124520-eed52ebb66ad manifests/charts/base/files/crd-all.gen.yaml#0",
        "hand-written or post-processed schema combinators (oneOf/anyOf/not/allOf), which no marker expresses; generated from protobuf: no apiVersion, kind and metadata in the schema (opgen writes them, as controller-gen does)",
    ),
    (
        "istio.io/istio@v0.0.0-20260827124520-eed52ebb66ad manifests/charts/base/files/crd-all.gen.yaml#1",
        "generated from protobuf: no apiVersion, kind and metadata in the schema (opgen writes them, as controller-gen does)",
    ),
    (
        "istio.io/istio@v0.0.0-20260827124520-eed52ebb66ad manifests/charts/base/files/crd-all.gen.yaml#2",
        "hand-written or post-processed schema combinators (oneOf/anyOf/not/allOf), which no marker expresses; generated from protobuf: no apiVersion, kind and metadata in the schema (opgen writes them, as controller-gen does)",
    ),
    (
        "istio.io/istio@v0.0.0-20260827124520-eed52ebb66ad manifests/charts/base/files/crd-all.gen.yaml#3",
        "hand-written or post-processed schema combinators (oneOf/anyOf/not/allOf), which no marker expresses; generated from protobuf: no apiVersion, kind and metadata in the schema (opgen writes them, as controller-gen does)",
    ),
    (
        "istio.io/istio@v0.0.0-20260827124520-eed52ebb66ad manifests/charts/base/files/crd-all.gen.yaml#4",
        "generated from protobuf: no apiVersion, kind and metadata in the schema (opgen writes them, as controller-gen does)",
    ),
    (
        "istio.io/istio@v0.0.0-20260827124520-eed52ebb66ad manifests/charts/base/files/crd-all.gen.yaml#5",
        "generated from protobuf: no apiVersion, kind and metadata in the schema (opgen writes them, as controller-gen does)",
    ),
    (
        "istio.io/istio@v0.0.0-20260827124520-eed52ebb66ad manifests/charts/base/files/crd-all.gen.yaml#6",
        "generated from protobuf: no apiVersion, kind and metadata in the schema (opgen writes them, as controller-gen does)",
    ),
    (
        "istio.io/istio@v0.0.0-20260827124520-eed52ebb66ad manifests/charts/base/files/crd-all.gen.yaml#7",
        "generated from protobuf: no apiVersion, kind and metadata in the schema (opgen writes them, as controller-gen does)",
    ),
    (
        "istio.io/istio@v0.0.0-20260827124520-eed52ebb66ad manifests/charts/base/files/crd-all.gen.yaml#8",
        "hand-written or post-processed schema combinators (oneOf/anyOf/not/allOf), which no marker expresses; generated from protobuf: no apiVersion, kind and metadata in the schema (opgen writes them, as controller-gen does)",
    ),
    (
        "istio.io/istio@v0.0.0-20260827124520-eed52ebb66ad manifests/charts/base/files/crd-all.gen.yaml#9",
        "generated from protobuf: no apiVersion, kind and metadata in the schema (opgen writes them, as controller-gen does)",
    ),
    (
        "istio.io/istio@v0.0.0-20260827124520-eed52ebb66ad manifests/charts/base/files/crd-all.gen.yaml#10",
        "hand-written or post-processed schema combinators (oneOf/anyOf/not/allOf), which no marker expresses; generated from protobuf: no apiVersion, kind and metadata in the schema (opgen writes them, as controller-gen does)",
    ),
    (
        "istio.io/istio@v0.0.0-20260827124520-eed52ebb66ad manifests/charts/base/files/crd-all.gen.yaml#11",
        "hand-written or post-processed schema combinators (oneOf/anyOf/not/allOf), which no marker expresses; generated from protobuf: no apiVersion, kind and metadata in the schema (opgen writes them, as controller-gen does)",
    ),
    (
        "istio.io/istio@v0.0.0-20260827124520-eed52ebb66ad manifests/charts/base/files/crd-all.gen.yaml#12",
        "generated from protobuf: no apiVersion, kind and metadata in the schema (opgen writes them, as controller-gen does)",
    ),
    (
        "istio.io/istio@v0.0.0-20260827124520-eed52ebb66ad manifests/charts/base/files/crd-all.gen.yaml#13",
        "generated from protobuf: no apiVersion, kind and metadata in the schema (opgen writes them, as controller-gen does)",
    ),
    (
        "istio.io/istio@v0.0.0-20260827124520-eed52ebb66ad manifests/charts/base/files/crd-all.gen.yaml#14",
        "hand-written or post-processed schema combinators (oneOf/anyOf/not/allOf), which no marker expresses; generated from protobuf: no apiVersion, kind and metadata in the schema (opgen writes them, as controller-gen does)",
    ),
];

/// One CRD of the live corpus: where it comes from, and its YAML (one document).
#[derive(Clone)]
struct LiveCrd {
    label: String,
    text: String,
}

/// The documents of a YAML file that are CRDs, each as text of its own (a file of one document
/// as it is, so that its bytes compare).
fn crd_documents(text: &str) -> Vec<String> {
    let mut docs = vec![String::new()];
    for line in text.lines() {
        if line == "---" {
            docs.push(String::new());
        }
        let doc = docs.last_mut().unwrap();
        doc.push_str(line);
        doc.push('\n');
    }
    docs.retain(|d| d.lines().any(|l| l == "kind: CustomResourceDefinition"));
    if docs.len() == 1 && text.lines().filter(|l| *l == "---").count() <= 1 {
        return vec![text.to_owned()];
    }
    docs
}

/// The live corpus: the CRDs controller-gen writes now for every module of the Go corpus
/// (tests/import_go.rs's), then those the [`COLLECTIONS`] ship, each once (a shipped CRD equal
/// to another but for the generator's version line is left out). `None` (announced) without Go
/// or controller-gen outside CI.
fn live_corpus() -> Option<Vec<LiveCrd>> {
    // Gathered once for the tests of this binary that use it (they run at once).
    static CORPUS: std::sync::OnceLock<Option<Vec<LiveCrd>>> = std::sync::OnceLock::new();
    CORPUS.get_or_init(gather_live_corpus).clone()
}

fn gather_live_corpus() -> Option<Vec<LiveCrd>> {
    let generated = two_at_a_time(&harness::GO_CORPUS, |m| {
        let files = harness::live_files_of(m)?;
        Some(
            files
                .into_iter()
                .filter(|(name, _)| name.ends_with(".yaml"))
                .map(|(name, text)| LiveCrd {
                    label: format!(
                        "controller-gen {}@{} {} {name}",
                        m.module, m.version, m.package
                    )
                    .replace("@ ", " "),
                    text,
                })
                .collect::<Vec<_>>(),
        )
    });
    let mut out: Vec<LiveCrd> = Vec::new();
    for crds in generated {
        out.extend(crds?);
    }
    for c in COLLECTIONS {
        let dir = harness::module_dir(c.module, c.version)?;
        let mut files = Vec::new();
        for pattern in c.files {
            let matched: Vec<PathBuf> = glob::glob(&dir.join(pattern).to_string_lossy())
                .unwrap()
                .map(Result::unwrap)
                .collect();
            assert!(
                !matched.is_empty(),
                "{}@{} ({}): nothing matches {pattern}",
                c.module,
                c.version,
                c.why
            );
            files.extend(matched);
        }
        files.sort();
        for file in files {
            let rel = file.strip_prefix(&dir).unwrap().display().to_string();
            let docs = crd_documents(&std::fs::read_to_string(&file).unwrap());
            let several = docs.len() > 1;
            for (i, text) in docs.into_iter().enumerate() {
                let label = if several {
                    format!("{}@{} {rel}#{i}", c.module, c.version)
                } else {
                    format!("{}@{} {rel}", c.module, c.version)
                };
                out.push(LiveCrd { label, text });
            }
        }
    }
    let mut seen = std::collections::BTreeSet::new();
    out.retain(|c| seen.insert(without_version_line(&c.text).trim().to_owned()));
    Some(out)
}

/// A CRD's API group and kind.
fn group_kind(crd: &Value) -> (String, String) {
    let text = |v: &Value| v.as_str().unwrap_or_default().to_owned();
    (
        text(&crd["spec"]["group"]),
        text(&crd["spec"]["names"]["kind"]),
    )
}

/// Every kind of the live corpus imported with `--external` (the first CRD of each group and
/// kind; a CRD the import refuses must be a [`LIVE_EXCEPTIONS`] entry) builds, clippy-clean:
/// the code the importer writes for hand-written, generated and protobuf-made schemas compiles
/// beside each other. In [`LIVE_CRATES`] projects of about the same size (one crate of them all
/// takes rustc more memory than a 2-core machine's builds should).
#[test]
fn every_live_corpus_kind_imports_into_projects_that_build() {
    let Some(corpus) = live_corpus() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let mut seen = BTreeSet::new();
    let mut files = Vec::new();
    for (i, c) in corpus.iter().enumerate() {
        let crd: Value = serde_yaml::from_str(&c.text).unwrap();
        let key = group_kind(&crd);
        if seen.insert(key) {
            let file = tmp.path().join(format!("{i}.yaml"));
            std::fs::write(&file, &c.text).unwrap();
            files.push((c, file));
        }
    }
    let (mut imported, mut refused) = (0, Vec::new());
    let mut members = Vec::new();
    for (n, chunk) in balanced_chunks(&files, LIVE_CRATES, |(c, _)| c.text.len())
        .into_iter()
        .enumerate()
    {
        let project = init_project(
            tmp.path(),
            &format!("p{n}"),
            "example.com",
            &format!("imported{n}"),
        );
        members.push(format!("p{n}"));
        // The exceptions one at a time (the import refuses each whole), then the rest in one
        // run: one `manifests` over the project instead of one per kind.
        let (exceptions, rest): (Vec<_>, Vec<_>) = chunk
            .iter()
            .partition(|(c, _)| LIVE_EXCEPTIONS.iter().any(|(l, _)| *l == c.label));
        for (c, file) in exceptions {
            let out = opgen(
                &project,
                &["import", "crd", "--external", &file.to_string_lossy()],
            );
            if out.status.success() {
                imported += 1;
            } else {
                refused.push(c.label.clone());
            }
        }
        if rest.is_empty() {
            continue;
        }
        let mut args = vec!["import".to_owned(), "crd".into(), "--external".into()];
        args.extend(
            rest.iter()
                .map(|(_, file)| file.to_string_lossy().into_owned()),
        );
        let out = opgen(
            &project,
            &args.iter().map(String::as_str).collect::<Vec<_>>(),
        );
        assert!(
            out.status.success(),
            "the import of {} failed:\n{}",
            rest.iter()
                .map(|(c, _)| c.label.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            String::from_utf8_lossy(&out.stderr)
        );
        imported += rest.len();
    }
    // The projects as members of one workspace, linted at once: rustc checks a crate on one
    // core, so two of the libraries are checked side by side. The library only, as
    // a_project_importing_every_corpus_kind_builds checks it.
    support::workspace_of_projects(tmp.path(), "import_crd/live_corpus", &members);
    let built = stable_copy(tmp.path(), "import_crd/live_corpus");
    project_cargo_ok(
        &built,
        &["clippy", "--workspace", "--lib", "--", "-D", "warnings"],
    );
    eprintln!(
        "{imported} kinds imported and built, {} refused (exceptions): {refused:#?}",
        refused.len()
    );
    assert!(imported >= 250, "only {imported} kinds imported");
}

/// How many crates the live corpus's kinds are imported into. rustc checks a crate on one core,
/// and this binary's other tests wait for cargo's hold on the projects' target directory: of
/// about the same size and a dozen of them, no crate is left to check alone for minutes at the
/// end (60 kinds a crate left one of 134k lines for last).
const LIVE_CRATES: usize = 12;

/// `items` cut in order into at most `n` runs of about the same total `size` (none empty).
fn balanced_chunks<T>(items: &[T], n: usize, size: impl Fn(&T) -> usize) -> Vec<&[T]> {
    let total: usize = items.iter().map(&size).sum();
    let mut chunks = Vec::with_capacity(n);
    let (mut start, mut filled) = (0, 0);
    for (i, item) in items.iter().enumerate() {
        filled += size(item);
        // Cut after this item once the chunks so far hold their share of the total.
        if filled * n >= total * (chunks.len() + 1) && chunks.len() + 1 < n {
            chunks.push(&items[start..=i]);
            start = i + 1;
        }
    }
    if start < items.len() {
        chunks.push(&items[start..]);
    }
    chunks
}

/// The collections' example objects of corpus kinds (apiVersion and kind of a corpus CRD that
/// serves that version), each in a file of its own, its namespace left out (the round trip
/// applies it in a namespace of its own), from files that are YAML (Helm templates are not).
/// With where each came from.
fn collection_samples() -> Option<Vec<(String, Value)>> {
    let mut out = Vec::new();
    for c in COLLECTIONS.iter().filter(|c| !c.samples.is_empty()) {
        let dir = harness::module_dir(c.module, c.version)?;
        let mut files = Vec::new();
        for pattern in c.samples {
            files.extend(
                glob::glob(&dir.join(pattern).to_string_lossy())
                    .unwrap()
                    .map(Result::unwrap),
            );
        }
        files.sort();
        assert!(
            !files.is_empty(),
            "{}: no sample matches {:?}",
            c.module,
            c.samples
        );
        for file in files {
            let text = std::fs::read_to_string(&file).unwrap();
            let rel = file.strip_prefix(&dir).unwrap().display();
            let mut docs = Vec::new();
            for doc in serde_yaml::Deserializer::from_str(&text) {
                match serde::Deserialize::deserialize(doc) {
                    Ok(v) => docs.push(v),
                    Err(_) => {
                        docs.clear();
                        break;
                    }
                }
            }
            for (i, mut doc) in docs.into_iter().enumerate() {
                let doc: &mut Value = &mut doc;
                if doc["metadata"]["name"].as_str().is_none() {
                    continue;
                }
                if let Some(meta) = doc["metadata"].as_object_mut() {
                    meta.remove("namespace");
                }
                out.push((format!("{}@{} {rel}#{i}", c.module, c.version), doc.clone()));
            }
        }
    }
    Some(out)
}

/// Example objects that upstream's own CRD refuses too, by label (see [`collection_samples`]),
/// with the reason: left out of the round trip.
const SAMPLE_EXCEPTIONS: &[(&str, &str)] = &[
    (
        "github.com/kedacore/keda/v2@v2.21.0 config/samples/keda_v1alpha1_scaledjob.yaml#0",
        "kubebuilder's placeholder sample: `jobTargetRef.template` left null, which upstream's ScaledJob CRD (type: object) refuses too",
    ),
    (
        "github.com/prometheus-operator/prometheus-operator@v0.85.0 example/user-guides/scrapeclass/scrapeclass-example-servicemonitor.yaml#0",
        "a ServiceMonitor without `spec.selector`, which upstream's CRD (v0.85.0's example/prometheus-operator-crd and v0.95.1's) requires",
    ),
    (
        "github.com/open-policy-agent/gatekeeper/v3@v3.23.1 config/samples/config_v1alpha1_config.yaml#0",
        "kubebuilder's placeholder sample (`spec: {foo: bar}`): upstream's Config CRD declares no `foo` either",
    ),
    (
        "github.com/open-policy-agent/gatekeeper/v3@v3.23.1 config/samples/mutations_v1alpha1_assign.yaml#0",
        "kubebuilder's placeholder sample (`spec: {foo: bar}`): upstream's Assign CRD declares no `foo` either",
    ),
    (
        "github.com/open-policy-agent/gatekeeper/v3@v3.23.1 config/samples/mutations_v1alpha1_assignmetadata.yaml#0",
        "kubebuilder's placeholder sample (`spec: {foo: bar}`): upstream's AssignMetadata CRD declares no `foo` either",
    ),
    (
        "github.com/cilium/cilium@v1.20.2 examples/policies/auth/auth.yaml#0",
        "a stale example: `egress[].auth`, which upstream's CiliumNetworkPolicy CRD does not declare (it has `authentication`), so the API server refuses it under upstream's CRD too",
    ),
    (
        "github.com/cilium/cilium@v1.20.2 examples/policies/l3/requires/requires.yaml#0",
        "a stale example: `fromRequires` with a selector, where upstream's CRD declares a deprecated list of strings with `maxItems: 0`, so the API server refuses it under upstream's CRD too",
    ),
    (
        "sigs.k8s.io/kueue@v0.17.0 cmd/kueueviz/examples/00-resource-flavor.yaml#0",
        "a ResourceFlavor without `spec`: kube-derive's root type requires spec, the one root difference tests/fixtures/controller-gen/README.md lists",
    ),
];

/// Item 3 of the import on the CRD corpus: each collection's example objects of corpus kinds
/// (gateway-api's, prometheus-operator's, argo's, keda's, gatekeeper's, kueue's) are
/// accepted by a real API server under the CRDs opgen writes from the imported code, are read
/// back into the imported Rust types and serialize with every field the server holds. One
/// project per domain of the groups (a project owns `<name>.<domain>` groups); for a
/// kind the corpus has several CRDs of, the shipped one, one that round-trips first, the
/// largest first (gateway-api's experimental channel, a superset of the standard one).
#[test]
fn live_corpus_samples_round_trip_on_the_api_server() {
    let (Some(corpus), Some(samples)) = (live_corpus(), collection_samples()) else {
        return;
    };
    // (group, kind) → the corpus CRD to import.
    let mut crds: BTreeMap<(String, String), (&LiveCrd, Value)> = BTreeMap::new();
    for c in &corpus {
        let crd: Value = serde_yaml::from_str(&c.text).unwrap();
        let key = group_kind(&crd);
        // What the project ships before what controller-gen writes from its Go (gateway-api's
        // shipped CRDs carry the `api-approved.kubernetes.io` annotation a *.k8s.io group
        // needs), then one that round-trips, then the largest. (An exception that imports
        // serves samples as well: gateway-api's shipped Gateway.)
        let rank = |c: &LiveCrd| {
            (
                !c.label.starts_with("controller-gen "),
                !LIVE_EXCEPTIONS.iter().any(|(l, _)| *l == c.label),
                c.text.len(),
            )
        };
        match crds.get(&key) {
            Some((kept, _)) if rank(kept) >= rank(c) => {}
            _ => {
                crds.insert(key, (c, crd));
            }
        }
    }
    let serves = |crd: &Value, version: &str| {
        crd["spec"]["versions"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|v| v["name"] == version && v["served"] == true)
    };
    // Project domain → (samples, the (group, kind)s they need).
    type Needs = (Vec<(String, Value)>, BTreeSet<(String, String)>);
    let mut projects: BTreeMap<String, Needs> = BTreeMap::new();
    for (label, _) in SAMPLE_EXCEPTIONS {
        assert!(
            samples.iter().any(|(l, _)| l == label),
            "SAMPLE_EXCEPTIONS names {label}, which the samples no longer have"
        );
    }
    for (label, doc) in samples {
        if SAMPLE_EXCEPTIONS.iter().any(|(l, _)| *l == label) {
            continue;
        }
        let (Some(api_version), Some(kind)) = (doc["apiVersion"].as_str(), doc["kind"].as_str())
        else {
            continue;
        };
        let Some((group, version)) = api_version.split_once('/') else {
            continue;
        };
        let key = (group.to_owned(), kind.to_owned());
        // A collection's examples of its own kinds: Cilium's examples of gateway-api's
        // experimental HTTPRoute fields need a CRD the corpus does not pick.
        let module = |label: &str| {
            let label = label.strip_prefix("controller-gen ").unwrap_or(label);
            label.split('@').next().unwrap_or_default().to_owned()
        };
        if !crds.get(&key).is_some_and(|(crd_of, crd)| {
            serves(crd, version) && module(&crd_of.label) == module(&label)
        }) {
            continue;
        }
        // The domain a project owning the group has (the group but its first label).
        let domain = group.split_once('.').map_or(group, |(_, d)| d).to_owned();
        let entry = projects.entry(domain).or_default();
        entry.0.push((label, doc));
        entry.1.insert(key);
    }
    let total: usize = projects.values().map(|(s, _)| s.len()).sum();
    eprintln!(
        "{total} samples of {} kinds in {} projects",
        projects.values().map(|(_, k)| k.len()).sum::<usize>(),
        projects.len()
    );
    assert!(total >= 150, "only {total} samples of corpus kinds");
    let tmp = tempfile::tempdir().unwrap();
    // OPGEN_LIVE_DOMAIN=<domain> runs one project again (e.g. networking.k8s.io).
    let only = std::env::var("OPGEN_LIVE_DOMAIN").ok();
    let workspace = tmp.path().join("projects");
    std::fs::create_dir(&workspace).unwrap();
    let mut round_trips = Vec::new();
    for (domain, (samples, kinds)) in &projects {
        if only.as_ref().is_some_and(|d| d != domain) {
            continue;
        }
        let project = init_project(&workspace, domain, domain, "imported");
        let mut files = Vec::new();
        for (group, kind) in kinds {
            let file = tmp.path().join(format!("{group}-{kind}.yaml"));
            std::fs::write(&file, &crds[&(group.clone(), kind.clone())].0.text).unwrap();
            files.push(file.to_string_lossy().into_owned());
        }
        if kinds.iter().any(|(g, _)| *g != kinds.first().unwrap().0) {
            opgen_ok(&project, &["edit", "--multigroup"]);
        }
        let mut args = vec!["import", "crd"];
        args.extend(files.iter().map(String::as_str));
        opgen_ok(&project, &args);
        let dir = project.join("samples");
        std::fs::create_dir_all(&dir).unwrap();
        let mut sample_files = Vec::new();
        for (i, (label, doc)) in samples.iter().enumerate() {
            let file = dir.join(format!("{i:03}.yaml"));
            let text = format!("# {label}\n{}", serde_yaml::to_string(doc).unwrap());
            std::fs::write(&file, text).unwrap();
            sample_files.push(file);
        }
        let mut typed = Vec::new();
        for (group, kind) in kinds {
            let crd = &crds[&(group.clone(), kind.clone())].1;
            let namespaced = crd["spec"]["scope"] != "Cluster";
            for v in crd["spec"]["versions"].as_array().unwrap() {
                let version = v["name"].as_str().unwrap();
                let path = rust_path(&project, group, version, kind);
                typed.push((kind.clone(), version.to_owned(), path, namespaced));
            }
        }
        write_round_trip(
            &project,
            &sample_files,
            &Typed::each_of(&typed),
            samples.len(),
            &[],
        );
        round_trips.push(project);
    }
    round_trips_in_one_workspace(&workspace, "live", &round_trips);
}

/// The Rust path (`imported::api::...::Kind`) of the kind an import wrote for `group`/`version`.
fn rust_path(project: &Path, group: &str, version: &str, kind: &str) -> String {
    let api = project.join("src/api");
    for entry in walkdir::WalkDir::new(&api) {
        let entry = entry.unwrap();
        if !entry.file_type().is_file() {
            continue;
        }
        let text = std::fs::read_to_string(entry.path()).unwrap();
        let declares = [
            format!("group = {group:?}"),
            format!("version = {version:?}"),
            format!("kind = {kind:?}"),
        ]
        .iter()
        .all(|k| text.contains(k.as_str()));
        if declares {
            let module = entry.path().parent().unwrap().strip_prefix(&api).unwrap();
            let mut path = String::from("imported::api");
            for part in module.components() {
                path.push_str("::");
                path.push_str(&part.as_os_str().to_string_lossy());
            }
            return format!("{path}::{kind}");
        }
    }
    panic!(
        "no Rust kind {kind} of {group}/{version} in {}",
        api.display()
    );
}

/// Every CRD of the live corpus (≥ 300) imported into a fresh project and regenerated comes
/// back as [`check`] compares, but the [`LIVE_EXCEPTIONS`], which must still fail.
#[test]
fn every_live_corpus_crd_round_trips() {
    let started = std::time::Instant::now();
    let Some(corpus) = live_corpus() else {
        return;
    };
    let gathered = started.elapsed();
    let tmp = tempfile::tempdir().unwrap();
    let outcomes = two_at_a_time(&corpus.iter().enumerate().collect::<Vec<_>>(), |(i, c)| {
        let file = tmp.path().join(format!("{i}.yaml"));
        std::fs::write(&file, &c.text).unwrap();
        check(&file)
    });
    let mut failures = Vec::new();
    let mut matched = 0;
    for (c, outcome) in corpus.iter().zip(outcomes) {
        let exception = LIVE_EXCEPTIONS
            .iter()
            .find(|(l, _)| *l == c.label)
            .map(|(_, r)| *r);
        match (outcome, exception) {
            (Ok(()), None) => matched += 1,
            (Ok(()), Some(reason)) => failures.push(format!(
                "{} now round-trips: remove it from LIVE_EXCEPTIONS ({reason})",
                c.label
            )),
            // Printed (with --nocapture) to review the reasons.
            (Err(e), Some(_)) => eprintln!(
                "exception {}: {}",
                c.label,
                e.lines().next().unwrap_or_default()
            ),
            (Err(e), None) => failures.push(format!("{}: {e}", c.label)),
        }
    }
    for (label, _) in LIVE_EXCEPTIONS {
        assert!(
            corpus.iter().any(|c| c.label == *label),
            "LIVE_EXCEPTIONS names {label}, which the corpus no longer has"
        );
    }
    eprintln!(
        "{} live CRDs ({matched} round-trip, {} exceptions): gathered in {:.0}s, checked in {:.0}s",
        corpus.len(),
        LIVE_EXCEPTIONS.len(),
        gathered.as_secs_f64(),
        (started.elapsed() - gathered).as_secs_f64()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(corpus.len() >= 300, "only {} live CRDs", corpus.len());
}

/// A default on the root `status` (Flux's `observedGeneration: -1`, Gateway API's pending
/// conditions) is the kind's `+opgen:status:default`, not a default of the status struct, which
/// `opgen manifests` refused: the CRD round-trips.
#[test]
fn a_status_default_round_trips() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("crd.yaml");
    std::fs::write(
        &file,
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.demo.example.com\nspec:\n  group: demo.example.com\n  names:\n    kind: Widget\n    listKind: WidgetList\n    plural: widgets\n    singular: widget\n  scope: Namespaced\n  versions:\n  - name: v1\n    schema:\n      openAPIV3Schema:\n        properties:\n          apiVersion:\n            type: string\n          kind:\n            type: string\n          metadata:\n            type: object\n          spec:\n            properties:\n              size:\n                type: integer\n            type: object\n          status:\n            default:\n              observedGeneration: -1\n            properties:\n              observedGeneration:\n                format: int64\n                type: integer\n            type: object\n        type: object\n    served: true\n    storage: true\n    subresources:\n      status: {}\n",
    )
    .unwrap();
    // (Its apiVersion and kind have no descriptions, which opgen writes: compare the status.)
    let written: Value = serde_yaml::from_str(&round_trip(&file).unwrap()).unwrap();
    let status = "/spec/versions/0/schema/openAPIV3Schema/properties/status";
    assert_eq!(
        written.pointer(status),
        crd_of(&file).pointer(status),
        "{written:#}"
    );
    let tmp = tempfile::tempdir().unwrap();
    let project = init_project(tmp.path(), "p", "example.com", "demo");
    opgen_ok(&project, &["import", "crd", &file.to_string_lossy()]);
    let types = std::fs::read_to_string(project.join("src/api/v1/widget_types.rs")).unwrap();
    assert!(
        types.contains("// +opgen:status:default={\"observedGeneration\":-1}"),
        "{types}"
    );
}

/// Root CEL rules come back in order: as kube-derive's `validation = "..."` when each is a bare
/// rule, as `+opgen:root:XValidation` markers when one carries more (kueue's Workload: messages).
#[test]
fn root_cel_rules_round_trip() {
    let crd = |rules: &str| {
        format!(
            "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.demo.example.com\nspec:\n  group: demo.example.com\n  names:\n    kind: Widget\n    listKind: WidgetList\n    plural: widgets\n    singular: widget\n  scope: Namespaced\n  versions:\n  - name: v1\n    schema:\n      openAPIV3Schema:\n        properties:\n          spec:\n            properties:\n              size:\n                type: integer\n            type: object\n        type: object\n        x-kubernetes-validations:\n{rules}    served: true\n    storage: true\n"
        )
    };
    let with_messages = "        - message: size is immutable\n          rule: self.spec.size == oldSelf.spec.size\n        - fieldPath: .spec.size\n          reason: FieldValueInvalid\n          rule: self.spec.size >= 0\n";
    let bare =
        "        - rule: self.spec.size >= 0\n        - rule: self.metadata.name.size() < 10\n";
    let rules = "/spec/versions/0/schema/openAPIV3Schema/x-kubernetes-validations";
    for (rules_yaml, spelling) in [
        (
            with_messages,
            "// +opgen:root:XValidation:rule=`self.spec.size == oldSelf.spec.size`,message=`size is immutable`",
        ),
        (bare, "validation = \"self.spec.size >= 0\""),
    ] {
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("crd.yaml");
        std::fs::write(&file, crd(rules_yaml)).unwrap();
        let written: Value = serde_yaml::from_str(&round_trip(&file).unwrap()).unwrap();
        assert_eq!(
            written.pointer(rules),
            crd_of(&file).pointer(rules),
            "{written:#}"
        );
        let project = init_project(tmp.path(), "p", "example.com", "demo");
        opgen_ok(&project, &["import", "crd", &file.to_string_lossy()]);
        let types = std::fs::read_to_string(project.join("src/api/v1/widget_types.rs")).unwrap();
        assert!(types.contains(spelling), "{types}");
    }
}

/// A root property beside spec (Cilium's `specs`, Argo CD's `operation`) is kept: the kind
/// becomes kube-derive's `no_spec` struct holding `spec` and it, so both sit at the root, and
/// the root CEL rule naming it compiles.
#[test]
fn a_root_property_beside_spec_round_trips() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("crd.yaml");
    std::fs::write(
        &file,
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: policies.demo.example.com\nspec:\n  group: demo.example.com\n  names:\n    kind: Policy\n    listKind: PolicyList\n    plural: policies\n    singular: policy\n  scope: Namespaced\n  versions:\n  - name: v1\n    schema:\n      openAPIV3Schema:\n        properties:\n          apiVersion:\n            type: string\n          kind:\n            type: string\n          metadata:\n            type: object\n          spec:\n            properties:\n              rule:\n                type: string\n            type: object\n          specs:\n            items:\n              properties:\n                rule:\n                  type: string\n              type: object\n            type: array\n        type: object\n        x-kubernetes-validations:\n        - message: spec or specs must be provided\n          rule: has(self.spec) || has(self.specs)\n    served: true\n    storage: true\n",
    )
    .unwrap();
    let written: Value = serde_yaml::from_str(&round_trip(&file).unwrap()).unwrap();
    let root = "/spec/versions/0/schema/openAPIV3Schema";
    // (Its apiVersion and kind have no descriptions, which opgen writes: compare the rest.)
    for part in [
        "/properties/spec",
        "/properties/specs",
        "/required",
        "/x-kubernetes-validations",
    ] {
        let at = format!("{root}{part}");
        assert_eq!(
            written.pointer(&at),
            crd_of(&file).pointer(&at),
            "{at}: {written:#}"
        );
    }
    let project = init_project(tmp.path(), "p", "example.com", "demo");
    opgen_ok(&project, &["import", "crd", &file.to_string_lossy()]);
    let types = std::fs::read_to_string(project.join("src/api/v1/policy_types.rs")).unwrap();
    for part in [
        "    no_spec,\n",
        "pub struct PolicyFields {",
        "pub spec: Option<PolicySpec>,",
        "pub specs: Option<Vec<",
    ] {
        assert!(types.contains(part), "{part} in {types}");
    }
}
