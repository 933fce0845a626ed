//! Schemas of k8s-openapi types embedded in custom resources.
//!
//! The data is `data/k8s-schemas.jsonl`: controller-gen's own schemas of the Go types behind
//! every k8s-openapi type, computed by controller-tools (as a library) from the pinned
//! k8s.io/api, apimachinery, apiextensions-apiserver and kube-aggregator sources of each
//! supported Kubernetes minor by `tools/k8s-schemas` (see its README). Its special types
//! (Quantity, IntOrString, Time, RawExtension, JSON, ObjectMeta → `{type: object}`) are
//! controller-gen's too. Nothing here is hand-written.
//!
//! The file is JSON Lines and embedded with `include_str!`:
//!
//! ```text
//! {"k8sOpenapiVersion":"0.29.0","versions":["1.33",...,"1.37"],...}        header
//! {"name":<definition>,"versions":[...],"schema":{...}}                     one per distinct body
//! {"type":<rust path below k8s_openapi>,"name":<definition>,"versions":[...]}
//! ```
//!
//! A run of opgen must not parse 2+ MB of JSON to render one Condition, nor scan it: build.rs
//! indexes the file (build/k8s_index.rs: each definition's versions and the byte range of its
//! schema, each type path's definition per version, sorted for binary search), and serde parses
//! only the definitions a schema actually needs. `K8sTypes::new()` itself reads only the header.
//!
//! References stay `{"$ref": "#/definitions/<name>"}` in the data and are inlined here, see
//! [`K8sTypes::schema`].

use super::props::SchemaProps;
use serde_json::{Map, Value, json};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

/// The embedded data. Regenerate with `tools/k8s-schemas/regen.sh`.
static DATA: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/data/k8s-schemas.jsonl"
));

const REF_PREFIX: &str = "#/definitions/";

const OBJECT_META: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";

/// The Kubernetes minor version `K8sTypes::new()` renders: the one `opgen init` scaffolds.
pub const DEFAULT_K8S_MINOR: u32 = 33;

/// controller-gen's quantity pattern (resource.Quantity). The data carries it; kept
/// as a constant for callers and checked against the data by a unit test.
pub const QUANTITY_PATTERN: &str = r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$";

/// Schemas of k8s-openapi types for one Kubernetes version.
///
/// Results are cached per type for the life of the value, since the same Condition,
/// ObjectReference or PodSpec is used many times, and so are the parsed definitions.
pub struct K8sTypes {
    minor: u32,
    /// controller-gen's `crd:generateEmbeddedObjectMeta=true`: an embedded ObjectMeta (a pod
    /// template's `metadata`) gets name, namespace, labels, annotations and finalizers instead
    /// of `{type: object}`.
    embedded_object_meta: bool,
    /// Bit of `minor` in the `versions` masks of the index.
    bit: u32,
    cache: Mutex<Cache>,
}

#[derive(Default)]
struct Cache {
    /// Definitions as stored (with `$ref`s), parsed on first use.
    raw: HashMap<&'static str, Arc<Value>>,
    /// Fully inlined results of [`K8sTypes::schema`], by definition name (one per type path).
    ///
    /// Only whole results are kept: inlining walks the parsed definitions and builds each node
    /// of the result exactly once, which is cheaper than also keeping (and deep-copying) every
    /// inlined sub-definition, and a recursion cut makes a sub-definition's expansion depend on
    /// where it occurs anyway.
    results: HashMap<&'static str, SchemaProps>,
}

impl Default for K8sTypes {
    fn default() -> Self {
        K8sTypes::new()
    }
}

impl K8sTypes {
    /// Schemas for Kubernetes 1.[`DEFAULT_K8S_MINOR`].
    pub fn new() -> Self {
        K8sTypes::for_version(DEFAULT_K8S_MINOR)
    }

