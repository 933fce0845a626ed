//! Each example's generated CRD (config/crd/bases/) against upstream's, descriptions aside: both
//! lose every `description`, an apiextensions v1beta1 CRD is first lifted to the v1 layout, and
//! the paths where they still differ, with both values, must be exactly the deliberate
//! differences listed here. Each one is documented in the example's README ("Differences from
//! upstream"): change both together. Where an example's README discusses several upstream
//! variants, each variant has its own list.
//!
//! Upstream's files are the copies under `tests/fixtures/upstream-operators/`, each listed with
//! its repository, path and commit in `sources.json` there.
//!
//! `cargo test -p opgen-cli --test examples_upstream cnat` runs one example's comparisons.

mod support;

use serde::Deserialize;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// What opgen writes into `metadata.annotations` (the examples are regenerated with this opgen,
/// tests/examples.rs checks that).
const OPGEN: &str = env!("CARGO_PKG_VERSION");

/// The schema of the one version every example has; `$ROOT` in a listed path stands for it.
const ROOT: &str = "spec.versions[0].schema.openAPIV3Schema";

/// One deliberate difference: the path, upstream's value and the example's (`None`: absent on
/// that side), and why.
struct Deliberate {
    path: String,
    upstream: Option<Value>,
    generated: Option<Value>,
    why: &'static str,
}

fn deliberate(
    path: &str,
    upstream: Option<Value>,
    generated: Option<Value>,
    why: &'static str,
) -> Deliberate {
    let path = path.replace("$ROOT", ROOT);
    Deliberate {
        path,
        upstream,
        generated,
        why,
    }
}

fn only_generated(path: &str, value: Value, why: &'static str) -> Deliberate {
    deliberate(path, None, Some(value), why)
}

fn only_upstream(path: &str, value: Value, why: &'static str) -> Deliberate {
    deliberate(path, Some(value), None, why)
}

fn changed(path: &str, upstream: Value, generated: Value, why: &'static str) -> Deliberate {
    deliberate(path, Some(upstream), Some(generated), why)
}

/// opgen's root `required: [spec]`, the one difference every example has.
fn required_spec() -> Deliberate {
    only_generated(
        "$ROOT.required",
        json!(["spec"]),
        "kube's root type cannot deserialize an object without spec",
    )
}

fn opgen_annotation() -> Deliberate {
    only_generated(
        r#"metadata.annotations["opgen.dev/version"]"#,
        json!(OPGEN),
        "opgen's generator annotation",
    )
}

fn controller_gen_annotation(version: &str) -> Deliberate {
    only_upstream(
        r#"metadata.annotations["controller-gen.kubebuilder.io/version"]"#,
        json!(version),
        "controller-gen's generator annotation",
    )
}

/// `listKind` and `singular`, which the API server defaults to the same values when absent.
fn defaulted_names(list_kind: &str, singular: &str) -> [Deliberate; 2] {
    let why = "written out; the API server defaults upstream's to the same value";
    [
        only_generated("spec.names.listKind", json!(list_kind), why),
        only_generated("spec.names.singular", json!(singular), why),
    ]
}

/// The first document of a YAML file, as JSON.
fn load(path: &std::path::Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_yaml::Deserializer::from_str(&text)
        .map(|doc| Value::deserialize(doc).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
        .find(|doc| !doc.is_null())
        .unwrap_or_else(|| panic!("{}: no YAML document", path.display()))
}

/// An apiextensions v1beta1 CRD in the v1 layout, as the API server converts it: the
/// CRD-wide `version`, `validation`, `subresources` and `additionalPrinterColumns` move into
/// each entry of `versions` (made from `version` when absent).
fn lift_to_v1(mut crd: Value) -> Value {
    if crd["apiVersion"] != "apiextensions.k8s.io/v1beta1" {
        return crd;
    }
    crd["apiVersion"] = json!("apiextensions.k8s.io/v1");
    let spec = crd["spec"].as_object_mut().expect("spec");
    let version = spec.remove("version");
    let versions = match spec.remove("versions") {
        Some(Value::Array(versions)) => versions,
        _ => vec![json!({"name": version.expect("spec.version"), "served": true, "storage": true})],
    };
    let mut shared = serde_json::Map::new();
    if let Some(schema) = spec.remove("validation") {
        shared.insert("schema".into(), schema);
    }
    for key in ["subresources", "additionalPrinterColumns"] {
        if let Some(value) = spec.remove(key) {
            shared.insert(key.into(), value);
        }
    }
    let versions = versions
        .into_iter()
        .map(|version| {
            let mut merged = shared.clone();
            merged.extend(version.as_object().expect("a version").clone());
            Value::Object(merged)
        })
        .collect();
    spec.insert("versions".into(), Value::Array(versions));
    crd
}

/// `value` without any `description`, except a property of that name (`names`: the keys of
/// this map are field names, as under `properties`).
fn without_descriptions(value: &Value, names: bool) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(key, _)| names || *key != "description")
                .map(|(key, v)| {
                    (
                        key.clone(),
                        without_descriptions(v, !names && key == "properties"),
                    )
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|v| without_descriptions(v, false))
                .collect(),
        ),
        other => other.clone(),
    }
}

