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

//! The crate-wide error type.

use kube::runtime::finalizer;

/// Everything that can fail in a reconcile or in the manager.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A call to the Kubernetes API failed.
    #[error("Kubernetes API error: {0}")]
    Kube(#[from] kube::Error),

    /// The finalizer helper failed, or the reconcile it wrapped did.
    ///
    /// Boxed because `finalizer::Error` is generic over this very type.
    #[error("finalizer error: {0}")]
    Finalizer(#[source] Box<finalizer::Error<Error>>),

    /// The spec holds a value the API server accepted but the children cannot use.
    #[error("invalid spec: {0}")]
    InvalidSpec(String),

    /// A child object of the expected name exists but is not controlled by this object,
    /// so the reconcile leaves it alone rather than adopt or overwrite it.
    #[error("{kind} {name} already exists and is not controlled by this object")]
    NotOwned {
        /// The child's kind.
        kind: &'static str,
        /// The child's name.
        name: String,
    },

    /// The object lacks a field the API server always sets.
    #[error("object has no {0}")]
    MissingObjectKey(&'static str),

    /// The CRD of a watched kind is not installed in the cluster.
    #[error("CustomResourceDefinition {0} is not installed: run `make install` first")]
    CrdNotInstalled(String),

    /// No kubeconfig or in-cluster configuration was found.
    #[error("cannot configure the Kubernetes client: {0}")]
    ClientConfig(#[source] kube::Error),

    /// The API server did not answer the startup probe.
    #[error("cannot reach the Kubernetes API server: {0}")]
    ApiServerUnreachable(#[source] kube::Error),

    /// Leader election could not create, read or renew its Lease.
    #[error("leader election failed: {0}")]
    LeaderElection(#[from] kube_lease_manager::LeaseManagerError),

    /// Another replica took over the Lease while this one was leading.
    #[error("leader election lost")]
    LeaderElectionLost,

    /// Binding a listener or installing a signal handler failed.
    #[error("{context}: {source}")]
    Io {
        /// What was being done.
        context: String,
        /// The underlying error.
        source: std::io::Error,
    },

    /// The metrics server's TLS certificate could not be loaded or generated.
    #[error("{context}: {source}")]
    Tls {
        /// What was being done, naming the file involved.
        context: String,
        /// The underlying error.
        source: Box<dyn std::error::Error + Send + Sync>,
    },
}

impl Error {
    /// A short, bounded label for the `error` label of the reconcile error metric.
    pub fn metric_label(&self) -> &'static str {
        match self {
            Error::Kube(_) => "kube",
            Error::Finalizer(error) => match error.as_ref() {
                finalizer::Error::ApplyFailed(inner) | finalizer::Error::CleanupFailed(inner) => {
                    inner.metric_label()
                }
                _ => "finalizer",
            },
            Error::InvalidSpec(_) => "invalid_spec",
            Error::NotOwned { .. } => "not_owned",
            Error::MissingObjectKey(_) => "missing_object_key",
            Error::CrdNotInstalled(_) => "crd_not_installed",
            Error::ClientConfig(_) => "client_config",
            Error::ApiServerUnreachable(_) => "apiserver_unreachable",
            Error::LeaderElection(_) | Error::LeaderElectionLost => "leader_election",
            Error::Io { .. } => "io",
            Error::Tls { .. } => "tls",
        }
    }
}

/// Shorthand for results carrying [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
