// Copyright 2026 The tdset-operator Authors.
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

//! The `TDSet` kind: a Deployment whose replica count follows an hour-of-day schedule.
//!
//! The API equals upstream's (BackAged/tdset-operator `api/v1/tdset_types.go`) field by
//! field. Go `int` fields have no `format` in the upstream schema; they are `i64` here,
//! with `Schemaless` + `Type=integer` so that the schema stays a bare `integer` and any
//! value the API server accepts also deserializes.

use std::time::Duration;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use kube::CustomResource;
use serde::{Deserialize, Serialize};

/// Requeue interval, in minutes, when `intervalMint` is not set (upstream's default).
pub const DEFAULT_INTERVAL_MINUTES: i32 = 5;

/// TDSetSpec defines the desired state of TDSet
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[kube(
    group = "schedule.rs",
    version = "v1",
    kind = "TDSet",
    plural = "tdsets",
    namespaced,
    status = "TDSetStatus",
    schema = "disabled",
    doc = "TDSet is the Schema for the tdsets API"
)]
#[serde(rename_all = "camelCase")]
pub struct TDSetSpec {
    /// The container the Deployment runs.
    // +kubebuilder:validation:Required
    pub container: Container,

    /// When set, a ClusterIP Service named after the TDSet exposes the container port on
    /// this port. Removing it deletes that Service.
    // +kubebuilder:validation:Optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service: Option<Service>,

    /// Hour-of-day windows (UTC) with their replica counts. The first window that
    /// contains the current hour wins.
    // +kubebuilder:validation:Required
    pub scheduling_config: Vec<Scheduling>,

    /// Replica count outside every window.
    // +kubebuilder:validation:Required
    // +kubebuilder:validation:Minimum=1
    pub default_replica: i32,

    /// Minutes between two reconciles of the schedule (default 5).
    // +kubebuilder:validation:Optional
    // +kubebuilder:validation:Minimum=1
    // +kubebuilder:validation:Maximum=1440
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval_mint: Option<i32>,
}

/// Container defines container related properties.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Container {
    /// The container image.
    pub image: String,

    /// The port the container listens on.
    // +kubebuilder:validation:Schemaless
    // +kubebuilder:validation:Type=integer
    pub port: i64,
}

/// Service defines service related properties.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Service {
    /// The port the Service exposes; it forwards to the container port.
    // +kubebuilder:validation:Schemaless
    // +kubebuilder:validation:Type=integer
    pub port: i64,
}

/// SchedulingConfig defines scheduling related properties.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Scheduling {
    /// First hour (UTC) of the window, included.
    // +kubebuilder:validation:Schemaless
    // +kubebuilder:validation:Type=integer
    // +kubebuilder:validation:Minimum=0
    // +kubebuilder:validation:Maximum=23
    pub start_time: i64,

    /// Hour (UTC) the window ends at, excluded. A value below startTime wraps past
    /// midnight (22 to 6 covers 22:00-05:59); a value equal to startTime never matches.
    // +kubebuilder:validation:Schemaless
    // +kubebuilder:validation:Type=integer
    // +kubebuilder:validation:Minimum=0
    // +kubebuilder:validation:Maximum=23
    pub end_time: i64,

    /// Replica count inside the window.
    // +kubebuilder:validation:Schemaless
    // +kubebuilder:validation:Type=integer
    // +kubebuilder:validation:Minimum=0
    pub replica: i64,
}

/// TDSetStatus defines the observed state of TDSet
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct TDSetStatus {
    /// Available, Progressing and Degraded, with the generation they were computed for.
    // +optional
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<Condition>,
}

impl Scheduling {
    /// Whether `hour` (0-23) falls in the window `[startTime, endTime)`, which wraps past
    /// midnight when `endTime < startTime`.
    pub fn contains(&self, hour: i64) -> bool {
        let (start, end) = (self.start_time, self.end_time);
        if start <= end {
            start <= hour && hour < end
        } else {
            hour >= start || hour < end
        }
    }
}

impl TDSetSpec {
    /// The replica count at `hour` (0-23): the first window containing it, else
    /// `defaultReplica`.
    pub fn replicas_at(&self, hour: i64) -> i64 {
        self.scheduling_config
            .iter()
            .find(|window| window.contains(hour))
            .map_or(i64::from(self.default_replica), |window| window.replica)
    }