fn child(path: &str, key: &str) -> String {
    let plain = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    match (path.is_empty(), plain) {
        (true, true) => key.to_string(),
        (false, true) => format!("{path}.{key}"),
        (_, false) => format!("{path}[{key:?}]"),
    }
}

type Differences = BTreeMap<String, (Option<Value>, Option<Value>)>;

/// Every path where `upstream` and `generated` differ, with both values. Maps are compared key
/// by key and lists of equal length item by item; anything else is one difference.
fn differences(
    upstream: Option<&Value>,
    generated: Option<&Value>,
    path: &str,
    out: &mut Differences,
) {
    match (upstream, generated) {
        (Some(Value::Object(a)), Some(Value::Object(b))) => {
            let keys: std::collections::BTreeSet<&String> = a.keys().chain(b.keys()).collect();
            for key in keys {
                differences(a.get(key), b.get(key), &child(path, key), out);
            }
        }
        (Some(Value::Array(a)), Some(Value::Array(b))) if a.len() == b.len() => {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                differences(Some(x), Some(y), &format!("{path}[{i}]"), out);
            }
        }
        (a, b) if a != b => {
            out.insert(path.to_string(), (a.cloned(), b.cloned()));
        }
        _ => {}
    }
}

fn show(value: &Option<Value>) -> String {
    value.as_ref().map_or("(absent)".into(), Value::to_string)
}

/// Compares `examples/<example>/config/crd/bases/<crd>` with `upstream-operators/<upstream>`
/// and fails unless they differ by exactly `deliberate`.
fn compare(example: &str, crd: &str, upstream: &str, deliberate: Vec<Deliberate>) {
    let reference = support::fixture("upstream-operators");
    let generated = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(example)
        .join("config/crd/bases")
        .join(crd);
    let theirs = without_descriptions(&lift_to_v1(load(&reference.join(upstream))), false);
    let ours = without_descriptions(&lift_to_v1(load(&generated)), false);
    let mut found = Differences::new();
    differences(Some(&theirs), Some(&ours), "", &mut found);

    let mut listed = BTreeMap::new();
    for d in deliberate {
        assert!(!d.why.is_empty(), "{}: say why", d.path);
        let path = d.path.clone();
        assert!(listed.insert(path, d).is_none(), "listed twice");
    }
    let mut report = Vec::new();
    for (path, (a, b)) in &found {
        match listed.get(path) {
            Some(d) if (&d.upstream, &d.generated) == (a, b) => {}
            Some(d) => {
                // Where a large listed value went wrong, only the parts that did.
                let mut inner = Differences::new();
                differences(d.upstream.as_ref(), a.as_ref(), "upstream", &mut inner);
                differences(d.generated.as_ref(), b.as_ref(), "generated", &mut inner);
                report.push(format!("changed:    {path}, listed -> found:"));
                for (side, (listed, now)) in inner {
                    report.push(format!(
                        "              {side}: {} -> {}",
                        show(&listed),
                        show(&now)
                    ));
                }
            }
            None => report.push(format!(
                "unexpected: {path}: upstream {}, generated {}",
                show(a),
                show(b)
            )),
        }
    }
    for (path, d) in &listed {
        if !found.contains_key(path) {
            report.push(format!("gone:       {path} (listed: {})", d.why));
        }
    }
    assert!(
        report.is_empty(),
        "examples/{example}/config/crd/bases/{crd} against {upstream}, descriptions aside:\n{}\n\
         Update the list in tests/examples_upstream.rs and the README's differences from upstream.",
        report.join("\n")
    );
}

