//! The error type of the manager and of reconciles that have no error type of their own.

use kube::runtime::finalizer;

/// Everything that can fail in a reconcile or in the manager.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A call to the Kubernetes API failed.
    #[error("Kubernetes API error: {}", one_line(.0))]
    Kube(#[from] kube::Error),

    /// The finalizer helper failed, or the reconcile it wrapped did.
    ///
    /// Boxed because `finalizer::Error` is generic over this very type.
    #[error("finalizer error: {0}")]
    Finalizer(#[source] Box<finalizer::Error<Error>>),

    /// The object lacks a field the API server always sets.
    #[error("object has no {0}")]
    MissingObjectKey(&'static str),

    /// An object a controller would own exists but is not controlled by its owner: another
    /// owner controls it, or nobody does (see [`owned::get_owned`](crate::owned::get_owned)).
    /// It is never adopted.
    #[error(
        "{object} {}: not adopting it (delete it if it is stale, or choose another name)",
        match controller {
            Some(controller) => format!("is controlled by {controller}"),
            None => "exists without a controller".to_owned(),
        }
    )]
    OwnedByAnother {
        /// Kind, namespace and name of the object.
        object: String,
        /// Kind and name of its controller, if it has one.
        controller: Option<String>,
    },

    /// The CRD of a watched kind is not installed in the cluster.
    #[error("CustomResourceDefinition {0} is not installed: run `make install` first")]
    CrdNotInstalled(String),

    /// No kubeconfig or in-cluster configuration was found.
    #[error("cannot configure the Kubernetes client: {}", one_line(.0))]
    ClientConfig(#[source] kube::Error),

    /// The API server did not answer the startup probe.
    #[error("cannot reach the Kubernetes API server: {}", one_line(.0))]
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

    /// A TLS certificate (metrics or webhook server) could not be loaded or generated.
    #[error("{context}: {source}")]
    Tls {
        /// What was being done, naming the file involved.
        context: String,
        /// The underlying error.
        source: Box<dyn std::error::Error + Send + Sync>,
    },

    /// An error of the operator's own, with its metric label (see [`Error::other`]).
    #[error("{source}")]
    Other {
        /// The `error` label of the reconcile error metric: short and bounded.
        label: &'static str,
        /// The underlying error.
        source: Box<dyn std::error::Error + Send + Sync>,
    },
}

/// A kube error on one line: kube's own text of an API error repeats the server's message and
/// appends the whole `Status` in Debug form; this is `403 Forbidden: <the server's message>`.
pub(crate) fn one_line(error: &kube::Error) -> String {
    match error {
        kube::Error::Api(status) => {
            format!("{} {}: {}", status.code, status.reason, status.message)
        }
        other => other.to_string(),
    }
}

impl Error {
    /// The CamelCase reason of a condition reporting this error (see
    /// [`degraded`](crate::degraded)): `NotOwned` for [`Error::OwnedByAnother`], the label of
    /// [`Error::other`] in CamelCase (`invalid_spec` is `InvalidSpec`), else `ReconcileFailed`.
    ///
    /// ```
    /// let error = opgen_runtime::Error::other("invalid_spec", "spec.size must be positive");
    /// assert_eq!(error.reason(), "InvalidSpec");
    /// ```
    pub fn reason(&self) -> String {
        match self {
            Error::OwnedByAnother { .. } => "NotOwned".to_owned(),
            Error::Other { label, .. } => label
                .split('_')
                .flat_map(|word| {
                    let mut chars = word.chars();
                    chars
                        .next()
                        .map(|first| first.to_ascii_uppercase())
                        .into_iter()
                        .chain(chars)
                })
                .collect(),
            _ => "ReconcileFailed".to_owned(),
        }
    }

    /// An error of the operator's own, counted under `label` in the reconcile error metric.
    ///
    /// ```
    /// let error = opgen_runtime::Error::other("invalid_spec", "spec.size must be positive");
    /// assert_eq!(error.to_string(), "spec.size must be positive");
    /// ```
    pub fn other(
        label: &'static str,
        source: impl Into<Box<dyn std::error::Error + Send + Sync>>,
    ) -> Self {
        Error::Other {
            label,
            source: source.into(),
        }
    }
}

/// Errors that name their kind with a short, bounded label: the `error` label of the reconcile
/// error metric. Implement it for an operator's own reconcile error type.
pub trait MetricLabel {
    /// The label, e.g. `"kube"`.
    fn metric_label(&self) -> &'static str;
}

impl MetricLabel for Error {
    fn metric_label(&self) -> &'static str {
        match self {
            Error::Kube(_) => "kube",
            Error::Finalizer(error) => match error.as_ref() {
                finalizer::Error::ApplyFailed(inner) | finalizer::Error::CleanupFailed(inner) => {
                    inner.metric_label()
                }
                _ => "finalizer",
            },
            Error::MissingObjectKey(_) => "missing_object_key",
            Error::OwnedByAnother { .. } => "owned_by_another",
            Error::CrdNotInstalled(_) => "crd_not_installed",
            Error::ClientConfig(_) => "client_config",
            Error::ApiServerUnreachable(_) => "apiserver_unreachable",
            Error::LeaderElection(_) | Error::LeaderElectionLost => "leader_election",
            Error::Io { .. } => "io",
            Error::Tls { .. } => "tls",
            Error::Other { label, .. } => label,
        }
    }
}

/// Shorthand for results carrying [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