    /// Schemas for Kubernetes 1.`minor`. A version the data does not cover falls back to the
    /// nearest supported one (the lower on a tie); compare [`K8sTypes::minor`] with the request
    /// to warn about it.
    pub fn for_version(minor: u32) -> Self {
        let minors = &header().minors;
        let (bit, &chosen) = minors
            .iter()
            .enumerate()
            .min_by_key(|&(_, &m)| (m.abs_diff(minor), m))
            .expect("data/k8s-schemas.jsonl lists no Kubernetes version");
        K8sTypes {
            minor: chosen,
            embedded_object_meta: false,
            bit: 1 << bit,
            cache: Mutex::new(Cache::default()),
        }
    }

    /// With controller-gen's `generateEmbeddedObjectMeta`: embedded ObjectMeta keeps the
    /// fields controller-gen allows (`known_types.go`, `ObjectMetaPackages`).
    pub fn with_embedded_object_meta(mut self, on: bool) -> Self {
        self.embedded_object_meta = on;
        self
    }

    /// The Kubernetes minor version these schemas are for (after any fallback).
    pub fn minor(&self) -> u32 {
        self.minor
    }

    /// The Kubernetes minor versions the embedded data covers, ascending.
    pub fn supported_minors() -> &'static [u32] {
        &header().minors
    }

    /// The k8s-openapi release the data was generated from.
    pub fn k8s_openapi_version() -> &'static str {
        &header().k8s_openapi_version
    }

    /// The Kubernetes minor versions in which `k8s_openapi::<path>` exists (empty if none), for
    /// messages such as "exists only in 1.34 and later".
    pub fn versions_of(path: &str) -> Vec<u32> {
        let mask =
            type_entries(path).map_or(0, |entries| entries.iter().fold(0, |m, (mask, _)| m | mask));
        header()
            .minors
            .iter()
            .enumerate()
            .filter(|(i, _)| mask & (1 << i) != 0)
            .map(|(_, &m)| m)
            .collect()
    }

    /// The schema of `k8s_openapi::<path>` (e.g. `api::core::v1::PodSpec`) for this version,
    /// fully inlined, or `None` if the type does not exist in this version.
    ///
    /// Inlining follows controller-gen's flattener: each `{"$ref": …}` is replaced by the
    /// referenced definition, and sibling keys next to the `$ref` (the field's `description` and
    /// markers) replace the referenced type's own, so field docs win over type docs; a field's
    /// `x-kubernetes-validations` go before the type's. tools/k8s-schemas checks that this gives
    /// controller-gen's schema for every type.
    pub fn props(&self, path: &str) -> Option<SchemaProps> {
        let name = self.pick(type_entries(path)?)?;
        let mut cache = self.cache.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(hit) = cache.results.get(name) {
            return Some(hit.clone());
        }
        let inlined = self.inline_def(&mut cache, name, &mut Vec::new());
        let props = SchemaProps::from_value(inlined)
            .unwrap_or_else(|e| corrupt(0, &format!("definition {name}: {e}")));
        cache.results.insert(name, props.clone());
        Some(props)
    }

    /// [`K8sTypes::props`] as JSON, for readers of schemas (`rust_types`).
    pub fn schema(&self, path: &str) -> Option<Map<String, Value>> {
        self.props(path).map(|p| p.to_map())
    }

    /// The entry of a `versions`-tagged list that applies to this version.
    fn pick<T: Copy>(&self, entries: &[(u32, T)]) -> Option<T> {
        entries
            .iter()
            .find(|(mask, _)| mask & self.bit != 0)
            .map(|&(_, v)| v)
    }

    /// Definition `name` with its references inlined; `stack` holds the definitions being
    /// inlined around it.
    fn inline_def(
        &self,
        cache: &mut Cache,
        name: &'static str,
        stack: &mut Vec<&'static str>,
    ) -> Value {
        if self.embedded_object_meta && name == OBJECT_META {
            let string = json!({"type": "string"});
            let string_map = json!({"type": "object", "additionalProperties": {"type": "string"}});
            return json!({
                "type": "object",
                "properties": {
                    "annotations": string_map,
                    "finalizers": {"type": "array", "items": string},
                    "labels": string_map,
                    "name": string,
                    "namespace": string,
                },
            });
        }
        let raw = match cache.raw.get(name) {
            Some(raw) => Arc::clone(raw),
            None => {
                let text = definition(name)
                    .and_then(|(_, entries)| self.pick(entries))
                    .map(|(start, end)| &DATA[start as usize..end as usize])
                    .unwrap_or_else(|| {
                        corrupt(0, &format!("no definition {name} for 1.{}", self.minor))
                    });
                let raw: Arc<Value> = Arc::new(
                    serde_json::from_str(text)
                        .unwrap_or_else(|e| corrupt(0, &format!("definition {name}: {e}"))),
                );
                cache.raw.insert(name, Arc::clone(&raw));
                raw
            }
        };
        stack.push(name);
        let value = self.walk(cache, &raw, stack);
        stack.pop();
        value
    }

    /// Copies one schema node, inlining references at schema positions (never inside
    /// `properties` names, `enum` values or `default`s).
    fn walk(&self, cache: &mut Cache, node: &Value, stack: &mut Vec<&'static str>) -> Value {
        let Value::Object(obj) = node else {
            return node.clone();
        };
        if let Some(Value::String(reference)) = obj.get("$ref") {
            let target = reference
                .strip_prefix(REF_PREFIX)
                .and_then(definition)
                .map(|(t, _)| t)
                .unwrap_or_else(|| corrupt(0, &format!("dangling $ref {reference}")));
            let mut out = if stack.contains(&target) {
                // Recursion (e.g. JSONSchemaProps, or CompositePodGroupTemplate in 1.37): a CRD
                // schema cannot be infinite. controller-gen puts an empty schema here; we put a
                // structural "any object" instead, keeping the field's description (below).
                json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true})
            } else {
                self.inline_def(cache, target, stack)
            };
            if let Value::Object(map) = &mut out {
                for (k, v) in obj.iter().filter(|(k, _)| *k != "$ref") {
                    let v = match (k.as_str(), v, map.get(k)) {
                        // controller-gen's flattenAllOfInto: the field's rules, then the type's
                        (
                            "x-kubernetes-validations",
                            Value::Array(field),
                            Some(Value::Array(ty)),
                        ) => Value::Array(field.iter().chain(ty).cloned().collect()),
                        _ => v.clone(),
                    };
                    map.insert(k.clone(), v);
                }
            }
            return out;
        }
        let mut out = Map::with_capacity(obj.len());
        for (k, v) in obj {
            let v = match (k.as_str(), v) {
                ("properties", Value::Object(props)) => Value::Object(
                    props
                        .iter()
                        .map(|(p, s)| (p.clone(), self.walk(cache, s, stack)))
                        .collect(),
                ),
                ("items" | "additionalProperties" | "not", Value::Object(_)) => {
                    self.walk(cache, v, stack)
                }
                ("allOf" | "anyOf" | "oneOf", Value::Array(list)) => {
                    Value::Array(list.iter().map(|s| self.walk(cache, s, stack)).collect())
                }
                _ => v.clone(),
            };
            out.insert(k.clone(), v);
        }
        Value::Object(out)
    }
}