/// The `metav1.Condition` list opgen writes for `Vec<Condition>` with `listType=map` on `type`.
fn conditions() -> Value {
    json!({
        "items": {
            "properties": {
                "lastTransitionTime": {"format": "date-time", "type": "string"},
                "message": {"maxLength": 32768, "type": "string"},
                "observedGeneration": {"format": "int64", "minimum": 0, "type": "integer"},
                "reason": {
                    "maxLength": 1024,
                    "minLength": 1,
                    "pattern": "^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$",
                    "type": "string"
                },
                "status": {"enum": ["True", "False", "Unknown"], "type": "string"},
                "type": {
                    "maxLength": 316,
                    "pattern": "^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$",
                    "type": "string"
                }
            },
            "required": ["lastTransitionTime", "message", "reason", "status", "type"],
            "type": "object"
        },
        "type": "array",
        "x-kubernetes-list-map-keys": ["type"],
        "x-kubernetes-list-type": "map"
    })
}

// --- cnat-operator: three upstream variants, all apiextensions v1beta1 ---

const CNAT_CRD: &str = "cnat.programming-kubernetes.info_ats.yaml";

fn cnat_annotations() -> Deliberate {
    only_generated(
        "metadata.annotations",
        json!({"opgen.dev/version": OPGEN}),
        "opgen's generator annotation (upstream has no annotations)",
    )
}

fn cnat_columns() -> Deliberate {
    only_generated(
        "spec.versions[0].additionalPrinterColumns",
        json!([
            {"jsonPath": ".spec.schedule", "name": "Schedule", "type": "string"},
            {"jsonPath": ".spec.command", "name": "Command", "priority": 1, "type": "string"},
            {"jsonPath": ".status.phase", "name": "Phase", "type": "string"},
            {"jsonPath": ".metadata.creationTimestamp", "name": "Age", "type": "date"}
        ]),
        "print columns (C1); upstream has none, they change no validation",
    )
}

fn cnat_conditions() -> Deliberate {
    only_generated(
        "$ROOT.properties.status.properties.conditions",
        conditions(),
        "ScheduleValid and Succeeded conditions (C4, C6)",
    )
}

fn cnat_root_type() -> Deliberate {
    only_generated(
        "$ROOT.type",
        json!("object"),
        "apiextensions v1 requires a structural schema (C1)",
    )
}

#[test]
fn cnat_operator_against_kubebuilder() {
    let mut deliberate = vec![
        cnat_annotations(),
        only_upstream(
            "metadata.labels",
            json!({"controller-tools.k8s.io": "1.0"}),
            "controller-gen 0.1's generator label",
        ),
        only_upstream(
            "metadata.creationTimestamp",
            Value::Null,
            "an artifact of controller-gen 0.1, server-managed",
        ),
        only_upstream(
            "status",
            json!({"acceptedNames": {"kind": "", "plural": ""}, "conditions": [], "storedVersions": []}),
            "an empty status stanza of controller-gen 0.1, server-managed",
        ),
        cnat_columns(),
        cnat_conditions(),
        cnat_root_type(),
        required_spec(),
    ];
    deliberate.extend(defaulted_names("AtList", "at"));
    compare(
        "cnat-operator",
        CNAT_CRD,
        "cnat/kubebuilder/crd/cnat_v1alpha1_at.yaml",
        deliberate,
    );
}

#[test]
fn cnat_operator_against_operator_sdk() {
    compare(
        "cnat-operator",
        CNAT_CRD,
        "cnat/operator-sdk/crd/cnat_v1alpha1_at_crd.yaml",
        vec![
            cnat_annotations(),
            cnat_columns(),
            cnat_conditions(),
            cnat_root_type(),
            required_spec(),
        ],
    );
}

#[test]
fn cnat_operator_against_client_go() {
    let mut deliberate = vec![
        cnat_annotations(),
        cnat_columns(),
        only_generated(
            "spec.versions[0].schema",
            json!({"openAPIV3Schema": {
                "properties": {
                    "apiVersion": {"type": "string"},
                    "kind": {"type": "string"},
                    "metadata": {"type": "object"},
                    "spec": {
                        "properties": {"command": {"type": "string"}, "schedule": {"type": "string"}},
                        "type": "object"
                    },
                    "status": {
                        "properties": {"conditions": conditions(), "phase": {"type": "string"}},
                        "type": "object"
                    }
                },
                "required": ["spec"],
                "type": "object"
            }}),
            "upstream's client-go CRD has no schema; this is the kubebuilder variant's plus the rows above",
        ),
    ];
    deliberate.extend(defaulted_names("AtList", "at"));
    compare(
        "cnat-operator",
        CNAT_CRD,
        "cnat/client-go/crd/cnat-crd.yaml",
        deliberate,
    );
}

