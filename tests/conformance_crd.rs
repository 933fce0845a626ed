//! Conformance with controller-gen's golden CRDs (all but CronJob, which has its own file).
//!
//! Each test runs `opgen manifests` on a hand-written Rust port of the Go input that
//! `shared/conformance/controller-gen/INDEX.md` describes (under `tests/fixtures/controller-gen/`),
//! applies only the normalisations listed in the test (each a function of the harness with the
//! reason in its doc, or a JSON-pointer edit with a one-line comment), and asserts that the
//! parsed documents are equal and that opgen's YAML writer prints them byte for byte like
//! controller-gen.

#[path = "fixtures/controller-gen/harness.rs"]
mod harness;

use harness::*;

/// `crd/gen`: packages `foo` and `zoo` in one run, `crd:crdVersions=v1`.
///
/// Deliberate differences:
/// * the version annotation ([`version_annotation`]);
/// * `required: [spec]` at the root ([`root_requires_spec`]; Go's `Spec` is omitempty);
/// * `subresources.status` ([`status_subresource_from_kube_status`]; Go's `Status` field
///   exists without `+kubebuilder:subresource:status`).
#[test]
fn gen_foos_and_zoos() {
    let files = generate("gen", None);
    assert_eq!(
        files.keys().collect::<Vec<_>>(),
        ["bar.example.com_foos.yaml", "bar.example.com_zoos.yaml"]
    );
    for (file, golden_file) in [
        (
            "bar.example.com_foos.yaml",
            "crd/gen/bar.example.com_foos.yaml",
        ),
        (
            "bar.example.com_zoos.yaml",
            "crd/gen/zoo/bar.example.com_zoos.yaml",
        ),
    ] {
        let mut ours = crd(&files, file);
        let version = ours["spec"]["versions"][0]["name"]
            .as_str()
            .unwrap()
            .to_owned();
        version_annotation(&mut ours);
        root_requires_spec(&mut ours, &version);
        status_subresource_from_kube_status(&mut ours, &version);
        assert_same(file, &ours, &golden(golden_file)[0]);
        assert_same_bytes(file, &[ours], &golden_text(golden_file));
    }
}

/// `crd/gen` with `maxDescLen=50`: the same input and differences as [`gen_foos_and_zoos`],
/// and every description cut as controller-gen cuts it.
#[test]
fn gen_foos_with_max_desc_len() {
    let files = generate("gen", Some(50));
    let mut ours = crd(&files, "bar.example.com_foos.yaml");
    version_annotation(&mut ours);
    root_requires_spec(&mut ours, "foo");
    status_subresource_from_kube_status(&mut ours, "foo");
    let golden_file = "crd/gen/bar.example.com_foos_maxdesclen.yaml";
    assert_same("foos (maxDescLen=50)", &ours, &golden(golden_file)[0]);
    assert_same_bytes("foos (maxDescLen=50)", &[ours], &golden_text(golden_file));
}