    /// The requeue interval: `intervalMint` minutes, 5 when unset (or not positive).
    pub fn interval(&self) -> Duration {
        let minutes = self
            .interval_mint
            .filter(|minutes| *minutes > 0)
            .unwrap_or(DEFAULT_INTERVAL_MINUTES);
        Duration::from_secs(60 * u64::from(minutes.unsigned_abs()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kube::{CustomResourceExt, Resource};

    fn window(start_time: i64, end_time: i64, replica: i64) -> Scheduling {
        Scheduling {
            start_time,
            end_time,
            replica,
        }
    }

    fn spec(windows: Vec<Scheduling>) -> TDSetSpec {
        TDSetSpec {
            scheduling_config: windows,
            default_replica: 3,
            ..TDSetSpec::default()
        }
    }

    #[test]
    fn resource_identity_matches_the_crd_and_rbac_markers() {
        assert_eq!(TDSet::crd_name(), "tdsets.schedule.rs");
        assert_eq!(TDSet::api_version(&()), "schedule.rs/v1");
        assert_eq!(TDSet::kind(&()), "TDSet");
        assert_eq!(TDSet::plural(&()), "tdsets");
    }

    #[test]
    fn optional_fields_are_not_serialized_and_json_names_match_upstream() {
        let object = TDSet::new(
            "sample",
            TDSetSpec {
                container: Container {
                    image: "crccheck/hello-world".into(),
                    port: 8000,
                },
                scheduling_config: vec![window(18, 19, 5)],
                default_replica: 3,
                ..TDSetSpec::default()
            },
        );
        let json = serde_json::to_value(&object).expect("TDSet serializes");
        assert_eq!(
            json["spec"],
            serde_json::json!({
                "container": {"image": "crccheck/hello-world", "port": 8000},
                "schedulingConfig": [{"startTime": 18, "endTime": 19, "replica": 5}],
                "defaultReplica": 3,
            })
        );
        assert!(json.get("status").is_none());

        let status = serde_json::to_value(TDSetStatus::default()).expect("status serializes");
        assert_eq!(status, serde_json::json!({}));
    }

    #[test]
    fn upstream_sample_deserializes() {
        let spec: TDSetSpec = serde_json::from_value(serde_json::json!({
            "container": {"image": "crccheck/hello-world", "port": 8000},
            "service": {"port": 80},
            "schedulingConfig": [
                {"startTime": 18, "endTime": 19, "replica": 5},
                {"startTime": 1, "endTime": 2, "replica": 1},
            ],
            "defaultReplica": 3,
            "intervalMint": 10,
        }))
        .expect("spec deserializes");
        assert_eq!(spec.service, Some(Service { port: 80 }));
        assert_eq!(spec.interval_mint, Some(10));
        assert_eq!(spec.scheduling_config[1], window(1, 2, 1));
    }

    #[test]
    fn window_includes_its_start_and_excludes_its_end() {
        let w = window(18, 20, 5);
        assert!(!w.contains(17));
        assert!(w.contains(18));
        assert!(w.contains(19));
        assert!(!w.contains(20));
    }

    #[test]
    fn window_wrapping_midnight_covers_both_sides() {
        let night = window(22, 6, 1);
        for hour in [22, 23, 0, 3, 5] {
            assert!(night.contains(hour), "hour {hour} is in 22-6");
        }
        for hour in [6, 12, 21] {
            assert!(!night.contains(hour), "hour {hour} is not in 22-6");
        }
    }

    #[test]
    fn window_ending_at_midnight_covers_hour_23() {
        // Upstream cannot express it: endTime <= 23 and windows never wrapped.
        let late = window(23, 0, 2);
        assert!(late.contains(23));
        assert!(!late.contains(0));
        assert!(!late.contains(22));
    }

    #[test]
    fn empty_window_never_matches() {
        let empty = window(7, 7, 9);
        assert!((0..24).all(|hour| !empty.contains(hour)));
    }

    #[test]
    fn replicas_follow_the_first_matching_window_else_the_default() {
        let spec = spec(vec![window(18, 19, 5), window(1, 2, 1), window(18, 22, 7)]);
        assert_eq!(spec.replicas_at(17), 3, "outside every window");
        assert_eq!(spec.replicas_at(18), 5, "first match wins over 18-22");
        assert_eq!(spec.replicas_at(19), 7, "19 is only in 18-22");
        assert_eq!(spec.replicas_at(1), 1);
        assert_eq!(spec.replicas_at(2), 3, "end hour is excluded");
        assert_eq!(spec.replicas_at(22), 3);
    }

    #[test]
    fn replicas_without_windows_are_the_default() {
        assert_eq!(spec(vec![]).replicas_at(12), 3);
    }

    #[test]
    fn window_may_scale_to_zero() {
        let spec = spec(vec![window(22, 6, 0)]);
        assert_eq!(spec.replicas_at(23), 0);
        assert_eq!(spec.replicas_at(6), 3);
    }

    #[test]
    fn interval_defaults_to_five_minutes() {
        let mut spec = spec(vec![]);
        assert_eq!(spec.interval(), Duration::from_secs(5 * 60));
        spec.interval_mint = Some(15);
        assert_eq!(spec.interval(), Duration::from_secs(15 * 60));
        spec.interval_mint = Some(0);
        assert_eq!(spec.interval(), Duration::from_secs(5 * 60));
    }
}
