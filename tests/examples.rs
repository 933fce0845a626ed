//! The example operators under examples/ are opgen projects: their committed manifests must be
//! exactly what this opgen generates, so that a change to opgen that would alter an example's
//! output fails here until the example is regenerated (`cd examples/<name> && opgen manifests`).

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