// ---------------------------------------------------------------- the embedded file

struct Header {
    k8s_openapi_version: String,
    /// Kubernetes minor versions in header order; index i is bit i of a `versions` mask.
    minors: Vec<u32>,
}

/// One schema of a definition: (versions mask, (start, end) of its text in DATA).
type Schema = (u32, (u32, u32));
/// The definition a type is in some versions: (versions mask, definition name).
type Definition = (u32, &'static str);

// `DEFS` and `TYPES`, written by build.rs (build/k8s_index.rs) from DATA.
include!(concat!(env!("OUT_DIR"), "/k8s_index.rs"));

/// Definition `name` as `DEFS` has it: its `&'static` name and its schemas (versions mask,
/// start and end of the schema's text in DATA).
fn definition(name: &str) -> Option<(&'static str, &'static [Schema])> {
    let i = DEFS.binary_search_by(|(n, _)| (*n).cmp(name)).ok()?;
    Some(DEFS[i])
}

/// The definitions `k8s_openapi::<path>` is: (versions mask, definition name).
fn type_entries(path: &str) -> Option<&'static [Definition]> {
    let i = TYPES.binary_search_by(|(p, _)| (*p).cmp(path)).ok()?;
    Some(TYPES[i].1)
}

fn header() -> &'static Header {
    static HEADER: OnceLock<Header> = OnceLock::new();
    HEADER.get_or_init(|| {
        let line = DATA.lines().next().unwrap_or_default();
        let v: Value = serde_json::from_str(line).unwrap_or_else(|e| corrupt(1, &e.to_string()));
        let names: Vec<String> = v["versions"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|s| s.as_str().map(str::to_owned))
            .collect();
        let minors = names
            .iter()
            .map(|n| {
                n.strip_prefix("1.")
                    .and_then(|m| m.parse().ok())
                    .unwrap_or_else(|| corrupt(1, n))
            })
            .collect();
        let k8s_openapi_version = v["k8sOpenapiVersion"]
            .as_str()
            .unwrap_or_else(|| corrupt(1, "k8sOpenapiVersion"))
            .into();
        if names.is_empty() || names.len() > 32 {
            corrupt(1, "versions");
        }
        Header {
            k8s_openapi_version,
            minors,
        }
    })
}

