//! The runtime benchmark (`bench/runtime.sh`, BENCHMARKS.md's "Runtime"): an operator process is
//! started against a fresh envtest control plane, `count` Memcached objects are created, and
//! this harness plays the deployment controller (no kube-controller-manager runs), so that the
//! operator can see its Deployments become available and mark each Memcached `Available`.
//!
//! Each side gets its own control plane (same binaries and flags), so that neither sees the
//! other's objects. What is measured: the time from the first create to the last `Available`,
//! each object's create → `Available` latency, the start-up (process spawn → the operator's
//! first write to an object created before it started), and the process's peak RSS and CPU time.

mod deployments;
mod memcacheds;
mod operator;

use std::{
    collections::HashMap,
    path::{Path, PathBuf},
    time::{Duration, Instant},
};

use kube::Api;
use opgen_envtest::ControlPlane;

pub use operator::{Operator, Usage};

/// What a benchmark step failed at.
pub type Error = Box<dyn std::error::Error + Send + Sync>;

/// The namespace the Memcached objects are created in.
const NAMESPACE: &str = "default";

/// The Memcached created before the operator starts: its first change times the start-up.
const WARM_UP: &str = "warm-up";

/// examples/memcached-operator's CRD, which both operators reconcile.
pub fn crd_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/memcached-operator/config/crd/bases")
}

/// One operator's run.
#[derive(Clone, Debug)]
pub struct Report {
    pub operator: String,
    pub count: usize,
    /// From the first create to the last object seen `Available`.
    pub all_available: Duration,
    /// Create → `Available`, per object.
    pub latency_p50: Duration,
    pub latency_p99: Duration,
    /// Process spawn → its first write to the warm-up object (finalizer or status).
    pub startup: Duration,
    /// Resident after start-up, its warm-up object reconciled (VmRSS, KiB).
    pub idle_rss_kib: u64,
    pub usage: Usage,
    /// CPU time of kube-apiserver and etcd during the run: the work the operator's requests
    /// (and the harness's) cost the control plane.
    pub control_plane_cpu: Duration,
    pub binary_bytes: u64,
}

impl Report {
    /// Objects made `Available` per second.
    pub fn throughput(&self) -> f64 {
        self.count as f64 / self.all_available.as_secs_f64()
    }
}

/// Runs `operator` against a fresh control plane with `count` Memcached objects and checks
/// that every one got its Deployment and became `Available`.
pub async fn run(operator: &Operator, count: usize) -> Result<Report, Error> {
    let plane = ControlPlane::start().await?;
    let control_plane_cpu = || -> Result<Duration, Error> {
        let [etcd, apiserver] = plane.process_ids();
        Ok(operator::process_cpu(etcd)? + operator::process_cpu(apiserver)?)
    };
    let control_plane_started = control_plane_cpu()?;
    let client = plane.client()?;
    opgen_envtest::install_crds(&client, crd_dir()).await?;
    let api = Api::namespaced_with(client.clone(), NAMESPACE, &memcacheds::resource());
    let _deployment_controller = deployments::play_controller(client.clone());
    let mut watch = memcacheds::Watch::start(api.clone());

    let deadline = Instant::now() + Duration::from_secs(60 + count as u64);
    memcacheds::create(&api, WARM_UP).await?;
    let mut process = operator.spawn(plane.kubeconfig_path())?;
    let first_write = process
        .until(deadline, "its first reconcile", watch.first_write(WARM_UP))
        .await?;
    let startup = first_write - process.started;
    let warm_up = [WARM_UP.to_owned()];
    process
        .until(deadline, "the warm-up object", watch.available(&warm_up))
        .await?;
    let idle_rss_kib = process.rss_kib()?;

    let names: Vec<String> = (0..count).map(|i| format!("memcached-{i:05}")).collect();
    let first_create = Instant::now();
    let created = memcacheds::create_all(&api, &names).await?;
    let available = process
        .until(deadline, "every object Available", watch.available(&names))
        .await?;
    let usage = process.usage()?;
    let control_plane_cpu = control_plane_cpu()? - control_plane_started;
    process.stop().await;
    deployments::check_controlled(client, NAMESPACE, &names).await?;

    let last = available.values().max().copied().unwrap_or(first_create);
    let mut latencies = latencies(&created, &available);
    latencies.sort();
    Ok(Report {
        operator: operator.name.clone(),
        count,
        all_available: last - first_create,
        latency_p50: percentile(&latencies, 0.50),
        latency_p99: percentile(&latencies, 0.99),
        startup,
        idle_rss_kib,
        usage,
        control_plane_cpu,
        binary_bytes: std::fs::metadata(&operator.binary)?.len(),
    })
}

fn latencies(
    created: &HashMap<String, Instant>,
    available: &HashMap<String, Instant>,
) -> Vec<Duration> {
    created
        .iter()
        .map(|(name, at)| available[name].saturating_duration_since(*at))
        .collect()
}

/// The nearest-rank percentile of sorted `values` (zero for none).
fn percentile(values: &[Duration], p: f64) -> Duration {
    let rank = (p * values.len() as f64).ceil() as usize;
    values
        .get(rank.saturating_sub(1))
        .copied()
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_are_nearest_rank() {
        let values: Vec<Duration> = (1..=200).map(Duration::from_millis).collect();
        assert_eq!(percentile(&values, 0.50), Duration::from_millis(100));
        assert_eq!(percentile(&values, 0.99), Duration::from_millis(198));
        assert_eq!(
            percentile(&values[..1], 0.99),
            Duration::from_millis(1),
            "one value is every percentile"
        );
        assert_eq!(percentile(&[], 0.5), Duration::ZERO);
    }
}