// --- memcached-operator: operator-sdk's tutorial and kubebuilder's deploy-image testdata ---

const MEMCACHED_CRD: &str = "cache.example.com_memcacheds.yaml";
const MEMCACHED_SPEC: &str = "$ROOT.properties.spec.properties";

fn memcached_port_bounds() -> [Deliberate; 3] {
    let port = format!("{MEMCACHED_SPEC}.containerPort");
    [
        only_generated(
            &format!("{port}.default"),
            json!(11211),
            "memcached's port when omitted (M6)",
        ),
        only_generated(&format!("{port}.minimum"), json!(1), "a TCP port (M6)"),
        only_generated(&format!("{port}.maximum"), json!(65535), "a TCP port (M6)"),
    ]
}

#[test]
fn memcached_operator_against_operator_sdk() {
    let conditions = "$ROOT.properties.status.properties.conditions";
    let mut deliberate = vec![
        controller_gen_annotation("v0.18.0"),
        opgen_annotation(),
        only_generated(
            &format!("{MEMCACHED_SPEC}.size.default"),
            json!(3),
            "an omitted size gave 0 replicas without the webhook (M6)",
        ),
        only_generated(
            &format!("{conditions}.x-kubernetes-list-type"),
            json!("map"),
            "server-side apply merges conditions by type",
        ),
        only_generated(
            &format!("{conditions}.x-kubernetes-list-map-keys"),
            json!(["type"]),
            "server-side apply merges conditions by type",
        ),
        required_spec(),
    ];
    deliberate.extend(memcached_port_bounds());
    compare(
        "memcached-operator",
        MEMCACHED_CRD,
        "memcached-operator/operator-sdk/crd/cache.example.com_memcacheds.yaml",
        deliberate,
    );
}

#[test]
fn memcached_operator_against_kubebuilder_deploy_image() {
    let group =
        "operator-sdk's group, which the port follows (kubebuilder's testdata uses its own domain)";
    let mut deliberate = vec![
        controller_gen_annotation("v0.21.0"),
        opgen_annotation(),
        changed(
            "metadata.name",
            json!("memcacheds.example.com.testproject.org"),
            json!("memcacheds.cache.example.com"),
            group,
        ),
        changed(
            "spec.group",
            json!("example.com.testproject.org"),
            json!("cache.example.com"),
            group,
        ),
        changed(
            &format!("{MEMCACHED_SPEC}.size.default"),
            json!(1),
            json!(3),
            "operator-sdk's tutorial: 3 pods unless asked otherwise (M6)",
        ),
        changed(
            &format!("{MEMCACHED_SPEC}.size.minimum"),
            json!(0),
            json!(1),
            "operator-sdk's bounds, 1 to 3",
        ),
        only_generated(
            &format!("{MEMCACHED_SPEC}.size.maximum"),
            json!(3),
            "operator-sdk's bounds, 1 to 3",
        ),
        only_upstream(
            "$ROOT.properties.spec.required",
            json!(["containerPort"]),
            "containerPort is optional with a default instead (M6)",
        ),
    ];
    deliberate.extend(memcached_port_bounds());
    compare(
        "memcached-operator",
        MEMCACHED_CRD,
        "memcached-operator/kubebuilder-deploy-image/crd/example.com.testproject.org_memcacheds.yaml",
        deliberate,
    );
}

// --- sample-controller: upstream's two hand-written CRDs ---

fn sample_controller_deliberate() -> Vec<Deliberate> {
    let standard = "the standard root property every generated CRD has";
    let int32 = "int32 in Go too; the hand-written CRD leaves the format out";
    let mut deliberate = vec![
        opgen_annotation(),
        only_generated(
            "$ROOT.properties.apiVersion",
            json!({"type": "string"}),
            standard,
        ),
        only_generated("$ROOT.properties.kind", json!({"type": "string"}), standard),
        only_generated(
            "$ROOT.properties.metadata",
            json!({"type": "object"}),
            standard,
        ),
        only_generated(
            "$ROOT.properties.spec.properties.replicas.format",
            json!("int32"),
            int32,
        ),
        only_generated(
            "$ROOT.properties.status.properties.availableReplicas.format",
            json!("int32"),
            int32,
        ),
        required_spec(),
    ];
    deliberate.extend(defaulted_names("FooList", "foo"));
    deliberate
}

