//! Conformance on real-world CRDs: controller-gen runs live on the Go types of published
//! projects (from the Go module proxy, at a pinned version), opgen on their hand-written Rust
//! ports under `tests/fixtures/controller-gen/realworld-*`, and the two files are compared byte
//! for byte (the version annotation aside). Without controller-gen (or `go`), a test says so on
//! stderr and compares nothing; under `CI=true` that is a failure.

#[path = "fixtures/controller-gen/harness.rs"]
mod harness;

use harness::*;

/// prometheus-operator v0.95.1, `monitoring/v1` PrometheusRule: a keyed list of groups with
/// named string types carrying patterns (Duration, NonEmptyDuration), IntOrString, maps, a
/// status with a four-key map list of bindings and their conditions (metav1.Time), categories
/// and short names. The Go markers controller-gen ignores (`+genclient`, `+k8s:openapi-gen`,
/// `+k8s:deepcopy-gen`, `+optional`, `+required`) stay in the port.
///
/// Deliberate differences: the version annotation only. Port notes (in the fixture): Go's
/// `+kubebuilder:validation:OneOf=Record,Alert` is no controller-gen marker (ignored there,
/// refused by opgen), so it is left out; the `status` field's doc stands on its type.
#[test]
fn prometheus_operator_prometheusrules() {
    const FILE: &str = "monitoring.coreos.com_prometheusrules.yaml";
    let files = generate("realworld-prometheus-operator", None);
    assert_eq!(files.keys().collect::<Vec<_>>(), [FILE]);
    let Some(theirs) = live_from_module(
        "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring",
        "v0.95.1",
        "v1",
        "crd",
        FILE,
    ) else {
        return;
    };
    let mut ours = crd(&files, FILE);
    version_annotation_as(&mut ours, &pinned_version());
    assert_same("prometheusrules", &ours, &documents(&theirs)[0]);
    assert_same_bytes("prometheusrules", &files[FILE], &[ours], &theirs);
}
