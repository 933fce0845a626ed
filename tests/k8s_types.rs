//! Schemas of k8s-openapi types (`K8sTypes`, data/k8s-schemas.jsonl) against controller-gen's
//! renderings of the same Go types, plus the special shapes, recursion, and version selection.
//!
//! Golden files are controller-gen outputs kept under `tests/fixtures/` with their sources. The comparisons are exact, descriptions included (the data
//! is controller-gen's own output, see tools/k8s-schemas/README.md).

use opgen::generators::crd::k8s::{DEFAULT_K8S_MINOR, K8sTypes, QUANTITY_PATTERN};
use opgen::generators::crd::structural;
use serde_json::{Map, Value, json};
use std::path::PathBuf;

const META: &str = "apimachinery::pkg::apis::meta::v1::";

/// A YAML file under `tests/fixtures/`.
fn golden(relative: &str) -> Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(relative);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_yaml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The openAPIV3Schema of the named version of a golden CRD.
fn crd_version_schema(crd: &Value, version: &str) -> Value {
    let versions = crd["spec"]["versions"].as_array().expect("spec.versions");
    let v = versions
        .iter()
        .find(|v| v["name"] == version)
        .unwrap_or_else(|| panic!("no version {version}"));
    v["schema"]["openAPIV3Schema"].clone()
}

/// JSON-pointer-like paths where `a` and `b` differ (for readable failures).
fn differences(a: &Value, b: &Value, path: &str, out: &mut Vec<String>) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for k in x.keys().chain(y.keys().filter(|k| !x.contains_key(*k))) {
                match (x.get(k), y.get(k)) {
                    (Some(p), Some(q)) => differences(p, q, &format!("{path}/{k}"), out),
                    (Some(_), None) => out.push(format!("{path}/{k}: only in ours")),
                    (None, _) => out.push(format!("{path}/{k}: only in controller-gen")),
                }
            }
        }
        _ if a != b => out.push(format!(
            "{path}: ours {} vs controller-gen {}",
            short(a),
            short(b)
        )),
        _ => {}
    }
}

fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 120 {
        format!("{}…", s.chars().take(120).collect::<String>())
    } else {
        s
    }
}

fn assert_same(ours: &Value, controller_gen: &Value, what: &str) {
    let mut diffs = Vec::new();
    differences(ours, controller_gen, "", &mut diffs);
    assert!(
        diffs.is_empty(),
        "{what}: {} differences:\n  {}",
        diffs.len(),
        diffs.join("\n  ")
    );
}

fn schema(k8s: &K8sTypes, path: &str) -> Value {
    Value::Object(
        k8s.schema(path)
            .unwrap_or_else(|| panic!("1.{}: no schema for {path}", k8s.minor())),
    )
}

/// metav1.Condition equals the `conditions` items of a controller-gen CRD (controller-gen
/// v0.21.0, kubebuilder's deploy-image memcached sample), in every supported version.
#[test]
fn condition_matches_controller_gen() {
    let crd = golden(
        "upstream-operators/memcached-operator/kubebuilder-deploy-image/crd/example.com.testproject.org_memcacheds.yaml",
    );
    let expected = crd_version_schema(&crd, "v1alpha1")["properties"]["status"]["properties"]["conditions"]["items"].clone();
    assert_eq!(expected["type"], "object", "golden file layout changed");
    for &minor in K8sTypes::supported_minors() {
        let ours = schema(&K8sTypes::for_version(minor), &format!("{META}Condition"));
        assert_same(&ours, &expected, &format!("Condition, 1.{minor}"));
    }
}

