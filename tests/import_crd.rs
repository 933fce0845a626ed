//! `opgen import crd`: every CRD of the repository's corpus (controller-gen's golden files and
//! the upstream operators' CRDs) imported into a fresh project and regenerated with `opgen
//! manifests` must come back the same (as YAML values; byte for byte, but for the generator's
//! version annotation, where the input is controller-gen's own output). Each CRD that does not
//! is listed in `EXCEPTIONS` with the reason. The imported types must build (one project holding
//! many CRDs, since building is expensive), and bad input must leave the tree untouched.

mod support;

use serde_json::Value;
use std::path::{Path, PathBuf};
use support::{fixture, opgen, opgen_err, opgen_ok, project_cargo_ok, tree};

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
        "hand-written: no apiVersion, kind and metadata in the schema, no listKind or singular (opgen writes them, as controller-gen does), and a status without the status subresource (kube-derive's `status` enables both)",
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

/// A project whose domain holds `group`'s API group, in `parent`.
fn project_for(parent: &Path, group: &str) -> Option<PathBuf> {
    let (_, domain) = group.split_once('.')?;
    Some(init_project(parent, "p", domain, "imported"))
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
#[test]
fn imported_types_build() {
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
    project_cargo_ok(
        &project,
        &["clippy", "--all-targets", "--", "-D", "warnings"],
    );
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
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_opgen"))
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