const FOO_CRD: &str = "samplecontroller.k8s.io_foos.yaml";

#[test]
fn sample_controller_against_crd_status_subresource() {
    compare(
        "sample-controller",
        FOO_CRD,
        "sample-controller/crd/crd-status-subresource.yaml",
        sample_controller_deliberate(),
    );
}

#[test]
fn sample_controller_against_crd() {
    let mut deliberate = sample_controller_deliberate();
    deliberate.push(only_generated(
        "spec.versions[0].subresources",
        json!({"status": {}}),
        "without it every sync fails at UpdateStatus (F4); upstream's README says to use crd-status-subresource.yaml",
    ));
    compare(
        "sample-controller",
        FOO_CRD,
        "sample-controller/crd/crd.yaml",
        deliberate,
    );
}

// --- secret-operator and tdset-operator: kubebuilder v3 projects, controller-gen v0.10 ---

fn controller_gen_v0_10() -> Vec<Deliberate> {
    vec![
        controller_gen_annotation("v0.10.0"),
        opgen_annotation(),
        only_upstream(
            "metadata.creationTimestamp",
            Value::Null,
            "an artifact of controller-gen v0.10",
        ),
        required_spec(),
    ]
}

#[test]
fn secret_operator_against_upstream() {
    compare(
        "secret-operator",
        "multi.ddnw.ml_multisecrets.yaml",
        "secret-operator/crd/multi.ddnw.ml_multisecrets.yaml",
        controller_gen_v0_10(),
    );
}

#[test]
fn tdset_operator_against_upstream() {
    compare(
        "tdset-operator",
        "schedule.rs_tdsets.yaml",
        "tdset-operator/crd/schedule.rs_tdsets.yaml",
        controller_gen_v0_10(),
    );
}

// --- the comparison itself ---

#[test]
fn differences_name_paths_and_both_values() {
    let upstream = json!({
        "metadata": {"annotations": {"a.io/v": "1"}},
        "spec": {"list": [1, 2], "short": [1], "same": {"x": 1}, "gone": true}
    });
    let generated = json!({
        "metadata": {"annotations": {"a.io/v": "2"}},
        "spec": {"list": [1, 3], "short": [1, 2], "same": {"x": 1}, "new": null}
    });
    let mut found = Differences::new();
    differences(Some(&upstream), Some(&generated), "", &mut found);
    let expected: Differences = [
        (
            r#"metadata.annotations["a.io/v"]"#,
            Some(json!("1")),
            Some(json!("2")),
        ),
        ("spec.gone", Some(json!(true)), None),
        ("spec.list[1]", Some(json!(2)), Some(json!(3))),
        ("spec.new", None, Some(Value::Null)),
        ("spec.short", Some(json!([1])), Some(json!([1, 2]))),
    ]
    .into_iter()
    .map(|(path, a, b)| (path.to_string(), (a, b)))
    .collect();
    assert_eq!(found, expected);
}

#[test]
fn descriptions_go_but_a_property_named_description_stays() {
    let schema = json!({
        "description": "the kind",
        "properties": {
            "description": {"description": "a field", "type": "string"},
            "properties": {"description": "another", "properties": {"description": {"type": "integer"}}}
        },
        "items": [{"description": "x", "type": "object"}]
    });
    assert_eq!(
        without_descriptions(&schema, false),
        json!({
            "properties": {
                "description": {"type": "string"},
                "properties": {"properties": {"description": {"type": "integer"}}}
            },
            "items": [{"type": "object"}]
        })
    );
}

#[test]
fn v1beta1_is_lifted_to_the_v1_layout() {
    let crd = json!({
        "apiVersion": "apiextensions.k8s.io/v1beta1",
        "spec": {
            "group": "g",
            "version": "v1",
            "validation": {"openAPIV3Schema": {"type": "object"}},
            "subresources": {"status": {}}
        }
    });
    assert_eq!(
        lift_to_v1(crd),
        json!({
            "apiVersion": "apiextensions.k8s.io/v1",
            "spec": {
                "group": "g",
                "versions": [{
                    "name": "v1",
                    "served": true,
                    "storage": true,
                    "schema": {"openAPIV3Schema": {"type": "object"}},
                    "subresources": {"status": {}}
                }]
            }
        })
    );
}
