//! The example operators under examples/ are opgen projects: their committed manifests must be
//! exactly what this opgen generates, so that a change to opgen that would alter an example's
//! output fails here until the example is regenerated (`cd examples/<name> && opgen manifests`).

use opgen::generators::scaffold::{Provenance, provenance};
use opgen::ops::bundle::{BundleArgs, bundle};
use opgen::ops::create_helm::{HelmOptions, create_helm};
use opgen::ops::manifests::{ManifestOptions, manifests};
use opgen::writer::{ChangeKind, Workspace};
use std::path::Path;

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

/// The examples' Dockerfiles are `opgen init`'s, untouched: rendered again from each PROJECT
/// they must be the same bytes. (Their Makefiles are not checked: they predate the current
/// scaffold and wait for `opgen upgrade`.)
#[test]
fn examples_dockerfiles_are_what_opgen_init_writes() {
    use opgen::ops::init::{InitOptions, K8sVersion, License, init};
    for name in EXAMPLES {
        let root = example_root(name);
        let project = opgen::project::Project::load(&Workspace::new(&root)).unwrap();
        let scratch = tempfile::tempdir().unwrap();
        let mut ws = Workspace::new(scratch.path());
        let options = InitOptions {
            domain: project.domain.clone(),
            repo: project.repo.clone(),
            project_name: Some(project.project_name.clone()),
            owner: None,
            license: License::Apache2,
            k8s_version: K8sVersion::V1_33,
            namespaced: project.namespaced,
            multigroup: project.multigroup,
            force: false,
        };
        init(&mut ws, &options).unwrap_or_else(|e| panic!("{name}:\n{e}"));
        let path = Path::new("Dockerfile");
        let rendered = ws.read(path).unwrap().expect("init writes a Dockerfile");
        let committed = std::fs::read_to_string(root.join(path)).unwrap();
        assert!(
            committed == rendered,
            "examples/{name}/Dockerfile is not what `opgen init` writes today: copy it from a new project"
        );
    }
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
