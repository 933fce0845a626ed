//! Schemas of k8s-openapi types embedded in custom resources.
//!
//! A handful of types have hand-written schemas because their wire format is not what
//! their Rust structure says (Quantity, IntOrString, Time) or because a CRD must not
//! describe them (ObjectMeta below the root). `Condition` carries the validations that
//! controller-gen takes from apimachinery's Go markers.

use serde_json::{Map, Value, json};

pub struct K8sTypes {
    special: Map<String, Value>,
}

/// controller-gen's quantity pattern (resource.Quantity), so CRDs validate quantities alike.
pub const QUANTITY_PATTERN: &str = r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$";

impl Default for K8sTypes {
    fn default() -> Self {
        K8sTypes::new()
    }
}

impl K8sTypes {
    pub fn new() -> Self {
        let meta = "apimachinery::pkg::apis::meta::v1::";
        let mut special = Map::new();
        let mut add = |path: String, schema: Value| {
            special.insert(path, schema);
        };
        let date_time = json!({"type": "string", "format": "date-time"});
        add(format!("{meta}Time"), date_time.clone());
        add(format!("{meta}MicroTime"), date_time);
        add(format!("{meta}ObjectMeta"), json!({"type": "object"}));
        add(format!("{meta}Condition"), condition());
        add(
            "apimachinery::pkg::api::resource::Quantity".into(),
            json!({"anyOf": [{"type": "integer"}, {"type": "string"}], "pattern": QUANTITY_PATTERN, "x-kubernetes-int-or-string": true}),
        );
        add(
            "apimachinery::pkg::util::intstr::IntOrString".into(),
            json!({"anyOf": [{"type": "integer"}, {"type": "string"}], "x-kubernetes-int-or-string": true}),
        );
        add(
            "apimachinery::pkg::runtime::RawExtension".into(),
            json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true}),
        );
        add(
            "apiextensions_apiserver::pkg::apis::apiextensions::v1::JSON".into(),
            json!({"x-kubernetes-preserve-unknown-fields": true}),
        );
        K8sTypes { special }
    }

    /// The schema of `k8s_openapi::<path>`, fully expanded.
    pub fn schema(&self, path: &str) -> Option<Map<String, Value>> {
        self.special.get(path).and_then(Value::as_object).cloned()
    }
}

/// metav1.Condition as controller-gen renders it from apimachinery (spec §4.10).
fn condition() -> Value {
    json!({
        "description": "Condition contains details for one aspect of the current state of this API Resource.",
        "properties": {
            "lastTransitionTime": {
                "description": "lastTransitionTime is the last time the condition transitioned from one status to another.\nThis should be when the underlying condition changed.  If that is not known, then using the time when the API field changed is acceptable.",
                "format": "date-time",
                "type": "string"
            },
            "message": {
                "description": "message is a human readable message indicating details about the transition.\nThis may be an empty string.",
                "maxLength": 32768,
                "type": "string"
            },
            "observedGeneration": {
                "description": "observedGeneration represents the .metadata.generation that the condition was set based upon.\nFor instance, if .metadata.generation is currently 12, but the .status.conditions[x].observedGeneration is 9, the condition is out of date\nwith respect to the current state of the instance.",
                "format": "int64",
                "minimum": 0,
                "type": "integer"
            },
            "reason": {
                "description": "reason contains a programmatic identifier indicating the reason for the condition's last transition.\nProducers of specific condition types may define expected values and meanings for this field,\nand whether the values are considered a guaranteed API.\nThe value should be a CamelCase string.\nThis field may not be empty.",
                "maxLength": 1024,
                "minLength": 1,
                "pattern": "^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$",
                "type": "string"
            },
            "status": {
                "description": "status of the condition, one of True, False, Unknown.",
                "enum": ["True", "False", "Unknown"],
                "type": "string"
            },
            "type": {
                "description": "type of condition in CamelCase or in foo.example.com/CamelCase.",
                "maxLength": 316,
                "pattern": "^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$",
                "type": "string"
            }
        },
        "required": ["lastTransitionTime", "message", "reason", "status", "type"],
        "type": "object"
    })
}