/// batch/v1 JobTemplateSpec (with the whole PodTemplateSpec below it) for Kubernetes 1.36
/// equals the `jobTemplate` property of controller-gen's CronJob golden file (k8s.io/api
/// v0.36.1; the data is from v0.36.6, whose docs are the same), but for the root description.
#[test]
fn job_template_spec_1_36_matches_controller_gen_cronjob() {
    let crd = golden("goldens/controller-gen/crd/testdata.kubebuilder.io_cronjobs.yaml");
    let mut expected =
        crd_version_schema(&crd, "v1")["properties"]["spec"]["properties"]["jobTemplate"].clone();
    let mut ours = schema(
        &K8sTypes::for_version(36),
        "api::batch::v1::JobTemplateSpec",
    );

    // The description at the root. controller-gen shows the CronJob
    // field's doc ("Specifies the job that will be created …"); a type lookup returns the type's
    // doc, and the CRD generator puts the field's doc over it, as it does for every field.
    assert!(
        expected["description"]
            .as_str()
            .unwrap()
            .starts_with("Specifies the job")
    );
    assert!(
        ours["description"]
            .as_str()
            .unwrap()
            .starts_with("JobTemplateSpec describes")
    );
    expected.as_object_mut().unwrap().remove("description");
    ours.as_object_mut().unwrap().remove("description");

    // The items of securityContext.capabilities.add/drop carry the doc of core/v1's named
    // string type `Capability`, as controller-gen writes them (6 nodes).
    let pod_spec = "/properties/spec/properties/template/properties/spec/properties";
    for containers in ["containers", "initContainers", "ephemeralContainers"] {
        for list in ["add", "drop"] {
            let at = format!(
                "{pod_spec}/{containers}/items/properties/securityContext/properties/capabilities/properties/{list}/items"
            );
            assert_eq!(
                ours.pointer(&at),
                Some(
                    &json!({"description": "Capability represent POSIX capabilities type", "type": "string"})
                ),
                "{at}"
            );
        }
    }

    assert_same(&ours, &expected, "JobTemplateSpec, 1.36");
}

/// The types controller-gen hard-codes (its spec §4.9) have exactly its shapes, without a
/// description of their own, in every version.
#[test]
fn special_types_have_controller_gen_shapes() {
    let int_or_string = json!([{"type": "integer"}, {"type": "string"}]);
    let cases = [
        (
            "apimachinery::pkg::api::resource::Quantity",
            json!({"anyOf": int_or_string, "pattern": QUANTITY_PATTERN, "x-kubernetes-int-or-string": true}),
        ),
        (
            "apimachinery::pkg::util::intstr::IntOrString",
            json!({"anyOf": int_or_string, "x-kubernetes-int-or-string": true}),
        ),
        (
            &format!("{META}Time"),
            json!({"type": "string", "format": "date-time"}),
        ),
        (
            &format!("{META}MicroTime"),
            json!({"type": "string", "format": "date-time"}),
        ),
        (
            "apimachinery::pkg::runtime::RawExtension",
            json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true}),
        ),
        (&format!("{META}ObjectMeta"), json!({"type": "object"})),
        (
            "apiextensions_apiserver::pkg::apis::apiextensions::v1::JSON",
            json!({"x-kubernetes-preserve-unknown-fields": true}),
        ),
    ];
    for &minor in K8sTypes::supported_minors() {
        let k8s = K8sTypes::for_version(minor);
        for (path, expected) in &cases {
            assert_eq!(&schema(&k8s, path), expected, "1.{minor} {path}");
        }
        // under a field, the field doc is added and nothing else changes
        let template = schema(&k8s, "api::core::v1::PodTemplateSpec");
        let metadata = &template["properties"]["metadata"];
        assert_eq!(metadata["type"], "object");
        assert!(
            metadata["description"]
                .as_str()
                .unwrap()
                .starts_with("Standard object's metadata.")
        );
        assert_eq!(metadata.as_object().unwrap().len(), 2, "{metadata}");
        let limits = schema(&k8s, "api::core::v1::ResourceRequirements")["properties"]["limits"]["additionalProperties"].clone();
        assert_eq!(
            limits, cases[0].1,
            "1.{minor} ResourceRequirements.limits values"
        );
    }
}

#[test]
fn unknown_paths_return_none() {
    let k8s = K8sTypes::new();
    for path in [
        "api::core::v1::NoSuchType",
        "api::core::v2::Pod",
        "",
        "k8s_openapi::api::core::v1::Pod", // paths are below `k8s_openapi::`
        "io.k8s.api.core.v1.Pod",          // definition names are not type paths
    ] {
        assert_eq!(k8s.schema(path), None, "{path:?}");
        assert!(K8sTypes::versions_of(path).is_empty(), "{path:?}");
    }
}

