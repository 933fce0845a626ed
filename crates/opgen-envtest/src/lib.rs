//! A real Kubernetes control plane for tests: etcd and kube-apiserver on loopback ports,
//! what controller-runtime's `envtest` gives Go operators.
//!
//! There is no kubelet and no controller-manager: nothing schedules pods, garbage-collects
//! owned objects or finalizes namespaces. Tests assert on the objects a controller writes.
//!
//! ```no_run
//! # async fn example() -> Result<(), opgen_envtest::Error> {
//! // One control plane per test binary, started by the first test that asks for it.
//! let Some(control_plane) = opgen_envtest::shared_or_skip().await else {
//!     return Ok(()); // binaries absent on a developer's machine: a one-line notice was printed
//! };
//! let admin = control_plane.client()?;
//! opgen_envtest::install_crds(&admin, "config/crd/bases").await?;
//! // Run the controller as the ServiceAccount the generated ClusterRole is bound to.
//! let manager = control_plane
//!     .client_with_roles("config/rbac/role.yaml", "operator-system", "controller-manager")
//!     .await?;
//! # let _ = manager;
//! # Ok(())
//! # }
//! ```
//!
//! The binaries come from `KUBEBUILDER_ASSETS` (as with controller-runtime) or from the cache
//! that opgen's `setup-envtest.sh` fills (see [`Assets::locate`]).

pub mod agreement;
mod apply;
mod assets;
mod certs;
mod control_plane;
mod error;
mod filled;
mod ports;
mod process;
mod webhooks;

pub use apply::{apply_documents, apply_file, install_crds, parse_documents};
pub use assets::{Assets, DEFAULT_K8S_VERSION};
pub use control_plane::{
    ControlPlane, MANAGER_SERVICE_ACCOUNT, OperatorClients, eventually, shared, shared_or_skip,
};
pub use error::Error;
pub use filled::object_with_every_field;
pub use webhooks::LocalWebhooks;
