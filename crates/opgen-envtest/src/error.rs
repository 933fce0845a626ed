use std::path::PathBuf;

/// What went wrong while setting up or using the control plane.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The control plane binaries are not where they were looked for.
    #[error("{0}")]
    AssetsNotFound(String),
    /// A binary could not be started.
    #[error("cannot start {binary}: {source}")]
    Spawn {
        binary: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A process exited or never became ready; `log` holds the last lines of its output.
    #[error("{what}\n--- last lines of {log_path} ---\n{log}")]
    NotReady {
        what: String,
        log_path: PathBuf,
        log: String,
    },
    /// Certificates or keys could not be made.
    #[error("cannot make the control plane's certificates: {0}")]
    Certificates(#[from] rcgen::Error),
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A YAML file could not be read as Kubernetes objects.
    #[error("{path}: {message}")]
    Yaml { path: PathBuf, message: String },
    /// The API server refused a request.
    #[error("{context}: {source}")]
    Kube {
        context: String,
        #[source]
        source: kube::Error,
    },
    /// The client configuration could not be built.
    #[error("cannot build a client: {0}")]
    Config(String),
    /// Waiting for a condition took too long.
    #[error("timed out after {seconds} s waiting for {what}")]
    Timeout { what: String, seconds: u64 },
}

impl Error {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }

    pub(crate) fn kube(context: impl Into<String>, source: kube::Error) -> Self {
        Error::Kube {
            context: context.into(),
            source,
        }
    }
}
