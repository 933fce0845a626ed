//! Leader election on a `coordination.k8s.io/v1` Lease (kube-lease-manager).
//!
//! Like controller-runtime, a replica runs its controllers only while it holds
//! the Lease, and stops as soon as it cannot renew it: the pod then exits
//! non-zero and is restarted as a candidate.
//!
//! Needs RBAC: `get`, `create` and `patch` on `leases` in the Lease namespace.

use std::{
    hash::{BuildHasher, RandomState},
    time::Duration,
};

use kube::Client;
use kube_lease_manager::{LeaseManager, LeaseManagerBuilder};
use tokio_util::sync::CancellationToken;
use tracing::{info, warn};

use crate::{Error, Result, instance_name};

/// Pause before retrying after a failed attempt to acquire the Lease.
const RETRY_PERIOD: Duration = Duration::from_secs(2);

/// This replica's candidacy for the Lease.
pub struct LeaderElector {
    manager: LeaseManager,
    identity: String,
}

impl LeaderElector {
    /// Joins the election for the Lease `lease` (shared by all replicas), creating it in
    /// `namespace` if needed, under a per-process identity.
    pub async fn new(client: Client, lease: &str, namespace: &str) -> Result<Self> {
        Self::with_identity(client, lease, namespace, identity()).await
    }

    /// Joins the election as `identity`, which must differ between candidates.
    pub async fn with_identity(
        client: Client,
        lease: &str,
        namespace: &str,
        identity: String,
    ) -> Result<Self> {
        info!(%identity, lease, "joining leader election");
        let manager = LeaseManagerBuilder::new(client, lease)
            .with_namespace(namespace)
            .with_identity(&identity)
            .build()
            .await?;
        Ok(Self { manager, identity })
    }

    /// This candidate's holder identity.
    pub fn identity(&self) -> &str {
        &self.identity
    }

    /// Waits until this replica holds the Lease. Returns `false` if `shutdown`
    /// was cancelled first.
    pub async fn acquire(&self, shutdown: &CancellationToken) -> bool {
        loop {
            tokio::select! {
                () = shutdown.cancelled() => return false,
                changed = self.manager.changed() => match changed {
                    Ok(true) => return true,
                    Ok(false) => {}
                    Err(error) => {
                        warn!(%error, "cannot acquire the leader lease, retrying");
                        tokio::time::sleep(RETRY_PERIOD).await;
                    }
                },
            }
        }
    }

    /// Renews the Lease while leading. Completes only when leadership is lost:
    /// another replica took the Lease, or renewing it failed. Continuing after
    /// a failed renewal could run two leaders at once.
    pub async fn hold(&self) -> Error {
        match self.manager.changed().await {
            Ok(_) => Error::LeaderElectionLost,
            Err(error) => error.into(),
        }
    }

    /// Gives the Lease up so that another replica takes over without waiting
    /// for it to expire. A no-op if this replica is not the holder.
    pub async fn release(&self) {
        match self.manager.release().await {
            Ok(()) => info!("released the leader lease"),
            Err(error) => warn!(%error, "cannot release the leader lease"),
        }
    }
}

/// A per-process holder identity: the pod name plus a random suffix, like
/// controller-runtime's `<hostname>_<uuid>`. The suffix keeps a restarted
/// container, or two local runs on one host, from sharing an identity.
fn identity() -> String {
    // RandomState is seeded randomly per process: a dependency-free random suffix.
    let suffix = RandomState::new().hash_one(std::process::id());
    match instance_name() {
        Some(name) => format!("{name}_{suffix:016x}"),
        None => format!("{suffix:016x}"),
    }
}