/// JSONSchemaProps contains itself: the recursive occurrences become a structural "any object"
/// (`type: object` + preserve-unknown-fields, plus the field's description if the reference
/// had one), the `JSONSchemaPropsOr*` unions (which controller-gen refuses: no JSON tags) become
/// preserve-unknown-fields (tools/k8s-schemas' one override), and no
/// `$ref` or `oneOf` survives.
#[test]
fn recursive_types_are_cut() {
    let cut = json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true});
    let k8s = K8sTypes::new();
    let props = schema(
        &k8s,
        "apiextensions_apiserver::pkg::apis::apiextensions::v1::JSONSchemaProps",
    );
    let p = &props["properties"];
    assert_eq!(p["not"], cut);
    assert_eq!(p["properties"]["additionalProperties"], cut);
    assert_eq!(p["definitions"]["additionalProperties"], cut);
    assert_eq!(p["allOf"]["items"], cut);
    assert_eq!(p["items"]["x-kubernetes-preserve-unknown-fields"], true);
    assert_eq!(p["items"].get("oneOf"), None);
    let mut keys = Vec::new();
    schema_keywords(&props, &mut keys);
    assert!(
        !keys.contains(&"$ref".to_owned()) && !keys.contains(&"oneOf".to_owned()),
        "{keys:?}"
    );

    // 1.37's CompositePodGroupTemplate lists itself; the cut keeps the field's description
    let k8s = K8sTypes::for_version(37);
    let group = schema(&k8s, "api::scheduling::v1beta1::CompositePodGroupTemplate");
    let children = &group["properties"]["compositePodGroupTemplates"];
    assert_eq!(children["type"], "array");
    assert_eq!(children["items"], cut);
    // inside another type the cycle is cut one level further down: the first occurrence is
    // expanded, the second is cut
    let workload = &schema(&k8s, "api::scheduling::v1beta1::WorkloadSpec")["properties"];
    let nested = find_key(workload, "compositePodGroupTemplates")
        .expect("WorkloadSpec reaches CompositePodGroupTemplate");
    assert_eq!(
        nested["items"]["properties"]["compositePodGroupTemplates"]["items"],
        cut
    );
}

/// Every keyword used at a schema position (not property names: JSONSchemaProps has properties
/// called `$ref` and `oneOf`).
fn schema_keywords(v: &Value, out: &mut Vec<String>) {
    let Some(map) = v.as_object() else { return };
    for (k, child) in map {
        if !out.contains(k) {
            out.push(k.clone());
        }
        match k.as_str() {
            "properties" => child
                .as_object()
                .unwrap()
                .values()
                .for_each(|s| schema_keywords(s, out)),
            "items" | "additionalProperties" | "not" => schema_keywords(child, out),
            "allOf" | "anyOf" | "oneOf" => child
                .as_array()
                .unwrap()
                .iter()
                .for_each(|s| schema_keywords(s, out)),
            _ => {}
        }
    }
}

fn find_key<'a>(v: &'a Value, key: &str) -> Option<&'a Value> {
    let map = v.as_object()?;
    map.get(key)
        .or_else(|| map.values().find_map(|child| find_key(child, key)))
}

/// The selected Kubernetes version decides the schema: PodSpec.hostnameOverride and the
/// ContainerRestartRule type exist from 1.34 on.
#[test]
fn versions_select_different_schemas() {
    assert_eq!(K8sTypes::new().minor(), DEFAULT_K8S_MINOR);
    let pod_spec = |minor| schema(&K8sTypes::for_version(minor), "api::core::v1::PodSpec");
    let old = pod_spec(33);
    let new = pod_spec(34);
    assert!(old["properties"].get("hostnameOverride").is_none());
    assert_eq!(new["properties"]["hostnameOverride"]["type"], "string");
    assert_ne!(old, new);
    assert_eq!(
        pod_spec(DEFAULT_K8S_MINOR),
        schema(&K8sTypes::new(), "api::core::v1::PodSpec")
    );

    let rule = "api::core::v1::ContainerRestartRule";
    assert_eq!(K8sTypes::versions_of(rule), vec![34, 35, 36, 37]);
    assert_eq!(K8sTypes::for_version(33).schema(rule), None);
    assert_eq!(schema(&K8sTypes::for_version(34), rule)["type"], "object");

    // a version outside the data falls back to the nearest supported one
    assert_eq!(K8sTypes::for_version(40).minor(), 37);
    assert_eq!(
        K8sTypes::for_version(40).schema("api::core::v1::PodSpec"),
        Some(pod_spec(37).as_object().unwrap().clone())
    );
    assert_eq!(K8sTypes::for_version(1).minor(), 33);
}

