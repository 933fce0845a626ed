//! tools/olm's `olm-validate` (operator-framework/api's bundle validators) exits non-zero on a
//! bundle with errors, unlike `operator-verify`, which the bundle tests of issue 12 rely on.
//! The bundles are operator-framework's own test data, from the Go module cache at the version
//! tools/olm/go.mod pins. CI=true (tools/test.sh exports OLM_VALIDATE) makes a missing
//! validator a failure.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

fn validator() -> Option<PathBuf> {
    support::referee("OLM_VALIDATE", "tools/olm/setup.sh")
}

/// operator-framework/api's source at the pinned version.
fn operator_framework_api() -> PathBuf {
    let out = Command::new("go")
        .args([
            "mod",
            "download",
            "-json",
            "github.com/operator-framework/api",
        ])
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("tools/olm"))
        .output()
        .expect("go runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let info: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    PathBuf::from(info["Dir"].as_str().unwrap())
}

#[test]
fn olm_validate_fails_on_bundle_errors() {
    let Some(validate) = validator() else { return };
    let bundle =
        operator_framework_api().join("pkg/validation/internal/testdata/bundle_with_metadata");
    let out = Command::new(&validate).arg(&bundle).output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("csv.Spec.Icon elements should contain both data and mediatype"),
        "{text}"
    );

    let out = Command::new(&validate)
        .arg("/nonexistent-bundle")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let out = Command::new(&validate).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "no argument is a usage error");
}