/// The embedded data is generated and tested, so a defect in it is a bug of opgen's build.
fn corrupt(line: usize, detail: &str) -> ! {
    let at = if line == 0 {
        String::new()
    } else {
        format!(", line {line}")
    };
    panic!(
        "embedded data/k8s-schemas.jsonl{at}: {detail}; regenerate it with tools/k8s-schemas/regen.sh"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const META: &str = "apimachinery::pkg::apis::meta::v1::";

    fn has_ref(v: &Value) -> bool {
        match v {
            Value::Object(m) => {
                m.get("$ref").is_some_and(Value::is_string) || m.values().any(has_ref)
            }
            Value::Array(a) => a.iter().any(has_ref),
            _ => false,
        }
    }

    #[test]
    fn header_and_index_cover_every_line() {
        assert_eq!(K8sTypes::k8s_openapi_version(), "0.29.0");
        assert_eq!(K8sTypes::supported_minors(), &[33, 34, 35, 36, 37]);
        let def_lines: usize = DEFS.iter().map(|(_, e)| e.len()).sum();
        let type_lines: usize = TYPES.iter().map(|(_, e)| e.len()).sum();
        assert_eq!(1 + def_lines + type_lines, DATA.lines().count());
        // sorted and without duplicates, as the binary searches need
        assert!(DEFS.windows(2).all(|w| w[0].0 < w[1].0));
        assert!(TYPES.windows(2).all(|w| w[0].0 < w[1].0));
        // every type's definition exists in every version the type exists in
        for (path, entries) in TYPES {
            for &(mask, name) in *entries {
                let (_, defs) = definition(name).unwrap();
                let covered = defs.iter().fold(0, |m, (dm, _)| m | dm);
                assert_eq!(mask & !covered, 0, "{path} -> {name}");
            }
        }
        // a definition's entries never overlap (one schema per version), and each range is
        // the whole schema of its line: a JSON object
        for (name, entries) in DEFS {
            let mut seen = 0;
            for &(mask, (start, end)) in *entries {
                assert_eq!(seen & mask, 0, "{name}");
                seen |= mask;
                let text = &DATA[start as usize..end as usize];
                assert!(text.starts_with('{') && text.ends_with('}'), "{name}");
                assert!(DATA[end as usize..].starts_with("}\n"), "{name}");
            }
        }
    }

    #[test]
    fn new_is_the_default_version_and_unknown_versions_fall_back_to_the_nearest() {
        assert_eq!(K8sTypes::new().minor(), DEFAULT_K8S_MINOR);
        assert_eq!(K8sTypes::for_version(36).minor(), 36);
        assert_eq!(K8sTypes::for_version(20).minor(), 33);
        assert_eq!(K8sTypes::for_version(99).minor(), 37);
    }

    #[test]
    fn quantity_pattern_constant_matches_the_data() {
        let q = K8sTypes::new()
            .schema("apimachinery::pkg::api::resource::Quantity")
            .unwrap();
        assert_eq!(q["pattern"], QUANTITY_PATTERN);
    }

    #[test]
    fn field_description_replaces_the_type_description() {
        let k8s = K8sTypes::new();
        let cond = k8s.schema(&format!("{META}Condition")).unwrap();
        let ltt = &cond["properties"]["lastTransitionTime"];
        assert!(
            ltt["description"]
                .as_str()
                .unwrap()
                .starts_with("lastTransitionTime is the last time")
        );
        // controller-gen replaces Time (and its doc) by {type: string, format: date-time}
        assert_eq!(
            k8s.schema(&format!("{META}Time"))
                .unwrap()
                .get("description"),
            None
        );
    }

    /// A field's CEL rules come before its type's, as controller-gen's flattener merges them
    /// (1.37 CompositePodGroupSpec.schedulingPolicy: `+k8s:immutable` on the field, a rule on
    /// the type).
    #[test]
    fn field_rules_come_before_type_rules() {
        let spec = K8sTypes::for_version(37)
            .schema("api::scheduling::v1alpha3::CompositePodGroupSpec")
            .unwrap();
        let rules = &spec["properties"]["schedulingPolicy"]["x-kubernetes-validations"];
        assert_eq!(
            rules,
            &json!([
                {"message": "field is immutable", "rule": "self == oldSelf"},
                {"message": "field basic is immutable once set", "rule": "!has(oldSelf.basic) || has(self.basic)"},
            ])
        );
    }

    #[test]
    fn cached_results_equal_fresh_ones_and_nested_uses_equal_direct_ones() {
        let k8s = K8sTypes::for_version(36);
        let pod = k8s.schema("api::core::v1::PodTemplateSpec").unwrap();
        assert_eq!(k8s.schema("api::core::v1::PodTemplateSpec").unwrap(), pod);
        let fresh = K8sTypes::for_version(36);
        let mut container = fresh.schema("api::core::v1::Container").unwrap();
        let mut nested = pod["properties"]["spec"]["properties"]["containers"]["items"]
            .as_object()
            .unwrap()
            .clone();
        container.remove("description");
        nested.remove("description");
        assert_eq!(nested, container);
        assert_eq!(fresh.schema("api::core::v1::PodTemplateSpec").unwrap(), pod);
    }

    /// Every type of every version inlines completely (no `$ref` left, no dangling reference),
    /// and its typed form says exactly what the inlined JSON says.
    #[test]
    fn every_type_of_every_version_inlines() {
        let paths: Vec<&str> = TYPES.iter().map(|(path, _)| *path).collect();
        for &minor in K8sTypes::supported_minors() {
            let k8s = K8sTypes::for_version(minor);
            for path in &paths {
                let exists = K8sTypes::versions_of(path).contains(&minor);
                let schema = k8s.schema(path);
                assert_eq!(schema.is_some(), exists, "1.{minor} {path}");
                if let Some(s) = schema {
                    let name = k8s.pick(type_entries(path).unwrap()).unwrap();
                    let mut cache = Cache::default();
                    let inlined = k8s.inline_def(&mut cache, name, &mut Vec::new());
                    assert_eq!(Value::Object(s), inlined, "1.{minor} {path}");
                    assert!(!has_ref(&inlined), "1.{minor} {path} still has a $ref");
                }
            }
        }
    }
}
