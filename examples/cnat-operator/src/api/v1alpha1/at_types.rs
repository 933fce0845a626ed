// Copyright 2026 The cnat-operator Authors.
//
// Licensed under the Apache License, Version 2.0 (the "License");
// you may not use this file except in compliance with the License.
// You may obtain a copy of the License at
//
//     http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing, software
// distributed under the License is distributed on an "AS IS" BASIS,
// WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
// See the License for the specific language governing permissions and
// limitations under the License.

//! The `At` kind: run a command once, at a given time.
//!
//! Ported from the cnat example of "Programming Kubernetes" (chapter 6). The
//! fields, their JSON names and the status phases are those of upstream; the
//! status gains `conditions` to report an invalid schedule and the outcome of
//! the command. Run `make manifests` after editing this file.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use kube::CustomResource;
use serde::{Deserialize, Serialize};

/// The At waits for `spec.schedule` (the phase is empty or `PENDING`).
pub const PHASE_PENDING: &str = "PENDING";
/// The schedule was reached: the command's pod was (or is being) launched.
pub const PHASE_RUNNING: &str = "RUNNING";
/// The pod has finished, successfully or not. Terminal.
pub const PHASE_DONE: &str = "DONE";

/// AtSpec defines the desired state of At.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[kube(
    group = "cnat.programming-kubernetes.info",
    version = "v1alpha1",
    kind = "At",
    plural = "ats",
    namespaced,
    status = "AtStatus",
    schema = "disabled",
    doc = "At runs a command once, in a pod, at the time given by its schedule."
)]
// +kubebuilder:printcolumn:name="Schedule",type=string,JSONPath=`.spec.schedule`
// +kubebuilder:printcolumn:name="Command",type=string,JSONPath=`.spec.command`,priority=1
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
#[serde(rename_all = "camelCase")]
pub struct AtSpec {
    /// Schedule is the desired time the command is supposed to be executed.
    /// Note: the format used here is UTC time, in the layout YYYY-MM-DDTHH:MM:SSZ
    /// (e.g. 2019-04-12T10:12:00Z).
    // +optional
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub schedule: String,

    /// Command is the desired command to be executed, by `/bin/sh -c` in a
    /// busybox container.
    // +optional
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub command: String,
}

/// AtStatus defines the observed state of At.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct AtStatus {
    /// Phase represents the state of the schedule: until the command is executed
    /// it is PENDING, while its pod runs it is RUNNING, afterwards it is DONE.
    // +optional
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub phase: String,

    /// conditions represent the latest observations of the At:
    /// - "ScheduleValid": whether spec.schedule parses (False with the parse error);
    /// - "Succeeded": set when the phase becomes DONE, True when the command's pod
    ///   succeeded and False when it failed.
    // +listType=map
    // +listMapKey=type
    // +optional
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<Condition>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use kube::{CustomResourceExt, Resource};

    #[test]
    fn resource_identity_matches_the_crd_and_rbac_markers() {
        assert_eq!(At::crd_name(), "ats.cnat.programming-kubernetes.info");
        assert_eq!(
            At::api_version(&()),
            "cnat.programming-kubernetes.info/v1alpha1"
        );
        assert_eq!(At::kind(&()), "At");
        assert_eq!(At::plural(&()), "ats");
    }

    #[test]
    fn empty_optional_fields_are_not_serialized() {
        let object = At::new("sample", AtSpec::default());
        let json = serde_json::to_value(&object).expect("At serializes");
        assert_eq!(json["spec"], serde_json::json!({}));
        assert!(json.get("status").is_none());

        let status = serde_json::to_value(AtStatus::default()).expect("status serializes");
        assert_eq!(status, serde_json::json!({}));
    }

    #[test]
    fn json_names_match_upstream() {
        let mut object = At::new(
            "example-at",
            AtSpec {
                schedule: "2019-04-12T10:12:00Z".into(),
                command: "echo YAY".into(),
            },
        );
        object.status = Some(AtStatus {
            phase: PHASE_DONE.into(),
            conditions: vec![],
        });
        let json = serde_json::to_value(&object).expect("At serializes");
        assert_eq!(
            json["spec"],
            serde_json::json!({"schedule": "2019-04-12T10:12:00Z", "command": "echo YAY"})
        );
        assert_eq!(json["status"], serde_json::json!({"phase": "DONE"}));

        // Upstream objects without spec fields or status still deserialize.
        let parsed: At = serde_json::from_value(serde_json::json!({
            "apiVersion": "cnat.programming-kubernetes.info/v1alpha1",
            "kind": "At",
            "metadata": {"name": "empty"},
            "spec": {},
        }))
        .expect("an empty spec deserializes");
        assert_eq!(parsed.spec, AtSpec::default());
        assert_eq!(parsed.status, None);
    }
}