/// controller-gen's schemas keep every list-map key of the common pod types required or
/// defaulted (the apiserver rejects CRDs otherwise) and `required` within `properties`, in every
/// version.
#[test]
fn pod_template_schemas_are_valid_crd_schemas() {
    fn check(v: &Value, path: &str, errors: &mut Vec<String>) {
        let Some(map) = v.as_object() else { return };
        if let Some(required) = map.get("required").and_then(Value::as_array) {
            for r in required {
                if map
                    .get("properties")
                    .and_then(|p| p.get(r.as_str().unwrap()))
                    .is_none()
                {
                    errors.push(format!("{path}: required {r} has no property"));
                }
            }
        }
        if map
            .get("x-kubernetes-list-type")
            .is_some_and(|t| t == "map")
        {
            let item: &Map<String, Value> = map["items"].as_object().unwrap();
            for key in map["x-kubernetes-list-map-keys"].as_array().unwrap() {
                let key = key.as_str().unwrap();
                let required = item
                    .get("required")
                    .and_then(Value::as_array)
                    .is_some_and(|r| r.iter().any(|x| x == key));
                let defaulted = item["properties"][key].get("default").is_some();
                if !required && !defaulted {
                    errors.push(format!(
                        "{path}: list-map key {key} neither required nor defaulted"
                    ));
                }
            }
        }
        let structural_exempt = map.contains_key("x-kubernetes-int-or-string")
            || map.contains_key("x-kubernetes-preserve-unknown-fields");
        if !structural_exempt && !map.contains_key("type") {
            errors.push(format!("{path}: no type"));
        }
        for (k, child) in map {
            match k.as_str() {
                "properties" => child
                    .as_object()
                    .unwrap()
                    .iter()
                    .for_each(|(p, s)| check(s, &format!("{path}.{p}"), errors)),
                "items" | "additionalProperties" => check(child, &format!("{path}[{k}]"), errors),
                _ => {}
            }
        }
    }
    for &minor in K8sTypes::supported_minors() {
        let k8s = K8sTypes::for_version(minor);
        let mut errors = Vec::new();
        for path in [
            "api::core::v1::PodTemplateSpec",
            "api::batch::v1::JobTemplateSpec",
            &format!("{META}Condition"),
        ] {
            check(&schema(&k8s, path), path, &mut errors);
        }
        assert!(errors.is_empty(), "1.{minor}:\n  {}", errors.join("\n  "));
    }
}

/// Every type of every version, as the schema of a field, passes opgen's structural-schema
/// checks (the API server's rules; tests/envtest.rs installs a CRD made of the common ones), but
/// for the violations listed here, which are controller-gen's: k8s.io/api marks these lists
/// `+listType=map` with a key that is `+optional` (omitempty) and has no default, which a CRD may
/// not have, and 1.37's CompositePodGroupTemplate lists itself by `name`, cut by opgen as an
/// "any object". opgen refuses a CRD embedding them with these messages (controller-gen writes
/// one the API server rejects).
#[test]
fn every_type_is_a_structural_schema_but_for_controller_gens_known_violations() {
    let paths: Vec<String> = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tools/k8s-schemas/k8s-openapi-types.jsonl"),
    )
    .unwrap()
    .lines()
    .map(|l| {
        serde_json::from_str::<Value>(l).unwrap()["type"]
            .as_str()
            .unwrap()
            .to_owned()
    })
    .collect();
    let mut violations = std::collections::BTreeSet::new();
    let mut checked = 0;
    for &minor in K8sTypes::supported_minors() {
        let k8s = K8sTypes::for_version(minor);
        for path in &paths {
            let Some(s) = k8s.schema(path) else { continue };
            let root = json!({"type": "object", "properties": {"field": s}});
            for v in structural::check(&root, "") {
                // the property at fault, without the path that leads to it
                let at = v.path.rsplit('.').next().unwrap().to_owned();
                violations.insert(format!("{at}: {}", v.message));
            }
            checked += 1;
        }
    }
    let expected: usize = paths.iter().map(|p| K8sTypes::versions_of(p).len()).sum();
    assert_eq!(checked, expected);
    assert_eq!(
        violations.into_iter().collect::<Vec<_>>(),
        [
            "compositePodGroupTemplates: list map key `name` is not a property of the items",
            "conditions: list map key `type` must be required or have a default",
            "devices: list map key `shareID` must be required or have a default",
            "secrets: list map key `name` must be required or have a default",
            "storageVersions: list map key `apiServerID` must be required or have a default",
        ]
    );
}
