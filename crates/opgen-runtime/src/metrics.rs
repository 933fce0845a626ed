//! Reconcile metrics, served in OpenMetrics text format on `/metrics`:
//! `<prefix>_reconcile_total`, `<prefix>_reconcile_errors_total` (by error label) and
//! `<prefix>_reconcile_duration_seconds`, each by controller.

use std::time::Instant;

use prometheus_client::{
    encoding::{EncodeLabelSet, text},
    metrics::{
        counter::Counter,
        family::Family,
        histogram::{Histogram, exponential_buckets},
    },
    registry::{Registry, Unit},
};

use crate::MetricLabel;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ControllerLabels {
    controller: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ErrorLabels {
    controller: &'static str,
    error: &'static str,
}

/// Per-controller reconcile metrics.
#[derive(Debug)]
pub struct Metrics {
    registry: Registry,
    reconciles: Family<ControllerLabels, Counter>,
    errors: Family<ErrorLabels, Counter>,
    durations: Family<ControllerLabels, Histogram, fn() -> Histogram>,
}

impl Metrics {
    /// Metrics whose names start with `prefix` and an underscore, e.g. the operator's crate
    /// name.
    pub fn new(prefix: &str) -> Self {
        let mut registry = Registry::with_prefix(prefix);
        let reconciles = Family::<ControllerLabels, Counter>::default();
        let errors = Family::<ErrorLabels, Counter>::default();
        let durations: Family<ControllerLabels, Histogram, fn() -> Histogram> =
            Family::new_with_constructor(|| Histogram::new(exponential_buckets(0.005, 2.0, 12)));
        registry.register("reconcile", "Reconciles started", reconciles.clone());
        registry.register(
            "reconcile_errors",
            "Reconciles that returned an error, by error kind",
            errors.clone(),
        );
        registry.register_with_unit(
            "reconcile_duration",
            "Time spent in reconcile",
            Unit::Seconds,
            durations.clone(),
        );
        Self {
            registry,
            reconciles,
            errors,
            durations,
        }
    }

    /// Creates the series of `controller` at zero, so that rates and dashboards
    /// work before its first reconcile.
    pub fn init_controller(&self, controller: &'static str) {
        let labels = ControllerLabels { controller };
        self.reconciles.get_or_create_owned(&labels);
        self.durations.get_or_create_owned(&labels);
    }

    /// Counts a reconcile of `controller`; its duration is recorded when the
    /// returned timer is dropped.
    pub fn reconcile_started(&self, controller: &'static str) -> ReconcileTimer {
        let labels = ControllerLabels { controller };
        self.reconciles.get_or_create(&labels).inc();
        ReconcileTimer {
            histogram: self.durations.get_or_create_owned(&labels),
            start: Instant::now(),
        }
    }

    /// Counts a failed reconcile of `controller`.
    pub fn reconcile_failed(&self, controller: &'static str, error: &dyn MetricLabel) {
        let labels = ErrorLabels {
            controller,
            error: error.metric_label(),
        };
        self.errors.get_or_create(&labels).inc();
    }

    /// Renders all metrics in OpenMetrics text format.
    pub fn encode(&self) -> String {
        let mut out = String::new();
        // Writing into a String cannot fail.
        text::encode(&mut out, &self.registry).expect("encoding metrics into a String");
        out
    }
}

/// Records the duration of one reconcile when dropped.
#[derive(Debug)]
pub struct ReconcileTimer {
    histogram: Histogram,
    start: Instant,
}

impl Drop for ReconcileTimer {
    fn drop(&mut self) {
        self.histogram.observe(self.start.elapsed().as_secs_f64());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Error;

    #[test]
    fn encodes_reconcile_metrics_per_controller() {
        let metrics = Metrics::new("example_operator");
        metrics.init_controller("example");
        assert!(
            metrics
                .encode()
                .contains("example_operator_reconcile_total{controller=\"example\"} 0")
        );

        drop(metrics.reconcile_started("example"));
        metrics.reconcile_failed("example", &Error::MissingObjectKey(".metadata.name"));

        let text = metrics.encode();

        assert!(text.contains("example_operator_reconcile_total{controller=\"example\"} 1"));
        assert!(text.contains(
            "example_operator_reconcile_errors_total{controller=\"example\",error=\"missing_object_key\"} 1"
        ));
        assert!(text.contains(
            "example_operator_reconcile_duration_seconds_count{controller=\"example\"} 1"
        ));
        assert!(text.ends_with("# EOF\n"));
    }
}
