//! The example operators under examples/ are opgen projects: their committed manifests must be
//! exactly what this opgen generates, so that a change to opgen that would alter an example's
//! output fails here until the example is regenerated (`cd examples/<name> && opgen manifests`).

use opgen::ops::bundle::{BundleArgs, bundle};
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

#[test]
fn examples_manifests_are_up_to_date() {
    for name in EXAMPLES {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("examples")
            .join(name);
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
